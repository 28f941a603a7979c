package xmltree

import (
	"errors"
	"testing"
)

// FuzzParse checks that no input makes Parse panic, that every failure is
// a *DocError of a known kind, and that an accepted tree respects the bounds
// and validates against an open type and a small model without panicking.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`<a/>`,
		"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a b=\"\xe9\">\xe9</a>",
		`<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>`,
		`<a xmlns="urn:a"><b/><c>t</c></a>`,
		"\uFEFF<a><![CDATA[x]]></a> ",
		`<a><b><c><d/></c></b></a><a/>`,
	} {
		f.Add([]byte(s))
	}
	model := ComplexType(Seq(1, 1, Elem("b", EmptyType(Opt("x")), 0, 1), Choice(0, Unbounded, Elem("c", TextType(), 1, 1), AnyOf(1, 1, "##other"))), Req("n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := Parse(data)
		if err != nil {
			var te *DocError
			if !errors.As(err, &te) || te.Kind < Syntax || te.Kind > TextOutside {
				t.Fatalf("error %v (%T) is not a known *DocError", err, err)
			}
			return
		}
		var depth func(*Element) int
		depth = func(e *Element) int {
			d := 0
			for _, c := range e.Children {
				d = max(d, depth(c))
			}
			return d + 1
		}
		if d := depth(root); d > MaxDepth {
			t.Fatalf("accepted a tree %d deep", d)
		}
		v := &Validator{NS: root.Name.Space}
		_ = v.Check(root, model)
		_ = v.Check(root, OpenType)
		_ = CheckSequence(root, root.Name.Space, []Step{{Name: "b", Min: 1, Max: 1}}, nil)
	})
}
