package bundle

import (
	"regexp"

	"github.com/gozie/gozie/internal/vocab"
	"github.com/gozie/gozie/internal/xmltree"
)

// The bundle schema namespaces (spec: bundle appendix A).
const (
	NS01 = "uri:oozie:bundle:0.1"
	NS02 = "uri:oozie:bundle:0.2"
)

// identifier is the bundle schemas' IDENTIFIER type. Unlike the workflow
// one it must start with a letter; the {1,39} bounds repetitions of a
// whole identifier, so it does not bound the length.
var identifier = &xmltree.AttrPattern{
	Type:  "IDENTIFIER",
	Facet: `([a-zA-Z]([\-_a-zA-Z0-9])*){1,39}`,
	RE:    regexp.MustCompile(`^(?:[a-zA-Z](?:[\-_a-zA-Z0-9])*)+$`),
}

// schemas are the content models of the two namespaces, built once.
var schemas = map[string]*xmltree.Type{NS01: buildSchema(false), NS02: buildSchema(true)}

// buildSchema returns the BUNDLE-APP type of schema 0.1 or, with v2, 0.2
// (which adds <parameters> and the enabled attribute and lets a
// coordinator name be any string, so that it may hold EL).
func buildSchema(v2 bool) *xmltree.Type {
	text := xmltree.TextType()
	u := xmltree.Unbounded
	property := func(valueMin int) *xmltree.Type {
		return xmltree.ComplexType(xmltree.Seq(1, 1,
			xmltree.Elem("name", text, 1, 1),
			xmltree.Elem("value", text, valueMin, 1),
			xmltree.Elem("description", text, 0, 1)))
	}
	configuration := xmltree.ComplexType(xmltree.Seq(1, 1, xmltree.Elem("property", property(1), 1, u)))
	controls := xmltree.ComplexType(xmltree.Seq(0, 1, xmltree.Elem("kick-off-time", text, 0, 1)))
	coordAttrs := []xmltree.AttrSpec{xmltree.ReqPattern("name", identifier), xmltree.Opt("critical")}
	if v2 {
		coordAttrs = []xmltree.AttrSpec{xmltree.Req("name"), xmltree.Opt("critical"), xmltree.Opt("enabled")}
	}
	coordinator := xmltree.ComplexType(xmltree.Seq(1, 1,
		xmltree.Elem("app-path", text, 1, 1),
		xmltree.Elem("configuration", configuration, 0, 1)), coordAttrs...)
	var items []*xmltree.Particle
	if v2 {
		parameters := xmltree.ComplexType(xmltree.Seq(1, 1, xmltree.Elem("property", property(0), 1, u)))
		items = append(items, xmltree.Elem("parameters", parameters, 0, 1))
	}
	items = append(items,
		xmltree.Elem("controls", controls, 0, 1),
		xmltree.Elem("coordinator", coordinator, 1, u))
	return xmltree.ComplexType(xmltree.Seq(1, 1, items...), xmltree.Req("name"))
}

// parseValid reads a bundle document and validates it against the schema
// of its namespace; every refusal is E0701 with its position.
func parseValid(data []byte) (*xmltree.Element, error) {
	root, err := xmltree.ParseSchema(data)
	if err != nil {
		return nil, err
	}
	t := schemas[root.Name.Space]
	if root.Name.Local != "bundle-app" || t == nil {
		if root.Name.Local == "bundle-app" {
			return nil, vocab.SchemaError(root.Line, root.Col, "cvc-elt.1.a: Cannot find the declaration of element 'bundle-app' (unknown namespace %q).", root.Name.Space)
		}
		return nil, vocab.SchemaError(root.Line, root.Col, "cvc-elt.1.a: Cannot find the declaration of element '%s'.", root.Name.Local)
	}
	v := &xmltree.Validator{NS: root.Name.Space}
	if err := v.Check(root, t); err != nil {
		return nil, xmltree.SchemaError(err)
	}
	return root, nil
}
