package graph

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gozie/gozie/internal/workflow"
)

// This file draws the SVG of Graph: a layered (Sugiyama-style) layout
// computed here, so that no Graphviz is needed.

// The SVG geometry, in pixels. Text is monospace so that its width can be
// computed without font metrics.
const (
	charWidth   = 7.2 // 12px monospace
	nodeHeight  = 40.0
	rowStep     = 88.0 // node height plus room for edge labels
	nodeGap     = 28.0
	margin      = 24.0
	headerH     = 64.0
	bowOut      = 60.0 // how far edges going up or sideways bulge out
	barHeight   = 16.0
	minBoxWidth = 72.0
)

// gnode is a vertex of the drawing.
type gnode struct {
	name    string
	kind    workflow.NodeKind
	missing bool   // the target of a transition that names no node
	failed  bool   // ERROR or FAILED: drawn with a thick outline
	status  string // the node's status in the run, "" when not reached
	lines   []string
	title   string
	colour  colour
	disc    int // depth-first discovery order, the initial order in a layer
	layer   int
	band    int     // the column of a wrapped layout
	x, y    float64 // centre
	w, h    float64
	in, out []int // edge indices
}

// gedge is an arrow of the drawing.
type gedge struct {
	from, to int
	kind     string
	label    string
	back     bool // closes a cycle; ignored by layering
}

type graph struct {
	title         string
	nodes         []*gnode
	edges         []gedge
	layers        [][]int
	routes        []route // by edge index, set by layout
	other         bool    // some status is not in the fixed legend
	width, height float64
	// mode and rows are Options.Layout and Options.WrapRows. A wrapped
	// layout has its columns in bands, the room above its first row for
	// the top lanes in wrapTop, one top lane per target of a transition
	// between columns in topLanes, and those transitions' routes in
	// cross (by edge index).
	mode     string
	rows     int
	bands    []band
	wrapTop  float64
	topLanes map[int]int
	cross    map[int]crossRoute
}

// buildGraph collects the vertices and edges: one vertex per node name (the
// first definition wins, as in App.Node) plus one per undefined target.
func buildGraph(app *workflow.App, status map[string]string, hideKill bool) *graph {
	g := &graph{title: app.Name}
	ids := map[string]int{}
	hidden := map[string]bool{}
	add := func(v *gnode) int {
		ids[v.name] = len(g.nodes)
		if v.colour == colourOther {
			g.other = true
		}
		g.nodes = append(g.nodes, v)
		return len(g.nodes) - 1
	}
	reachedKill := map[string]bool{}
	for _, n := range app.Nodes {
		if hideKill && n.Kind == workflow.KillNode {
			if !reached(status, n.Name) {
				hidden[n.Name] = true
				continue
			}
			reachedKill[n.Name] = true
		}
		if _, dup := ids[n.Name]; dup {
			continue
		}
		v := &gnode{name: n.Name, kind: n.Kind, lines: nodeLabel(n), colour: nodeColour(n, status), failed: failed(status, n.Name)}
		v.title = strings.Join(v.lines, " ") + " [" + n.Kind.String() + "]"
		if s, ok := status[n.Name]; ok {
			v.title += " " + s
			v.status = s
		}
		add(v)
	}
	for _, e := range app.Edges() {
		// Into a kill node shown only because it was reached, the
		// transitions that may have led there: from reached nodes.
		if hidden[e.From] || hidden[e.To] || reachedKill[e.To] && !reached(status, e.From) {
			continue
		}
		to, ok := ids[e.To]
		if !ok {
			to = add(&gnode{name: e.To, kind: workflow.ActionNode, missing: true, lines: []string{e.To, "(undefined)"},
				title: e.To + " [undefined]", colour: colourNone})
		}
		ge := gedge{from: ids[e.From], to: to, kind: e.Kind}
		switch e.Kind {
		case "case":
			ge.label = shortPredicate(e.Predicate)
		case "default":
			ge.label = "default"
		}
		g.nodes[ge.from].out = append(g.nodes[ge.from].out, len(g.edges))
		g.nodes[to].in = append(g.nodes[to].in, len(g.edges))
		g.edges = append(g.edges, ge)
	}
	for _, v := range g.nodes {
		g.size(v)
	}
	return g
}

// size sets a vertex's width and height from its shape and text.
func (g *graph) size(v *gnode) {
	text := 0.0
	for i, l := range v.lines {
		l = truncate(l, maxLabel)
		v.lines[i] = l
		text = max(text, float64(utf8.RuneCountInString(l))*charWidth)
	}
	v.h = nodeHeight
	switch {
	case v.missing || v.kind == workflow.ActionNode:
		v.w = max(minBoxWidth, text+20)
	case v.kind == workflow.DecisionNode:
		v.w = max(minBoxWidth, text*1.5+36) // the text sits in a diamond
	case v.kind == workflow.ForkNode || v.kind == workflow.JoinNode:
		v.w, v.h = max(minBoxWidth+40, text+24), barHeight
	default: // circles and octagons: wide enough for the name
		v.w = max(nodeHeight, text+24)
	}
}

// primary tells whether an edge shapes the layout. Error transitions do not:
// they mostly lead to a kill node, and letting them pull nodes down would
// stretch the normal flow.
func (e gedge) primary() bool { return e.kind != "error" && !e.back }

// legendEntries is the legend shown: the fixed colours plus "other" when a
// status outside them occurs.
func (g *graph) legendEntries() []colour {
	if g.other {
		return append(slices.Clip(legend), colourOther)
	}
	return legend
}

const edgeLegendWidth = 200.0

func (g *graph) legendWidth() float64 {
	w := edgeLegendWidth
	for _, c := range g.legendEntries() {
		w += 24 + float64(utf8.RuneCountInString(c.name))*charWidth + 16
	}
	return w
}

// svgWriter accumulates SVG text; numbers get one decimal so that the
// output is stable across platforms.
type svgWriter struct{ bytes.Buffer }

func (w *svgWriter) printf(format string, args ...any) { fmt.Fprintf(&w.Buffer, format, args...) }

// text writes s escaped for XML character data and attribute values (a
// bytes.Buffer never fails).
func (w *svgWriter) text(s string) { _ = xml.EscapeText(&w.Buffer, []byte(s)) }

// svg draws the laid-out graph.
func (g *graph) svg() []byte {
	var w svgWriter
	w.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="monospace" font-size="12">`+"\n",
		g.width, g.height, g.width, g.height)
	w.printf("<title>")
	w.text(g.title)
	w.printf("</title>\n<defs>\n")
	for _, m := range []struct{ id, fill string }{{"arrow", "#424242"}, {"arrow-error", "#c62828"}} {
		w.printf(`<marker id="%s" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="%s"/></marker>`+"\n", m.id, m.fill)
	}
	w.printf("</defs>\n")
	w.printf(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	w.printf(`<text x="%.1f" y="22" font-size="14" font-weight="bold">`, margin)
	w.text(truncate(g.title, 80))
	w.printf("</text>\n")
	g.svgLegend(&w)
	w.printf(`<g class="edges" fill="none">` + "\n")
	for i := range g.edges {
		g.svgEdge(&w, i)
	}
	w.printf("</g>\n<g class=\"nodes\">\n")
	for _, n := range g.nodes {
		svgNode(&w, n)
	}
	w.printf("</g>\n</svg>\n")
	return w.Bytes()
}

func (g *graph) svgLegend(w *svgWriter) {
	x, y := margin, 44.0
	w.printf(`<g class="legend">` + "\n")
	for _, c := range g.legendEntries() {
		w.printf(`<rect x="%.1f" y="%.1f" width="14" height="14" rx="2" fill="%s" stroke="%s"/>`, x, y-11, c.fill, c.stroke)
		w.printf(`<text x="%.1f" y="%.1f">`, x+20, y)
		w.text(c.name)
		w.printf("</text>\n")
		x += 24 + float64(utf8.RuneCountInString(c.name))*charWidth + 16
	}
	for _, l := range []struct{ name, colour, dash, marker string }{
		{"ok", "#424242", "", "arrow"}, {"error", "#c62828", ` stroke-dasharray="5,3"`, "arrow-error"},
	} {
		w.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5"%s marker-end="url(#%s)"/>`, x, y-4, x+36, y-4, l.colour, l.dash, l.marker)
		w.printf(`<text x="%.1f" y="%.1f" fill="%s">%s</text>`+"\n", x+42, y, l.colour, l.name)
		x += 80
	}
	w.printf("</g>\n")
}

// pt is a point of the drawing.
type pt struct{ x, y float64 }

// cubic is one piece of an edge's path, a cubic Bézier from the end of the
// previous piece; straight pieces have their control points on the line.
type cubic struct{ c1, c2, p pt }

// route is where an edge is drawn: its path, and the box of its label.
type route struct {
	from  pt
	segs  []cubic
	label string  // cut to the room it has; "" for none
	lx    float64 // label centre
	ly    float64 // label baseline
}

// line is a straight piece to p from q.
func line(q, p pt) cubic { return cubic{q, p, p} }

// quad is the quadratic Bézier q-c-p as a cubic.
func quad(q, c, p pt) cubic {
	return cubic{pt{q.x + 2*(c.x-q.x)/3, q.y + 2*(c.y-q.y)/3}, pt{p.x + 2*(c.x-p.x)/3, p.y + 2*(c.y-p.y)/3}, p}
}

// Edge label geometry, for the 10px monospace text of the SVG (and the
// 7px-wide bitmap font of the PNG, which the width allows for too).
const (
	labelCharW  = 7.0
	labelHeight = 11.0
	labelStep   = 12.0 // between labels stacked above one target
	maxStacked  = 3
	laneGap     = 12.0 // between the lanes of different skip edges
)

// labelBox is the rectangle of an edge label: x0, y0, x1, y1.
func (r route) labelBox() [4]float64 {
	w := float64(utf8.RuneCountInString(r.label)) * labelCharW
	return [4]float64{r.lx - w/2, r.ly - labelHeight + 2, r.lx + w/2, r.ly + 2}
}

// route computes every edge's path once the nodes are placed, and widens
// the drawing for the lanes it uses.
func (g *graph) route() {
	lanes := g.lanes()
	g.spreadBands(lanes)
	g.routes = make([]route, len(g.edges))
	for i := range g.edges {
		if _, ok := g.cross[i]; ok {
			g.routes[i] = g.crossEdgeRoute(i)
			continue
		}
		g.routes[i] = g.edgeRoute(i, lanes)
	}
	g.placeLabels()
	for _, x := range lanes {
		g.width = max(g.width, x+margin)
	}
}

// lanes picks, for each edge spanning several layers, the x of a vertical
// lane right of the nodes in between when a direct curve would cross one of
// them (0 otherwise). Lanes whose spans overlap are kept laneGap apart, so
// that skip edges are told apart; error edges to one kill node share a red
// bus instead of running beside each other.
func (g *graph) lanes() []float64 {
	out := make([]float64, len(g.edges))
	type use struct {
		x, top, bot float64
		to          int
		bus         bool
	}
	var used []use
	for i, e := range g.edges {
		s, t := g.nodes[e.from], g.nodes[e.to]
		if t.layer <= s.layer || s.band != t.band {
			continue // a transition between columns runs in the gutters
		}
		lo, hi := min(s.x, t.x)-8, max(s.x, t.x)+8
		lane, blocked := t.x+t.w/2, false
		for li := s.layer; li < t.layer; li++ {
			for _, v := range g.layers[li] {
				n := g.nodes[v]
				blocked = blocked || li > s.layer && n.x-n.w/2 < hi && n.x+n.w/2 > lo
			}
			last := g.nodes[g.layers[li][len(g.layers[li])-1]]
			lane = max(lane, last.x+last.w/2)
		}
		if !blocked {
			continue
		}
		top, bot := s.y, t.y
		bus := e.kind == "error"
		// The lanes already taken beside this span, left to right: step
		// past each one too close.
		var taken []float64
		for _, u := range used {
			if u.top < bot && top < u.bot && !(bus && u.bus && u.to == e.to) {
				taken = append(taken, u.x)
			}
		}
		slices.Sort(taken)
		x := lane + 16
		for _, ux := range taken {
			if ux > x-laneGap && ux < x+laneGap {
				x = ux + laneGap
			}
		}
		if bus { // join the bus of the same kill node when it is further right
			for _, u := range used {
				if u.bus && u.to == e.to && u.x > x && u.top < bot && top < u.bot {
					x = u.x
				}
			}
		}
		out[i] = x
		used = append(used, use{x, top, bot, e.to, bus})
	}
	return out
}

// edgeRoute is one transition's path: a cubic Bézier top-down between
// layers (or down a lane, see lanes), bulging above the nodes within a
// layer, and out to the right when it climbs (an error edge to an earlier
// node, a cycle).
func (g *graph) edgeRoute(ei int, lanes []float64) route {
	e := g.edges[ei]
	s, t := g.nodes[e.from], g.nodes[e.to]
	r := route{}
	ax := t.x + g.fanInOffset(ei)
	y1 := topAt(t, ax-t.x)
	switch {
	case e.from == e.to:
		x := s.x + s.w/2
		r.from = pt{x, s.y - 6}
		r.segs = []cubic{{pt{x + bowOut, s.y - 30}, pt{x + bowOut, s.y + 30}, pt{x, s.y + 6}}}
	case lanes[ei] > 0:
		// Down into the gap below the source, across it to the lane, down.
		x0, y0, lane, turn := s.x+g.fanOffset(ei), s.y+s.h/2, lanes[ei], t.y-t.h/2-(rowStep-nodeHeight)/2
		gap := y0 + (rowStep-nodeHeight)/3
		r.from = pt{x0, y0}
		r.segs = []cubic{
			quad(pt{x0, y0}, pt{x0, gap}, pt{x0 + 8, gap}),
			line(pt{x0 + 8, gap}, pt{lane - 8, gap}),
			quad(pt{lane - 8, gap}, pt{lane, gap}, pt{lane, gap + 8}),
			line(pt{lane, gap + 8}, pt{lane, turn}),
			{pt{lane, turn + 12}, pt{ax, y1 - 12}, pt{ax, y1}},
		}
	case t.layer > s.layer:
		x0, y0 := s.x+g.fanOffset(ei), s.y+s.h/2
		k := min((y1-y0)/2, rowStep/2)
		r.from = pt{x0, y0}
		r.segs = []cubic{{pt{x0, y0 + k}, pt{ax, y1 - k}, pt{ax, y1}}}
	case t.layer == s.layer:
		y0 := s.y - s.h/2
		y1 = t.y - t.h/2
		r.from = pt{s.x, y0}
		r.segs = []cubic{{pt{s.x, y0 - 36}, pt{t.x, y1 - 36}, pt{t.x, y1}}}
	default:
		x0, x1 := s.x+s.w/2, t.x+t.w/2
		bulge := max(x0, x1) + bowOut
		r.from = pt{x0, s.y}
		r.segs = []cubic{{pt{bulge, s.y}, pt{bulge, t.y}, pt{x1, t.y}}}
	}
	return r
}

// placeLabels puts each labelled edge's text just above its target, where
// the case edges of a decision are as far apart as the nodes they lead to,
// cut to the target's width so that neighbours do not overprint; labels
// into one target stack upwards, and beyond maxStacked the last says how
// many more there are (the full predicates stay in the SVG tooltips).
func (g *graph) placeLabels() {
	count := make([]int, len(g.nodes))
	total := make([]int, len(g.nodes))
	for _, e := range g.edges {
		if e.label != "" {
			total[e.to]++
		}
	}
	for i, e := range g.edges {
		if e.label == "" {
			continue
		}
		t := g.nodes[e.to]
		k := count[e.to]
		count[e.to]++
		if k >= maxStacked {
			continue
		}
		room := max(8, int((t.w+nodeGap/2)/labelCharW))
		text := truncate(e.label, room)
		if k == maxStacked-1 && total[e.to] > maxStacked {
			text = truncate(fmt.Sprintf("+%d more", total[e.to]-k), room)
		}
		r := &g.routes[i]
		r.label, r.lx, r.ly = text, t.x, t.y-t.h/2-14-labelStep*float64(k)
	}
}

// topAt is the y where a node's outline crosses the vertical dx from its
// centre, on its upper side: where an arriving arrow ends.
func topAt(n *gnode, dx float64) float64 {
	top := n.y - n.h/2
	if n.missing || n.kind == workflow.ActionNode || n.kind == workflow.ForkNode || n.kind == workflow.JoinNode || n.kind == workflow.KillNode || dx == 0 {
		return top
	}
	f := min(1, math.Abs(dx)/(n.w/2))
	if n.kind == workflow.DecisionNode {
		return top + f*n.h/2
	}
	return n.y - n.h/2*math.Sqrt(1-f*f) // ellipses
}

// fanOffset spreads the downward edges leaving one node along its bottom
// side so that their arrows are told apart.
func (g *graph) fanOffset(edge int) float64 {
	s := g.nodes[g.edges[edge].from]
	i, k := 0, 0
	for _, ei := range s.out {
		if g.nodes[g.edges[ei].to].layer > s.layer {
			if ei == edge {
				i = k
			}
			k++
		}
	}
	if k < 2 {
		return 0
	}
	step := min(16, s.w*0.6/float64(k-1))
	return (float64(i) - float64(k-1)/2) * step
}

// fanInOffset spreads the arrows coming down into one node along its top,
// ordered by where they come from so that they do not cross: edges that
// skip layers arrive apart from the one from the layer above. The error
// edges into a node are one red bus and arrive together, right of the rest.
func (g *graph) fanInOffset(edge int) float64 {
	t := g.nodes[g.edges[edge].to]
	var in []int
	bus := -1
	for _, ei := range t.in {
		e := g.edges[ei]
		switch {
		case g.nodes[e.from].layer >= t.layer:
		case e.kind == "error":
			bus = ei
		default:
			in = append(in, ei)
		}
	}
	slices.SortStableFunc(in, func(a, b int) int {
		return cmp.Compare(g.nodes[g.edges[a].from].x, g.nodes[g.edges[b].from].x)
	})
	if bus >= 0 {
		in = append(in, bus)
	}
	if len(in) < 2 {
		return 0
	}
	i := slices.Index(in, edge)
	if g.edges[edge].kind == "error" {
		i = len(in) - 1
	}
	step := min(16, t.w*0.6/float64(len(in)-1))
	return (float64(i) - float64(len(in)-1)/2) * step
}

// svgEdge draws one transition along its route.
func (g *graph) svgEdge(w *svgWriter, ei int) {
	e, r := g.edges[ei], g.routes[ei]
	var d strings.Builder
	fmt.Fprintf(&d, "M%.1f,%.1f", r.from.x, r.from.y)
	for _, c := range r.segs {
		fmt.Fprintf(&d, " C%.1f,%.1f %.1f,%.1f %.1f,%.1f", c.c1.x, c.c1.y, c.c2.x, c.c2.y, c.p.x, c.p.y)
	}
	stroke, marker, dash := "#424242", "arrow", ""
	switch e.kind {
	case "error":
		stroke, marker, dash = "#c62828", "arrow-error", ` stroke-dasharray="5,3"`
	case "default":
		dash = ` stroke-dasharray="2,3"`
	}
	w.printf(`<path d="%s" stroke="%s" stroke-width="1.5"%s marker-end="url(#%s)"`, d.String(), stroke, dash, marker)
	if e.label == "" {
		w.printf("/>\n")
		return
	}
	w.printf("><title>")
	w.text(e.label)
	w.printf("</title></path>\n")
	if r.label == "" {
		return
	}
	w.printf(`<text x="%.1f" y="%.1f" text-anchor="middle" font-size="10" fill="#37474f" stroke="#ffffff" stroke-width="3" paint-order="stroke">`, r.lx, r.ly)
	w.text(r.label)
	w.printf("</text>\n")
}

func svgNode(w *svgWriter, n *gnode) {
	kind, bar := n.kind.String(), n.kind == workflow.ForkNode || n.kind == workflow.JoinNode
	if n.missing {
		kind = "undefined"
	}
	w.printf(`<g class="node" data-kind="%s"`, kind)
	if n.failed {
		w.printf(` data-failed="true"`)
	}
	w.printf(` data-name="`)
	w.text(n.name)
	w.printf(`"`)
	if n.status != "" {
		// For a viewer to find the node that failed or runs.
		w.printf(` data-status="`)
		w.text(n.status)
		w.printf(`"`)
	}
	w.printf("><title>")
	w.text(n.title)
	w.printf("</title>")
	width := "1.5"
	if n.failed || bar {
		width = "3"
	}
	style := fmt.Sprintf(`fill="%s" stroke="%s" stroke-width="%s"`, n.colour.fill, n.colour.stroke, width)
	x0, y0, x1, y1 := n.x-n.w/2, n.y-n.h/2, n.x+n.w/2, n.y+n.h/2
	switch {
	case n.missing || n.kind == workflow.ActionNode || bar:
		if n.missing {
			style += ` stroke-dasharray="4,3"`
		}
		w.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="3" %s/>`, x0, y0, n.w, n.h, style)
	case n.kind == workflow.DecisionNode:
		w.printf(`<polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f" %s/>`, n.x, y0, x1, n.y, n.x, y1, x0, n.y, style)
	case n.kind == workflow.KillNode:
		c := n.h * 0.3 // the cut corners of the octagon
		w.printf(`<polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f" %s/>`,
			x0+c, y0, x1-c, y0, x1, y0+c, x1, y1-c, x1-c, y1, x0+c, y1, x0, y1-c, x0, y0+c, style)
	default: // start and end: an ellipse, doubled for end
		w.printf(`<ellipse cx="%.1f" cy="%.1f" rx="%.1f" ry="%.1f" %s/>`, n.x, n.y, n.w/2, n.h/2, style)
		if n.kind == workflow.EndNode {
			w.printf(`<ellipse cx="%.1f" cy="%.1f" rx="%.1f" ry="%.1f" fill="none" stroke="%s"/>`, n.x, n.y, n.w/2-4, n.h/2-4, n.colour.stroke)
		}
	}
	top := n.y + 4 - 7*float64(len(n.lines)-1)
	for i, l := range n.lines {
		w.printf(`<text x="%.1f" y="%.1f" text-anchor="middle"`, n.x, top+14*float64(i))
		switch {
		case bar:
			w.printf(` font-size="10" font-weight="bold"`)
		case i > 0:
			w.printf(` font-size="10" fill="#455a64"`)
		}
		w.printf(">")
		w.text(l)
		w.printf("</text>")
	}
	w.printf("</g>\n")
}
