package workflow

import (
	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/xmltree"
)

// VariableRef is an EL variable a definition reads, with where it is first
// read (the element holding the text or attribute).
type VariableRef struct {
	Name         string
	Line, Column int
}

// ReferencedVariables lists the EL variables (identifiers, not function
// names) read by the texts and attribute values of a workflow definition,
// each once, in document order. Oozie resolves EL in the whole action
// definition, so every one of them must be a job property (or an EL
// constant) when its node runs. Text that is not valid EL is skipped: the
// parser reports it. Errors are the XML policy's (E0701).
func ReferencedVariables(data []byte) ([]VariableRef, error) {
	root, err := xmltree.ParseSchema(data)
	if err != nil {
		return nil, err
	}
	var out []VariableRef
	seen := map[string]bool{}
	add := func(text string, at *xmltree.Element) {
		if !el.HasExpr(text) {
			return
		}
		t, err := el.Parse(text)
		if err != nil {
			return
		}
		for _, n := range t.Nodes {
			el.Inspect(n, func(n el.Node) bool {
				if id, ok := n.(*el.Ident); ok && !seen[id.Name] {
					seen[id.Name] = true
					out = append(out, VariableRef{Name: id.Name, Line: at.Line, Column: at.Col})
				}
				return true
			})
		}
	}
	var walk func(e *xmltree.Element)
	walk = func(e *xmltree.Element) {
		for _, a := range e.Attrs {
			add(a.Value, e)
		}
		add(e.Text, e)
		for _, c := range e.Children {
			walk(c)
		}
	}
	walk(root)
	return out, nil
}
