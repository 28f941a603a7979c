package server

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestConsoleRunsGrid renders the run-history grid of a repeated
// workflow (same application name) and of a coordinator: a column per
// run, oldest on the left, a row per action node, each cell the node's
// status in that run and a link to it.
func TestConsoleRunsGrid(t *testing.T) {
	e := newEnv(t)
	first := e.submit("joe", "start", "oozie.wf.application.path", e.app("fj"))
	e.waitStatus(first, "SUCCEEDED")
	second := e.submit("joe", "start", "oozie.wf.application.path", e.app("fj"))
	e.waitStatus(second, "SUCCEEDED")
	bad := e.submit("joe", "start", "oozie.wf.application.path", e.shellApp("breaks", "exit 3"))
	e.waitStatus(bad, "KILLED")

	st, body := e.page("/oozie/console/runs?name=fj")
	if st != 200 {
		t.Fatalf("runs of fj: %d %.300s", st, body)
	}
	// Two columns, oldest first; the rows are the action nodes only.
	if i, j := strings.Index(body, `href="/oozie/console/job/`+first+`"`), strings.Index(body, `href="/oozie/console/job/`+second+`"`); i < 0 || j < 0 || i > j {
		t.Errorf("runs not both shown oldest first: %d %d", i, j)
	}
	rows := regexp.MustCompile(`<th scope="row" class="node">([^<]+)</th>`).FindAllStringSubmatch(body, -1)
	var names []string
	for _, r := range rows {
		names = append(names, r[1])
	}
	if strings.Join(names, ",") != "prepare,left,right" && strings.Join(names, ",") != "prepare,right,left" {
		t.Errorf("grid rows = %v, want the action nodes prepare, left, right", names)
	}
	for _, w := range []string{`class="sq st-ok" href="/oozie/console/job/` + second + `#n-left"`, `data-status="OK"`, "<p class=\"paging\">2 runs"} {
		if !strings.Contains(body, w) {
			t.Errorf("runs of fj lack %q", w)
		}
	}
	if strings.Contains(body, bad) {
		t.Errorf("runs of fj show another application's job")
	}
	if _, body := e.page("/oozie/console/runs?name=fj&len=1"); !strings.Contains(body, "1 of 2 runs") || !strings.Contains(body, second) || strings.Contains(body, `job/`+first+`"`) || !strings.Contains(body, `rel="prev"`) {
		t.Errorf("runs of fj, one a page: wrong paging")
	}
	if _, body := e.page("/oozie/console/runs?name=breaks"); !strings.Contains(body, `class="sq st-bad" href="/oozie/console/job/`+bad+`#n-step"`) || !strings.Contains(body, `data-status="ERROR"`) {
		t.Errorf("runs of breaks: the failed step is not shown failed")
	}
	// The workflow page links to its application's grid.
	if _, body := e.page("/oozie/console/job/" + second); !strings.Contains(body, `<a href="/oozie/console/runs?name=fj" id="runs-link">`) {
		t.Errorf("workflow page lacks the link to its run history")
	}
	if st, _ := e.page("/oozie/console/runs"); st != 400 {
		t.Errorf("runs of nothing: %d, want 400", st)
	}

	// A coordinator: a column per action (#1, #2, ...), the nodes of the
	// workflow each launched; the waiting ones have none yet.
	app := filepath.Join(e.dir, "coord-hourly")
	copyDir(t, "../../examples/apps/coord-hourly", app)
	coord := e.submit("joe", "start", "oozie.coord.application.path", app, "appDir", app,
		"nameNode", "file:///", "jobTracker", "local", "queueName", "default")
	var wf1 string
	waitFor(t, "coordinator action 1 has its workflow", func() bool {
		wf1, _ = e.do("GET", "/oozie/v2/job/"+coord+"@1", "", "").json(t)["externalId"].(string)
		return wf1 != ""
	})
	e.waitStatus(wf1, "SUCCEEDED")
	waitFor(t, "coordinator action 2 materialized", func() bool {
		s, _ := e.do("GET", "/oozie/v2/job/"+coord+"@2", "", "").json(t)["status"].(string)
		return s != ""
	})
	_, body = e.page("/oozie/console/runs?coord=" + coord)
	for _, w := range []string{"Run history of coord-hourly", `<span class="run-label">#1</span>`, `<span class="run-label">#2</span>`,
		`href="/oozie/console/job/` + wf1 + `#n-count"`, `<th scope="row" class="node">done</th>`, `data-status="WAITING"`} {
		if !strings.Contains(body, w) {
			t.Errorf("coordinator grid lacks %q", w)
		}
	}
	if i, j := strings.Index(body, `run-label">#1<`), strings.Index(body, `run-label">#2<`); i > j {
		t.Errorf("coordinator grid not oldest first")
	}
	if st, _ := e.page("/oozie/console/runs?coord=0000000-260101000000000-oozie-x-C"); st != 404 {
		t.Errorf("grid of a coordinator that does not exist: %d", st)
	}
}
