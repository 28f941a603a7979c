package coord

import (
	"errors"
	"fmt"

	"github.com/gozie/gozie/internal/xmltree"
)

// maxDepth bounds element nesting: the one bound of every gozie XML reader.
const maxDepth = xmltree.MaxDepth

// node is an XML element with its position, the tree every gozie XML reader
// shares.
type node = xmltree.Element

// particle is one element of a content model sequence, written positionally
// in the coordinator's models ({"name", min, max}).
type particle struct {
	name     string
	min, max int // max < 0: unbounded
}

// parseTree reads data into a tree under xmltree's decoder policy.
// Malformed XML is an E0701 error with the position the decoder stopped at.
func parseTree(data []byte) (*node, error) {
	root, err := xmltree.Parse(data)
	if err != nil {
		return nil, treeError(err)
	}
	return root, nil
}

// treeError converts an xmltree failure (of reading or of validation) into
// an E0701 error at the same position.
func treeError(err error) error {
	var te *xmltree.DocError
	if errors.As(err, &te) {
		return schemaError(te.Line, te.Col, "%s", te.Msg)
	}
	return err
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

// checkSequence validates the children of n against a sequence of
// particles (all in namespace ns; elements of other namespaces are allowed
// only where other permits them), worded like Xerces' messages.
func checkSequence(n *node, ns string, seq []particle, other func(*node) bool) error {
	steps := make([]xmltree.Step, len(seq))
	for i, p := range seq {
		steps[i] = xmltree.Step{Name: p.name, Min: p.min, Max: p.max}
	}
	if err := xmltree.CheckSequence(n, ns, steps, other); err != nil {
		return treeError(err)
	}
	return nil
}

// requireAttrs reports the first missing required attribute of n.
func requireAttrs(n *node, names ...string) error {
	if err := xmltree.RequireAttrs(n, names...); err != nil {
		return treeError(err)
	}
	return nil
}

// allowAttrs refuses an attribute of n that is not among names.
func allowAttrs(n *node, names ...string) error {
	if err := xmltree.AllowAttrs(n, names...); err != nil {
		return treeError(err)
	}
	return nil
}
