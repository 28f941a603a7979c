// Package graph draws a workflow's nodes and transitions as PNG, SVG or
// Graphviz DOT, coloured by the status of a run. Only the faces (server,
// console, cli) use it, so that the model packages and the engines link no
// image code.
package graph

import (
	"cmp"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gozie/gozie/internal/workflow"
)

// CodeFormat is the Oozie code of a graph that cannot be rendered, an
// unknown format included; the REST API answers it with 404.
const CodeFormat = "E0307"

// formatError is the one constructor of this package's errors: a workflow
// error with code E0307, as the REST API reports a graph it cannot draw.
func formatError(format string, args ...any) error {
	return &workflow.Error{Code: CodeFormat, Msg: fmt.Sprintf(format, args...)}
}

// Options tunes Render.
type Options struct {
	// Format is "png", "svg" or "dot", in any case.
	Format string
	// HideKill leaves out kill nodes and the transitions into them. Oozie's
	// REST API does so unless show-kill=true, because on a big workflow the
	// error edges to one kill node drown the normal flow. A kill node the
	// job reached is drawn all the same, with the transitions into it from
	// reached nodes: it is where the job ended.
	HideKill bool
	// Layout arranges the drawing of a PNG or SVG (DOT leaves layout to
	// Graphviz): LayoutDown ("down", the default: one column, top to
	// bottom), LayoutWrap ("wrap": the column cut into columns of
	// WrapRows layers side by side, read like a newspaper's) or
	// LayoutAuto ("auto": wrap a column that would be taller than 1,200
	// pixels and than twice its width). A long linear workflow of 40
	// steps is then a few columns instead of a 3,600-pixel column.
	Layout string
	// WrapRows is how many layers a wrapped column holds; 0 picks the
	// number that makes the drawing about 1.6 times as wide as tall.
	WrapRows int
}

// Graph renders app as an image of its nodes and transitions, each node
// coloured by its entry in status (node name -> action status such as OK,
// RUNNING, ERROR; nodes absent from the map have not been reached). format is
// "png" or "svg" (both drawn here, no Graphviz needed) or "dot" (Graphviz
// source). Kill nodes are shown; Render can hide them.
func Draw(app *workflow.App, status map[string]string, format string) ([]byte, error) {
	return Render(app, status, Options{Format: format})
}

// Render is Graph with options. The output depends only on its inputs,
// so images can be cached and compared byte for byte.
func Render(app *workflow.App, status map[string]string, opts Options) ([]byte, error) {
	if app == nil {
		return nil, formatError("Runtime error [no workflow to draw]")
	}
	mode := strings.ToLower(opts.Layout)
	switch mode {
	case "", LayoutDown, LayoutWrap, LayoutAuto:
	default:
		return nil, formatError("Runtime error [graph layout [%s] is not supported, use down, wrap or auto]", opts.Layout)
	}
	switch strings.ToLower(opts.Format) {
	case "dot":
		return []byte(dot(app, status, true, opts.HideKill)), nil
	case "svg":
		g := buildGraph(app, status, opts.HideKill)
		g.mode, g.rows = mode, opts.WrapRows
		g.layout()
		return g.svg(), nil
	case "png":
		g := buildGraph(app, status, opts.HideKill)
		g.mode, g.rows = mode, opts.WrapRows
		g.layout()
		return g.png()
	}
	return nil, formatError("Runtime error [graph format [%s] is not supported, use png, svg or dot]", opts.Format)
}

// DOT renders the graph in Graphviz syntax without status colours. Shapes
// follow the node kinds so that control flow stands out from actions; error
// edges are red and dashed.
func DOT(a *workflow.App) string { return dot(a, nil, false, false) }

// dot writes the Graphviz source; coloured fills the nodes by status.
func dot(a *workflow.App, status map[string]string, coloured, hideKill bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %s {\n  node [fontsize=11];\n", dotQuote(a.Name))
	shapes := map[workflow.NodeKind]string{workflow.StartNode: "circle", workflow.EndNode: "doublecircle", workflow.KillNode: "octagon", workflow.DecisionNode: "diamond"}
	hidden, seen := map[string]bool{}, map[string]bool{}
	reachedKill := map[string]bool{}
	for _, n := range a.Nodes {
		if hideKill && n.Kind == workflow.KillNode {
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
		if n.Kind == workflow.ForkNode || n.Kind == workflow.JoinNode {
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
	var errs []workflow.Edge
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
func nodeLabel(n *workflow.Node) []string {
	name := n.Name
	if n.Kind == workflow.StartNode {
		name = "start"
	}
	if n.Kind == workflow.ActionNode && n.Action != nil && n.Action.Type != "" {
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
func nodeColour(n *workflow.Node, status map[string]string) colour {
	if n.Kind == workflow.KillNode && reached(status, n.Name) {
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
