package graph

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/workflow"
)

var updateGraph = flag.Bool("update-graph", false, "rewrite testdata/graph golden files")

// exampleStatus gives each example application a plausible mid-run state,
// so that the golden images show every legend colour in use.
var exampleStatus = map[string]map[string]string{
	"fork-join":         {workflow.StartNodeName: "OK", "prepare": "OK", "split": "OK", "count-words": "RUNNING", "count-lines": "ERROR"},
	"decision-filesize": {workflow.StartNodeName: "OK", "check-input": "OK", "copy": "OK", "copy-files": "START_MANUAL"},
	"shell-capture":     {workflow.StartNodeName: "OK", "probe": "PREP"},
	"sub-workflow":      {workflow.StartNodeName: "OK", "greet-morning": "OK", "greet-evening": "KILLED", "fail": "OK"},
}

func parseExample(t testing.TB, name string) *workflow.App {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "apps", name, "workflow.xml"))
	if err != nil {
		t.Fatal(err)
	}
	app, err := workflow.Parse(data, workflow.DefaultOptions())
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return app
}

// TestGraphGolden renders the example applications; run with -update-graph
// after a deliberate change to the drawing and review the images.
func TestGraphGolden(t *testing.T) {
	for name, status := range exampleStatus {
		app := parseExample(t, name)
		for _, format := range []string{"svg", "dot"} {
			t.Run(name+"."+format, func(t *testing.T) {
				got, err := Draw(app, status, format)
				if err != nil {
					t.Fatal(err)
				}
				again, _ := Draw(app, status, format)
				if !bytes.Equal(got, again) {
					t.Fatal("two renderings differ")
				}
				if format == "svg" {
					checkSVG(t, got)
				}
				golden := filepath.Join("testdata", "graph", name+"."+format)
				if *updateGraph {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, got, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test -run TestGraphGolden -update-graph)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from the golden file; rerun with -update-graph if intended", golden)
				}
			})
		}
	}
}

func TestGraphFormatErrors(t *testing.T) {
	app := parseExample(t, "shell-capture")
	tests := []struct {
		format string
		ok     bool
	}{
		{"svg", true}, {"SVG", true}, {"dot", true}, {"Dot", true},
		{"png", true}, {"PNG", true}, {"gif", false}, {"", false}, {"svg ", false},
	}
	for _, tt := range tests {
		_, err := Draw(app, nil, tt.format)
		if tt.ok != (err == nil) {
			t.Errorf("format %q: err = %v", tt.format, err)
			continue
		}
		if err != nil && (workflow.ErrorCode(err) != CodeFormat || !strings.Contains(err.Error(), "["+tt.format+"]")) {
			t.Errorf("format %q: error %q should carry E0307 and name the format", tt.format, err)
		}
	}
	var e *workflow.Error
	if _, err := Draw(nil, nil, "svg"); !errors.As(err, &e) || e.Code != CodeFormat {
		t.Errorf("nil app: %v", err)
	}
}

// TestGraphStatusColours follows the store's action statuses.
func TestGraphStatusColours(t *testing.T) {
	tests := []struct {
		status string
		want   colour
	}{
		{"OK", colourOK}, {"DONE", colourOK},
		{"RUNNING", colourRunning}, {"START_RETRY", colourRunning}, {"END_RETRY", colourRunning}, {"USER_RETRY", colourRunning},
		{"START_MANUAL", colourManual}, {"END_MANUAL", colourManual},
		{"ERROR", colourError}, {"FAILED", colourError}, {"KILLED", colourKilled},
		{"PREP", colourPrep},
		{"SOMETHING", colourOther},
	}
	for _, tt := range tests {
		if got := statusColour(map[string]string{"a": tt.status}, "a"); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.status, got.name, tt.want.name)
		}
	}
	if got := statusColour(nil, "a"); got != colourNone {
		t.Errorf("absent node: %v", got.name)
	}
}

// weirdApp is built in code because the parser rejects these names; the
// renderer must still escape whatever it is given.
func weirdApp() *workflow.App {
	return &workflow.App{Name: `a "quoted" <app> & co`, Nodes: []*workflow.Node{
		{Name: workflow.StartNodeName, Kind: workflow.StartNode, To: `d"<&>`},
		{Name: `d"<&>`, Kind: workflow.DecisionNode, Cases: []workflow.Case{{Predicate: "${a\n  lt   \"b\" and x eq 'a very long predicate that goes on'}", To: `back\slash`}}, Default: "end", HasDefault: true},
		{Name: `back\slash`, Kind: workflow.ActionNode, Action: &workflow.Action{Type: "sh<ell>"}, OK: "f", Error: "k"},
		{Name: "f", Kind: workflow.ForkNode, Paths: []string{"p", "q"}},
		{Name: "p", Kind: workflow.ActionNode, Action: &workflow.Action{Type: "fs"}, OK: "j", Error: "k"},
		{Name: "q", Kind: workflow.ActionNode, Action: &workflow.Action{Type: "fs"}, OK: "j", Error: "nowhere"},
		{Name: "j", Kind: workflow.JoinNode, To: "end"},
		{Name: "k", Kind: workflow.KillNode, Message: "bye"},
		{Name: "end", Kind: workflow.EndNode},
	}}
}

func TestGraphDOT(t *testing.T) {
	app := weirdApp()
	out, err := Draw(app, map[string]string{"p": "OK"}, "dot")
	if err != nil {
		t.Fatal(err)
	}
	dot := string(out)
	nodes, edges := parseDOT(t, dot)
	// DOT unescapes only \" in ids, so the doubled backslash stays doubled
	// in the id (consistently, so edges still meet their node) while the
	// label shows a single one.
	wantNodes := []string{workflow.StartNodeName, `d"<&>`, `back\\slash`, "f", "p", "q", "j", "k", "end"}
	if !slices.Equal(nodes, wantNodes) {
		t.Errorf("nodes %q, want %q", nodes, wantNodes)
	}
	if len(edges) != len(app.Edges()) {
		t.Errorf("%d edges, want %d", len(edges), len(app.Edges()))
	}
	for _, s := range []string{
		`digraph "a \"quoted\" <app> & co" {`,
		`"d\"<&>" [shape=diamond, label="d\"<&>"`,
		`"back\\slash" [shape=box, label="back\\slash\n(sh<ell>)"`,
		`":start:" [shape=circle, label="start"`,
		`"end" [shape=doublecircle`,
		`"k" [shape=octagon`,
		`"f" [shape=box, label="f", height=0.25, penwidth=3`,
		`"p" [shape=box, label="p\n(fs)", style=filled, fillcolor="#c8e6c9"`,
		`"q" [shape=box, label="q\n(fs)", style=filled, fillcolor="#ffffff"`,
		`"d\"<&>" -> "back\\slash" [label="${a lt \"b\" and x eq 'a very long predic…"];`,
		`"d\"<&>" -> "end" [label="default", style=dotted];`,
		`"p" -> "k" [style=dashed, label="error"];`,
		`"q" -> "nowhere" [style=dashed, label="error"];`,
		`"f" -> "q";`,
	} {
		if !strings.Contains(dot, s) {
			t.Errorf("DOT lacks %s\n%s", s, dot)
		}
	}
	if i, j := strings.Index(dot, "edge [color=red"), strings.Index(dot, `"p" -> "k"`); i < 0 || i > j {
		t.Errorf("error edges must follow the red edge default:\n%s", dot)
	}
	hidden, _ := Render(app, nil, Options{Format: "dot", HideKill: true})
	if strings.Contains(string(hidden), `"k"`) || !strings.Contains(string(hidden), `"q" -> "nowhere"`) {
		t.Errorf("HideKill should drop the kill node and its edges only:\n%s", hidden)
	}
}

// parseDOT is a small checker of the statements Graph writes: it tokenizes
// the text (failing on an unterminated string or stray character) and
// returns the node ids declared and the edges, unescaped.
func parseDOT(t *testing.T, dot string) (nodes []string, edges [][2]string) {
	t.Helper()
	var toks []string
	for i := 0; i < len(dot); {
		c := dot[i]
		switch {
		case c == ' ' || c == '\n':
			i++
		case c == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(dot) && dot[j] != '"'; j++ {
				if dot[j] == '\\' && j+1 < len(dot) {
					j++
					if dot[j] != '"' {
						b.WriteByte('\\')
					}
				}
				b.WriteByte(dot[j])
			}
			if j == len(dot) {
				t.Fatalf("unterminated string at %d", i)
			}
			toks = append(toks, "\x00"+b.String())
			i = j + 1
		case strings.HasPrefix(dot[i:], "->"):
			toks, i = append(toks, "->"), i+2
		case strings.ContainsRune("{}[]=,;", rune(c)):
			toks, i = append(toks, string(c)), i+1
		case c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(dot) && (dot[j] == '_' || dot[j] == '.' || dot[j] >= '0' && dot[j] <= '9' || dot[j] >= 'a' && dot[j] <= 'z' || dot[j] >= 'A' && dot[j] <= 'Z') {
				j++
			}
			toks, i = append(toks, dot[i:j]), j
		default:
			t.Fatalf("unexpected %q at %d", c, i)
		}
	}
	if len(toks) < 4 || toks[0] != "digraph" || toks[2] != "{" || toks[len(toks)-1] != "}" {
		t.Fatalf("not a digraph: %q", toks)
	}
	// Statements: ID [attrs] ; | ID -> ID [attrs] ; | node|edge [attrs] ;
	body := toks[3 : len(toks)-1]
	for len(body) > 0 {
		end := slices.Index(body, ";")
		if end < 0 {
			t.Fatalf("statement without ';': %q", body)
		}
		st := body[:end]
		body = body[end+1:]
		unq := func(s string) string {
			if !strings.HasPrefix(s, "\x00") {
				t.Fatalf("id %q is not quoted", s)
			}
			return s[1:]
		}
		switch {
		case len(st) >= 3 && st[1] == "->":
			edges = append(edges, [2]string{unq(st[0]), unq(st[2])})
			st = st[3:]
		case st[0] == "node" || st[0] == "edge":
			st = st[1:]
		default:
			nodes = append(nodes, unq(st[0]))
			st = st[1:]
		}
		if len(st) > 0 && (st[0] != "[" || st[len(st)-1] != "]" || (len(st)-2)%4 != 3) {
			t.Fatalf("bad attribute list %q", st)
		}
	}
	return nodes, edges
}

// svgDoc is what the tests read back from an SVG.
type svgDoc struct {
	width, height float64
	nodes         map[string]svgNodeInfo // by data-name
	paths         int
}

type svgNodeInfo struct {
	kind, fill string
	y          float64 // of the first text line
}

// checkSVG parses out as strict XML and returns what it found; it fails the
// test when any shape lies outside the declared size.
func checkSVG(t *testing.T, out []byte) svgDoc {
	t.Helper()
	doc := svgDoc{nodes: map[string]svgNodeInfo{}}
	d := xml.NewDecoder(bytes.NewReader(out))
	var cur string
	attr := func(se xml.StartElement, name string) string {
		for _, a := range se.Attr {
			if a.Name.Local == name {
				return a.Value
			}
		}
		return ""
	}
	num := func(se xml.StartElement, name string) float64 {
		v, err := strconv.ParseFloat(attr(se, name), 64)
		if err != nil {
			t.Fatalf("%s %s=%q: %v", se.Name.Local, name, attr(se, name), err)
		}
		return v
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		// encoding/xml accepts a repeated attribute; XML does not.
		seen := map[xml.Name]bool{}
		for _, a := range se.Attr {
			if seen[a.Name] {
				t.Fatalf("<%s> repeats attribute %s", se.Name.Local, a.Name.Local)
			}
			seen[a.Name] = true
		}
		switch se.Name.Local {
		case "svg":
			doc.width, doc.height = num(se, "width"), num(se, "height")
		case "g":
			if attr(se, "class") == "node" {
				cur = attr(se, "data-name")
				doc.nodes[cur] = svgNodeInfo{kind: attr(se, "data-kind")}
			}
		case "rect", "ellipse", "polygon":
			if cur != "" && doc.nodes[cur].fill == "" {
				n := doc.nodes[cur]
				n.fill = attr(se, "fill")
				doc.nodes[cur] = n
			}
			if se.Name.Local == "rect" && attr(se, "width") != "100%" {
				if x, w := num(se, "x"), num(se, "width"); x < 0 || x+w > doc.width {
					t.Errorf("rect x=%v width=%v outside 0..%v", x, w, doc.width)
				}
				if y, h := num(se, "y"), num(se, "height"); y < 0 || y+h > doc.height {
					t.Errorf("rect y=%v height=%v outside 0..%v", y, h, doc.height)
				}
			}
		case "text":
			if n, ok := doc.nodes[cur]; ok && cur != "" && n.y == 0 {
				n.y = num(se, "y")
				doc.nodes[cur] = n
			}
		case "path":
			if strings.HasPrefix(attr(se, "d"), "M") && attr(se, "marker-end") != "" {
				doc.paths++
			}
		}
	}
	return doc
}

func TestGraphSVG(t *testing.T) {
	app := parseExample(t, "fork-join")
	status := exampleStatus["fork-join"]
	out, err := Draw(app, status, "svg")
	if err != nil {
		t.Fatal(err)
	}
	doc := checkSVG(t, out)
	if len(doc.nodes) != len(app.Nodes) || doc.paths != len(app.Edges()) {
		t.Errorf("%d nodes and %d arrows, want %d and %d", len(doc.nodes), doc.paths, len(app.Nodes), len(app.Edges()))
	}
	// Fills follow the legend; nodes without a status are white.
	for _, n := range app.Nodes {
		if got, want := doc.nodes[n.Name].fill, statusColour(status, n.Name).fill; got != want {
			t.Errorf("%s: fill %s, want %s", n.Name, got, want)
		}
		if got := doc.nodes[n.Name].kind; got != n.Kind.String() {
			t.Errorf("%s: kind %s", n.Name, got)
		}
	}
	// Layers: the fork's paths side by side, the join below both, and the
	// kill node below every action failing into it.
	y := func(n string) float64 { return doc.nodes[n].y }
	if y("count-words") != y("count-lines") {
		t.Errorf("fork paths on different rows: %v %v", y("count-words"), y("count-lines"))
	}
	order := []string{workflow.StartNodeName, "prepare", "split", "count-words", "merge", "report", "end"}
	for i := 1; i < len(order); i++ {
		if y(order[i-1]) >= y(order[i]) {
			t.Errorf("%s (y=%v) not above %s (y=%v)", order[i-1], y(order[i-1]), order[i], y(order[i]))
		}
	}
	if y("fail") <= y("report") {
		t.Errorf("kill node at y=%v, above the last action (y=%v)", y("fail"), y("report"))
	}
	for _, s := range []string{"OK / DONE", "RUNNING / RETRY", "ERROR / FAILED", "KILLED", "PREP", "not reached", `data-name="count-words"`, "(shell)"} {
		if !bytes.Contains(out, []byte(s)) {
			t.Errorf("SVG lacks %q", s)
		}
	}
	if bytes.Contains(out, []byte(">other<")) {
		t.Error("the legend shows 'other' although every status is known")
	}
}

func TestGraphSVGEscapes(t *testing.T) {
	out, err := Draw(weirdApp(), map[string]string{`d"<&>`: "OK", "q": "WEIRD<&>"}, "svg")
	if err != nil {
		t.Fatal(err)
	}
	doc := checkSVG(t, out)
	for _, name := range []string{`d"<&>`, `back\slash`, "nowhere"} {
		if _, ok := doc.nodes[name]; !ok {
			t.Errorf("node %q missing", name)
		}
	}
	if doc.nodes["nowhere"].kind != "undefined" || doc.nodes["q"].fill != colourOther.fill {
		t.Errorf("undefined target %+v, unknown status %+v", doc.nodes["nowhere"], doc.nodes["q"])
	}
	if !bytes.Contains(out, []byte(">other<")) {
		t.Error("legend lacks 'other' for an unknown status")
	}
}

// checkLayout asserts the layout invariants on the internal model: primary
// edges point down, nodes of a row do not overlap, everything fits.
func checkLayout(t *testing.T, g *graph) {
	t.Helper()
	for _, e := range g.edges {
		if e.primary() && e.from != e.to && g.nodes[e.to].layer <= g.nodes[e.from].layer {
			t.Fatalf("edge %s -> %s (%s) does not go down", g.nodes[e.from].name, g.nodes[e.to].name, e.kind)
		}
	}
	for li, l := range g.layers {
		for i, v := range l {
			n := g.nodes[v]
			if n.layer != li || n.x-n.w/2 < 0 || n.x+n.w/2 > g.width || n.y+n.h/2 > g.height {
				t.Fatalf("node %s (layer %d) at %v,%v outside %vx%v", n.name, li, n.x, n.y, g.width, g.height)
			}
			if i > 0 {
				p := g.nodes[l[i-1]]
				if p.x+p.w/2 > n.x-n.w/2+0.001 {
					t.Fatalf("nodes %s and %s overlap in layer %d", p.name, n.name, li)
				}
			}
		}
	}
}

// randomApp builds a random graph: mostly forward edges (a DAG), with some
// cycles, self loops, undefined targets and awkward names mixed in.
func randomApp(r *rand.Rand, size int) *workflow.App {
	name := func(i int) string {
		if i%7 == 3 {
			return fmt.Sprintf(`n%d"<&'>`, i)
		}
		return fmt.Sprintf("n%d", i)
	}
	target := func(i int) string {
		switch x := r.IntN(40); {
		case x == 0:
			return "undefined-" + strconv.Itoa(r.IntN(3))
		case x == 1:
			return name(r.IntN(size)) // may close a cycle
		case i+1 >= size:
			return name(size - 1)
		default:
			return name(i + 1 + r.IntN(min(size-i-1, 5)))
		}
	}
	app := &workflow.App{Name: "random & <odd>", Nodes: []*workflow.Node{{Name: workflow.StartNodeName, Kind: workflow.StartNode, To: name(0)}}}
	for i := range size {
		n := &workflow.Node{Name: name(i)}
		switch x := r.IntN(10); {
		case i == size-1:
			n.Kind = workflow.EndNode
		case x < 5:
			n.Kind, n.Action, n.OK, n.Error = workflow.ActionNode, &workflow.Action{Type: "fs"}, target(i), target(i)
		case x < 7:
			n.Kind, n.HasDefault, n.Default = workflow.DecisionNode, true, target(i)
			for range r.IntN(3) {
				n.Cases = append(n.Cases, workflow.Case{Predicate: "${x < 'é'}", To: target(i)})
			}
		case x < 8:
			n.Kind, n.Paths = workflow.ForkNode, []string{target(i), target(i), target(i)}
		case x < 9:
			n.Kind, n.To = workflow.JoinNode, target(i)
		default:
			n.Kind = workflow.KillNode
		}
		app.Nodes = append(app.Nodes, n)
	}
	return app
}

func TestGraphRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		app := randomApp(r, 1+r.IntN(60))
		status := map[string]string{}
		for _, n := range app.Nodes {
			if r.IntN(2) == 0 {
				status[n.Name] = []string{"OK", "RUNNING", "ERROR", "PREP", "KILLED", "DONE", "X"}[r.IntN(7)]
			}
		}
		for _, hide := range []bool{false, true} {
			g := buildGraph(app, status, hide)
			g.layout()
			checkLayout(t, g)
			out, err := Render(app, status, Options{Format: "svg", HideKill: hide})
			if err != nil {
				t.Fatal(err)
			}
			checkSVG(t, out)
			if !bytes.Equal(out, g.svg()) {
				t.Fatalf("graph %d: rendering is not deterministic", i)
			}
			dot, err := Render(app, status, Options{Format: "dot", HideKill: hide})
			if err != nil {
				t.Fatal(err)
			}
			parseDOT(t, string(dot))
		}
	}
}

// TestGraphLarge lays out the 1,800-node benchmark workflow: every primary
// edge points down and the chain of 300 sections keeps one column.
func TestGraphLarge(t *testing.T) {
	opts := workflow.DefaultOptions()
	opts.MaxDefinitionLength = -1
	app, err := workflow.Parse(largeWorkflow(), opts)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	g := buildGraph(app, nil, false)
	g.layout()
	out := g.svg()
	t.Logf("%d nodes, %d edges, %d layers, %d bytes in %v", len(g.nodes), len(g.edges), len(g.layers), len(out), time.Since(start))
	checkLayout(t, g)
	checkSVG(t, out)
	// start, then d_i, a_i|b_i, f_i, p_i|q_i, j_i: 5 layers a section, then
	// end; the kill node hangs one below the deepest failing action (q299),
	// beside j299, not below everything.
	if want := 1 + 300*5 + 1; len(g.layers) != want {
		t.Errorf("%d layers, want %d", len(g.layers), want)
	}
	x := func(name string) float64 {
		for _, n := range g.nodes {
			if n.name == name {
				return n.x
			}
		}
		t.Fatalf("no node %s", name)
		return 0
	}
	if math.Abs(x("d0")-x("d299")) > 0.01 || math.Abs(x("j0")-x("d1")) > 0.01 {
		t.Errorf("decisions drift: d0 at %v, d299 at %v, j0 at %v, d1 at %v", x("d0"), x("d299"), x("j0"), x("d1"))
	}
}

func BenchmarkGraphLarge(b *testing.B) {
	opts := workflow.DefaultOptions()
	opts.MaxDefinitionLength = -1
	app, err := workflow.Parse(largeWorkflow(), opts)
	if err != nil {
		b.Fatal(err)
	}
	status := map[string]string{workflow.StartNodeName: "OK", "d0": "OK", "a0": "RUNNING"}
	for _, format := range []string{"svg", "dot"} {
		b.Run(format, func(b *testing.B) {
			for b.Loop() {
				if _, err := Draw(app, status, format); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzGraph draws whatever the parser accepts without validation, which
// includes cycles and dangling transitions.
func FuzzGraph(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "workflow", "testdata", "*.xml"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(wfXML("0.5", `<start to="f"/><fork name="f"><path start="a"/><path start="b"/></fork>`+
		fsAction("a", "b", "k")+fsAction("b", "j", "a")+`<join name="j" to="f"/>`+killNode+`<end name="end"/>`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		app, err := workflow.ParseNoValidate(data)
		if err != nil {
			return
		}
		out, err := Draw(app, map[string]string{workflow.StartNodeName: "OK"}, "svg")
		if err != nil {
			t.Fatal(err)
		}
		d := xml.NewDecoder(bytes.NewReader(out))
		for {
			if _, err := d.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("not XML: %v", err)
			}
		}
		if _, err := Draw(app, nil, "dot"); err != nil {
			t.Fatal(err)
		}
	})
}

func TestEdgesAndDOT(t *testing.T) {
	x := wfXML("0.5", `<start to="d"/><decision name="d"><switch><case to="a">${x}</case><default to="e"/></switch></decision>`+
		fsAction("a", "e", "k")+killNode+`<end name="e"/>`)
	app, err := workflow.Parse([]byte(x), workflow.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := []workflow.Edge{
		{From: workflow.StartNodeName, To: "d", Kind: "start"},
		{From: "d", To: "a", Kind: "case", Predicate: "${x}"},
		{From: "d", To: "e", Kind: "default"},
		{From: "a", To: "e", Kind: "ok"},
		{From: "a", To: "k", Kind: "error"},
	}
	if got := app.Edges(); !reflect.DeepEqual(got, want) {
		t.Errorf("edges = %+v", got)
	}
	dot := DOT(app)
	for _, s := range []string{`"a" -> "k" [style=dashed, label="error"];`, `"d" [shape=diamond`, `"d" -> "a" [label="${x}"];`} {
		if !strings.Contains(dot, s) {
			t.Errorf("DOT lacks %s:\n%s", s, dot)
		}
	}
}
