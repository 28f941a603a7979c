package workflow

import "strings"

// validateForkJoin enforces the fork/join rules Oozie applies at submission
// (switchable with oozie.validate.ForkJoin / oozie.wf.validate.ForkJoin):
//
//   - as many forks as joins (E0730);
//   - a fork lists each node once, joins and kill nodes excepted (E0744);
//   - no path inside a fork reaches the end node (E0737);
//   - a join is only reached inside a fork (E0742);
//   - all paths of a fork end in the same join (E0757), and in one at all (E0733);
//   - a node is not reached by two "ok" paths unless both run under the same
//     eldest decision, because only one of a decision's branches ever runs
//     while two ok paths would run the node twice (E0743). Kill, join and
//     end nodes are exempt: Oozie's validator skips them, so decisions in
//     several fork paths may all lead to one kill node.
//
// The walk starts at the start node and follows transitions in definition
// order. An error transition ends the "ok path" for everything after it.
func validateForkJoin(a *App) error {
	forks, joins := 0, 0
	for _, n := range a.Nodes {
		switch n.Kind {
		case ForkNode:
			forks++
		case JoinNode:
			joins++
		}
	}
	if forks != joins {
		return newError(CodeForkJoinNotInPair, "Fork/Join not in pair")
	}
	w := &fjWalker{
		app:      a,
		decision: map[string]string{},
		memo:     map[fjKey][]string{},
		active:   map[fjKey]bool{},
		pairs:    map[string]string{},
	}
	start := a.index[StartNodeName]
	_, err := w.walk(w.first(start), nil, "", true, start.Name)
	return err
}

type fjWalker struct {
	app *App
	// decision records, for each node first reached on an ok path, the
	// eldest decision it was reached under ("" for none).
	decision map[string]string
	// memo caches the joins reached from a node in a given context; revisits
	// in the same context cannot find anything new, and caching keeps chains
	// of decision diamonds from making the walk exponential.
	memo   map[fjKey][]string
	active map[fjKey]bool
	pairs  map[string]string // join -> fork that ends in it
}

type fjKey struct {
	node, forks, decision string
	ok                    bool
}

// walk visits n, reached from prev, inside the forks of the forks stack,
// under the eldest decision topDecision, on an ok path or not. It returns the
// joins reached that close the innermost fork of the stack.
func (w *fjWalker) walk(n *Node, forks []string, topDecision string, ok bool, prev string) ([]string, error) {
	if n == nil {
		return nil, nil // basic validation already reported missing targets
	}
	// Kill, join and end nodes may be reached by several ok paths: only
	// the other kinds count, as in Oozie's validator.
	if ok && n.Kind != JoinNode && n.Kind != KillNode && n.Kind != EndNode {
		if first, seen := w.decision[n.Name]; !seen {
			w.decision[n.Name] = topDecision
		} else if first == "" || first != topDecision {
			return nil, newError(CodeMultipleOkToNode,
				"Multiple \"ok to\" transitions to the same node, [%s], are not allowed", n.Name).At(n.Line, n.Col)
		}
	}
	switch n.Kind {
	case EndNode:
		if len(forks) > 0 {
			return nil, newError(CodeEndInsideForkJoin,
				"Invalid transition from node [%s] to node [%s] -- nodes of type 'end' are not allowed within Fork/Join",
				prev, n.Name).At(n.Line, n.Col)
		}
		return nil, nil
	case KillNode:
		return nil, nil
	case JoinNode:
		if len(forks) == 0 {
			return nil, newError(CodeJoinWithoutFork, "No Fork for Join [%s] to pair with", n.Name).At(n.Line, n.Col)
		}
		return []string{n.Name}, nil
	}
	key := fjKey{node: n.Name, forks: strings.Join(forks, "\x00"), decision: topDecision, ok: ok}
	if r, done := w.memo[key]; done {
		return r, nil
	}
	if w.active[key] {
		return nil, nil // cycles were rejected earlier; never loop here
	}
	w.active[key] = true
	r, err := w.walkChildren(n, forks, topDecision, ok)
	delete(w.active, key)
	if err != nil {
		return nil, err
	}
	w.memo[key] = r
	return r, nil
}

func (w *fjWalker) walkChildren(n *Node, forks []string, topDecision string, ok bool) ([]string, error) {
	var joins []string
	collect := func(r []string, err error) error {
		if err != nil {
			return err
		}
		joins = union(joins, r)
		return nil
	}
	switch n.Kind {
	case ActionNode:
		t := n.Targets()
		if len(t) > 0 {
			if err := collect(w.walk(w.app.index[t[0]], forks, topDecision, ok, n.Name)); err != nil {
				return nil, err
			}
		}
		for _, e := range t[min(1, len(t)):] {
			if err := collect(w.walk(w.app.index[e], forks, topDecision, false, n.Name)); err != nil {
				return nil, err
			}
		}
	case DecisionNode:
		top := topDecision
		if top == "" {
			top = n.Name
		}
		for _, t := range union(nil, n.Targets()) {
			if err := collect(w.walk(w.app.index[t], forks, top, ok, n.Name)); err != nil {
				return nil, err
			}
		}
	case ForkNode:
		return w.walkFork(n, forks, topDecision, ok)
	default: // start or nodes built in code with explicit transitions
		for _, t := range n.Targets() {
			if err := collect(w.walk(w.app.index[t], forks, topDecision, ok, n.Name)); err != nil {
				return nil, err
			}
		}
	}
	return joins, nil
}

func (w *fjWalker) walkFork(n *Node, forks []string, topDecision string, ok bool) ([]string, error) {
	paths := n.Targets()
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			if t := w.app.index[p]; t == nil || (t.Kind != JoinNode && t.Kind != KillNode) {
				return nil, newError(CodeForkDuplicatePath,
					"A fork, [%s], is not allowed to have multiple transitions to the same node, [%s]", n.Name, p).At(n.Line, n.Col)
			}
		}
		seen[p] = true
	}
	inner := append(append([]string(nil), forks...), n.Name)
	var joins []string
	for _, p := range union(nil, paths) {
		r, err := w.walk(w.app.index[p], inner, topDecision, ok, n.Name)
		if err != nil {
			return nil, err
		}
		joins = union(joins, r)
	}
	switch {
	case len(joins) == 0:
		return nil, newError(CodeForkWithoutJoin, "Fork [%s] without a join", n.Name).At(n.Line, n.Col)
	case len(joins) > 1:
		return nil, newError(CodeForkMultipleJoins, "Fork node [%s] has multiple joins: [%s]", n.Name, strings.Join(joins, ", ")).At(n.Line, n.Col)
	}
	join := w.app.index[joins[0]]
	if owner, paired := w.pairs[join.Name]; paired && owner != n.Name {
		return nil, newError(CodeForkJoinNotInPair, "Fork/Join not in pair").At(join.Line, join.Col)
	}
	w.pairs[join.Name] = n.Name
	// Execution continues after the join, back in the enclosing fork.
	return w.walk(w.first(join), forks, topDecision, ok, join.Name)
}

// first returns the node a start or join node leads to.
func (w *fjWalker) first(n *Node) *Node {
	if t := n.Targets(); len(t) > 0 {
		return w.app.index[t[0]]
	}
	return nil
}

// union appends the elements of b missing from a, keeping first-seen order.
func union(a, b []string) []string {
	for _, x := range b {
		found := false
		for _, y := range a {
			if x == y {
				found = true
				break
			}
		}
		if !found {
			a = append(a, x)
		}
	}
	return a
}
