package conf

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"
)

func FuzzParseProperties(f *testing.F) {
	for _, s := range []string{
		"a=b\nc:d\ne f\n",
		"# c\n! c\n  k = v \\\n   cont\r\nx\\=y=\\u0041\\uD83D\\uDE00\r",
		"a=b\\",
		"\uFEFFk=caf\xe9",
		"\\u12",
		"=\n:\n \\ \\\t=\\ \n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ParseProperties(strings.NewReader(in), "fuzz")
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T is not a *ParseError", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := c.WriteProperties(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := ParseProperties(bytes.NewReader(buf.Bytes()), "again")
		if err != nil {
			t.Fatalf("re-reading %q: %v", buf.String(), err)
		}
		if !maps.Equal(back.ToMap(), c.ToMap()) || !slices.Equal(back.Names(), c.Names()) {
			t.Fatalf("round trip of %q via %q:\n got %q\nwant %q", in, buf.String(), back.ToMap(), c.ToMap())
		}
		// Expansion must terminate on whatever was read.
		for _, name := range c.Names() {
			c.Get(name)
		}
	})
}

func FuzzParseXML(f *testing.F) {
	for _, s := range []string{
		`<configuration/>`,
		`<?xml version="1.0"?><!-- c --><configuration><property><name>a</name><value>${b}</value><final>true</final><description>d</description></property><property><name>b</name><value>${a}</value></property></configuration>`,
		`<configuration><property name="a" value="1"/><configuration><property><name>c</name></property></configuration></configuration>`,
		`<configuration><property><value>1</value></property></configuration>`,
		"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><configuration><property><name>\xe9</name><value><![CDATA[&\r\n]]></value></property></configuration>",
		`<workflow-app/>`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ParseXML(strings.NewReader(in), "fuzz.xml")
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T is not a *ParseError", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := c.WriteXML(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := ParseXML(bytes.NewReader(buf.Bytes()), "again.xml")
		if err != nil {
			t.Fatalf("re-reading %q: %v", buf.String(), err)
		}
		if !maps.Equal(back.ToMap(), c.ToMap()) || !slices.Equal(back.Names(), c.Names()) {
			t.Fatalf("round trip of %q via %q:\n got %q\nwant %q", in, buf.String(), back.ToMap(), c.ToMap())
		}
		for i, p := range c.Properties() {
			q := back.Properties()[i]
			if p.Final != q.Final || p.Description != q.Description {
				t.Fatalf("property %q: %+v became %+v", p.Name, p, q)
			}
		}
		for _, name := range c.Names() {
			c.Get(name)
		}
		// The size check terminates too, and refuses only with its own
		// error.
		if err := c.CheckExpansion(ExpandLimits{Value: 4096, Total: 65536}); err != nil {
			if _, ok := err.(*ExpandError); !ok {
				t.Fatalf("CheckExpansion error %T", err)
			}
		}
	})
}
