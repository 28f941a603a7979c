package graph

import (
	"cmp"
	"slices"
)

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
	if g.wantsWrap(g.mode) {
		g.wrap(g.wrapRows(g.rows))
	}
	g.route()
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
