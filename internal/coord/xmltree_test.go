package coord

import (
	"strings"
	"testing"
)

func TestParseTreeText(t *testing.T) {
	cases := []struct {
		name, doc, want string
	}{
		{"plain", `<a>hello</a>`, "hello"},
		{"entities", `<a>x &amp; y &lt; z</a>`, "x & y < z"},
		{"cdata pieces", `<a>` + strings.Repeat(`<![CDATA[ab]]>`, 1000) + `</a>`, strings.Repeat("ab", 1000)},
		{"around children", `<a>one<b>inner</b>two<!-- c -->three</a>`, "onetwothree"},
	}
	for _, tc := range cases {
		root, err := parseTree([]byte(tc.doc))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if root.Text != tc.want {
			t.Errorf("%s: text %.40q..., want %.40q...", tc.name, root.Text, tc.want)
		}
	}
	root, _ := parseTree([]byte(`<a>x<b>inner</b></a>`))
	if b := root.Child("b"); b == nil || b.Text != "inner" {
		t.Errorf("child text = %+v", b)
	}
}

func TestParseTreeDepth(t *testing.T) {
	ok := strings.Repeat("<a>", maxDepth) + strings.Repeat("</a>", maxDepth)
	if _, err := parseTree([]byte(ok)); err != nil {
		t.Errorf("%d levels: %v", maxDepth, err)
	}
	deep := strings.Repeat("<a>", maxDepth+1) + strings.Repeat("</a>", maxDepth+1)
	_, err := parseTree([]byte(deep))
	if err == nil || ErrorCode(err) != CodeSchema || !strings.Contains(err.Error(), "nesting deeper") {
		t.Errorf("%d levels: %v, want an E0701 nesting error", maxDepth+1, err)
	}
}

// BenchmarkParseTreeCDATA parses a document whose text comes in 80,000
// CDATA sections; it was quadratic (18 s) before text was collected per
// element.
func BenchmarkParseTreeCDATA(b *testing.B) {
	doc := []byte(`<a>` + strings.Repeat(`<![CDATA[xxxxxxxxxx]]>`, 80000) + `</a>`)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := parseTree(doc); err != nil {
			b.Fatal(err)
		}
	}
}
