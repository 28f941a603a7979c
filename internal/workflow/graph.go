package workflow

import (
	"cmp"
	"fmt"
	"strings"
	"unicode/utf8"
)

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

// CodeGraphFormat is the Oozie code of a graph that cannot be rendered, an
// unknown format included; the REST API answers it with 404.
const CodeGraphFormat = "E0307"

// GraphOptions tunes RenderGraph.
type GraphOptions struct {
	// Format is "png", "svg" or "dot", in any case.
	Format string
	// HideKill leaves out kill nodes and the transitions into them. Oozie's
	// REST API does so unless show-kill=true, because on a big workflow the
	// error edges to one kill node drown the normal flow. A kill node the
	// job reached is drawn all the same, with the transitions into it from
	// reached nodes: it is where the job ended.
	HideKill bool
}

// Graph renders app as an image of its nodes and transitions, each node
// coloured by its entry in status (node name -> action status such as OK,
// RUNNING, ERROR; nodes absent from the map have not been reached). format is
// "png" or "svg" (both drawn here, no Graphviz needed) or "dot" (Graphviz
// source). Kill nodes are shown; RenderGraph can hide them.
func Graph(app *App, status map[string]string, format string) ([]byte, error) {
	return RenderGraph(app, status, GraphOptions{Format: format})
}

// RenderGraph is Graph with options. The output depends only on its inputs,
// so images can be cached and compared byte for byte.
func RenderGraph(app *App, status map[string]string, opts GraphOptions) ([]byte, error) {
	if app == nil {
		return nil, &Error{Code: CodeGraphFormat, Msg: "Runtime error [no workflow to draw]"}
	}
	switch strings.ToLower(opts.Format) {
	case "dot":
		return []byte(app.dot(status, true, opts.HideKill)), nil
	case "svg":
		g := buildGraph(app, status, opts.HideKill)
		g.layout()
		return g.svg(), nil
	case "png":
		g := buildGraph(app, status, opts.HideKill)
		g.layout()
		return g.png()
	}
	return nil, &Error{Code: CodeGraphFormat, Msg: fmt.Sprintf("Runtime error [graph format [%s] is not supported, use png, svg or dot]", opts.Format)}
}

// DOT renders the graph in Graphviz syntax without status colours. Shapes
// follow the node kinds so that control flow stands out from actions; error
// edges are red and dashed.
func (a *App) DOT() string { return a.dot(nil, false, false) }

// dot writes the Graphviz source; coloured fills the nodes by status.
func (a *App) dot(status map[string]string, coloured, hideKill bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %s {\n  node [fontsize=11];\n", dotQuote(a.Name))
	shapes := map[NodeKind]string{StartNode: "circle", EndNode: "doublecircle", KillNode: "octagon", DecisionNode: "diamond"}
	hidden, seen := map[string]bool{}, map[string]bool{}
	reachedKill := map[string]bool{}
	for _, n := range a.Nodes {
		if hideKill && n.Kind == KillNode {
			if _, reached := status[n.Name]; !reached {
				hidden[n.Name] = true
				continue
			}
			reachedKill[n.Name] = true
		}
		if seen[n.Name] {
			continue // a duplicate (E0705) would redefine the first node
		}
		seen[n.Name] = true
		shape := cmp.Or(shapes[n.Kind], "box") // actions, and bars for fork and join
		fmt.Fprintf(&b, "  %s [shape=%s, label=%s", dotQuote(n.Name), shape, dotQuote(strings.Join(nodeLabel(n), "\n")))
		if n.Kind == ForkNode || n.Kind == JoinNode {
			b.WriteString(", height=0.25, penwidth=3") // a bar
		}
		if coloured {
			c := nodeColour(n, status)
			fmt.Fprintf(&b, `, style=filled, fillcolor="%s", color="%s"`, c.fill, c.stroke)
			if failed(status, n.Name) {
				b.WriteString(", penwidth=3")
			}
		}
		b.WriteString("];\n")
	}
	var errs []Edge
	for _, e := range a.Edges() {
		if hidden[e.From] || hidden[e.To] || reachedKill[e.To] && !reached(status, e.From) {
			continue
		}
		attrs := ""
		switch e.Kind {
		case "error":
			errs = append(errs, e)
			continue
		case "case":
			attrs = " [label=" + dotQuote(shortPredicate(e.Predicate)) + "]"
		case "default":
			attrs = ` [label="default", style=dotted]`
		}
		fmt.Fprintf(&b, "  %s -> %s%s;\n", dotQuote(e.From), dotQuote(e.To), attrs)
	}
	if len(errs) > 0 {
		// Error edges come last, after a default that paints them red, so
		// each keeps a short attribute list.
		b.WriteString("  edge [color=red, fontcolor=red];\n")
		for _, e := range errs {
			fmt.Fprintf(&b, "  %s -> %s [style=dashed, label=\"error\"];\n", dotQuote(e.From), dotQuote(e.To))
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// dotEscaper escapes DOT strings. Backslashes are doubled because labels
// give \n, \l and \N special meanings.
var dotEscaper = strings.NewReplacer(`"`, `\"`, `\`, `\\`, "\n", `\n`)

// dotQuote makes s a DOT double-quoted string. Control characters other
// than newline become spaces: node names never need them.
func dotQuote(s string) string {
	s = strings.Map(func(r rune) rune {
		if r != '\n' && (r < 0x20 || r == 0x7f) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	return `"` + dotEscaper.Replace(s) + `"`
}

// nodeLabel is the text drawn for a node: its name, plus the action type.
func nodeLabel(n *Node) []string {
	name := n.Name
	if n.Kind == StartNode {
		name = "start"
	}
	if n.Kind == ActionNode && n.Action != nil && n.Action.Type != "" {
		return []string{name, "(" + n.Action.Type + ")"}
	}
	return []string{name}
}

// Label lengths, in characters, beyond which text is cut with an ellipsis;
// the full text stays in the SVG tooltip.
const (
	maxPredicate = 40
	maxLabel     = 36
)

// shortPredicate fits a case predicate on one short line.
func shortPredicate(p string) string {
	return truncate(strings.Join(strings.Fields(p), " "), maxPredicate)
}

func truncate(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// colour is the fill and outline of a status category.
type colour struct {
	name, fill, stroke string
}

// The legend, in display order; statusColour picks from it.
var (
	colourOK      = colour{"OK / DONE", "#c8e6c9", "#2e7d32"}
	colourRunning = colour{"RUNNING / RETRY", "#bbdefb", "#1565c0"}
	colourManual  = colour{"MANUAL", "#ffe0b2", "#e65100"}
	colourError   = colour{"ERROR / FAILED", "#ffcdd2", "#c62828"}
	colourKilled  = colour{"KILLED", "#d7ccc8", "#4e342e"}
	colourPrep    = colour{"PREP", "#e0e0e0", "#616161"}
	colourNone    = colour{"not reached", "#ffffff", "#424242"}
	colourOther   = colour{"other", "#e1bee7", "#6a1b9a"}
	legend        = []colour{colourOK, colourRunning, colourManual, colourError, colourKilled, colourPrep, colourNone}
)

// statusColour maps the store's action statuses to legend colours.
func statusColour(status map[string]string, node string) colour {
	s, ok := status[node]
	if !ok {
		return colourNone
	}
	switch strings.ToUpper(s) {
	case "OK", "DONE", "SUCCEEDED":
		return colourOK
	case "RUNNING", "START_RETRY", "END_RETRY", "USER_RETRY":
		return colourRunning
	case "START_MANUAL", "END_MANUAL":
		return colourManual
	case "ERROR", "FAILED":
		return colourError
	case "KILLED":
		// Killed because of another node's failure (a fork's other
		// paths) or by a user: told apart from the node that failed.
		return colourKilled
	case "PREP":
		return colourPrep
	}
	return colourOther
}

// nodeColour is statusColour for a node of the definition: a kill node the
// job reached is where it ended KILLED, so it takes the error colour
// whatever its own record says (OK when its message resolved).
func nodeColour(n *Node, status map[string]string) colour {
	if n.Kind == KillNode && reached(status, n.Name) {
		return colourError
	}
	return statusColour(status, n.Name)
}

// reached tells whether the job has a record of the node.
func reached(status map[string]string, node string) bool {
	_, ok := status[node]
	return ok
}

// failed tells whether the node itself failed (ERROR or FAILED), as opposed
// to being killed because something else did: drawn with a thick outline.
func failed(status map[string]string, node string) bool {
	switch strings.ToUpper(status[node]) {
	case "ERROR", "FAILED":
		return true
	}
	return false
}
