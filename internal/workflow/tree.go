package workflow

import (
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
	undeclared  = xmltree.Undeclared
	req         = xmltree.Req
	opt         = xmltree.Opt
	reqID       = xmltree.ReqID
)

// parseTree reads data into a tree under xmltree's decoder policy; a
// refusal is E0701 at its position.
func parseTree(data []byte) (*Element, error) { return xmltree.ParseSchema(data) }

// treeError converts an xmltree failure (of reading or of validation) into
// the E0701 error at the same position.
func treeError(err error) error { return xmltree.SchemaError(err) }
