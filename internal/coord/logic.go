package coord

import (
	"fmt"
	"strconv"
	"strings"
)

// CodeInputLogic is Oozie's code for a conditional input logic that cannot
// be evaluated ("Coord input logic error. ..."): a data-in naming no input
// event, a combine of unequal ranges or of latest/future instances, a min
// or wait that is not a number.
const CodeInputLogic = "E1028"

// Operators of <input-logic> (spec: coord 6.10).
const (
	LogicAnd     = "and"
	LogicOr      = "or"
	LogicCombine = "combine"
	LogicDataIn  = "data-in"
)

// LogicNode is one element of <input-logic> (schema coordinator 0.5):
// an and, or or combine over its children, or a data-in naming an input
// event. Attribute texts are as submission resolved them (job variables).
type LogicNode struct {
	Op string
	// Name makes coord:dataIn(Name) give the instances that satisfied
	// the node.
	Name string
	// Min and Wait are the attributes as written ("" when absent); the
	// values the evaluation uses are inherited as Oozie's parser does
	// (MinOf, WaitOf).
	Min, Wait string
	// Input is a data-in's dataset attribute: the name of an input
	// event of <input-events>.
	Input    string
	Children []*LogicNode

	line, col int
}

// InputLogic is an app's <input-logic>: its top-level elements (one, in
// every definition Oozie can evaluate).
type InputLogic struct {
	Nodes []*LogicNode
}

// Root is the element the evaluation starts from.
func (l *InputLogic) Root() *LogicNode {
	if l == nil || len(l.Nodes) == 0 {
		return nil
	}
	return l.Nodes[0]
}

// parseLogic reads <input-logic> (only in coordinator 0.5): its children
// and theirs, each checked against the schema's LOGICAL* types.
func parseLogic(n *node, ns string) (*InputLogic, error) {
	if ns != "uri:oozie:coordinator:0.5" {
		return nil, schemaError(n.Line, n.Col, "cvc-complex-type.2.4.a: Invalid content was found starting with element 'input-logic'. <input-logic> needs the namespace uri:oozie:coordinator:0.5.")
	}
	l := &InputLogic{}
	for _, c := range n.Children {
		ln, err := parseLogicNode(c, ns, "input-logic", 0)
		if err != nil {
			return nil, err
		}
		l.Nodes = append(l.Nodes, ln)
	}
	return l, nil
}

// logicChildren are the elements each operator may hold.
var logicChildren = map[string][]string{
	"input-logic": {LogicAnd, LogicOr, LogicCombine, LogicDataIn},
	LogicAnd:      {LogicAnd, LogicOr, LogicCombine, LogicDataIn},
	LogicOr:       {LogicAnd, LogicOr, LogicCombine, LogicDataIn},
	LogicCombine:  {LogicDataIn},
}

func parseLogicNode(c *node, ns, parent string, depth int) (*LogicNode, error) {
	allowed := logicChildren[parent]
	ok := c.Name.Space == ns
	if ok {
		ok = false
		for _, name := range allowed {
			ok = ok || c.Name.Local == name
		}
	}
	if !ok {
		return nil, schemaError(c.Line, c.Col, "cvc-complex-type.2.4.a: Invalid content was found starting with element '%s'. One of '{\"%s\":%s}' is expected.",
			c.Name.Local, ns, strings.Join(allowed, ", \""+ns+"\":"))
	}
	ln := &LogicNode{Op: c.Name.Local, line: c.Line, col: c.Col}
	ln.Name, _ = c.LookupAttr("name")
	ln.Min, _ = c.LookupAttr("min")
	ln.Wait, _ = c.LookupAttr("wait")
	if ln.Op == LogicDataIn {
		if err := requireAttrs(c, "dataset"); err != nil {
			return nil, err
		}
		if err := allowAttrs(c, "name", "min", "wait", "dataset"); err != nil {
			return nil, err
		}
		if len(c.Children) > 0 {
			return nil, schemaError(c.Children[0].Line, c.Children[0].Col, "cvc-complex-type.2.1: Element 'data-in' must have no character or element information item [children], because the type's content type is empty.")
		}
		ln.Input, _ = c.LookupAttr("dataset")
		return ln, nil
	}
	if err := allowAttrs(c, "name", "min", "wait"); err != nil {
		return nil, err
	}
	for _, k := range c.Children {
		kn, err := parseLogicNode(k, ns, ln.Op, depth+1)
		if err != nil {
			return nil, err
		}
		ln.Children = append(ln.Children, kn)
	}
	return ln, nil
}

// resolveLogic evaluates the attributes of the input logic with the job
// variables (Oozie resolves dataset, name, min and wait the same way) and
// checks what submission can: one top-level element, data-ins naming
// input events, combines of two or more data-ins none of which uses
// coord:latest or coord:future, numeric min and wait.
func (a *App) resolveLogic(l *InputLogic, rv resolver) error {
	if l == nil {
		return nil
	}
	if len(l.Nodes) == 0 {
		return nil
	}
	if len(l.Nodes) > 1 {
		return errorf(CodeInputLogic, "Coord input logic error. <input-logic> has %d top-level elements; write one and, or or combine around them", len(l.Nodes))
	}
	events := map[string]*DataEvent{}
	for _, ev := range a.Inputs {
		events[ev.Name] = ev
	}
	var walk func(n *LogicNode) error
	walk = func(n *LogicNode) error {
		// A check without the job's properties leaves what names an
		// undefined variable unchecked.
		unchecked := map[string]bool{}
		for _, f := range []struct {
			what string
			p    *string
		}{{"name", &n.Name}, {"min", &n.Min}, {"wait", &n.Wait}, {"dataset", &n.Input}} {
			if *f.p == "" {
				continue
			}
			v, err := rv.eval(PhaseSubmitNoFuncs, "input-logic "+n.Op+" "+f.what, *f.p)
			if skip(err) {
				unchecked[f.what] = true
				continue
			}
			if err != nil {
				return err
			}
			*f.p = strings.TrimSpace(v)
		}
		if err := checkLogicNumber("min", n.Min); err != nil && !unchecked["min"] {
			return err
		}
		if err := checkLogicNumber("wait", n.Wait); err != nil && !unchecked["wait"] {
			return err
		}
		if n.Op == LogicDataIn {
			if _, ok := events[n.Input]; !ok && !unchecked["dataset"] {
				return errorf(CodeInputLogic, "Coord input logic error.  Data set not found : %s", n.Input)
			}
			return nil
		}
		if n.Op == LogicCombine {
			if len(n.Children) < 2 {
				return errorf(CodeInputLogic, "Coord input logic error. Combine should have at least two input sets. DataSets : [%s]", strings.Join(logicInputs(n), ", "))
			}
			for _, k := range n.Children {
				if ev := events[k.Input]; ev != nil && usesLatestFuture(ev) {
					return errorf(CodeInputLogic, "Coord input logic error. Combine is not supported for latest/future")
				}
			}
		}
		for _, k := range n.Children {
			if err := walk(k); err != nil {
				return err
			}
		}
		return nil
	}
	for _, n := range l.Nodes {
		if err := walk(n); err != nil {
			return err
		}
	}
	return nil
}

// checkLogicNumber refuses a min or wait that is not a whole number of
// instances or minutes (Oozie: "Unsupported time : x" for wait).
func checkLogicNumber(what, s string) error {
	if s == "" {
		return nil
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			if what == "wait" {
				return errorf(CodeInputLogic, "Coord input logic error. Unsupported time : %s", s)
			}
			return errorf(CodeInputLogic, "Coord input logic error. min [%s] is not a number of instances", s)
		}
	}
	if _, err := strconv.Atoi(s); err != nil {
		return errorf(CodeInputLogic, "Coord input logic error. %s [%s] is too large", what, s)
	}
	return nil
}

// usesLatestFuture reports whether an input event names coord:latest or
// coord:future instances, which combine cannot take.
func usesLatestFuture(ev *DataEvent) bool {
	texts := append([]string{ev.StartInstance, ev.EndInstance}, ev.Instances...)
	for _, t := range texts {
		if strings.Contains(t, "coord:latest") || strings.Contains(t, "coord:future") {
			return true
		}
	}
	return false
}

// logicInputs lists the input events a node's data-in children name.
func logicInputs(n *LogicNode) []string {
	var out []string
	for _, k := range n.Children {
		if k.Op == LogicDataIn {
			out = append(out, k.Input)
		}
	}
	return out
}

// Names lists the names given to logic nodes, in document order: those
// coord:dataIn accepts besides the input events.
func (l *InputLogic) Names() []string {
	var out []string
	var walk func(n *LogicNode)
	walk = func(n *LogicNode) {
		if n.Name != "" {
			out = append(out, n.Name)
		}
		for _, k := range n.Children {
			walk(k)
		}
	}
	if l != nil {
		for _, n := range l.Nodes {
			walk(n)
		}
	}
	return out
}

// Find returns the first node named name (Oozie's parseWithName: depth
// first, in document order), or nil.
func (l *InputLogic) Find(name string) *LogicNode {
	var walk func(n *LogicNode) *LogicNode
	walk = func(n *LogicNode) *LogicNode {
		if n.Name == name {
			return n
		}
		for _, k := range n.Children {
			if f := walk(k); f != nil {
				return f
			}
		}
		return nil
	}
	if l == nil {
		return nil
	}
	for _, n := range l.Nodes {
		if f := walk(n); f != nil {
			return f
		}
	}
	return nil
}

// logicArgs are the min and wait a node is evaluated with, -1 for none:
// what Oozie's InputLogicParser hands each builder call. A min is
// inherited down the whole tree, a node's own overriding; a wait is an
// and/or/combine's own only (the parser drops a wait passed through an
// and/or that has none), and a data-in takes its parent's when it has
// none.
type logicArgs struct{ min, wait int }

func atoiOr(s string, def int) int {
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}

// childArgs are the arguments a child of a node with args gets.
func childArgs(parent logicArgs, child *LogicNode) logicArgs {
	out := logicArgs{min: atoiOr(child.Min, parent.min), wait: -1}
	if child.Op == LogicDataIn {
		out.wait = atoiOr(child.Wait, parent.wait)
	} else {
		out.wait = atoiOr(child.Wait, -1)
	}
	return out
}

// rootArgs are the arguments of a top-level node: its own attributes.
func rootArgs(n *LogicNode) logicArgs {
	return logicArgs{min: atoiOr(n.Min, -1), wait: atoiOr(n.Wait, -1)}
}

// xml writes the input logic as a definition holds it.
func (l *InputLogic) xml(b *strings.Builder) {
	if l == nil {
		return
	}
	b.WriteString("  <input-logic>\n")
	var walk func(n *LogicNode, indent string)
	walk = func(n *LogicNode, indent string) {
		fmt.Fprintf(b, "%s<%s", indent, n.Op)
		for _, at := range [][2]string{{"name", n.Name}, {"min", n.Min}, {"wait", n.Wait}, {"dataset", n.Input}} {
			if at[1] != "" {
				fmt.Fprintf(b, " %s=%s", at[0], attrQuote(at[1]))
			}
		}
		if len(n.Children) == 0 {
			b.WriteString("/>\n")
			return
		}
		b.WriteString(">\n")
		for _, k := range n.Children {
			walk(k, indent+"  ")
		}
		fmt.Fprintf(b, "%s</%s>\n", indent, n.Op)
	}
	for _, n := range l.Nodes {
		walk(n, "    ")
	}
	b.WriteString("  </input-logic>\n")
}
