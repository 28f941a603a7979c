package xmltree

import (
	"encoding/xml"
	"strings"
)

// Element is a generic, order-preserving XML element with its position.
// Namespace declarations are not kept among its attributes: they are syntax,
// resolved into Name.Space.
type Element struct {
	Name     xml.Name // Space holds the namespace URI, not the prefix
	Attrs    []xml.Attr
	Children []*Element
	// Text is the concatenated character data directly inside the element,
	// untrimmed (EL and whitespace are preserved).
	Text string
	// Tail is the part of the parent's Text that follows this element, up
	// to the next sibling: with it, mixed content (text between child
	// elements) reads in document order (see DocumentText).
	Tail string
	// Line and Col locate the start tag (1-based; Col counts characters).
	Line, Col int
}

// Attr returns the value of the unqualified attribute name, or "".
func (e *Element) Attr(name string) string {
	v, _ := e.LookupAttr(name)
	return v
}

// LookupAttr returns the value of the unqualified attribute and whether it is present.
func (e *Element) LookupAttr(name string) (string, bool) {
	if e == nil {
		return "", false
	}
	for _, a := range e.Attrs {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value, true
		}
	}
	return "", false
}

// Child returns the first child with the given local name, or nil.
func (e *Element) Child(local string) *Element {
	if e == nil {
		return nil
	}
	for _, c := range e.Children {
		if c.Name.Local == local {
			return c
		}
	}
	return nil
}

// ChildrenNamed returns the children with the given local name, in order.
func (e *Element) ChildrenNamed(local string) []*Element {
	if e == nil {
		return nil
	}
	var out []*Element
	for _, c := range e.Children {
		if c.Name.Local == local {
			out = append(out, c)
		}
	}
	return out
}

// ChildText returns the trimmed text of the first child named local, or "".
func (e *Element) ChildText(local string) string {
	return e.Child(local).TrimText()
}

// LookupChildText returns the trimmed text of the first child named local
// and whether there is such a child, for optional elements whose presence
// matters even when empty.
func (e *Element) LookupChildText(local string) (string, bool) {
	c := e.Child(local)
	if c == nil {
		return "", false
	}
	return c.TrimText(), true
}

// TrimText returns Text without surrounding white space ("" for nil).
func (e *Element) TrimText() string {
	if e == nil {
		return ""
	}
	return strings.TrimSpace(e.Text)
}

// Clone returns a deep copy, so that resolution never aliases the source tree.
func (e *Element) Clone() *Element {
	if e == nil {
		return nil
	}
	c := *e
	c.Attrs = append([]xml.Attr(nil), e.Attrs...)
	c.Children = make([]*Element, len(e.Children))
	for i, ch := range e.Children {
		c.Children[i] = ch.Clone()
	}
	return &c
}

// DocumentText returns the character data of e and of every element nested
// in it, in document order: what a streaming reader collecting all text
// between e's tags sees (Hadoop's configuration reader does that for a
// <value> holding markup).
func (e *Element) DocumentText() string {
	if len(e.Children) == 0 {
		return e.Text
	}
	var b strings.Builder
	e.writeText(&b)
	return b.String()
}

func (e *Element) writeText(b *strings.Builder) {
	tails := 0
	for _, c := range e.Children {
		tails += len(c.Tail)
	}
	b.WriteString(e.Text[:len(e.Text)-tails])
	for _, c := range e.Children {
		c.writeText(b)
		b.WriteString(c.Tail)
	}
}
