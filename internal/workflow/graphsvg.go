package workflow

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
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
	kind    NodeKind
	missing bool // the target of a transition that names no node
	lines   []string
	title   string
	colour  colour
	disc    int // depth-first discovery order, the initial order in a layer
	layer   int
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
	other         bool // some status is not in the fixed legend
	width, height float64
}

// buildGraph collects the vertices and edges: one vertex per node name (the
// first definition wins, as in App.Node) plus one per undefined target.
func buildGraph(app *App, status map[string]string, hideKill bool) *graph {
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
	for _, n := range app.Nodes {
		if hideKill && n.Kind == KillNode {
			hidden[n.Name] = true
			continue
		}
		if _, dup := ids[n.Name]; dup {
			continue
		}
		v := &gnode{name: n.Name, kind: n.Kind, lines: nodeLabel(n), colour: statusColour(status, n.Name)}
		v.title = strings.Join(v.lines, " ") + " [" + n.Kind.String() + "]"
		if s, ok := status[n.Name]; ok {
			v.title += " " + s
		}
		add(v)
	}
	for _, e := range app.Edges() {
		if hidden[e.From] || hidden[e.To] {
			continue
		}
		to, ok := ids[e.To]
		if !ok {
			to = add(&gnode{name: e.To, kind: ActionNode, missing: true, lines: []string{e.To, "(undefined)"},
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
	case v.missing || v.kind == ActionNode:
		v.w = max(minBoxWidth, text+20)
	case v.kind == DecisionNode:
		v.w = max(minBoxWidth, text*1.5+36) // the text sits in a diamond
	case v.kind == ForkNode || v.kind == JoinNode:
		v.w, v.h = max(minBoxWidth+40, text+24), barHeight
	default: // circles and octagons: wide enough for the name
		v.w = max(nodeHeight, text+24)
	}
}

// primary tells whether an edge shapes the layout. Error transitions do not:
// they mostly lead to a kill node, and letting them pull nodes down would
// stretch the normal flow.
func (e gedge) primary() bool { return e.kind != "error" && !e.back }

// layout assigns layers, orders each layer and computes coordinates.
func (g *graph) layout() {
	if len(g.nodes) == 0 {
		g.width, g.height = g.legendWidth()+2*margin, headerH+margin
		return
	}
	order := g.markBackEdges()
	g.assignLayers(order)
	g.orderLayers()
	g.place()
}

// markBackEdges walks the graph depth-first from the start node, then from
// any vertex not yet seen, numbering vertices in discovery order and marking
// the edges that close a cycle (Validate rejects those, but drawing an
// invalid definition must still terminate). It returns a topological order
// of the remaining edges.
func (g *graph) markBackEdges() []int {
	const white, grey, black = 0, 1, 2
	state := make([]int, len(g.nodes))
	next := 0
	type frame struct{ v, i int }
	var stack []frame
	for root := range g.nodes { // node 0 is the start node when there is one
		if state[root] != white {
			continue
		}
		state[root], g.nodes[root].disc = grey, next
		next++
		stack = append(stack[:0], frame{root, 0})
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			v := g.nodes[f.v]
			if f.i == len(v.out) {
				state[f.v] = black
				stack = stack[:len(stack)-1]
				continue
			}
			ei := v.out[f.i]
			f.i++
			switch w := g.edges[ei].to; state[w] {
			case grey:
				g.edges[ei].back = true
			case white:
				state[w], g.nodes[w].disc = grey, next
				next++
				stack = append(stack, frame{w, 0})
			}
		}
	}
	// Kahn's algorithm over the forward edges, lowest index first.
	indeg := make([]int, len(g.nodes))
	for _, e := range g.edges {
		if !e.back {
			indeg[e.to]++
		}
	}
	order := make([]int, 0, len(g.nodes))
	for v, d := range indeg {
		if d == 0 {
			order = append(order, v)
		}
	}
	for i := 0; i < len(order); i++ {
		for _, ei := range g.nodes[order[i]].out {
			if e := g.edges[ei]; !e.back {
				if indeg[e.to]--; indeg[e.to] == 0 {
					order = append(order, e.to)
				}
			}
		}
	}
	return order
}

// assignLayers gives each vertex the length of the longest path to it over
// the primary edges. A vertex reached by error edges only (a kill node) goes
// one layer below the deepest node that fails into it.
func (g *graph) assignLayers(order []int) {
	viaOK := make([]int, len(g.nodes))
	viaErr := make([]int, len(g.nodes))
	for i := range viaOK {
		viaOK[i], viaErr[i] = -1, -1
	}
	depth := 0
	for _, v := range order {
		n := g.nodes[v]
		switch {
		case viaOK[v] >= 0:
			n.layer = viaOK[v]
		case viaErr[v] >= 0:
			n.layer = viaErr[v]
		}
		depth = max(depth, n.layer)
		for _, ei := range n.out {
			e := g.edges[ei]
			switch {
			case e.back:
			case e.kind == "error":
				viaErr[e.to] = max(viaErr[e.to], n.layer+1)
			default:
				viaOK[e.to] = max(viaOK[e.to], n.layer+1)
			}
		}
	}
	g.layers = make([][]int, depth+1)
	for v, n := range g.nodes {
		g.layers[n.layer] = append(g.layers[n.layer], v)
	}
	for _, l := range g.layers {
		slices.SortFunc(l, func(a, b int) int { return g.nodes[a].disc - g.nodes[b].disc })
	}
}

// orderLayers reduces crossings with barycenter sweeps: each vertex moves
// to the mean position of its neighbours in the layers already ordered.
// Positions are centred per layer so that layers of different widths
// compare. The last sweep goes down, so children line up under parents.
func (g *graph) orderLayers() {
	pos := make([]float64, len(g.nodes))
	setPos := func(l []int) {
		for i, v := range l {
			pos[v] = float64(i) - float64(len(l)-1)/2
		}
	}
	for _, l := range g.layers {
		setPos(l)
	}
	key := make([]float64, len(g.nodes))
	sweep := func(li int, down bool) {
		l := g.layers[li]
		for _, v := range l {
			sum, n := 0.0, 0
			g.neighbours(v, down, func(w int) { sum += pos[w]; n++ })
			key[v] = pos[v]
			if n > 0 {
				key[v] = sum / float64(n)
			}
		}
		slices.SortStableFunc(l, func(a, b int) int { return cmp.Compare(key[a], key[b]) })
		setPos(l)
	}
	for _, down := range []bool{true, false, true} {
		for i := 1; i < len(g.layers); i++ {
			if down {
				sweep(i, true)
			} else {
				sweep(len(g.layers)-1-i, false)
			}
		}
	}
}

// neighbours calls f for each primary neighbour of v in an upper layer
// (its parents) or, when parents is false, in a lower one (its children).
func (g *graph) neighbours(v int, parents bool, f func(int)) {
	n := g.nodes[v]
	if parents {
		for _, ei := range n.in {
			if e := g.edges[ei]; e.primary() && g.nodes[e.from].layer < n.layer {
				f(e.from)
			}
		}
		return
	}
	for _, ei := range n.out {
		if e := g.edges[ei]; e.primary() && g.nodes[e.to].layer > n.layer {
			f(e.to)
		}
	}
}

// place computes coordinates. Each vertex wants to sit under the mean of
// its parents; a left-to-right pass removes overlaps and the layer then
// shifts back by the mean displacement, so chains stay straight and
// branches spread symmetrically.
func (g *graph) place() {
	for li, l := range g.layers {
		x := 0.0
		var shift float64
		shifted := 0
		for i, v := range l {
			n := g.nodes[v]
			n.y = headerH + nodeHeight/2 + float64(li)*rowStep
			want, k := 0.0, 0
			g.neighbours(v, true, func(w int) { want += g.nodes[w].x; k++ })
			if k == 0 { // reached by error edges only: follow those
				for _, ei := range n.in {
					if e := g.edges[ei]; !e.back && g.nodes[e.from].layer < n.layer {
						want += g.nodes[e.from].x
						k++
					}
				}
			}
			if i > 0 {
				prev := g.nodes[l[i-1]]
				x = prev.x + (prev.w+n.w)/2 + nodeGap
			}
			if k > 0 {
				want /= float64(k)
				x = max(x, want)
				if i == 0 {
					x = want
				}
				shift += want - x
				shifted++
			}
			n.x = x
		}
		if shifted > 0 {
			for _, v := range l {
				g.nodes[v].x += shift / float64(shifted)
			}
		}
	}
	minX, maxX := g.nodes[0].x-g.nodes[0].w/2, g.nodes[0].x+g.nodes[0].w/2
	for _, n := range g.nodes {
		minX = min(minX, n.x-n.w/2)
		maxX = max(maxX, n.x+n.w/2)
	}
	for _, n := range g.nodes {
		n.x += margin - minX
	}
	// Edges going up or sideways bulge to the right of the nodes.
	g.width = max(maxX-minX+2*margin+bowOut, g.legendWidth()+2*margin)
	g.height = headerH + float64(len(g.layers))*rowStep + margin
}

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
	lanes := g.lanes()
	for i := range g.edges {
		g.svgEdge(&w, i, lanes)
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

// lanes picks, for each edge spanning several layers, the x of a vertical
// lane right of the nodes in between when a direct curve would cross one of
// them (0 otherwise). Error edges to a kill node thus run down a shared red
// bus beside the flow instead of through it.
func (g *graph) lanes() []float64 {
	out := make([]float64, len(g.edges))
	for i, e := range g.edges {
		s, t := g.nodes[e.from], g.nodes[e.to]
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
		if blocked {
			out[i] = lane + 16
		}
	}
	return out
}

// svgEdge draws one transition: a cubic Bézier top-down between layers (or
// down a lane, see lanes), bulging above the nodes within a layer, and out
// to the right when it climbs (an error edge to an earlier node, a cycle).
func (g *graph) svgEdge(w *svgWriter, ei int, lanes []float64) {
	e := g.edges[ei]
	s, t := g.nodes[e.from], g.nodes[e.to]
	var p [4][2]float64
	var d string
	y1 := t.y - t.h/2
	switch {
	case e.from == e.to:
		r := s.x + s.w/2
		p = [4][2]float64{{r, s.y - 6}, {r + bowOut, s.y - 30}, {r + bowOut, s.y + 30}, {r, s.y + 6}}
	case lanes[ei] > 0:
		// Down into the gap below the source, across it to the lane, down.
		x0, y0, lane, turn := s.x+g.fanOffset(ei), s.y+s.h/2, lanes[ei], y1-(rowStep-nodeHeight)/2
		gap := y0 + (rowStep-nodeHeight)/3
		d = fmt.Sprintf("M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f L%.1f,%.1f Q%.1f,%.1f %.1f,%.1f L%.1f,%.1f ",
			x0, y0, x0, gap, x0+8, gap, lane-8, gap, lane, gap, lane, gap+8, lane, turn)
		p = [4][2]float64{{lane, turn}, {lane, turn + 12}, {t.x, y1 - 12}, {t.x, y1}}
	case t.layer > s.layer:
		x0, y0 := s.x+g.fanOffset(ei), s.y+s.h/2
		k := min((y1-y0)/2, rowStep/2)
		p = [4][2]float64{{x0, y0}, {x0, y0 + k}, {t.x, y1 - k}, {t.x, y1}}
	case t.layer == s.layer:
		y0 := s.y - s.h/2
		p = [4][2]float64{{s.x, y0}, {s.x, y0 - 36}, {t.x, y1 - 36}, {t.x, y1}}
	default:
		x0, x1 := s.x+s.w/2, t.x+t.w/2
		bulge := max(x0, x1) + bowOut
		p = [4][2]float64{{x0, s.y}, {bulge, s.y}, {bulge, t.y}, {x1, t.y}}
	}
	if d == "" {
		d = fmt.Sprintf("M%.1f,%.1f ", p[0][0], p[0][1])
	}
	stroke, marker, dash := "#424242", "arrow", ""
	switch e.kind {
	case "error":
		stroke, marker, dash = "#c62828", "arrow-error", ` stroke-dasharray="5,3"`
	case "default":
		dash = ` stroke-dasharray="2,3"`
	}
	w.printf(`<path d="%sC%.1f,%.1f %.1f,%.1f %.1f,%.1f" stroke="%s" stroke-width="1.5"%s marker-end="url(#%s)"`,
		d, p[1][0], p[1][1], p[2][0], p[2][1], p[3][0], p[3][1], stroke, dash, marker)
	if e.label == "" {
		w.printf("/>\n")
		return
	}
	w.printf("><title>")
	w.text(e.label)
	w.printf("</title></path>\n")
	// The label sits just above its target, where the case edges of a
	// decision are as far apart as the nodes they lead to, cut to that
	// width; the full predicate is the path's tooltip.
	w.printf(`<text x="%.1f" y="%.1f" text-anchor="middle" font-size="10" fill="#37474f" stroke="#ffffff" stroke-width="3" paint-order="stroke">`, p[3][0], p[3][1]-14)
	w.text(truncate(e.label, max(8, int((t.w+nodeGap/2)/6.2))))
	w.printf("</text>\n")
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

func svgNode(w *svgWriter, n *gnode) {
	kind, bar := n.kind.String(), n.kind == ForkNode || n.kind == JoinNode
	if n.missing {
		kind = "undefined"
	}
	w.printf(`<g class="node" data-kind="%s" data-name="`, kind)
	w.text(n.name)
	w.printf("\"><title>")
	w.text(n.title)
	w.printf("</title>")
	style := fmt.Sprintf(`fill="%s" stroke="%s" stroke-width="1.5"`, n.colour.fill, n.colour.stroke)
	x0, y0, x1, y1 := n.x-n.w/2, n.y-n.h/2, n.x+n.w/2, n.y+n.h/2
	switch {
	case n.missing || n.kind == ActionNode || bar:
		if n.missing {
			style += ` stroke-dasharray="4,3"`
		}
		if bar {
			style = strings.Replace(style, `"1.5"`, `"3"`, 1)
		}
		w.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="3" %s/>`, x0, y0, n.w, n.h, style)
	case n.kind == DecisionNode:
		w.printf(`<polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f" %s/>`, n.x, y0, x1, n.y, n.x, y1, x0, n.y, style)
	case n.kind == KillNode:
		c := n.h * 0.3 // the cut corners of the octagon
		w.printf(`<polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f" %s/>`,
			x0+c, y0, x1-c, y0, x1, y0+c, x1, y1-c, x1-c, y1, x0+c, y1, x0, y1-c, x0, y0+c, style)
	default: // start and end: an ellipse, doubled for end
		w.printf(`<ellipse cx="%.1f" cy="%.1f" rx="%.1f" ry="%.1f" %s/>`, n.x, n.y, n.w/2, n.h/2, style)
		if n.kind == EndNode {
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
