package coord

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxDepth bounds element nesting: no coordinator needs more, and the
// checks that walk the tree recurse.
const maxDepth = 256

// node is an XML element with its position, the small tree the coordinator
// parser validates and reads.
type node struct {
	Space, Local string
	Attrs        []xml.Attr
	Children     []*node
	Text         string // concatenated character data, untrimmed
	Line, Col    int
}

// attr returns the value of the unqualified attribute name.
func (n *node) attr(name string) (string, bool) {
	for _, a := range n.Attrs {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value, true
		}
	}
	return "", false
}

// child returns the first child element named local.
func (n *node) child(local string) *node {
	for _, c := range n.Children {
		if c.Local == local {
			return c
		}
	}
	return nil
}

// childText returns the trimmed text of the first child named local.
func (n *node) childText(local string) (string, bool) {
	c := n.child(local)
	if c == nil {
		return "", false
	}
	return strings.TrimSpace(c.Text), true
}

// parseTree reads data into a tree. Malformed XML is an E0701 error with the
// position the decoder stopped at.
func parseTree(data []byte) (*node, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	var stack []*node
	var root *node
	// texts[i] collects the character data of stack[i]: appending to the
	// node's string would copy it on every piece, quadratic for a document
	// of many small CDATA sections (1.7 MB took 18 s).
	var texts [][]byte
	for {
		line, col := d.InputPos()
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				l, c := d.InputPos()
				return nil, schemaError(l, c, "%s", se.Msg)
			}
			l, c := d.InputPos()
			return nil, schemaError(l, c, "%v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) >= maxDepth {
				return nil, schemaError(line, col, "element nesting deeper than %d", maxDepth)
			}
			n := &node{Space: t.Name.Space, Local: t.Name.Local, Attrs: t.Attr, Line: line, Col: col}
			if len(stack) == 0 {
				if root != nil {
					return nil, schemaError(line, col, "The markup in the document following the root element must be well-formed.")
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.Children = append(p.Children, n)
			}
			stack = append(stack, n)
			texts = append(texts, nil)
		case xml.EndElement:
			stack[len(stack)-1].Text = string(texts[len(texts)-1])
			stack, texts = stack[:len(stack)-1], texts[:len(texts)-1]
		case xml.CharData:
			if len(stack) > 0 {
				texts[len(texts)-1] = append(texts[len(texts)-1], t...)
			}
		}
	}
	if root == nil {
		return nil, schemaError(0, 0, "Premature end of file.")
	}
	return root, nil
}

// schemaError builds an E0701 error; the location, when known, is part of
// the message because schema messages are useless without it.
func schemaError(line, col int, format string, args ...any) *Error {
	msg := "XML schema error, " + fmt.Sprintf(format, args...)
	if line > 0 {
		msg += fmt.Sprintf(" (line %d, column %d)", line, col)
	}
	return &Error{Code: CodeSchema, Msg: msg, Line: line, Column: col}
}

// particle is one element of a content model sequence.
type particle struct {
	name     string
	min, max int // max < 0: unbounded
}

// checkSequence validates the children of n against a sequence of
// particles (all in namespace ns; elements of other namespaces are allowed
// only where other permits them), worded like Xerces' messages so users
// recognise them.
func checkSequence(n *node, ns string, seq []particle, other func(*node) bool) error {
	i, count := 0, 0
	expected := func(from int) string {
		var names []string
		for j := from; j < len(seq); j++ {
			names = append(names, "\""+ns+"\":"+seq[j].name)
			if seq[j].min > 0 {
				break
			}
		}
		return strings.Join(names, ", ")
	}
	for _, c := range n.Children {
		if c.Space != ns {
			if other != nil && other(c) {
				continue
			}
			return schemaError(c.Line, c.Col, "cvc-complex-type.2.4.a: Invalid content was found starting with element '%s'. One of '{%s}' is expected.", c.Local, expected(i))
		}
		for i < len(seq) && (seq[i].name != c.Local || (seq[i].max >= 0 && count >= seq[i].max)) {
			if count < seq[i].min {
				return schemaError(c.Line, c.Col, "cvc-complex-type.2.4.a: Invalid content was found starting with element '%s'. One of '{%s}' is expected.", c.Local, expected(i))
			}
			i, count = i+1, 0
		}
		if i == len(seq) {
			return schemaError(c.Line, c.Col, "cvc-complex-type.2.4.d: Invalid content was found starting with element '%s'. No child element is expected at this point.", c.Local)
		}
		count++
	}
	for ; i < len(seq); i, count = i+1, 0 {
		if count < seq[i].min {
			return schemaError(n.Line, n.Col, "cvc-complex-type.2.4.b: The content of element '%s' is not complete. One of '{%s}' is expected.", n.Local, expected(i))
		}
	}
	return nil
}

// requireAttrs reports the first missing required attribute of n.
func requireAttrs(n *node, names ...string) error {
	for _, a := range names {
		if _, ok := n.attr(a); !ok {
			return schemaError(n.Line, n.Col, "cvc-complex-type.4: Attribute '%s' must appear on element '%s'.", a, n.Local)
		}
	}
	return nil
}

// xsiNamespace is the XML Schema instance namespace; its attributes
// (xsi:schemaLocation, ...) are allowed on any element.
const xsiNamespace = "http://www.w3.org/2001/XMLSchema-instance"

// allowAttrs refuses an attribute of n that is not among names, as schema
// validation does for a complex type without anyAttribute. Namespace
// declarations and xsi: attributes are not attributes of the element.
func allowAttrs(n *node, names ...string) error {
	for _, a := range n.Attrs {
		if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") || a.Name.Space == xsiNamespace {
			continue
		}
		ok := a.Name.Space == ""
		if ok {
			ok = false
			for _, name := range names {
				if a.Name.Local == name {
					ok = true
					break
				}
			}
		}
		if !ok {
			return schemaError(n.Line, n.Col, "cvc-complex-type.3.2.2: Attribute '%s' is not allowed to appear in element '%s'.", a.Name.Local, n.Local)
		}
	}
	return nil
}
