package graph

import (
	"math"
	"slices"
)

// This file folds a deep layout into columns ("wrap"): a workflow of 40
// steps in a row is a column of 40 rows, 3,600 pixels tall, that no
// screen shows whole; wrapped it is a few columns of a dozen rows side by
// side, read top to bottom and then left to right like a newspaper. The
// layers keep their layout; each column of layers is moved beside the
// previous one, and the transitions between columns are drawn through
// the gutters between them.

// The layouts of Options.Layout.
const (
	LayoutDown = "down" // one column, top to bottom (the default)
	LayoutWrap = "wrap" // columns of Options.WrapRows layers side by side
	LayoutAuto = "auto" // wrap only what would be a tall, narrow column
)

// autoWrapHeight is the height beyond which LayoutAuto wraps a column
// that is also much taller than wide.
const autoWrapHeight = 1200.0

// band is one column of a wrapped layout: its layers, and the x range of
// its nodes.
type band struct {
	first, last int // layers
	left, right float64
}

// crossRoute is where a transition between columns runs: down the gutter
// right of its source's column (x out), or along the top lane (y top) to
// the gutter left of its target's column (x in) when the columns are not
// neighbours.
type crossRoute struct {
	xOut, xIn, yTop float64
	far             bool // the target's column is not the next one
}

// wrapRows is how many layers a column of a wrapped layout gets: rows
// when given, else the count that makes the drawing about 1.6 times as
// wide as it is tall.
func (g *graph) wrapRows(rows int) int {
	depth := len(g.layers)
	if rows > 0 {
		return rows
	}
	// The width of the column's nodes (the drawing's may be the
	// legend's), plus about a gutter.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, n := range g.nodes {
		lo, hi = min(lo, n.x-n.w/2), max(hi, n.x+n.w/2)
	}
	k := int(math.Ceil(math.Sqrt(float64(depth) * (hi - lo + 5*laneGap + nodeGap) / (1.6 * rowStep))))
	return min(max(k, 4), depth)
}

// wantsWrap tells whether a layout asks for columns: always for
// LayoutWrap, for LayoutAuto when the single column would be taller than
// autoWrapHeight and than twice its width.
func (g *graph) wantsWrap(layout string) bool {
	switch layout {
	case LayoutWrap:
		return true
	case LayoutAuto:
		return g.height > autoWrapHeight && g.height > 2*g.width
	}
	return false
}

// wrap cuts the placed layers into columns of rows layers and moves each
// column beside the previous one; the room between them is set by
// spreadBands once the lanes are known.
func (g *graph) wrap(rows int) {
	if rows < 1 || len(g.layers) <= rows {
		return
	}
	for b := 0; b*rows < len(g.layers); b++ {
		bd := band{first: b * rows, last: min((b+1)*rows, len(g.layers)) - 1, left: math.Inf(1), right: math.Inf(-1)}
		for li := bd.first; li <= bd.last; li++ {
			for _, v := range g.layers[li] {
				n := g.nodes[v]
				bd.left, bd.right = min(bd.left, n.x-n.w/2), max(bd.right, n.x+n.w/2)
			}
		}
		g.bands = append(g.bands, bd)
	}
	g.topLanes = g.crossTargets()
	g.wrapTop = 24 + 6*float64(len(g.topLanes))
	for _, n := range g.nodes {
		b := n.layer / rows
		n.band = b
		n.y += g.wrapTop - float64(g.bands[b].first)*rowStep
	}
	g.height = headerH + g.wrapTop + float64(rows)*rowStep + margin
}

// crossTargets numbers the targets of the transitions between columns:
// each gets its own height on the top lane.
func (g *graph) crossTargets() map[int]int {
	out := map[int]int{}
	for _, e := range g.edges {
		if g.bandOf(e.from) != g.bandOf(e.to) {
			if _, ok := out[e.to]; !ok {
				out[e.to] = len(out)
			}
		}
	}
	return out
}

// bandOf is the column of a vertex (0 when the layout is not wrapped).
func (g *graph) bandOf(v int) int {
	if len(g.bands) == 0 {
		return 0
	}
	for b, bd := range g.bands {
		if g.nodes[v].layer <= bd.last {
			return b
		}
	}
	return len(g.bands) - 1
}

// spreadBands places the columns left to right, each after the previous
// one's nodes, the lanes of its own skip edges and a gutter wide enough
// for the transitions leaving it and those arriving in the next column;
// it shifts the lanes with their columns and computes the routes of the
// transitions between columns.
func (g *graph) spreadBands(lanes []float64) {
	if len(g.bands) == 0 {
		return
	}
	// Lanes used inside each column, and the distinct targets leaving
	// each column (one lane each in the gutter on its right) or arriving
	// from a column that is not the previous one (one lane each in the
	// gutter on its left).
	inner := make([]float64, len(g.bands))
	out := make([][]int, len(g.bands))
	in := make([][]int, len(g.bands))
	for i, e := range g.edges {
		s, t := g.nodes[e.from], g.nodes[e.to]
		switch {
		case s.band == t.band:
			inner[s.band] = max(inner[s.band], lanes[i])
		default:
			if !slices.Contains(out[s.band], e.to) {
				out[s.band] = append(out[s.band], e.to)
			}
			if t.band != s.band+1 && !slices.Contains(in[t.band], e.to) {
				in[t.band] = append(in[t.band], e.to)
			}
		}
	}
	// Transitions back into the first column arrive down a gutter left
	// of it.
	left := margin + laneGap*float64(len(in[0]))
	for b := range g.bands {
		bd := &g.bands[b]
		dx := left - bd.left
		for _, n := range g.nodes {
			if n.band == b {
				n.x += dx
			}
		}
		for i, e := range g.edges {
			if lanes[i] > 0 && g.nodes[e.from].band == b && g.nodes[e.to].band == b {
				lanes[i] += dx
			}
		}
		bd.left, bd.right = bd.left+dx, bd.right+dx
		if inner[b] > 0 {
			inner[b] += dx
		}
		// The gutter on the right: this column's own lanes, one lane per
		// target leaving it, one per target arriving in the next from
		// further away, and room either side.
		bd.right = max(bd.right, inner[b])
		next := 0
		if b+1 < len(g.bands) {
			next = len(in[b+1])
		}
		left = bd.right + laneGap*float64(2+len(out[b])+next) + nodeGap
	}
	last := len(g.bands) - 1
	g.width = max(g.bands[last].right+laneGap*float64(1+len(out[last]))+margin+bowOut, g.legendWidth()+2*margin)
	g.cross = map[int]crossRoute{}
	for i, e := range g.edges {
		s, t := g.nodes[e.from], g.nodes[e.to]
		if s.band == t.band {
			continue
		}
		r := crossRoute{xOut: g.bands[s.band].right + laneGap*float64(1+slices.Index(out[s.band], e.to))}
		if t.band != s.band+1 {
			r.far = true
			r.xIn = g.bands[t.band].left - laneGap*float64(1+slices.Index(in[t.band], e.to))
			r.yTop = headerH + 6 + 6*float64(g.topLanes[e.to])
		}
		g.cross[i] = r
	}
}

// crossEdgeRoute is the path of a transition between columns: down into
// the gap under its source's row, across to the gutter on the right of
// that column, along the gutter (and, to a column further away, along
// the top lane and down the gutter left of the target's column) to the
// gap above its target's row, across to above the target and down into
// it. Gaps between rows and the gutters hold no node, so it crosses none.
func (g *graph) crossEdgeRoute(ei int) route {
	e, cr := g.edges[ei], g.cross[ei]
	s, t := g.nodes[e.from], g.nodes[e.to]
	x0, y0 := s.x+g.fanOffset(ei), s.y+s.h/2
	below := s.y + nodeHeight/2 + (rowStep-nodeHeight)/3
	ax := t.x + g.fanInOffset(ei)
	above := t.y - nodeHeight/2 - (rowStep-nodeHeight)/3
	pts := []pt{{x0, y0}, {x0, below}, {cr.xOut, below}}
	if !cr.far {
		pts = append(pts, pt{cr.xOut, above})
	} else {
		pts = append(pts, pt{cr.xOut, cr.yTop}, pt{cr.xIn, cr.yTop}, pt{cr.xIn, above})
	}
	pts = append(pts, pt{ax, above}, pt{ax, topAt(t, ax-t.x)})
	return route{from: pts[0], segs: orthogonal(pts, 8)}
}

// orthogonal joins points by straight segments, each corner rounded with
// radius r (less where a segment is short).
func orthogonal(pts []pt, r float64) []cubic {
	var clean []pt
	for _, p := range pts {
		if len(clean) == 0 || p != clean[len(clean)-1] {
			clean = append(clean, p)
		}
	}
	toward := func(from, to pt, d float64) pt {
		l := math.Hypot(to.x-from.x, to.y-from.y)
		if l == 0 {
			return from
		}
		return pt{from.x + (to.x-from.x)*d/l, from.y + (to.y-from.y)*d/l}
	}
	var segs []cubic
	cur := clean[0]
	for i := 1; i < len(clean)-1; i++ {
		a, b, c := clean[i-1], clean[i], clean[i+1]
		rr := min(r, math.Hypot(b.x-a.x, b.y-a.y)/2, math.Hypot(c.x-b.x, c.y-b.y)/2)
		p1, p2 := toward(b, a, rr), toward(b, c, rr)
		segs = append(segs, line(cur, p1), quad(p1, b, p2))
		cur = p2
	}
	return append(segs, line(cur, clean[len(clean)-1]))
}
