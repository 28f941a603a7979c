package workflow

import (
	"fmt"
	"strings"
)

// Validate checks the graph the way Oozie does before accepting a workflow:
// one start and one end node, unique and well-formed node names (E0705,
// E0724), accepted action types (E0723), transitions to existing nodes
// (E0708), no self transitions (E0706) and no cycles (E0707), then, when
// enabled, the fork/join rules (E0730-E0757).
//
// Nodes are walked depth first from the start node in definition order
// (decision cases then default, action ok then error, fork paths in order),
// so that the reported error is the one Oozie reports. Nodes the walk never
// reaches are checked afterwards, in definition order.
func (a *App) Validate(opts Options) error {
	a.reindex()
	start := a.index[StartNodeName]
	if start == nil && a.Start != "" {
		// Graphs built in code may give only App.Start; the walk needs a node.
		start = &Node{Name: StartNodeName, Kind: StartNode, To: a.Start}
		a.index[StartNodeName] = start
	}
	if start == nil {
		return schemaError(0, 0, "no start node")
	}
	ends := 0
	seen := map[string]bool{}
	for _, n := range a.Nodes {
		if seen[n.Name] {
			return newError(CodeDuplicateNode, "Node already defined, node [%s]", n.Name).At(n.Line, n.Col)
		}
		seen[n.Name] = true
		if n.Kind == EndNode {
			ends++
		}
	}
	if ends != 1 {
		return schemaError(0, 0, "a workflow must have exactly one end node, found %d", ends)
	}
	w := &walker{app: a, opts: opts, state: map[*Node]int{}}
	if err := w.visit(start, []string{}); err != nil {
		return err
	}
	for _, n := range a.Nodes {
		if w.state[n] == 0 {
			if err := w.checkNode(n); err != nil {
				return err
			}
		}
	}
	if opts.forkJoinEnabled() {
		return validateForkJoin(a)
	}
	return nil
}

// walker performs the basic depth-first validation.
type walker struct {
	app   *App
	opts  Options
	state map[*Node]int // 0 unvisited, 1 on the current path, 2 done
}

// checkNode applies the per-node rules: name syntax and action type.
func (w *walker) checkNode(n *Node) error {
	if n.Kind != StartNode {
		if err := checkNodeName(n.Name, w.opts.maxNodeNameLength()); err != nil {
			return newError(CodeInvalidNodeName, "Invalid node name, %s", err.Error()).At(n.Line, n.Col)
		}
	}
	if n.Kind == ActionNode && n.Action != nil && !w.opts.actionAccepted(n.Action) {
		return w.opts.unsupportedActionError(n)
	}
	return nil
}

func (w *walker) visit(n *Node, path []string) error {
	if err := w.checkNode(n); err != nil {
		return err
	}
	w.state[n] = 1
	path = append(path, n.Name)
	for _, t := range n.Targets() {
		if t == n.Name {
			return newError(CodeSelfTransition, "Node cannot transition to itself node [%s]", n.Name).At(n.Line, n.Col)
		}
		next := w.app.index[t]
		if next == nil {
			return w.invalidTransitionError(n, t)
		}
		switch w.state[next] {
		case 1:
			loop := strings.Join(append(path, next.Name), "->")
			return newError(CodeLoop, "Loop detected at parsing, node [%s], path [%s]", next.Name, loop).At(next.Line, next.Col)
		case 0:
			if err := w.visit(next, path); err != nil {
				return err
			}
		}
	}
	w.state[n] = 2
	return nil
}

// checkNodeName applies Oozie's node name rules: not empty, bounded length,
// a letter or underscore first, then letters, digits, '_' or '-'. EL
// (${...}) is therefore rejected in names; it would only be resolvable at
// run time, while the graph must be known at submission.
func checkNodeName(name string, maxLen int) error {
	if name == "" {
		return fmt.Errorf("name cannot be empty")
	}
	if len(name) > maxLen {
		return fmt.Errorf("name [%s] must be %d chars or less", name, maxLen)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if i == 0 && !letter {
			return fmt.Errorf("name [%s], must start with [A-Za-z_]", name)
		}
		if !letter && !(c >= '0' && c <= '9') && c != '-' {
			return fmt.Errorf("name [%s] must contain only [A-Za-z0-9_-]", name)
		}
	}
	return nil
}
