package graph

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/workflow"
)

// chainApp is a linear workflow of n actions, each failing into one kill
// node: the shape that became a column thousands of pixels tall.
func chainApp(n int) *workflow.App {
	name := func(i int) string {
		if i >= n {
			return "end"
		}
		return fmt.Sprintf("step-%02d", i)
	}
	app := &workflow.App{Name: "long-chain", Nodes: []*workflow.Node{{Name: workflow.StartNodeName, Kind: workflow.StartNode, To: name(0)}}}
	for i := range n {
		app.Nodes = append(app.Nodes, &workflow.Node{Name: name(i), Kind: workflow.ActionNode, Action: &workflow.Action{Type: "fs"}, OK: name(i + 1), Error: "fail"})
	}
	app.Nodes = append(app.Nodes, &workflow.Node{Name: "fail", Kind: workflow.KillNode, Message: "failed"}, &workflow.Node{Name: "end", Kind: workflow.EndNode})
	return app
}

// bezier is a point of a cubic piece starting at q.
func bezier(q pt, c cubic, t float64) pt {
	u := 1 - t
	return pt{u*u*u*q.x + 3*u*u*t*c.c1.x + 3*u*t*t*c.c2.x + t*t*t*c.p.x, u*u*u*q.y + 3*u*u*t*c.c1.y + 3*u*t*t*c.c2.y + t*t*t*c.p.y}
}

// checkWrapped checks a wrapped layout: columns apart, every node inside
// the drawing and below the header, and each transition between columns
// starting at its source, ending on its target and crossing no node.
func checkWrapped(t *testing.T, g *graph) {
	t.Helper()
	if len(g.bands) < 2 {
		t.Fatalf("not wrapped: %d columns", len(g.bands))
	}
	for b := 1; b < len(g.bands); b++ {
		if g.bands[b].left <= g.bands[b-1].right {
			t.Errorf("column %d starts at %.1f, before column %d ends at %.1f", b, g.bands[b].left, b-1, g.bands[b-1].right)
		}
	}
	for _, n := range g.nodes {
		if b := nodeBox(n); b.x0 < 0 || b.x1 > g.width || b.y0 < headerH || b.y1 > g.height {
			t.Errorf("node %s at %v outside the %vx%v drawing", n.name, b, g.width, g.height)
		}
	}
	if len(g.cross) == 0 {
		t.Fatalf("no transition between columns")
	}
	for i, cr := range g.cross {
		e, r := g.edges[i], g.routes[i]
		s, tg := g.nodes[e.from], g.nodes[e.to]
		if r.from.y != s.y+s.h/2 || r.from.x < s.x-s.w/2 || r.from.x > s.x+s.w/2 {
			t.Errorf("%s -> %s starts at %v, not under its source", s.name, tg.name, r.from)
		}
		end := r.segs[len(r.segs)-1].p
		if end.y > tg.y || end.y < tg.y-tg.h/2-0.01 || end.x < tg.x-tg.w/2 || end.x > tg.x+tg.w/2 {
			t.Errorf("%s -> %s ends at %v, not on its target's top", s.name, tg.name, end)
		}
		if cr.xOut <= g.bands[s.band].right {
			t.Errorf("%s -> %s runs down x=%.1f, inside its column", s.name, tg.name, cr.xOut)
		}
		q := r.from
		for _, c := range r.segs {
			for k := 1; k < 8; k++ {
				p := bezier(q, c, float64(k)/8)
				for _, n := range g.nodes {
					nb := nodeBox(n)
					if n != s && n != tg && p.x > nb.x0+1 && p.x < nb.x1-1 && p.y > nb.y0+1 && p.y < nb.y1-1 {
						t.Errorf("%s -> %s crosses node %s at %v", s.name, tg.name, n.name, p)
					}
				}
			}
			q = c.p
		}
	}
}

// TestGraphWrap folds long workflows into columns: a 40-step chain is no
// longer a column over 3,000 pixels tall, stays readable (no overlap, no
// lane through a node) and its transitions between columns run in the
// gutters; auto wraps the long chain but not a short one, and an unknown
// layout is refused.
func TestGraphWrap(t *testing.T) {
	status := map[string]string{workflow.StartNodeName: "OK", "step-00": "OK", "step-30": "ERROR", "fail": "OK"}
	for i := 1; i < 30; i++ {
		status[fmt.Sprintf("step-%02d", i)] = "OK"
	}
	down := buildGraph(chainApp(40), status, false)
	down.layout()
	if down.height < 3000 {
		t.Fatalf("the one-column chain is %.0fpx tall: not the long column this test is about", down.height)
	}
	for _, tc := range []struct {
		name     string
		app      *workflow.App
		mode     string
		rows     int
		hideKill bool
		wrapped  bool
	}{
		{"chain wrap", chainApp(40), LayoutWrap, 0, false, true},
		{"chain wrap, kill hidden", chainApp(40), LayoutWrap, 0, true, true},
		{"chain auto", chainApp(40), LayoutAuto, 0, false, true},
		{"chain 5 rows", chainApp(40), LayoutWrap, 5, false, true},
		{"chain down", chainApp(40), LayoutDown, 0, false, false},
		{"short chain auto", chainApp(6), LayoutAuto, 0, false, false},
		{"skip edges wrap", skipApp(100), LayoutWrap, 0, false, true},
		{"skip edges 7 rows", skipApp(60), LayoutWrap, 7, false, true},
		{"fork wrap", parseExample(t, "fork-join"), LayoutWrap, 3, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := buildGraph(tc.app, status, tc.hideKill)
			g.mode, g.rows = tc.mode, tc.rows
			g.layout()
			if !tc.wrapped {
				if len(g.bands) != 0 {
					t.Errorf("wrapped into %d columns", len(g.bands))
				}
				return
			}
			checkWrapped(t, g)
			checkReadable(t, g)
			if tc.rows > 0 && g.height > headerH+g.wrapTop+float64(tc.rows)*rowStep+margin+0.01 {
				t.Errorf("%d rows a column, but %.0fpx tall", tc.rows, g.height)
			}
			if tc.app.Name == "long-chain" && (g.height > 1400 || g.width > 3*g.height) {
				t.Errorf("wrapped chain is %.0fx%.0f", g.width, g.height)
			}
		})
	}
	svg, err := Render(chainApp(40), status, Options{Format: "svg", Layout: "WRAP"})
	if err != nil || !strings.Contains(string(svg), `data-status="ERROR"`) || !strings.Contains(string(svg), `data-name="step-30"`) {
		t.Errorf("wrapped svg: %v", err)
	}
	if _, err := Render(chainApp(40), status, Options{Format: "png", Layout: LayoutAuto}); err != nil {
		t.Errorf("wrapped png: %v", err)
	}
	if _, err := Render(chainApp(4), nil, Options{Format: "svg", Layout: "sideways"}); workflow.ErrorCode(err) != CodeFormat || !strings.Contains(err.Error(), "use down, wrap or auto") {
		t.Errorf("unknown layout: %v", err)
	}
	if dir := os.Getenv("GOZIE_GRAPH_SAMPLES"); dir != "" {
		for _, f := range []string{"svg", "png"} {
			out, err := Render(chainApp(40), status, Options{Format: f, Layout: LayoutAuto})
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "long-chain-wrapped."+f), out, 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err = Render(skipApp(100), nil, Options{Format: f, Layout: LayoutWrap}); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "skip-forward-wrapped."+f), out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
