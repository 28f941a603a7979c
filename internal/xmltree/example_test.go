package xmltree_test

import (
	"fmt"

	"github.com/gozie/gozie/internal/xmltree"
)

// A reader of a new document kind is its content models plus the tree:
// here a bundle definition read and checked in a dozen
// lines, with the same decoder policy and Xerces wording as the others.
func ExampleValidator_Check() {
	str := xmltree.TextType()
	property := xmltree.ComplexType(xmltree.Seq(1, 1,
		xmltree.Elem("name", str, 1, 1), xmltree.Elem("value", str, 1, 1), xmltree.Elem("description", str, 0, 1)))
	configuration := xmltree.ComplexType(xmltree.Seq(1, 1, xmltree.Elem("property", property, 1, xmltree.Unbounded)))
	coordinator := xmltree.ComplexType(xmltree.Seq(1, 1,
		xmltree.Elem("app-path", str, 1, 1), xmltree.Elem("configuration", configuration, 0, 1)),
		xmltree.Req("name"), xmltree.Opt("critical"), xmltree.Opt("enabled"))
	controls := xmltree.ComplexType(xmltree.Seq(1, 1, xmltree.Elem("kick-off-time", str, 1, 1)))
	bundle := xmltree.ComplexType(xmltree.Seq(1, 1,
		xmltree.Elem("parameters", xmltree.OpenType, 0, 1), xmltree.Elem("controls", controls, 0, 1),
		xmltree.Elem("coordinator", coordinator, 1, xmltree.Unbounded)), xmltree.Req("name"))

	doc := []byte(`<bundle-app xmlns="uri:oozie:bundle:0.2" name="b">
  <controls><kick-off-time>2026-01-01T00:00Z</kick-off-time></controls>
  <coordinator name="c1"><configuration/></coordinator>
</bundle-app>`)
	root, err := xmltree.Parse(doc)
	if err != nil {
		fmt.Println(err)
		return
	}
	v := &xmltree.Validator{NS: root.Name.Space}
	fmt.Println(v.Check(root, bundle))
	// Output:
	// cvc-complex-type.2.4.a: Invalid content was found starting with element 'configuration'. One of '{"uri:oozie:bundle:0.2":app-path}' is expected. (line 3, column 26)
}
