package xmltree

import (
	"encoding/xml"
	"errors"
	"strings"
	"testing"
)

func TestParseTree(t *testing.T) {
	doc := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n" +
		"<!DOCTYPE a>\n<a xmlns=\"urn:a\" xmlns:b=\"urn:b\" x=\"1\" b:y=\"2\">one<b:c>caf\xe9</b:c>two<!-- c --><![CDATA[<3>]]></a>"
	root, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if root.Name != (xml.Name{Space: "urn:a", Local: "a"}) || root.Line != 3 || root.Col != 1 {
		t.Errorf("root = %v at %d:%d", root.Name, root.Line, root.Col)
	}
	if len(root.Attrs) != 2 || root.Attr("x") != "1" || root.Attr("y") != "" {
		t.Errorf("attrs = %v (namespace declarations dropped, b:y qualified)", root.Attrs)
	}
	if root.Text != "onetwo<3>" {
		t.Errorf("text = %q", root.Text)
	}
	c := root.Child("c")
	if c == nil || c.Name.Space != "urn:b" || c.Text != "café" || c.Line != 3 || c.Col != 51 {
		t.Errorf("child = %+v", c)
	}
	if v, ok := root.LookupChildText("c"); !ok || v != "café" {
		t.Errorf("LookupChildText = %q, %v", v, ok)
	}
}

func TestParseRefusals(t *testing.T) {
	at := func(n int) string { return strings.Repeat("<a>", n) + strings.Repeat("</a>", n) }
	tests := []struct {
		name, doc string
		kind      Kind // 0: accepted
	}{
		{"depth at the bound", at(MaxDepth), 0},
		{"depth past the bound", at(MaxDepth + 1), TooDeep},
		{"bare doctype", "<!DOCTYPE a><a/>", 0},
		{"doctype with public id", `<!DOCTYPE a PUBLIC "-//x" "x.dtd"><a/>`, DTD},
		{"doctype with subset", `<!DOCTYPE a [<!ELEMENT a EMPTY>]><a/>`, DTD},
		{"undefined entity", `<a>&e;</a>`, Syntax},
		{"utf-16 declared", `<?xml version="1.0" encoding="UTF-16"?><a/>`, Encoding},
		{"latin-1 alias", "<?xml version='1.0' encoding='latin1'?><a>\xff</a>", 0},
		{"us-ascii", `<?xml version="1.0" encoding="us-ascii"?><a/>`, 0},
		{"invalid utf-8", "<a>\xff</a>", Syntax},
		{"text before root", "x<a/>", TextOutside},
		{"whitespace around root", " \n<a/>\n ", 0},
		{"second root", "<a/><b/>", ExtraRoot},
		{"nothing", "<?xml version=\"1.0\"?>", Empty},
		{"unclosed", "<a>", Syntax},
	}
	for _, tc := range tests {
		_, err := Parse([]byte(tc.doc))
		var te *DocError
		switch {
		case tc.kind == 0 && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.kind != 0 && (!errors.As(err, &te) || te.Kind != tc.kind):
			t.Errorf("%s: %v, want kind %d", tc.name, err, tc.kind)
		}
	}
}

func TestReadElement(t *testing.T) {
	d := xml.NewDecoder(strings.NewReader(`<r><conf xmlns:x="u" a="1"><p>v</p></conf><after/></r>`))
	for {
		tok, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "conf" {
			e, err := ReadElement(d, se)
			if err != nil {
				t.Fatal(err)
			}
			if e.ChildText("p") != "v" || len(e.Attrs) != 1 {
				t.Errorf("element = %+v", e)
			}
			break
		}
	}
	tok, _ := d.Token()
	if se, ok := tok.(xml.StartElement); !ok || se.Name.Local != "after" {
		t.Errorf("next token %v, want <after>", tok)
	}
}

// BenchmarkParseCDATA parses a document whose text comes in 80,000 CDATA
// sections; it was quadratic (18 s) before text was collected per element.
func BenchmarkParseCDATA(b *testing.B) {
	doc := []byte(`<a>` + strings.Repeat(`<![CDATA[xxxxxxxxxx]]>`, 80000) + `</a>`)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := Parse(doc); err != nil {
			b.Fatal(err)
		}
	}
}
