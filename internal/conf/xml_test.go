package conf

import (
	"bytes"
	"encoding/xml"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestParseXML(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   kv
		finals []string
	}{
		{"minimal", `<configuration/>`, nil, nil},
		{"declaration comments stylesheet", `<?xml version="1.0" encoding="UTF-8"?>
<?xml-stylesheet type="text/xsl" href="configuration.xsl"?>
<!-- licence header -->
<configuration>
  <!-- a comment -->
  <property>
    <name>a</name>
    <value>1</value>
    <description>the a</description>
  </property>
  <property><name>b</name><value>2</value><final>true</final></property>
</configuration>
<!-- trailing -->
`, kv{"a", "1", "b", "2"}, []string{"b"}},
		{"missing value is empty", `<configuration><property><name>a</name></property></configuration>`, kv{"a", ""}, nil},
		{"empty value element", `<configuration><property><name>a</name><value/></property></configuration>`, kv{"a", ""}, nil},
		{"unknown children ignored", `<configuration><property><name>a</name><source>x.xml</source><value>1</value><tag><b>x</b></tag></property><junk>z</junk></configuration>`, kv{"a", "1"}, nil},
		{"name trimmed value verbatim", "<configuration><property><name>\n  a\n</name><value>  x \n y  </value></property></configuration>", kv{"a", "  x \n y  "}, nil},
		{"escapes and CDATA", `<configuration><property><name>a&amp;b</name><value><![CDATA[<x> & ${y}]]></value></property><property><name>c</name><value>&lt;&#x41;&#233;&quot;</value></property></configuration>`, kv{"a&b", "<x> & ${y}", "c", "<Aé\""}, nil},
		{"namespaced", `<configuration xmlns="uri:oozie:workflow:1.0"><property><name>a</name><value>1</value></property></configuration>`, kv{"a", "1"}, nil},
		{"attributes", `<configuration><property name="a" value="1" final="true"/></configuration>`, kv{"a", "1"}, []string{"a"}},
		{"nested configuration", `<configuration><configuration><property><name>a</name><value>1</value></property></configuration><property><name>b</name><value>2</value></property></configuration>`, kv{"a", "1", "b", "2"}, nil},
		{"duplicate later wins", `<configuration><property><name>a</name><value>1</value></property><property><name>a</name><value>2</value></property></configuration>`, kv{"a", "2"}, nil},
		{"duplicate after final ignored", `<configuration><property><name>a</name><value>1</value><final>true</final></property><property><name>a</name><value>2</value></property></configuration>`, kv{"a", "1"}, []string{"a"}},
		{"final must be true", `<configuration><property><name>a</name><final>yes</final></property><property><name>b</name><final> true </final></property></configuration>`, kv{"a", "", "b", ""}, []string{"b"}},
		{"BOM", "\uFEFF<?xml version=\"1.0\"?><configuration><property><name>a</name><value>1</value></property></configuration>", kv{"a", "1"}, nil},
		{"latin-1 declared", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><configuration><property><name>a</name><value>caf\xe9</value></property></configuration>", kv{"a", "café"}, nil},
		{"doctype", `<!DOCTYPE configuration><configuration><property><name>a</name><value>1</value></property></configuration>`, kv{"a", "1"}, nil},
		{"CR LF normalised", "<configuration><property><name>a</name><value>x\r\ny</value></property></configuration>", kv{"a", "x\ny"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseXML(strings.NewReader(tt.in), "conf.xml")
			if err != nil {
				t.Fatalf("ParseXML: %v", err)
			}
			if got, want := c.Names(), tt.want.names(); !slices.Equal(got, want) {
				t.Errorf("names = %q, want %q", got, want)
			}
			if got, want := c.ToMap(), tt.want.m(); !maps.Equal(got, want) {
				t.Errorf("map = %q, want %q", got, want)
			}
			var finals []string
			for _, p := range c.Properties() {
				if p.Final {
					finals = append(finals, p.Name)
				}
				if p.Source != "conf.xml" || p.Line == 0 {
					t.Errorf("%s: source %q line %d", p.Name, p.Source, p.Line)
				}
			}
			if !slices.Equal(finals, tt.finals) {
				t.Errorf("finals = %q, want %q", finals, tt.finals)
			}
		})
	}
}

func TestParseXMLDescriptionAndLine(t *testing.T) {
	in := "<configuration>\n\n  <property>\n    <name>a</name>\n    <description>about a</description>\n  </property>\n</configuration>\n"
	c, err := ParseXML(strings.NewReader(in), "config-default.xml")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := c.Lookup("a")
	want := Property{Name: "a", Description: "about a", Source: "config-default.xml", Line: 3}
	if p != want {
		t.Errorf("got %+v, want %+v", p, want)
	}
}

func TestParseXMLErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // exact message, or prefix ending in "*"
	}{
		{"empty", "", "config-default.xml:1: no <configuration> element"},
		{"only declaration", `<?xml version="1.0"?>`, "config-default.xml:1: no <configuration> element"},
		{"wrong root", "<?xml version=\"1.0\"?>\n<workflow-app/>", "config-default.xml:2: root element is <workflow-app>, want <configuration>"},
		{"property without name", "<configuration>\n<property>\n<value>1</value>\n</property>\n</configuration>", "config-default.xml:2: property without <name>"},
		{"empty name", "<configuration>\n\n<property><name> </name></property></configuration>", "config-default.xml:3: property with empty <name>"},
		{"unclosed", "<configuration>\n<property>\n<name>a</name>\n", "config-default.xml:4: invalid XML: *"},
		{"mismatched", "<configuration>\n<property></value></configuration>", "config-default.xml:2: invalid XML: *"},
		{"bad entity", "<configuration><property><name>&nbsp;</name></property></configuration>", "config-default.xml:1: invalid XML: *"},
		{"control char", "<configuration><property><name>a</name><value>&#1;</value></property></configuration>", "config-default.xml:1: invalid XML: *"},
		{"text before root", "hello<configuration/>", "config-default.xml:1: text outside <configuration>"},
		{"text after root", "<configuration/>\nbye", "config-default.xml:2: text outside <configuration>"},
		{"second root", "<configuration/>\n<configuration/>", "config-default.xml:2: unexpected <configuration> after </configuration>"},
		{"unknown encoding", `<?xml version="1.0" encoding="EBCDIC"?><configuration/>`, "config-default.xml:1: invalid XML: *"},
		{"not xml", "a=b\nc=d\n", "config-default.xml:*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseXML(strings.NewReader(tt.in), "config-default.xml")
			if err == nil {
				t.Fatalf("no error, got %v", c.ToMap())
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err is %T, want *ParseError", err)
			}
			if prefix, ok := strings.CutSuffix(tt.want, "*"); ok {
				if !strings.HasPrefix(err.Error(), prefix) {
					t.Fatalf("err = %q, want prefix %q", err, prefix)
				}
			} else if err.Error() != tt.want {
				t.Fatalf("err = %q, want %q", err, tt.want)
			}
		})
	}
}

func TestWriteXML(t *testing.T) {
	c := New()
	c.Set("b", "2")
	c.SetProperty(Property{Name: "a", Value: "<x> & \"y\"\n\tz\r", Final: true, Description: "the a"})
	c.Set("empty", "")
	c.Set("el", "${wf:conf('x')}]]>\x01\xff")
	var buf bytes.Buffer
	if err := c.WriteXML(&buf); err != nil {
		t.Fatal(err)
	}
	want := `<?xml version="1.0" encoding="UTF-8"?>
<configuration>
  <property>
    <name>b</name>
    <value>2</value>
  </property>
  <property>
    <name>a</name>
    <value>&lt;x&gt; &amp; "y"
	z&#xD;</value>
    <final>true</final>
    <description>the a</description>
  </property>
  <property>
    <name>empty</name>
    <value></value>
  </property>
  <property>
    <name>el</name>
    <value>${wf:conf('x')}]]&gt;��</value>
  </property>
</configuration>
`
	if buf.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", buf.String(), want)
	}
	back, err := ParseXML(&buf, "back.xml")
	if err != nil {
		t.Fatal(err)
	}
	c.Set("el", "${wf:conf('x')}]]>\uFFFD\uFFFD") // neither \x01 nor \xff can be written
	for _, p := range c.Properties() {
		q, ok := back.Lookup(p.Name)
		q.Source, q.Line = "", 0
		if !ok || q != p {
			t.Errorf("round trip %q = %+v, want %+v", p.Name, q, p)
		}
	}
	if !slices.Equal(back.Names(), c.Names()) {
		t.Errorf("order %q, want %q", back.Names(), c.Names())
	}
}

func TestWriteXMLRefusesEmptyName(t *testing.T) {
	c := New()
	c.Set("", "x")
	if err := c.WriteXML(&bytes.Buffer{}); err == nil {
		t.Fatal("want error for empty name")
	}
}

func TestReadElement(t *testing.T) {
	doc := `<workflow-app xmlns="uri:oozie:workflow:1.0"><global><configuration>
	<property><name>q</name><value>${queueName}</value></property>
	</configuration><job-xml>x.xml</job-xml></global></workflow-app>`
	d := xml.NewDecoder(strings.NewReader(doc))
	var got *Config
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "configuration" {
			if got, err = ReadElement(d, se, "workflow.xml"); err != nil {
				t.Fatal(err)
			}
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "job-xml" && got == nil {
			t.Fatal("configuration not read before job-xml")
		}
	}
	if v, _ := got.Raw("q"); v != "${queueName}" {
		t.Fatalf("q = %q", v)
	}
}

// TestParseXMLMixedValue: markup inside a <value> keeps the text around it
// in document order, as Hadoop's streaming reader (and gozie before the
// shared XML tree) reads it.
func TestParseXMLMixedValue(t *testing.T) {
	tests := []struct{ value, want string }{
		{"plain", "plain"},
		{"a<b>x</b>c", "axc"},
		{"<b>x</b>c", "xc"},
		{"a<b>x</b>", "ax"},
		{"a<b>x<i>y</i>z</b>c<d/>e", "axyzce"},
		{"a<![CDATA[<q>]]>b<b>x</b><![CDATA[&]]>c", "a<q>bx&c"},
	}
	for _, tc := range tests {
		doc := "<configuration><property><name>k</name><value>" + tc.value + "</value></property></configuration>"
		c, err := ParseXML(strings.NewReader(doc), "mixed.xml")
		if err != nil {
			t.Errorf("%s: %v", tc.value, err)
			continue
		}
		if got, _ := c.Get("k"); got != tc.want {
			t.Errorf("%s: value %q, want %q", tc.value, got, tc.want)
		}
	}
}
