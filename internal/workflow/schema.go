package workflow

import (
	"regexp"
	"sort"
	"strings"
)

// This file holds a small content-model checker that mirrors what Oozie's XSD
// validation (Xerces) rejects, and words its messages the way Xerces does so
// that users recognise them. Only the constructs the workflow schemas use are
// supported: sequences, choices, element particles with min/max occurrences,
// namespace wildcards, required attributes and the IDENTIFIER pattern.

type particleKind int

const (
	pElem particleKind = iota
	pSeq
	pChoice
	pAny
)

// unbounded marks maxOccurs="unbounded".
const unbounded = -1

// particle is one node of a content model.
type particle struct {
	kind     particleKind
	name     string // pElem: local name; namespace is the schema's
	typ      *ctype // pElem: the element's type
	min, max int
	items    []*particle
	// pAny: accepted namespaces; "##other" means any namespace except the
	// schema's own and the empty one.
	anyNS []string
}

// ctype is an element type: attributes plus either a content model, simple
// text (simple) or nothing at all (empty).
type ctype struct {
	model  *particle
	nfa    *nfa // compiled model, built once by complexType
	simple bool
	attrs  []attrSpec
	// open types accept any content; used where gozie does not model the
	// structure (extension action bodies) so that nothing valid is rejected.
	open bool
}

type attrSpec struct {
	name     string
	required bool
	ident    bool // value must match the IDENTIFIER pattern
}

// identPattern is the schemas' IDENTIFIER facet. As written, the {1,39}
// applies to repetitions of a whole identifier, so it does not bound length.
var identPattern = regexp.MustCompile(`^(?:[a-zA-Z_](?:[\-_a-zA-Z0-9])*)+$`)

const identFacet = `([a-zA-Z_]([\-_a-zA-Z0-9])*){1,39}`

// Constructors keep the per-version tables in schemas.go readable.
func elem(name string, t *ctype, min, max int) *particle {
	return &particle{kind: pElem, name: name, typ: t, min: min, max: max}
}
func seq(min, max int, items ...*particle) *particle {
	return &particle{kind: pSeq, min: min, max: max, items: items}
}
func choice(min, max int, items ...*particle) *particle {
	return &particle{kind: pChoice, min: min, max: max, items: items}
}
func anyOf(min, max int, ns ...string) *particle {
	return &particle{kind: pAny, min: min, max: max, anyNS: ns}
}

// complexType builds an element-only type and compiles its model once, at
// package initialisation, so validation never mutates shared state.
func complexType(model *particle, attrs ...attrSpec) *ctype {
	return &ctype{model: model, nfa: compile(model), attrs: attrs}
}

// textType is a simple-content type (xs:string and friends).
func textType(attrs ...attrSpec) *ctype { return &ctype{simple: true, attrs: attrs} }

// emptyType has attributes only.
func emptyType(attrs ...attrSpec) *ctype { return &ctype{attrs: attrs} }

// openType accepts anything; used for content gozie keeps but does not model.
var openType = &ctype{open: true}

func req(name string) attrSpec   { return attrSpec{name: name, required: true} }
func opt(name string) attrSpec   { return attrSpec{name: name} }
func reqID(name string) attrSpec { return attrSpec{name: name, required: true, ident: true} }

// validator checks one document against one schema namespace.
type validator struct {
	ns string
	// ext resolves element types for wildcard-matched children (extension
	// action schemas); nil result means "not modelled, accept".
	ext func(e *Element) *ctype
}

// matchOne reports whether child e can be consumed by the element or
// wildcard particle p.
func (v *validator) matchOne(p *particle, e *Element) bool {
	switch p.kind {
	case pElem:
		return e.Name.Local == p.name && e.Name.Space == v.ns
	case pAny:
		for _, ns := range p.anyNS {
			if ns == "##other" {
				if e.Name.Space != v.ns && e.Name.Space != "" {
					return true
				}
			} else if e.Name.Space == ns {
				return true
			}
		}
	}
	return false
}

// nfa is a content model compiled into a Thompson automaton whose edges
// consume one child element each. Simulating it is linear in the number of
// children and tells exactly where content stops matching and what could
// have come instead, which is all a Xerces-style message needs.
type nfa struct {
	edges  [][]nfaEdge
	eps    [][]int
	accept int
}

type nfaEdge struct {
	p  *particle
	to int
	id int // creation order = declaration order, for stable messages
}

func (n *nfa) newState() int {
	n.edges = append(n.edges, nil)
	n.eps = append(n.eps, nil)
	return len(n.edges) - 1
}

func (n *nfa) epsilon(from, to int) { n.eps[from] = append(n.eps[from], to) }

// compile builds the automaton of a content model.
func compile(model *particle) *nfa {
	n := &nfa{}
	s := n.newState()
	ids := 0
	n.accept = n.build(model, s, &ids)
	return n
}

// build adds p (with its occurrence bounds) after state s and returns the
// state reached once p has been matched.
func (n *nfa) build(p *particle, s int, ids *int) int {
	cur := s
	for i := 0; i < p.min; i++ {
		cur = n.buildOnce(p, cur, ids)
	}
	if p.max == unbounded {
		loop := n.newState()
		n.epsilon(cur, loop)
		back := n.buildOnce(p, loop, ids)
		n.epsilon(back, loop)
		out := n.newState()
		n.epsilon(loop, out)
		return out
	}
	out := n.newState()
	n.epsilon(cur, out)
	for i := p.min; i < p.max; i++ {
		cur = n.buildOnce(p, cur, ids)
		n.epsilon(cur, out)
	}
	return out
}

func (n *nfa) buildOnce(p *particle, s int, ids *int) int {
	switch p.kind {
	case pElem, pAny:
		t := n.newState()
		*ids++
		n.edges[s] = append(n.edges[s], nfaEdge{p: p, to: t, id: *ids})
		return t
	case pSeq:
		cur := s
		for _, it := range p.items {
			cur = n.build(it, cur, ids)
		}
		return cur
	default: // pChoice
		out := n.newState()
		for _, it := range p.items {
			in := n.newState()
			n.epsilon(s, in)
			n.epsilon(n.build(it, in, ids), out)
		}
		return out
	}
}

// closure returns the epsilon closure of a state set.
func (n *nfa) closure(set map[int]bool) map[int]bool {
	stack := make([]int, 0, len(set))
	for s := range set {
		stack = append(stack, s)
	}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, t := range n.eps[s] {
			if !set[t] {
				set[t] = true
				stack = append(stack, t)
			}
		}
	}
	return set
}

// run matches kids and returns the index of the first child that cannot be
// matched (len(kids) when all matched), whether the content is complete,
// and the edges available at the stopping point (for the message).
func (v *validator) run(n *nfa, kids []*Element) (int, bool, []nfaEdge) {
	cur := n.closure(map[int]bool{0: true})
	for i, c := range kids {
		next := map[int]bool{}
		for s := range cur {
			for _, e := range n.edges[s] {
				if v.matchOne(e.p, c) {
					next[e.to] = true
				}
			}
		}
		if len(next) == 0 {
			return i, false, available(n, cur)
		}
		cur = n.closure(next)
	}
	if cur[n.accept] {
		return len(kids), true, nil
	}
	return len(kids), false, available(n, cur)
}

func available(n *nfa, set map[int]bool) []nfaEdge {
	var out []nfaEdge
	for s := range set {
		out = append(out, n.edges[s]...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// expected renders edges the way Xerces lists expected elements.
func (v *validator) expected(edges []nfaEdge) string {
	var names []string
	seen := map[string]bool{}
	for _, e := range edges {
		var label string
		if e.p.kind == pAny {
			label = "WC[" + strings.Join(quoteAll(e.p.anyNS, v.ns), ", ") + "]"
		} else {
			label = `"` + v.ns + `":` + e.p.name
		}
		if !seen[label] {
			seen[label] = true
			names = append(names, label)
		}
	}
	return strings.Join(names, ", ")
}

func quoteAll(nss []string, own string) []string {
	out := make([]string, len(nss))
	for i, ns := range nss {
		if ns == "##other" {
			out[i] = `##other:"` + own + `"`
		} else {
			out[i] = `"` + ns + `"`
		}
	}
	return out
}

// check validates e against type t, depth first in document order, and
// returns the first violation as an E0701 error.
func (v *validator) check(e *Element, t *ctype) *Error {
	if t == nil || t.open {
		return nil
	}
	if err := v.checkAttrs(e, t); err != nil {
		return err
	}
	if t.simple {
		if len(e.Children) > 0 {
			c := e.Children[0]
			return schemaError(c.Line, c.Col, "cvc-type.3.1.2: Element '%s' is a simple type, so it must have no element information item [children].", e.Name.Local)
		}
		return nil
	}
	if t.model == nil {
		if len(e.Children) > 0 || strings.TrimSpace(e.Text) != "" {
			return schemaError(e.Line, e.Col, "cvc-complex-type.2.1: Element '%s' must have no character or element information item [children], because the type's content type is empty.", e.Name.Local)
		}
		return nil
	}
	if strings.TrimSpace(e.Text) != "" {
		return schemaError(e.Line, e.Col, "cvc-complex-type.2.3: Element '%s' cannot have character [children], because the type's content type is element-only.", e.Name.Local)
	}
	k, ok, edges := v.run(t.nfa, e.Children)
	for _, c := range e.Children[:k] {
		sub, ct := v.childType(t.model, c)
		if err := sub.check(c, ct); err != nil {
			return err
		}
	}
	if ok {
		return nil
	}
	if k == len(e.Children) {
		return schemaError(e.Line, e.Col, "cvc-complex-type.2.4.b: The content of element '%s' is not complete. One of '{%s}' is expected.", e.Name.Local, v.expected(edges))
	}
	bad := e.Children[k]
	exp := v.expected(edges)
	if exp == "" {
		return schemaError(bad.Line, bad.Col, "cvc-complex-type.2.4.d: Invalid content was found starting with element '%s'. No child element is expected at this point.", bad.Name.Local)
	}
	return schemaError(bad.Line, bad.Col, "cvc-complex-type.2.4.a: Invalid content was found starting with element '%s'. One of '{%s}' is expected.", bad.Name.Local, exp)
}

// childType finds the declared type of child c within model. A child taken
// by a wildcard is typed through the ext hook and validated in its own
// namespace, hence the returned validator.
func (v *validator) childType(model *particle, c *Element) (*validator, *ctype) {
	var found *ctype
	wild := false
	var walk func(p *particle)
	walk = func(p *particle) {
		if found != nil {
			return
		}
		switch p.kind {
		case pElem:
			if v.matchOne(p, c) {
				found = p.typ
			}
		case pAny:
			if v.matchOne(p, c) {
				wild = true
			}
		default:
			for _, it := range p.items {
				walk(it)
			}
		}
	}
	walk(model)
	if found == nil && wild && v.ext != nil {
		return &validator{ns: c.Name.Space, ext: v.ext}, v.ext(c)
	}
	return v, found
}

func (v *validator) checkAttrs(e *Element, t *ctype) *Error {
	for _, a := range e.Attrs {
		if a.Name.Space != "" {
			continue // qualified attributes (xsi:..., foreign) are not checked
		}
		var spec *attrSpec
		for i := range t.attrs {
			if t.attrs[i].name == a.Name.Local {
				spec = &t.attrs[i]
			}
		}
		if spec == nil {
			return schemaError(e.Line, e.Col, "cvc-complex-type.3.2.2: Attribute '%s' is not allowed to appear in element '%s'.", a.Name.Local, e.Name.Local)
		}
		if spec.ident && !identPattern.MatchString(a.Value) {
			return schemaError(e.Line, e.Col, "cvc-pattern-valid: Value '%s' is not facet-valid with respect to pattern '%s' for type 'IDENTIFIER'.", a.Value, identFacet)
		}
	}
	for _, s := range t.attrs {
		if _, ok := e.LookupAttr(s.name); s.required && !ok {
			return schemaError(e.Line, e.Col, "cvc-complex-type.4: Attribute '%s' must appear on element '%s'.", s.name, e.Name.Local)
		}
	}
	return nil
}
