package workflow

import (
	"errors"

	"github.com/gozie/gozie/internal/xmltree"
)

// Element is a generic, order-preserving XML element with its position.
// Action bodies are kept in this form so that nothing an executor may need
// is lost; it is the tree every gozie XML reader shares.
type Element = xmltree.Element

// The content-model vocabulary of xmltree under the short names the schema
// tables (schemas.go, extensions.go) are written with.
type (
	ctype    = xmltree.Type
	particle = xmltree.Particle
	attrSpec = xmltree.AttrSpec
)

const unbounded = xmltree.Unbounded

var (
	elem        = xmltree.Elem
	seq         = xmltree.Seq
	choice      = xmltree.Choice
	anyOf       = xmltree.AnyOf
	complexType = xmltree.ComplexType
	textType    = xmltree.TextType
	emptyType   = xmltree.EmptyType
	openType    = xmltree.OpenType
	req         = xmltree.Req
	opt         = xmltree.Opt
	reqID       = xmltree.ReqID
)

// parseTree turns workflow.xml bytes into the element tree. Malformed XML is
// reported as E0701, as Oozie does (its SAX parser raises the schema error
// before anything else looks at the document).
func parseTree(data []byte) (*Element, error) {
	root, err := xmltree.Parse(data)
	if err != nil {
		return nil, treeError(err)
	}
	return root, nil
}

// treeError converts an xmltree failure (of reading or of validation) into
// the E0701 error users know, keeping its position.
func treeError(err error) error {
	var te *xmltree.DocError
	if errors.As(err, &te) {
		return schemaError(te.Line, te.Col, "%s", te.Msg)
	}
	return err
}
