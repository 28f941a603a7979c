package workflow

// Edge is one transition of the graph, labelled with how it is taken.
type Edge struct {
	From, To string
	// Kind is "start", "ok", "error", "case", "default", "path", "join", or
	// "transition" for nodes built in code with explicit Transitions.
	Kind string
	// Predicate is the EL text of a decision case (unevaluated).
	Predicate string
}

// Edges lists every transition in definition order, the order Validate walks
// them; the console and `gozie validate` draw the graph from it.
func (a *App) Edges() []Edge {
	var out []Edge
	for _, n := range a.Nodes {
		if n.Transitions != nil {
			for _, t := range n.Transitions {
				out = append(out, Edge{From: n.Name, To: t, Kind: "transition"})
			}
			continue
		}
		switch n.Kind {
		case StartNode:
			out = append(out, Edge{From: n.Name, To: n.To, Kind: "start"})
		case JoinNode:
			out = append(out, Edge{From: n.Name, To: n.To, Kind: "join"})
		case ActionNode:
			out = append(out, Edge{From: n.Name, To: n.OK, Kind: "ok"}, Edge{From: n.Name, To: n.Error, Kind: "error"})
		case DecisionNode:
			for _, c := range n.Cases {
				out = append(out, Edge{From: n.Name, To: c.To, Kind: "case", Predicate: c.Predicate})
			}
			if n.HasDefault {
				out = append(out, Edge{From: n.Name, To: n.Default, Kind: "default"})
			}
		case ForkNode:
			for _, p := range n.Paths {
				out = append(out, Edge{From: n.Name, To: p, Kind: "path"})
			}
		}
	}
	return out
}
