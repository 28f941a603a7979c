package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/jobs"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// shellApp writes a one-step shell workflow running script and returns its
// directory.
func (e *env) shellApp(name, script string) string {
	e.t.Helper()
	wf := fmt.Sprintf(`<workflow-app xmlns="uri:oozie:workflow:1.0" name="%s">
  <start to="step"/>
  <action name="step">
    <shell xmlns="uri:oozie:shell-action:1.0">
      <resource-manager>local</resource-manager><name-node>file:///</name-node>
      <exec>sh</exec><argument>-c</argument><argument>%s</argument>
    </shell>
    <ok to="end"/><error to="fail"/>
  </action>
  <kill name="fail"><message>step failed: ${wf:errorMessage(wf:lastErrorNode())}</message></kill>
  <end name="end"/>
</workflow-app>`, name, script)
	dir := filepath.Join(e.dir, "apps", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(wf), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return dir
}

// page GETs a console page as a browser would (Accept: text/html) and
// returns its status and body.
func (e *env) page(path string) (int, string) {
	e.t.Helper()
	r := e.do("GET", path, "", "", "Accept", "text/html")
	return r.status, string(r.body)
}

// TestConsoleRoutes checks how the console is reached and that the REST
// API answers Oozie clients as before.
func TestConsoleRoutes(t *testing.T) {
	e := newEnv(t)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		path, accept string
		status       int
		location     string
	}{
		{"/", "", 302, "/oozie/console/"},
		// /oozie/ is the console for every client, as in Oozie.
		{"/oozie/", "text/html,application/xhtml+xml", 200, ""},
		{"/oozie/", "", 200, ""},
		{"/oozie/", "application/json", 200, ""},
		{"/oozie/?job=0000001-260101000000000-oozie-test-W", "", 302, "/oozie/console/job/0000001-260101000000000-oozie-test-W"},
		{"/oozie", "text/html", 302, "/oozie/console/"},
		{"/oozie", "", 302, "/oozie/console/"},
		{"/oozie?job=0000001-260101000000000-oozie-test-W", "", 302, "/oozie/console/job/0000001-260101000000000-oozie-test-W"},
		{"/oozie/versions", "text/html", 200, ""},
		{"/oozie/console/", "", 200, ""},
		{"/oozie/console/system", "", 200, ""},
		{"/oozie/console/static/console.css", "", 200, ""},
		{"/oozie/console/nope", "", 404, ""},
		{"/oozie/console/job/0000001-260101000000000-oozie-test-W", "", 404, ""},
	} {
		req, _ := http.NewRequest("GET", e.ts.URL+tc.path, nil)
		if tc.accept != "" {
			req.Header.Set("Accept", tc.accept)
		}
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tc.status || res.Header.Get("Location") != tc.location {
			t.Errorf("GET %s (Accept %q): %d Location %q, want %d %q", tc.path, tc.accept, res.StatusCode,
				res.Header.Get("Location"), tc.status, tc.location)
		}
	}
	// A client that does not ask for HTML (curl, a script) gets the
	// console's jobs page at /oozie/ too, with the console's headers; other
	// methods keep the JSON 404 of a path no servlet serves.
	if r := e.do("GET", "/oozie/", "", ""); r.status != 200 || !strings.Contains(string(r.body), "<h1>Jobs</h1>") ||
		!strings.HasPrefix(r.header.Get("Content-Type"), "text/html") || !strings.Contains(r.header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Errorf("GET /oozie/: %d %v %.200s", r.status, r.header, r.body)
	}
	if r := e.do("POST", "/oozie/", "", ""); r.status != 404 || !strings.Contains(string(r.body), `"errorMessage":"Not Found"`) {
		t.Errorf("POST /oozie/: %d %s", r.status, r.body)
	}
	// The consoleUrl of a job opens its page.
	id := e.submit("joe", "start", "oozie.wf.application.path", e.app("fj"))
	e.waitStatus(id, "SUCCEEDED")
	job := e.do("GET", "/oozie/v2/job/"+id, "", "").json(t)
	cu, _ := job["consoleUrl"].(string)
	if !strings.HasPrefix(cu, e.ts.URL+"/oozie?job=") {
		t.Fatalf("consoleUrl %q", cu)
	}
	res, err := http.Get(cu)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Request.URL.Path != "/oozie/console/job/"+id {
		t.Errorf("consoleUrl %s: %d at %s", cu, res.StatusCode, res.Request.URL)
	}
	// An action id opens its job's page at the node.
	if st, body := e.page("/oozie?job=" + id + "@left"); st != 200 || !strings.Contains(body, `id="n-left"`) {
		t.Errorf("action consoleUrl: %d", st)
	}
}

// TestConsolePages renders the pages over a real engine with succeeded,
// failed and waiting jobs.
func TestConsolePages(t *testing.T) {
	e := newEnv(t)
	ok := e.submit("joe", "start", "oozie.wf.application.path", e.app("fj"))
	bad := e.submit("ann", "start", "oozie.wf.application.path", e.shellApp("breaks", "echo working; echo disk on fire 1&gt;&amp;2; exit 3"))
	e.waitStatus(ok, "SUCCEEDED")
	e.waitStatus(bad, "KILLED")
	// A day either side: the test may run across midnight.
	since, until := time.Now().UTC().Add(-24*time.Hour).Format(time.DateOnly), time.Now().UTC().Add(24*time.Hour).Format(time.DateOnly)
	type pageCase struct {
		name, path string
		want, not  []string
	}
	check := func(cases []pageCase) {
		t.Helper()
		for _, tc := range cases {
			st, body := e.page(tc.path)
			if st != 200 {
				t.Errorf("%s: GET %s: %d %.300s", tc.name, tc.path, st, body)
				continue
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("%s: page lacks %q", tc.name, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(body, w) {
					t.Errorf("%s: page has %q", tc.name, w)
				}
			}
		}
	}
	check([]pageCase{
		{"all workflows", "/oozie/console/", []string{ok, bad, `class="st st-ok">SUCCEEDED`, `class="st st-bad">KILLED`, "1–2 of 2"}, nil},
		{"status filter", "/oozie/console/?status=KILLED", []string{bad, "1–1 of 1"}, []string{ok}},
		{"user filter", "/oozie/console/?user=joe", []string{ok}, []string{bad}},
		{"name filter", "/oozie/console/?name=breaks", []string{bad}, []string{ok}},
		{"paging", "/oozie/console/?len=1", []string{bad, "1–1 of 2", `rel="next"`}, []string{ok}},
		{"second page", "/oozie/console/?len=1&offset=2", []string{ok, "2–2 of 2", `rel="prev"`}, []string{bad}},
		{"created around now", "/oozie/console/?from=" + since + "&to=" + until, []string{ok, bad, "1–2 of 2"}, nil},
		{"created before", "/oozie/console/?to=2020-01-01", []string{"No jobs"}, []string{ok, bad}},
		{"bad date", "/oozie/console/?from=yesterday", []string{"bad from date [yesterday]"}, []string{ok}},
		// Free text: part of the id, name, app path or user, any case.
		{"text: name", "/oozie/console/?text=REAK", []string{bad, "1–1 of 1", `name="text" value="REAK"`}, []string{ok}},
		{"text: user", "/oozie/console/?text=ann", []string{bad}, []string{ok}},
		{"text: id", "/oozie/console/?text=" + ok[:7], []string{ok}, []string{bad}},
		{"text: app path", "/oozie/console/?text=apps/fj", []string{ok}, []string{bad}},
		{"text: wildcards are literal", "/oozie/console/?text=%25", []string{"No jobs"}, []string{ok, bad}},
		{"text and status", "/oozie/console/?text=o&status=SUCCEEDED", []string{ok}, []string{bad}},
		{"text in paging links", "/oozie/console/?text=e&len=1", []string{"text=e"}, nil},
	})
	app := filepath.Join(e.dir, "coord-hourly")
	copyDir(t, "../../examples/apps/coord-hourly", app)
	coord := e.submit("joe", "start", "oozie.coord.application.path", app, "appDir", app,
		"nameNode", "file:///", "jobTracker", "local", "queueName", "default")
	waitFor(t, "coordinator action 2 materialized", func() bool {
		r := e.do("GET", "/oozie/v2/job/"+coord+"?show=missing-dependencies&action-list=2", "", "")
		deps, _ := r.json(t)["missingDependencies"].([]any)
		return len(deps) > 0
	})
	var wf1 string
	waitFor(t, "coordinator action 1 has its workflow", func() bool {
		wf1, _ = e.do("GET", "/oozie/v2/job/"+coord+"@1", "", "").json(t)["externalId"].(string)
		return wf1 != ""
	})
	// Its workflow ends on its own: wait, so that the system page's counts
	// are known (two workflows SUCCEEDED, one KILLED, the coordinator the
	// only RUNNING job).
	e.waitStatus(wf1, "SUCCEEDED")

	check([]pageCase{
		{"coordinators", "/oozie/console/?tab=coord", []string{coord, "coord-hourly"}, []string{ok}},
		{"succeeded workflow", "/oozie/console/job/" + ok, []string{"fj", "left", "right", "merge", `src="/oozie/v2/job/` + ok + `?show=graph&amp;show-kill=true&amp;format=svg&amp;layout=auto"`, `id="graph-box"`, `data-layout="down"`, "Job log"},
			[]string{"Failed nodes", `data-action="kill"`, `data-action="suspend"`, `data-action="rerun-failed"`}},
		// The graph's layout is the page's choice; auto when unknown.
		{"graph in one column", "/oozie/console/job/" + ok + "?layout=down", []string{`format=svg&amp;layout=down"`, `data-layout="down" aria-current="true"`}, []string{`layout=auto"`}},
		{"graph layout unknown", "/oozie/console/job/" + ok + "?layout=sideways", []string{`format=svg&amp;layout=auto"`, `data-layout="auto" aria-current="true"`}, []string{"sideways"}},
		{"failed workflow", "/oozie/console/job/" + bad, []string{"Failed nodes", `href="#n-step"`, "ERROR", "exit code [3]", "/oozie/console/tail/" + bad + "@step/stderr", `data-action="rerun-failed"`}, []string{`data-action="kill"`}},
		{"coordinator", "/oozie/console/job/" + coord, []string{"coord-hourly", "#2", "WAITING", "waiting for", "raw", "/data/2026/01/01/02/_SUCCESS", `data-action="suspend"`, `data-action="kill"`,
			`<a class="id" href="/oozie/console/job/` + wf1 + `"`}, nil},
		{"coordinator paging", "/oozie/console/job/" + coord + "?len=2&offset=3", []string{`id="a3"`, `id="a4"`, "3–4 of 6", `rel="prev"`, `rel="next"`}, []string{`id="a2"`, `id="a5"`}},
		{"coordinator newest first", "/oozie/console/job/" + coord + "?len=1&order=desc", []string{`id="a6"`, "1–1 of 6"}, []string{`id="a1"`}},
		// One date format: UTC to the second in a <time>, nowhere Oozie's
		// bean dates (GMT) or a zone name.
		{"coordinator dates", "/oozie/console/job/" + coord, []string{`<time datetime="2026-01-01T02:00:00Z"><span class="nw">2026-01-01</span> <span class="nw">02:00:00</span></time>`}, []string{"GMT", "Thu, 01 Jan"}},
		{"coordinators' dates", "/oozie/console/?tab=coord", []string{`<time datetime="2026-01-01T01:00:00Z">`}, []string{"GMT"}},
		{"durations", "/oozie/console/", []string{`<th scope="col">Duration</th>`, `<td class="dur nw">`}, nil},
		{"node durations", "/oozie/console/job/" + ok, []string{`<th scope="col">Duration</th>`, `<th scope="row">Duration</th><td class="dur">`}, nil},
		// Ids are one token: classed so as never to wrap.
		{"ids", "/oozie/console/", []string{`<a class="id" href="/oozie/console/job/` + wf1 + `">`, `<a class="id" href="/oozie/console/job/` + coord + `@1">`}, []string{`class="ext"`}},
		// The workflows of one coordinator: by its id (all its actions)
		// or one action's id; the list links each row to its group.
		{"by coordinator", "/oozie/console/?parent=" + coord, []string{wf1, "1–1 of 1", `id="parent-filter"`, `name="parent" value="` + coord + `"`}, []string{ok, bad}},
		{"by coordinator action", "/oozie/console/?parent=" + coord + "@1", []string{wf1, "1–1 of 1"}, []string{ok, bad}},
		{"by another coordinator action", "/oozie/console/?parent=" + coord + "@2", []string{"No jobs"}, []string{wf1}},
		{"group link", "/oozie/console/", []string{`href="/oozie/console/?parent=` + coord + `"`}, nil},
		{"coordinator's workflows link", "/oozie/console/job/" + coord, []string{`id="coord-workflows"`, `href="/oozie/console/runs?coord=` + coord + `"`}, nil},
		{"system", "/oozie/console/system", []string{"test", "postgres", "NORMAL", "read-write",
			// Failures count KILLED with FAILED, as Oozie's console.
			`<th scope="row">workflows FAILED or KILLED</th><td>1</td>`,
			`SUCCEEDED</span></th><td>2</td>`, `KILLED</span></th><td>1</td>`, `id="coord-by-status"`, `RUNNING</span></th><td>1</td>`,
			`<th scope="row">jobs.submitted</th><td>3</td>`, "webservices.requests"}, nil},
	})
	// The failed view: each failed node with its error and its stderr's
	// last lines, as `gozie run` prints them; the kill node the job
	// reached is where its path ended, not a failed node with an OK badge.
	_, body := e.page("/oozie/console/job/" + bad)
	failed := body
	if i := strings.Index(failed, `<section class="failed"`); i >= 0 {
		failed = failed[i:]
		failed = failed[:strings.Index(failed, "</section>")]
	} else {
		t.Errorf("failed workflow page has no failed nodes' section")
	}
	for _, w := range []string{`data-node="step"`, "JA018", "exit code [3]", "Last lines of stderr", "<pre>disk on fire</pre>", "/oozie/console/action/" + bad + "@step/stderr"} {
		if !strings.Contains(failed, w) {
			t.Errorf("failed nodes' section lacks %q:\n%s", w, failed)
		}
	}
	for _, w := range []string{`data-node="fail"`, "working"} {
		if strings.Contains(failed, w) {
			t.Errorf("failed nodes' section has %q (the kill node, or stdout):\n%s", w, failed)
		}
	}
	for _, w := range []string{`<p class="path-end" id="path-end">Ended at kill node <a href="#n-fail">fail</a>: <span class="error">step failed:`,
		`killed at <a href="#n-fail">fail</a>`, "<em>job killed here</em>"} {
		if !strings.Contains(body, w) {
			t.Errorf("failed workflow page lacks %q", w)
		}
	}
	if _, body := e.page("/oozie/console/job/" + ok); !strings.Contains(body, `ended at <a href="#n-end">end</a>`) || strings.Contains(body, "path-end") {
		t.Errorf("succeeded workflow page: the path's end is not end, or is shown as a kill")
	}
	// The output viewer's tail.
	if r := e.do("GET", "/oozie/console/tail/"+bad+"@step/stderr", "", ""); r.status != 200 || !strings.Contains(string(r.body), "disk on fire") {
		t.Errorf("stderr tail: %d %q", r.status, r.body)
	}
	// The download link is the REST API's output endpoint, beside the
	// console's paths.
	if r := e.do("GET", "/oozie/console/action/"+bad+"@step/stderr", "", ""); r.status != 200 || !strings.Contains(string(r.body), "disk on fire") {
		t.Errorf("stderr download: %d %q", r.status, r.body)
	}
	if r := e.do("GET", "/oozie/console/tail/"+bad+"@nope/stderr", "", ""); r.status != 404 {
		t.Errorf("tail of a missing action: %d", r.status)
	}
	// The graph the page shows is the REST API's.
	if r := e.do("GET", "/oozie/v2/job/"+bad+"?show=graph&show-kill=true&format=svg", "", ""); r.status != 200 || !strings.Contains(r.header.Get("Content-Type"), "svg") {
		t.Errorf("graph: %d %v", r.status, r.header)
	}
}

// TestConsoleControls kills a running job through the console (which
// hands the request to the REST API with the caller's credentials) and
// checks read-only mode refuses it.
func TestConsoleControls(t *testing.T) {
	e := newEnv(t)
	gate := filepath.Join(e.dir, "gate")
	t.Cleanup(func() { os.WriteFile(gate, nil, 0o644) })
	id := e.submit("joe", "start", "oozie.wf.application.path",
		e.shellApp("waits", fmt.Sprintf("i=0; while test ! -e %s; do if test $i -ge 600; then break; fi; sleep 0.1; i=$((i+1)); done", gate)))
	e.waitStatus(id, "RUNNING")
	if _, body := e.page("/oozie/console/job/" + id); !strings.Contains(body, `data-action="kill"`) || !strings.Contains(body, `data-live="1"`) {
		t.Errorf("running job page lacks the kill control or live refresh")
	}

	// A read-only console over the same engine hides and refuses.
	ro, err := New(Options{Engine: jobs.New(e.eng, e.coords, nil), Coordinators: e.coords, BaseURL: e.base, DataDir: e.dir, Auth: AuthOptions{Secret: []byte("s"), AnonymousReads: true, Authorization: true},
		Config: map[string]string{"gozie.console.read.only": "true"}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	ro.Handler().ServeHTTP(rec, localRequest("GET", "/oozie/console/job/"+id))
	if rec.Code != 200 || strings.Contains(rec.Body.String(), "data-action=") || !strings.Contains(rec.Body.String(), "read-only") {
		t.Errorf("read-only page: %d, controls shown or no read-only badge", rec.Code)
	}
	rec = httptest.NewRecorder()
	ro.Handler().ServeHTTP(rec, localRequest("PUT", "/oozie/console/job/"+id+"?action=kill&user.name=joe"))
	if rec.Code != 403 || !strings.Contains(rec.Header().Get("oozie-error-message"), "read-only") {
		t.Errorf("read-only kill: %d %v", rec.Code, rec.Header())
	}

	for _, tc := range []struct {
		query  string
		status int
		code   string
	}{
		{"action=kill&user.name=bob", 401, "E0508"},  // not the owner: the REST API's authorization
		{"action=rerun&user.name=joe", 400, "E0303"}, // not a console action
		{"action=suspend&user.name=joe", 200, ""},
		{"action=resume&user.name=joe", 200, ""},
		{"action=kill&user.name=joe", 200, ""},
	} {
		r := e.do("PUT", "/oozie/console/job/"+id+"?"+tc.query, "", "")
		if r.status != tc.status || r.header.Get("oozie-error-code") != tc.code {
			t.Errorf("PUT %s: %d %q %s, want %d %q", tc.query, r.status, r.header.Get("oozie-error-code"), r.body, tc.status, tc.code)
		}
	}
	e.waitStatus(id, "KILLED")
	// The change is audited like any REST request.
	if r := e.do("GET", "/oozie/v2/job/"+id+"?show=auditlog", "", ""); !strings.Contains(string(r.body), "kill") {
		t.Errorf("audit log lacks the kill: %s", r.body)
	}
	if _, body := e.page("/oozie/console/job/" + id); strings.Contains(body, `data-action="kill"`) || strings.Contains(body, `data-live="1"`) ||
		!strings.Contains(body, `data-action="rerun-failed"`) {
		t.Errorf("killed job page: wrong controls or still refreshing")
	}
	// Rerun of the nodes that did not succeed: the REST API's rerun with
	// oozie.wf.rerun.failnodes=true, authorized as any change.
	if r := e.do("PUT", "/oozie/console/job/"+id+"?action=rerun-failed&user.name=bob", "", ""); r.status != 401 || r.header.Get("oozie-error-code") != "E0508" {
		t.Errorf("rerun by a stranger: %d %v", r.status, r.header)
	}
	if r := e.do("PUT", "/oozie/console/job/"+id+"?action=rerun-failed&user.name=joe", "", ""); r.status != 200 {
		t.Fatalf("rerun-failed: %d %s", r.status, r.body)
	}
	e.waitStatus(id, "RUNNING")
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	e.waitStatus(id, "SUCCEEDED")
	if run := e.do("GET", "/oozie/v2/job/"+id, "", "").json(t)["run"]; run != float64(1) {
		t.Errorf("run after the rerun: %v", run)
	}
}

// BenchmarkConsoleJobsPage renders the jobs page (50 rows, unfiltered and
// filtered by user) over 10,000 stored workflow jobs, pages spread over
// the list.
func BenchmarkConsoleJobsPage(b *testing.B) {
	dir := b.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		b.Fatal(err)
	}
	const jobs = 10000
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	err = st.Update(context.Background(), func(tx store.Tx) error {
		for i := range jobs {
			t := base.Add(time.Duration(i) * time.Second)
			j := &store.Job{ID: fmt.Sprintf("%07d-260101000000000-oozie-bench-W", i), AppName: "bench",
				AppPath: "file:///apps/bench", User: []string{"joe", "ann"}[i%2], Status: store.JobSucceeded,
				Conf:        "<configuration>" + strings.Repeat("<property><name>k</name><value>v</value></property>", 40) + "</configuration>",
				CreatedTime: t, StartTime: t, EndTime: t.Add(time.Minute), LastModTime: t.Add(time.Minute)}
			if err := tx.PutJob(context.Background(), j); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	e := newEnvOn(b, dir, st)
	h := e.srv.Handler()
	for _, bc := range []struct {
		name, query string
		total       int
	}{
		{"all", "", jobs},
		// Filtered by user: the store sorts the matching rows (no index
		// on user), as GET /jobs?filter=user=joe does.
		{"user", "user=joe&", jobs / 2},
		// Free text: a substring match over id, name, app path and user
		// (no index can serve it), any case; here every id matches.
		{"text", "text=Bench-W&", jobs},
	} {
		b.Run(bc.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				req := localRequest("GET", fmt.Sprintf("/oozie/console/?%soffset=%d", bc.query, 1+(i*50)%bc.total))
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != 200 || !strings.Contains(w.Body.String(), fmt.Sprintf("of %d", bc.total)) {
					b.Fatalf("status %d: %.300s", w.Code, w.Body)
				}
			}
		})
	}
}

// TestConsoleSubWorkflows follows a parent's sub-workflow action to its
// child's page and back.
func TestConsoleSubWorkflows(t *testing.T) {
	e := newEnv(t)
	app := filepath.Join(e.dir, "sub-workflow")
	copyDir(t, "../../examples/apps/sub-workflow", app)
	parent := e.submit("joe", "start", "oozie.wf.application.path", app, "nameNode", "file:///", "jobTracker", "local", "who", "console")
	e.waitStatus(parent, "SUCCEEDED")
	kids, _ := e.do("GET", "/oozie/v2/jobs?filter=user%3Djoe", "", "").json(t)["workflows"].([]any)
	var child string
	for _, k := range kids {
		if m := k.(map[string]any); m["parentId"] == parent {
			child = m["id"].(string)
		}
	}
	if child == "" {
		t.Fatalf("no child of %s in %v", parent, kids)
	}
	_, body := e.page("/oozie/console/job/" + parent)
	for _, w := range []string{`class="child id">` + child + "</a>", "Sub-workflows", `href="/oozie/console/job/` + child + `"`} {
		if !strings.Contains(body, w) {
			t.Errorf("parent page lacks %q", w)
		}
	}
	if _, body := e.page("/oozie/console/job/" + child); !strings.Contains(body, `<a class="id" href="/oozie/console/job/`+parent+`" id="parent-link">`) {
		t.Errorf("child page lacks the link back to %s", parent)
	}
}

// TestConsoleRerunSkip reruns a finished workflow from its page with a
// chosen skip list: the page offers the action nodes (those that
// succeeded ticked) and shows the path taken; the console hands the list
// to the REST rerun as oozie.wf.rerun.skip.nodes.
func TestConsoleRerunSkip(t *testing.T) {
	e := newEnv(t)
	ok := e.submit("joe", "start", "oozie.wf.application.path", e.app("fj"))
	bad := e.submit("joe", "start", "oozie.wf.application.path", e.shellApp("breaks", "exit 3"))
	e.waitStatus(ok, "SUCCEEDED")
	e.waitStatus(bad, "KILLED")
	_, body := e.page("/oozie/console/job/" + ok)
	for _, w := range []string{`id="rerun-form"`, `data-action="rerun-skip"`, `name="skip" value="left" checked`, `name="skip" value="prepare" checked`,
		`id="path-taken"`, `<a href="#n-merge">merge</a>`, `→</span> end`} {
		if !strings.Contains(body, w) {
			t.Errorf("succeeded workflow page lacks %q", w)
		}
	}
	for _, n := range []string{`value=":start:"`, `value="split"`, `value="end"`} {
		if strings.Contains(body, n) {
			t.Errorf("rerun form offers a control node: %q", n)
		}
	}
	if _, body := e.page("/oozie/console/job/" + bad); !strings.Contains(body, `name="skip" value="step">`) {
		t.Errorf("failed node should be offered unticked")
	}
	// Read-only: no form, and the request is refused.
	ro, err := New(Options{Engine: jobs.New(e.eng, e.coords, nil), Coordinators: e.coords, BaseURL: e.base, DataDir: e.dir, Auth: AuthOptions{Secret: []byte("s"), AnonymousReads: true},
		Config: map[string]string{"gozie.console.read.only": "true"}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ method, path string }{
		{"GET", "/oozie/console/job/" + ok},
		{"PUT", "/oozie/console/job/" + ok + "?action=rerun-skip&skip=left&user.name=joe"},
	} {
		rec := httptest.NewRecorder()
		ro.Handler().ServeHTTP(rec, localRequest(tc.method, tc.path))
		if tc.method == "GET" && (rec.Code != 200 || strings.Contains(rec.Body.String(), "rerun-form")) ||
			tc.method == "PUT" && rec.Code != 403 {
			t.Errorf("read-only %s %s: %d, form shown or not refused", tc.method, tc.path, rec.Code)
		}
	}
	// The fs actions leave marks: prepare empties the output directory,
	// left makes out/left again.
	out := filepath.Join(e.dir, "out", "fj")
	marker := filepath.Join(out, "marker")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(out, "left")); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, job, query string
		status           int
		code             string
	}{
		{"stranger", ok, "skip=left&user.name=bob", 401, "E0508"},
		{"skip a node that failed", bad, "skip=step&user.name=joe", 400, "E0807"},
		{"skip on a coordinator id", "0000000-260101000000000-oozie-x-C", "skip=a&user.name=joe", 400, "E0303"},
		{"skip prepare and right", ok, "skip=prepare&skip=right&user.name=joe", 200, ""},
	} {
		r := e.do("PUT", "/oozie/console/job/"+tc.job+"?action=rerun-skip&"+tc.query, "", "")
		if r.status != tc.status || r.header.Get("oozie-error-code") != tc.code {
			t.Errorf("%s: %d %q %s, want %d %q", tc.name, r.status, r.header.Get("oozie-error-code"), r.body, tc.status, tc.code)
		}
	}
	waitFor(t, "rerun done", func() bool {
		j := e.do("GET", "/oozie/v2/job/"+ok, "", "").json(t)
		return j["run"] == float64(1) && j["status"] == "SUCCEEDED"
	})
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("prepare ran again though skipped: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "left")); err != nil {
		t.Errorf("left did not run again: %v", err)
	}
}

// TestConsoleCoordControls drives a coordinator's rerun, change and
// ignore forms' requests through the console, refusals included.
func TestConsoleCoordControls(t *testing.T) {
	e := newEnv(t)
	app := filepath.Join(e.dir, "coord-hourly")
	copyDir(t, "../../examples/apps/coord-hourly", app)
	// Action 1 waits for an input, so that the kill below finds it
	// unfinished: with its data ready, its workflow could end first.
	if err := os.Remove(filepath.Join(app, "data", "2026", "01", "01", "01", "_SUCCESS")); err != nil {
		t.Fatal(err)
	}
	coord := e.submit("joe", "start", "oozie.coord.application.path", app, "appDir", app,
		"nameNode", "file:///", "jobTracker", "local", "queueName", "default")
	actStatus := func(n string) string {
		s, _ := e.do("GET", "/oozie/v2/job/"+coord+"@"+n, "", "").json(t)["status"].(string)
		return s
	}
	waitFor(t, "coordinator action 2 materialized", func() bool { return actStatus("2") != "" })
	ro, err := New(Options{Engine: jobs.New(e.eng, e.coords, nil), Coordinators: e.coords, BaseURL: e.base, DataDir: e.dir, Auth: AuthOptions{Secret: []byte("s"), AnonymousReads: true},
		Config: map[string]string{"gozie.console.read.only": "true"}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	ro.Handler().ServeHTTP(rec, localRequest("GET", "/oozie/console/job/"+coord))
	if rec.Code != 200 || strings.Contains(rec.Body.String(), "coord-forms") {
		t.Errorf("read-only coordinator page: %d, forms shown", rec.Code)
	}
	rec = httptest.NewRecorder()
	ro.Handler().ServeHTTP(rec, localRequest("PUT", "/oozie/console/job/"+coord+"?action=change&concurrency=2&user.name=joe"))
	if rec.Code != 403 {
		t.Errorf("read-only change: %d", rec.Code)
	}
	_, body := e.page("/oozie/console/job/" + coord)
	for _, w := range []string{`id="coord-rerun"`, `id="coord-change"`, `id="coord-ignore"`, `name="scope" value="1-`, `name="refresh"`, `name="nocleanup"`, `name="concurrency"`} {
		if !strings.Contains(body, w) {
			t.Errorf("coordinator page lacks %q", w)
		}
	}
	// Action 1 killed through the REST API, so that it may be ignored and
	// rerun.
	if r := e.do("PUT", "/oozie/v2/job/"+coord+"?action=kill&type=action&scope=1&user.name=joe", "", ""); r.status != 200 {
		t.Fatalf("kill action 1: %d %s", r.status, r.body)
	}
	waitFor(t, "action 1 killed", func() bool { return actStatus("1") == "KILLED" })

	for _, tc := range []struct {
		name, query string
		status      int
		code        string
	}{
		{"change by a stranger", "action=change&concurrency=3&user.name=bob", 401, "E0509"},
		{"change nothing", "action=change&user.name=joe", 400, "E0305"},
		{"change a bad end time", "action=change&endtime=yesterday&user.name=joe", 400, "E1015"},
		{"change", "action=change&concurrency=3&endtime=2026-01-01T05:00Z&user.name=joe", 200, ""},
		{"rerun a waiting action", "action=coord-rerun&type=action&scope=2&user.name=joe", 400, "E1018"},
		{"ignore action 1", "action=ignore&type=action&scope=1&user.name=joe", 200, ""},
		{"rerun action 1", "action=coord-rerun&type=action&scope=1&refresh=true&nocleanup=true&user.name=joe", 200, ""},
	} {
		r := e.do("PUT", "/oozie/console/job/"+coord+"?"+tc.query, "", "")
		if r.status != tc.status || r.header.Get("oozie-error-code") != tc.code {
			t.Errorf("%s: %d %q %s, want %d %q", tc.name, r.status, r.header.Get("oozie-error-code"), r.body, tc.status, tc.code)
		}
		if tc.name == "ignore action 1" {
			if s := actStatus("1"); s != "IGNORED" {
				t.Errorf("after ignore: action 1 is %s", s)
			}
		}
	}
	j := e.do("GET", "/oozie/v2/job/"+coord, "", "").json(t)
	if j["concurrency"] != float64(3) || !strings.Contains(fmt.Sprint(j["endTime"]), "05:00:00") {
		t.Errorf("after change: concurrency %v, end %v", j["concurrency"], j["endTime"])
	}
	if s := actStatus("1"); s == "IGNORED" || s == "KILLED" {
		t.Errorf("after rerun: action 1 is still %s", s)
	}
	if r := e.do("PUT", "/oozie/console/job/0000000-260101000000000-oozie-x-W?action=coord-rerun&type=action&scope=1&user.name=joe", "", ""); r.status != 400 {
		t.Errorf("coord-rerun of a workflow id: %d", r.status)
	}
}
