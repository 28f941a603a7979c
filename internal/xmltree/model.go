package xmltree

import (
	"regexp"
	"sort"
	"strings"
)

// This file holds a small content-model checker that mirrors what Oozie's XSD
// validation (Xerces) rejects, and words its messages the way Xerces does so
// that users recognise them. Only the constructs the Oozie schemas use are
// supported: sequences, choices, element particles with min/max occurrences,
// namespace wildcards, required attributes and the IDENTIFIER pattern.

type particleKind int

const (
	pElem particleKind = iota
	pSeq
	pChoice
	pAny
)

// Unbounded marks maxOccurs="unbounded".
const Unbounded = -1

// Particle is one node of a content model.
type Particle struct {
	kind     particleKind
	name     string // pElem: local name; namespace is the schema's
	typ      *Type  // pElem: the element's type
	min, max int
	items    []*Particle
	// pAny: accepted namespaces; "##other" means any namespace except the
	// schema's own and the empty one.
	anyNS []string
}

// Type is an element type: attributes plus either a content model, simple
// text (simple) or nothing at all (empty).
type Type struct {
	model  *Particle
	nfa    *nfa // compiled model, built once by complexType
	simple bool
	attrs  []AttrSpec
	// open types accept any content; used where gozie does not model the
	// structure (extension action bodies) so that nothing valid is rejected.
	open bool
	// undeclared types refuse their element: a strict wildcard matched an
	// element no schema declares. hint is added to the message.
	undeclared bool
	hint       string
}

// AttrSpec declares one attribute of a Type.
type AttrSpec struct {
	name     string
	required bool
	ident    bool // value must match the IDENTIFIER pattern
	// pattern, when set, replaces the workflow IDENTIFIER facet with a
	// schema's own (ReqPattern).
	pattern *AttrPattern
}

// AttrPattern is an xs:pattern facet of a named simple type, for schemas
// whose identifier type differs from the workflow's IDENTIFIER.
type AttrPattern struct {
	Type  string         // the simple type's name, as Xerces names it
	Facet string         // the pattern as the schema writes it
	RE    *regexp.Regexp // the facet, anchored, in Go syntax
}

// identPattern is the schemas' IDENTIFIER facet. As written, the {1,39}
// applies to repetitions of a whole identifier, so it does not bound length.
var identPattern = regexp.MustCompile(`^(?:[a-zA-Z_](?:[\-_a-zA-Z0-9])*)+$`)

const identFacet = `([a-zA-Z_]([\-_a-zA-Z0-9])*){1,39}`

// Elem is an element particle: a child named name in the validator's
// namespace, of type t, occurring min to max times (max may be Unbounded).
func Elem(name string, t *Type, min, max int) *Particle {
	return &Particle{kind: pElem, name: name, typ: t, min: min, max: max}
}

// Seq is an xs:sequence of items occurring min to max times.
func Seq(min, max int, items ...*Particle) *Particle {
	return &Particle{kind: pSeq, min: min, max: max, items: items}
}

// Choice is an xs:choice among items occurring min to max times.
func Choice(min, max int, items ...*Particle) *Particle {
	return &Particle{kind: pChoice, min: min, max: max, items: items}
}

// AnyOf is an xs:any wildcard over the namespaces ns ("##other": any
// namespace but the schema's own and the empty one).
func AnyOf(min, max int, ns ...string) *Particle {
	return &Particle{kind: pAny, min: min, max: max, anyNS: ns}
}

// ComplexType builds an element-only type and compiles its model once, when
// the schema is built, so validation never mutates shared state.
func ComplexType(model *Particle, attrs ...AttrSpec) *Type {
	return &Type{model: model, nfa: compile(model), attrs: attrs}
}

// TextType is a simple-content type (xs:string and friends).
func TextType(attrs ...AttrSpec) *Type { return &Type{simple: true, attrs: attrs} }

// EmptyType has attributes only.
func EmptyType(attrs ...AttrSpec) *Type { return &Type{attrs: attrs} }

// OpenType accepts anything; used for content gozie keeps but does not model.
var OpenType = &Type{open: true}

// Undeclared is the type of an element that a strict wildcard matched but
// that no schema declares (an action of a namespace version that does
// not exist): Check refuses it as Xerces does, adding hint (what would be
// declared) to the message when it is not empty.
func Undeclared(hint string) *Type { return &Type{undeclared: true, hint: hint} }

// Req declares a required attribute.
func Req(name string) AttrSpec { return AttrSpec{name: name, required: true} }

// Opt declares an optional attribute.
func Opt(name string) AttrSpec { return AttrSpec{name: name} }

// ReqID declares a required attribute whose value must match the schemas'
// IDENTIFIER pattern.
func ReqID(name string) AttrSpec { return AttrSpec{name: name, required: true, ident: true} }

// ReqPattern declares a required attribute whose value must match p.
func ReqPattern(name string, p *AttrPattern) AttrSpec {
	return AttrSpec{name: name, required: true, pattern: p}
}

// Validator checks one document against the schema of one namespace.
type Validator struct {
	// NS is the schema's target namespace: element particles match
	// children in it.
	NS string
	// Ext resolves element types for wildcard-matched children (extension
	// action schemas); a nil result means "not modelled, accept".
	Ext func(e *Element) *Type
}

// matchOne reports whether child e can be consumed by the element or
// wildcard Particle p.
func (v *Validator) matchOne(p *Particle, e *Element) bool {
	switch p.kind {
	case pElem:
		return e.Name.Local == p.name && e.Name.Space == v.NS
	case pAny:
		for _, ns := range p.anyNS {
			if ns == "##other" {
				if e.Name.Space != v.NS && e.Name.Space != "" {
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
	p  *Particle
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
func compile(model *Particle) *nfa {
	n := &nfa{}
	s := n.newState()
	ids := 0
	n.accept = n.build(model, s, &ids)
	return n
}

// build adds p (with its occurrence bounds) after state s and returns the
// state reached once p has been matched.
func (n *nfa) build(p *Particle, s int, ids *int) int {
	cur := s
	for i := 0; i < p.min; i++ {
		cur = n.buildOnce(p, cur, ids)
	}
	if p.max == Unbounded {
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

func (n *nfa) buildOnce(p *Particle, s int, ids *int) int {
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
func (v *Validator) run(n *nfa, kids []*Element) (int, bool, []nfaEdge) {
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
func (v *Validator) expected(edges []nfaEdge) string {
	var names []string
	seen := map[string]bool{}
	for _, e := range edges {
		var label string
		if e.p.kind == pAny {
			label = "WC[" + strings.Join(quoteAll(e.p.anyNS, v.NS), ", ") + "]"
		} else {
			label = `"` + v.NS + `":` + e.p.name
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

// Check validates e against type t, depth first in document order, and
// returns the first violation as an E0701 error.
func (v *Validator) Check(e *Element, t *Type) *DocError {
	if t == nil || t.open {
		return nil
	}
	if t.undeclared {
		msg := "cvc-complex-type.2.4.c: The matching wildcard is strict, but no declaration can be found for element '%s'."
		if t.hint != "" {
			msg += " " + strings.ReplaceAll(t.hint, "%", "%%")
		}
		return invalid(e.Line, e.Col, msg, e.Name.Local)
	}
	if err := v.checkAttrs(e, t); err != nil {
		return err
	}
	if t.simple {
		if len(e.Children) > 0 {
			c := e.Children[0]
			return invalid(c.Line, c.Col, "cvc-type.3.1.2: Element '%s' is a simple type, so it must have no element information item [children].", e.Name.Local)
		}
		return nil
	}
	if t.model == nil {
		if len(e.Children) > 0 || strings.TrimSpace(e.Text) != "" {
			return invalid(e.Line, e.Col, "cvc-complex-type.2.1: Element '%s' must have no character or element information item [children], because the type's content type is empty.", e.Name.Local)
		}
		return nil
	}
	if strings.TrimSpace(e.Text) != "" {
		return invalid(e.Line, e.Col, "cvc-complex-type.2.3: Element '%s' cannot have character [children], because the type's content type is element-only.", e.Name.Local)
	}
	k, ok, edges := v.run(t.nfa, e.Children)
	for _, c := range e.Children[:k] {
		sub, ct := v.childType(t.model, c)
		if err := sub.Check(c, ct); err != nil {
			return err
		}
	}
	if ok {
		return nil
	}
	if k == len(e.Children) {
		return invalid(e.Line, e.Col, "cvc-complex-type.2.4.b: The content of element '%s' is not complete. One of '{%s}' is expected.", e.Name.Local, v.expected(edges))
	}
	bad := e.Children[k]
	exp := v.expected(edges)
	if exp == "" {
		return invalid(bad.Line, bad.Col, "cvc-complex-type.2.4.d: Invalid content was found starting with element '%s'. No child element is expected at this point.", bad.Name.Local)
	}
	return invalid(bad.Line, bad.Col, "cvc-complex-type.2.4.a: Invalid content was found starting with element '%s'. One of '{%s}' is expected.", bad.Name.Local, exp)
}

// childType finds the declared type of child c within model. A child taken
// by a wildcard is typed through the ext hook and validated in its own
// namespace, hence the returned Validator.
func (v *Validator) childType(model *Particle, c *Element) (*Validator, *Type) {
	var found *Type
	wild := false
	var walk func(p *Particle)
	walk = func(p *Particle) {
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
	if found == nil && wild && v.Ext != nil {
		return &Validator{NS: c.Name.Space, Ext: v.Ext}, v.Ext(c)
	}
	return v, found
}

func (v *Validator) checkAttrs(e *Element, t *Type) *DocError {
	for _, a := range e.Attrs {
		if a.Name.Space != "" {
			continue // qualified attributes (xsi:..., foreign) are not checked
		}
		var spec *AttrSpec
		for i := range t.attrs {
			if t.attrs[i].name == a.Name.Local {
				spec = &t.attrs[i]
			}
		}
		if spec == nil {
			return invalid(e.Line, e.Col, "cvc-complex-type.3.2.2: Attribute '%s' is not allowed to appear in element '%s'.", a.Name.Local, e.Name.Local)
		}
		if p := spec.pattern; p != nil && !p.RE.MatchString(a.Value) {
			return invalid(e.Line, e.Col, "cvc-pattern-valid: Value '%s' is not facet-valid with respect to pattern '%s' for type '%s'.", a.Value, p.Facet, p.Type)
		}
		if spec.ident && !identPattern.MatchString(a.Value) {
			return invalid(e.Line, e.Col, "cvc-pattern-valid: Value '%s' is not facet-valid with respect to pattern '%s' for type 'IDENTIFIER'.", a.Value, identFacet)
		}
	}
	for _, s := range t.attrs {
		if _, ok := e.LookupAttr(s.name); s.required && !ok {
			return invalid(e.Line, e.Col, "cvc-complex-type.4: Attribute '%s' must appear on element '%s'.", s.name, e.Name.Local)
		}
	}
	return nil
}
