package xmltree

import "strings"

// Step is one element of a flat sequence for CheckSequence: a child named
// Name occurring Min to Max times (Max < 0: unbounded).
type Step struct {
	Name     string
	Min, Max int
}

// CheckSequence validates the children of e against a flat sequence of
// steps, all in namespace ns; elements of other namespaces are allowed only
// where other permits them. It matches greedily, step by step, which is
// how the coordinator schemas' sequences have always been checked and
// worded (an element out of place after the last optional step is "No
// child element is expected at this point"); documents with nested choices
// use a Type and Validator.Check instead.
func CheckSequence(e *Element, ns string, seq []Step, other func(*Element) bool) *DocError {
	i, count := 0, 0
	expected := func(from int) string {
		var names []string
		for j := from; j < len(seq); j++ {
			names = append(names, "\""+ns+"\":"+seq[j].Name)
			if seq[j].Min > 0 {
				break
			}
		}
		return strings.Join(names, ", ")
	}
	for _, c := range e.Children {
		if c.Name.Space != ns {
			if other != nil && other(c) {
				continue
			}
			return invalid(c.Line, c.Col, "cvc-complex-type.2.4.a: Invalid content was found starting with element '%s'. One of '{%s}' is expected.", c.Name.Local, expected(i))
		}
		for i < len(seq) && (seq[i].Name != c.Name.Local || (seq[i].Max >= 0 && count >= seq[i].Max)) {
			if count < seq[i].Min {
				return invalid(c.Line, c.Col, "cvc-complex-type.2.4.a: Invalid content was found starting with element '%s'. One of '{%s}' is expected.", c.Name.Local, expected(i))
			}
			i, count = i+1, 0
		}
		if i == len(seq) {
			return invalid(c.Line, c.Col, "cvc-complex-type.2.4.d: Invalid content was found starting with element '%s'. No child element is expected at this point.", c.Name.Local)
		}
		count++
	}
	for ; i < len(seq); i, count = i+1, 0 {
		if count < seq[i].Min {
			return invalid(e.Line, e.Col, "cvc-complex-type.2.4.b: The content of element '%s' is not complete. One of '{%s}' is expected.", e.Name.Local, expected(i))
		}
	}
	return nil
}

// RequireAttrs reports the first of the unqualified attributes names that
// e lacks.
func RequireAttrs(e *Element, names ...string) *DocError {
	for _, a := range names {
		if _, ok := e.LookupAttr(a); !ok {
			return invalid(e.Line, e.Col, "cvc-complex-type.4: Attribute '%s' must appear on element '%s'.", a, e.Name.Local)
		}
	}
	return nil
}

// XSINamespace is the XML Schema instance namespace; its attributes
// (xsi:schemaLocation, ...) are allowed on any element.
const XSINamespace = "http://www.w3.org/2001/XMLSchema-instance"

// AllowAttrs refuses an attribute of e that is not among names, as schema
// validation does for a complex type without anyAttribute. xsi: attributes
// are not attributes of the element (and namespace declarations are not
// kept in the tree at all).
func AllowAttrs(e *Element, names ...string) *DocError {
	for _, a := range e.Attrs {
		if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") || a.Name.Space == XSINamespace {
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
			return invalid(e.Line, e.Col, "cvc-complex-type.3.2.2: Attribute '%s' is not allowed to appear in element '%s'.", a.Name.Local, e.Name.Local)
		}
	}
	return nil
}
