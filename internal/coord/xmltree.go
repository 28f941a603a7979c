package coord

import (
	"github.com/gozie/gozie/internal/vocab"
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

// parseTree reads data into a tree under xmltree's decoder policy; a
// refusal is E0701 at its position.
func parseTree(data []byte) (*node, error) { return xmltree.ParseSchema(data) }

// treeError converts an xmltree failure (of reading or of validation) into
// the E0701 error at the same position.
func treeError(err error) error { return xmltree.SchemaError(err) }

// schemaError builds an E0701 error (vocab.SchemaError).
func schemaError(line, col int, format string, args ...any) *Error {
	return vocab.SchemaError(line, col, format, args...)
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
