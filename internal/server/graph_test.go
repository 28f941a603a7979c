package server

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestGraphOfFailedJob: a job that failed into a kill node has that kill
// node in its graph even without show-kill (kill nodes the job did not
// reach stay out), and the graph comes as PNG by default.
func TestGraphOfFailedJob(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.dir, "apps", "fails")
	wf := `<workflow-app xmlns="uri:oozie:workflow:1.0" name="fails">
  <start to="bad"/>
  <action name="bad"><fs><move source="` + filepath.Join(e.dir, "no-such-file") + `" target="` + filepath.Join(e.dir, "x") + `"/></fs><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>bad failed</message></kill>
  <kill name="unused"><message>never</message></kill>
  <end name="end"/>
</workflow-app>`
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	id := e.submit("joe", "start", "oozie.wf.application.path", dir)
	e.waitStatus(id, "KILLED")
	svg := string(e.do("GET", "/oozie/v2/job/"+id+"?show=graph&format=svg", "", "").body)
	for _, want := range []string{`data-name="fail"`, `data-failed="true" data-name="bad"`} {
		if !strings.Contains(svg, want) {
			t.Errorf("graph lacks %s:\n%s", want, svg)
		}
	}
	if strings.Contains(svg, `data-name="unused"`) {
		t.Errorf("graph draws the kill node the job did not reach")
	}
	if r := e.do("GET", "/oozie/v2/job/"+id+"?show=graph&show-kill=true&format=svg", "", ""); !strings.Contains(string(r.body), `data-name="unused"`) {
		t.Errorf("show-kill=true leaves out a kill node")
	}
	if r := e.do("GET", "/oozie/v2/job/"+id+"?show=graph", "", ""); r.header.Get("Content-Type") != "image/png" || !strings.HasPrefix(string(r.body), "\x89PNG") {
		t.Errorf("default graph: %v %.20q", r.header, r.body)
	}
}

// chainApp writes a workflow of n fs steps in a row (each makes a
// directory; step failAt, if any, moves a file that does not exist) and
// returns its directory: the long linear workflow whose graph is a tall
// column unless wrapped.
func (e *env) chainApp(name string, n, failAt int) string {
	e.t.Helper()
	var b strings.Builder
	b.WriteString(`<workflow-app xmlns="uri:oozie:workflow:1.0" name="` + name + `"><start to="s00"/>`)
	for i := range n {
		next := fmt.Sprintf("s%02d", i+1)
		if i == n-1 {
			next = "end"
		}
		op := `<mkdir path="` + filepath.Join(e.dir, "out", name, fmt.Sprintf("s%02d", i)) + `"/>`
		if i == failAt {
			op = `<move source="` + filepath.Join(e.dir, "no-such-file") + `" target="` + filepath.Join(e.dir, "x") + `"/>`
		}
		fmt.Fprintf(&b, `<action name="s%02d"><fs>%s</fs><ok to="%s"/><error to="fail"/></action>`, i, op, next)
	}
	b.WriteString(`<kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>`)
	dir := filepath.Join(e.dir, "apps", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(b.String()), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return dir
}

// TestGraphLayout: the graph's layout parameter (gozie's) folds a long
// linear workflow into columns (wrap, or auto for a tall one); without
// it the graph is Oozie's one column; an unknown layout is refused as an
// unknown format is.
func TestGraphLayout(t *testing.T) {
	e := newEnv(t)
	id := e.submit("joe", "start", "oozie.wf.application.path", e.chainApp("chain", 30, -1))
	e.waitStatus(id, "SUCCEEDED")
	size := func(q string) (w, h int) {
		t.Helper()
		r := e.do("GET", "/oozie/v2/job/"+id+"?show=graph&format=svg"+q, "", "")
		m := regexp.MustCompile(`<svg [^>]*width="(\d+)" height="(\d+)"`).FindStringSubmatch(string(r.body))
		if r.status != 200 || m == nil {
			t.Fatalf("graph%s: %d %.200s", q, r.status, r.body)
		}
		w, _ = strconv.Atoi(m[1])
		h, _ = strconv.Atoi(m[2])
		return w, h
	}
	_, down := size("")
	if _, h := size("&layout=down"); h != down || down < 2000 {
		t.Errorf("one column: %d and %d px tall", down, h)
	}
	for _, l := range []string{"wrap", "auto", "AUTO"} {
		if w, h := size("&layout=" + l); h > 1200 || w < 2*h/3 {
			t.Errorf("layout=%s: %dx%d, still a column", l, w, h)
		}
	}
	if r := e.do("GET", "/oozie/v2/job/"+id+"?show=graph&format=png&layout=wrap", "", ""); r.status != 200 || !strings.HasPrefix(string(r.body), "\x89PNG") {
		t.Errorf("wrapped png: %d", r.status)
	}
	if r := e.do("GET", "/oozie/v2/job/"+id+"?show=graph&layout=sideways", "", ""); r.status != 404 || r.header.Get("oozie-error-code") != "E0307" {
		t.Errorf("unknown layout: %d %v", r.status, r.header)
	}
}
