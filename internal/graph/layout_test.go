package graph

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gozie/gozie/internal/workflow"
)

// skipApp builds a workflow of about size nodes: a chain of actions with a
// decision every fifth node whose cases skip 3 to 12 nodes forward, every
// action failing into one kill node. It is the shape that used to draw its
// skip edges on top of each other.
func skipApp(size int) *workflow.App {
	name := func(i int) string {
		if i >= size {
			return "end"
		}
		if i%5 == 0 {
			return fmt.Sprintf("check-%d", i)
		}
		return fmt.Sprintf("step-%d", i)
	}
	app := &workflow.App{Name: "skip-forward", Nodes: []*workflow.Node{{Name: workflow.StartNodeName, Kind: workflow.StartNode, To: name(0)}}}
	for i := 0; i < size; i++ {
		if i%5 == 0 {
			app.Nodes = append(app.Nodes, &workflow.Node{Name: name(i), Kind: workflow.DecisionNode, Cases: []workflow.Case{
				{Predicate: fmt.Sprintf("${wf:conf('mode') eq 'fast-%d'}", i), To: name(i + 3 + i%4)},
				{Predicate: fmt.Sprintf("${fs:exists(concat(wf:conf('out'), '/skip-%d'))}", i), To: name(i + 8 + i%5)},
			}, Default: name(i + 1), HasDefault: true})
			continue
		}
		app.Nodes = append(app.Nodes, &workflow.Node{Name: name(i), Kind: workflow.ActionNode, Action: &workflow.Action{Type: "shell"}, OK: name(i + 1), Error: "fail"})
	}
	app.Nodes = append(app.Nodes, &workflow.Node{Name: "fail", Kind: workflow.KillNode, Message: "failed"}, &workflow.Node{Name: "end", Kind: workflow.EndNode})
	return app
}

type box struct{ x0, y0, x1, y1 float64 }

func (a box) overlaps(b box) bool { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 }

func nodeBox(n *gnode) box { return box{n.x - n.w/2, n.y - n.h/2, n.x + n.w/2, n.y + n.h/2} }

// TestGraphSkipForwardReadable lays out a 100-node workflow whose decisions
// skip forward and checks what makes it readable: no two nodes overlap,
// every node's text fits its shape (in the SVG's 12px monospace and the
// PNG's 7px font), no edge label overprints another or a node, lanes of
// skip edges that run beside each other are apart, none runs through a
// node, and arrows into one node end at different points.
func TestGraphSkipForwardReadable(t *testing.T) {
	app := skipApp(100)
	if len(app.Nodes) < 100 {
		t.Fatalf("%d nodes", len(app.Nodes))
	}
	for _, hideKill := range []bool{false, true} {
		t.Run(fmt.Sprintf("hideKill=%v", hideKill), func(t *testing.T) {
			g := buildGraph(app, nil, hideKill)
			g.layout()
			checkLayout(t, g)
			checkReadable(t, g)
		})
	}
	// The random graphs too: same properties whatever the shape.
	for seed := range 5 {
		g := buildGraph(skipApp(20+seed*17), map[string]string{"check-0": "OK"}, false)
		g.layout()
		checkReadable(t, g)
	}
	if dir := os.Getenv("GOZIE_GRAPH_SAMPLES"); dir != "" {
		// Sample images to look at: GOZIE_GRAPH_SAMPLES=/tmp/x go test -run SkipForward
		status := map[string]string{workflow.StartNodeName: "OK", "check-0": "OK", "step-1": "OK", "step-2": "RUNNING"}
		for _, format := range []string{"svg", "png"} {
			out, err := Render(app, status, Options{Format: format})
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "skip-forward."+format), out, 0o644); err != nil {
				t.Fatal(err)
			}
			for name, st := range exampleStatus {
				if out, err = Render(parseExample(t, name), st, Options{Format: format}); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name+"."+format), out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			fork, status := failedFork()
			if out, err = Render(fork, status, Options{Format: format, HideKill: true}); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "failed-fork."+format), out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func checkReadable(t *testing.T, g *graph) {
	t.Helper()
	for i, a := range g.nodes {
		for _, b := range g.nodes[i+1:] {
			if nodeBox(a).overlaps(nodeBox(b)) {
				t.Errorf("nodes %s and %s overlap", a.name, b.name)
			}
		}
		for _, l := range a.lines {
			n := float64(utf8.RuneCountInString(l))
			room := a.w - 8
			if a.kind == workflow.DecisionNode {
				room = a.w / 1.5 // the text sits in the middle of a diamond
			}
			if n*charWidth > room || n*7 > room {
				t.Errorf("label %q (%.0fpx) does not fit node %s (%.0fpx)", l, n*charWidth, a.name, room)
			}
		}
	}
	var labels []box
	for i, r := range g.routes {
		if r.label == "" {
			continue
		}
		b := r.labelBox()
		lb := box{b[0], b[1], b[2], b[3]}
		for _, n := range g.nodes {
			if lb.overlaps(nodeBox(n)) {
				t.Errorf("label %q of edge %d overprints node %s", r.label, i, n.name)
			}
		}
		for _, o := range labels {
			if lb.overlaps(o) {
				t.Errorf("label %q of edge %d overprints another label", r.label, i)
			}
		}
		labels = append(labels, lb)
	}
	// The vertical lane segments of skip edges.
	type lane struct {
		edge        int
		x, top, bot float64
	}
	var lanes []lane
	for i, r := range g.routes {
		q := r.from
		for _, s := range r.segs {
			if s.c1 == q && s.c2 == s.p && q.x == s.p.x && s.p.y-q.y > rowStep/2 {
				lanes = append(lanes, lane{i, q.x, q.y, s.p.y})
			}
			q = s.p
		}
	}
	for i, a := range lanes {
		for _, n := range g.nodes {
			if nb := nodeBox(n); a.x > nb.x0-2 && a.x < nb.x1+2 && a.top < nb.y1 && nb.y0 < a.bot {
				t.Errorf("lane of edge %s -> %s runs through node %s", g.nodes[g.edges[a.edge].from].name, g.nodes[g.edges[a.edge].to].name, n.name)
			}
		}
		for _, b := range lanes[i+1:] {
			ea, eb := g.edges[a.edge], g.edges[b.edge]
			if ea.kind == "error" && eb.kind == "error" && ea.to == eb.to {
				continue // one red bus into the kill node
			}
			if a.top < b.bot && b.top < a.bot && math.Abs(a.x-b.x) < laneGap-0.01 {
				t.Errorf("lanes of edges %d and %d %.1fpx apart", a.edge, b.edge, math.Abs(a.x-b.x))
			}
		}
	}
	if len(g.nodes) > 50 && len(lanes) < 5 {
		t.Errorf("only %d skip lanes: the workflow does not exercise them", len(lanes))
	}
	// Arrows coming down into one node end apart.
	ends := map[int][]pt{}
	for i, e := range g.edges {
		if g.nodes[e.from].layer < g.nodes[e.to].layer && e.kind != "error" {
			r := g.routes[i]
			ends[e.to] = append(ends[e.to], r.segs[len(r.segs)-1].p)
		}
	}
	for v, ps := range ends {
		for i, a := range ps {
			for _, b := range ps[i+1:] {
				if math.Hypot(a.x-b.x, a.y-b.y) < 4 {
					t.Errorf("two arrows end at %v on node %s", a, g.nodes[v].name)
				}
			}
		}
	}
}

// failedFork is a workflow whose fork had one path fail: the failed action
// ERROR, its sibling KILLED because of it, the kill node reached.
func failedFork() (*workflow.App, map[string]string) {
	app := &workflow.App{Name: "failed-fork", Nodes: []*workflow.Node{
		{Name: workflow.StartNodeName, Kind: workflow.StartNode, To: "split"},
		{Name: "split", Kind: workflow.ForkNode, Paths: []string{"left", "right"}},
		{Name: "left", Kind: workflow.ActionNode, Action: &workflow.Action{Type: "shell"}, OK: "merge", Error: "fail"},
		{Name: "right", Kind: workflow.ActionNode, Action: &workflow.Action{Type: "shell"}, OK: "merge", Error: "fail"},
		{Name: "merge", Kind: workflow.JoinNode, To: "last"},
		{Name: "last", Kind: workflow.ActionNode, Action: &workflow.Action{Type: "fs"}, OK: "end", Error: "other-kill"},
		{Name: "fail", Kind: workflow.KillNode, Message: "a path failed"},
		{Name: "other-kill", Kind: workflow.KillNode, Message: "never reached"},
		{Name: "end", Kind: workflow.EndNode},
	}}
	status := map[string]string{workflow.StartNodeName: "OK", "split": "OK", "left": "ERROR", "right": "KILLED", "fail": "OK"}
	return app, status
}

// svgNodeElem is the <g> of one node in an SVG graph.
func svgNodeElem(t *testing.T, svg []byte, name string) string {
	t.Helper()
	s := string(svg)
	for rest := s; ; {
		i := strings.Index(rest, `<g class="node"`)
		if i < 0 {
			return ""
		}
		rest = rest[i:]
		end := strings.Index(rest, "</g>")
		if elem := rest[:end]; strings.Contains(elem, `data-name="`+name+`"`) {
			return elem
		}
		rest = rest[end:]
	}
}

// TestGraphFailure: the kill node a failure reached is drawn even when kill
// nodes are hidden (Oozie's default), in the error colour, with the error
// edge that led to it; an unreached kill node stays hidden; the failed
// node has a thick outline and its killed sibling another colour.
func TestGraphFailure(t *testing.T) {
	app, status := failedFork()
	svg, err := Render(app, status, Options{Format: "svg", HideKill: true})
	if err != nil {
		t.Fatal(err)
	}
	fail := svgNodeElem(t, svg, "fail")
	if fail == "" || !strings.Contains(fail, colourError.fill) {
		t.Errorf("reached kill node not drawn in %s: %q", colourError.fill, fail)
	}
	if other := svgNodeElem(t, svg, "other-kill"); other != "" {
		t.Errorf("unreached kill node drawn: %q", other)
	}
	left, right := svgNodeElem(t, svg, "left"), svgNodeElem(t, svg, "right")
	if !strings.Contains(left, `data-failed="true"`) || !strings.Contains(left, `stroke-width="3"`) || !strings.Contains(left, colourError.fill) {
		t.Errorf("failed node not marked: %q", left)
	}
	if strings.Contains(right, `data-failed`) || !strings.Contains(right, colourKilled.fill) || colourKilled.fill == colourError.fill {
		t.Errorf("killed sibling not told apart: %q", right)
	}
	g := buildGraph(app, status, true)
	var intoFail []string
	for _, e := range g.edges {
		if g.nodes[e.to].name == "fail" {
			intoFail = append(intoFail, g.nodes[e.from].name)
		}
	}
	if strings.Join(intoFail, ",") != "left,right" {
		t.Errorf("edges into the reached kill node from %v, want the reached nodes left,right", intoFail)
	}

	dot, err := Render(app, status, Options{Format: "dot", HideKill: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"fail" [shape=octagon`, `"left" -> "fail"`, colourKilled.fill, "penwidth=3"} {
		if !strings.Contains(string(dot), want) {
			t.Errorf("DOT lacks %q:\n%s", want, dot)
		}
	}
	if strings.Contains(string(dot), `"other-kill"`) {
		t.Errorf("DOT draws the unreached kill node:\n%s", dot)
	}
}

// TestGraphPNG: format=png is a PNG of the same layout as the SVG, the
// same bytes each time, with each node filled in its status colour.
func TestGraphPNG(t *testing.T) {
	app, status := failedFork()
	out, err := Render(app, status, Options{Format: "PNG", HideKill: true})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Render(app, status, Options{Format: "png", HideKill: true})
	if !bytes.Equal(out, again) {
		t.Error("two renderings differ")
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	g := buildGraph(app, status, true)
	g.layout()
	if b := img.Bounds(); b.Dx() != int(math.Ceil(g.width)) || b.Dy() != int(math.Ceil(g.height)) {
		t.Errorf("image %v, layout %vx%v", b, g.width, g.height)
	}
	for _, n := range g.nodes {
		// A point inside the shape, clear of its text and outline.
		p := image.Pt(int(n.x-n.w/2+6), int(n.y))
		if n.kind != workflow.ActionNode && n.kind != workflow.ForkNode && n.kind != workflow.JoinNode {
			p = image.Pt(int(n.x), int(n.y-n.h/2+5))
		}
		want := hexColour(n.colour.fill)
		if got := color.RGBAModel.Convert(img.At(p.X, p.Y)).(color.RGBA); got != want {
			t.Errorf("node %s at %v: %v, want %v (%s)", n.name, p, got, want, n.colour.name)
		}
	}
	if _, err := Render(skipApp(100), nil, Options{Format: "png"}); err != nil {
		t.Errorf("100-node png: %v", err)
	}
	opts := workflow.DefaultOptions()
	opts.MaxDefinitionLength = -1
	big, err := workflow.Parse(largeWorkflow(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Render(big, nil, Options{Format: "png"}); workflow.ErrorCode(err) != CodeFormat || !strings.Contains(err.Error(), "format=svg") {
		t.Errorf("huge png: %v, want %s pointing to svg", err, CodeFormat)
	}
}
