package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	_ "github.com/gozie/gozie/internal/action/all"
	"github.com/gozie/gozie/internal/bundleengine"
	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/jobs"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/postgres"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// launcherEnv makes the test binary act as `gozie launch` for shell
// actions.
const launcherEnv = "GZTEST_LAUNCHER" // not GOZIE_*: steps never get those (action.stepEnv)

func TestMain(m *testing.M) {
	// Children started as the shell launcher inherit launcherEnv; the
	// fuzzing engine's workers inherit it too but run with -test.* flags.
	if os.Getenv(launcherEnv) == "1" && !slices.ContainsFunc(os.Args[1:], func(a string) bool { return strings.HasPrefix(a, "-test.") }) {
		os.Exit(launch.RunLauncher(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Setenv(launcherEnv, "1")
	os.Exit(m.Run())
}

// env is a server on a real engine over a temporary SQLite store.
type env struct {
	t   testing.TB
	ts  *httptest.Server
	srv *Server
	eng *engine.Engine
	// coords is the coordinator engine attached to eng.
	coords *coordengine.Engine
	dir    string
	base   string
}

func newEnv(t testing.TB, tweak ...func(*AuthOptions)) *env {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	return newEnvOn(t, dir, st, tweak...)
}

// newEnvOn is newEnv on a given store.
func newEnvOn(t testing.TB, dir string, st store.Store, tweak ...func(*AuthOptions)) *env {
	t.Helper()
	return newEnvJoined(t, dir, st, nil, tweak...)
}

// newEnvJoined is newEnvOn for a server of several sharing the store: join,
// when set, registers it (with its base URL) before its engine starts and
// returns its membership.
func newEnvJoined(t testing.TB, dir string, st store.Store, join func(base string) Cluster, tweak ...func(*AuthOptions)) *env {
	t.Helper()
	return newEnvConfig(t, dir, st, join, nil, tweak...)
}

// newEnvConfigured is newEnv with server configuration keys besides the
// test defaults (gozie.launch.as.user, ...).
func newEnvConfigured(t testing.TB, cfg map[string]string, tweak ...func(*AuthOptions)) *env {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	return newEnvConfig(t, dir, st, nil, cfg, tweak...)
}

// newEnvConfig is newEnvJoined with extra server configuration keys.
func newEnvConfig(t testing.TB, dir string, st store.Store, join func(base string) Cluster, cfg map[string]string, tweak ...func(*AuthOptions)) *env {
	t.Helper()
	return newEnvWith(t, dir, st, join, cfg, nil, tweak...)
}

// realBundles, passed to newEnvWith, serves the bundle engine's own views
// rather than a fake's.
type realBundles struct{ Bundles }

// newEnvWith is newEnvConfig with a bundle engine (nil: none; realBundles{}:
// the real engine's views too).
func newEnvWith(t testing.TB, dir string, st store.Store, join func(base string) Cluster, cfg map[string]string, bundles Bundles, tweak ...func(*AuthOptions)) *env {
	t.Helper()
	reg := action.NewRegistry()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	launch.RegisterBuiltins(reg, launch.Options{Launcher: []string{self}})
	e := &env{t: t, dir: dir}
	var h http.Handler = http.NotFoundHandler()
	e.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e.srv != nil {
			// The server's handler as it is now: a test may rebuild it
			// with other options (withSLAs).
			e.srv.Handler().ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	}))
	e.base = e.ts.URL + "/oozie"
	e.eng, err = engine.New(engine.Options{Store: st, Actions: reg, DataDir: dir, SystemID: "oozie-test",
		PollInterval: 20 * time.Millisecond, CallbackURL: e.base + "/callback", ConsoleURL: e.base, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	auth := AuthOptions{Secret: []byte("test-secret"), AnonymousReads: true, Authorization: true, AdminUsers: []string{"root"},
		GroupsOf: func(u string) []string {
			if u == "carl" {
				return []string{"ops"}
			}
			return nil
		}}
	for _, f := range tweak {
		f(&auth)
	}
	var member Cluster
	if join != nil {
		member = join(e.base)
	}
	e.coords = coordengine.New(e.eng, e.eng.Runtime(), coordengine.Options{})
	config := map[string]string{"gozie.http.port": "11000", "gozie.authentication.secret": "hidden",
		"gozie.db": "postgres://gozie:dbpw@db:5432/gozie", "gozie.authentication.tokens": "tokval=ann"}
	for k, v := range cfg {
		config[k] = v
	}
	// With bundles (a fake of the typed views), the job commands and
	// submissions go to a real bundle engine through the jobs service.
	var bundleEngine *bundleengine.Engine
	if bundles != nil {
		bundleEngine = bundleengine.New(e.eng, e.coords, e.eng.Runtime())
		if _, ok := bundles.(realBundles); ok {
			bundles = bundleEngine
		}
	}
	e.srv, err = New(Options{Engine: jobs.New(e.eng, e.coords, bundleEngine), Coordinators: e.coords, Bundles: bundles, BaseURL: e.base, DataDir: dir, Auth: auth, Version: "test",
		Config: config, Logf: t.Logf, Cluster: member})
	if err != nil {
		t.Fatal(err)
	}
	h = e.srv.Handler()
	if err := e.eng.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.ts.Close()
		e.eng.Close()
		st.Close()
		removeWhenQuiet(t, filepath.Join(dir, "actions"))
	})
	return e
}

// removeWhenQuiet removes a directory that steps launched by a closed
// engine may still be writing into (a launcher records a step's status
// after the program ends, whatever the engine does): the test's TempDir
// cleanup would otherwise fail on "directory not empty" when a file
// appears while it removes. It tries again for a few seconds.
func removeWhenQuiet(t testing.TB, dir string) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := os.RemoveAll(dir)
		if err == nil || time.Now().After(deadline) {
			if err != nil {
				t.Logf("removing %s: %v", dir, err)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// app writes a fork/join workflow of fs actions and returns its directory.
func (e *env) app(name string) string {
	e.t.Helper()
	dir := filepath.Join(e.dir, "apps", name)
	out := filepath.Join(e.dir, "out", name)
	wf := fmt.Sprintf(`<workflow-app xmlns="uri:oozie:workflow:1.0" name="%s">
  <start to="prepare"/>
  <action name="prepare"><fs><delete path="%[2]s"/><mkdir path="%[2]s"/></fs><ok to="split"/><error to="fail"/></action>
  <fork name="split"><path start="left"/><path start="right"/></fork>
  <action name="left"><fs><mkdir path="%[2]s/left"/></fs><ok to="merge"/><error to="fail"/></action>
  <action name="right"><fs><mkdir path="%[2]s/right"/></fs><ok to="merge"/><error to="fail"/></action>
  <join name="merge" to="end"/>
  <kill name="fail"><message>failed at ${wf:lastErrorNode()}</message></kill>
  <end name="end"/>
</workflow-app>`, name, out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(wf), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return dir
}

func confXML(kv ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="no"?><configuration>`)
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(&b, "<property><name>%s</name><value>%s</value></property>", kv[i], kv[i+1])
	}
	b.WriteString("</configuration>")
	return b.String()
}

type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body %q: %v", r.body, err)
	}
	return m
}

// do sends a request; ct "" sends no Content-Type.
func (e *env) do(method, path, ct, body string, hdr ...string) resp {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.ts.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{res.StatusCode, res.Header, b}
}

// submit posts a workflow as user and returns its id.
func (e *env) submit(user, action string, kv ...string) string {
	e.t.Helper()
	path := "/oozie/v2/jobs?user.name=" + user
	if action != "" {
		path += "&action=" + action
	}
	r := e.do("POST", path, "application/xml;charset=UTF-8", confXML(kv...))
	if r.status != http.StatusCreated {
		e.t.Fatalf("submit: %d %s %v", r.status, r.body, r.header)
	}
	return r.json(e.t)["id"].(string)
}

func (e *env) waitStatus(id, want string) {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := e.do("GET", "/oozie/v2/job/"+id+"?show=status", "", "")
		if r.status == 200 && r.json(e.t)["status"] == want {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("job %s: %s, want %s; log:\n%s", id, r.body, want, e.do("GET", "/oozie/v2/job/"+id+"?show=log", "", "").body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Key sets of rest-api.md 5.1 and 5.2.
var (
	wfJobKeys = []string{"acl", "actions", "appName", "appPath", "conf", "consoleUrl", "createdTime", "endTime",
		"externalId", "group", "id", "lastModTime", "parentId", "run", "startTime", "status", "toString", "user"}
	wfActionKeys = []string{"conf", "consoleUrl", "cred", "data", "endTime", "errorCode", "errorMessage", "externalChildIDs",
		"externalId", "externalStatus", "id", "name", "retries", "startTime", "stats", "status", "toString", "trackerUri",
		"transition", "type", "userRetryCount", "userRetryInterval", "userRetryMax"}
)

func TestRunWorkflowOverREST(t *testing.T) {
	e := newEnv(t)
	id := e.submit("joe", "start", "oozie.wf.application.path", e.app("fj"))
	if !strings.HasSuffix(id, "-W") {
		t.Fatalf("id %s does not end in -W", id)
	}
	e.waitStatus(id, "SUCCEEDED")

	info := e.do("GET", "/oozie/v2/job/"+id, "", "")
	if info.status != 200 || info.header.Get("Content-Type") != jsonType || info.header.Get("X-Frame-Options") != "DENY" {
		t.Fatalf("info: %d %v", info.status, info.header)
	}
	job := info.json(t)
	if got := keys(job); strings.Join(got, ",") != strings.Join(wfJobKeys, ",") {
		t.Errorf("job keys %v\nwant %v", got, wfJobKeys)
	}
	if job["user"] != "joe" || job["consoleUrl"] != e.base+"?job="+id {
		t.Errorf("user %v consoleUrl %v", job["user"], job["consoleUrl"])
	}
	acts := job["actions"].([]any)
	if len(acts) != 7 {
		t.Fatalf("%d actions, want 7 (start, prepare, fork, left, right, join, end)", len(acts))
	}
	for _, a := range acts {
		a := a.(map[string]any)
		if got := keys(a); strings.Join(got, ",") != strings.Join(wfActionKeys, ",") {
			t.Errorf("action keys %v\nwant %v", got, wfActionKeys)
		}
	}
	// An action by id, in another zone.
	act := e.do("GET", "/oozie/v2/job/"+id+"@left?timezone=America/Los_Angeles", "", "").json(t)
	if act["status"] != "OK" || !strings.HasSuffix(act["startTime"].(string), "T") {
		t.Errorf("action: %v", act)
	}
	if r := e.do("GET", "/oozie/v2/job/"+id+"?show=definition", "", ""); !strings.Contains(string(r.body), `<fork name="split">`) {
		t.Errorf("definition: %s", r.body)
	}
	log := string(e.do("GET", "/oozie/v2/job/"+id+"?show=log", "", "").body)
	for _, want := range []string{"Workflow job submitted", "USER[joe]", "ACTION[" + id + "@left]", "from [RUNNING] to [SUCCEEDED]"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if r := e.do("GET", "/oozie/v2/job/"+id+"?show=log&logfilter=text%3D@right%3Blimit%3D1", "", ""); strings.Count(string(r.body), "\n") != 1 || !strings.Contains(string(r.body), "@right") {
		t.Errorf("logfilter text/limit: %q", r.body)
	}
	if r := e.do("GET", "/oozie/v2/job/"+id+"?show=errorlog", "", ""); len(r.body) != 0 {
		t.Errorf("errorlog of a clean run: %q", r.body)
	}
	// PNG when no format is named, as Oozie answers; SVG on request.
	for _, g := range []struct{ query, ctype, magic string }{
		{"", "image/png", "\x89PNG\r\n\x1a\n"},
		{"&format=png", "image/png", "\x89PNG\r\n\x1a\n"},
		{"&format=svg", "image/svg+xml", "<svg"},
	} {
		img := e.do("GET", "/oozie/v2/job/"+id+"?show=graph"+g.query, "", "")
		if img.header.Get("Content-Type") != g.ctype || !strings.HasPrefix(string(img.body), g.magic) {
			t.Errorf("graph%s: %v %.100q", g.query, img.header, img.body)
		}
	}
	if dot := e.do("GET", "/oozie/v2/job/"+id+"?show=graph&format=dot", "", ""); !strings.Contains(string(dot.body), "digraph") {
		t.Errorf("dot: %.200s", dot.body)
	}
	list := e.do("GET", "/oozie/v2/jobs?filter=user%3Djoe%3Bstatus%3DSUCCEEDED", "", "").json(t)
	if list["total"] != float64(1) || list["offset"] != float64(1) || list["len"] != float64(50) {
		t.Errorf("list: %v", list)
	}
	item := list["workflows"].([]any)[0].(map[string]any)
	if item["id"] != id || item["appPath"] != nil || item["conf"] != nil || len(item["actions"].([]any)) != 0 {
		t.Errorf("list item: %v", item)
	}

	// Rerun everything: same id, run 1.
	r := e.do("PUT", "/oozie/v2/job/"+id+"?action=rerun&user.name=joe", "application/xml", confXML("oozie.wf.rerun.failnodes", "false"))
	if r.status != 200 {
		t.Fatalf("rerun: %d %s", r.status, r.body)
	}
	e.waitStatus(id, "SUCCEEDED")
	if run := e.do("GET", "/oozie/v2/job/"+id, "", "").json(t)["run"]; run != float64(1) {
		t.Errorf("run after rerun = %v, want 1", run)
	}
}

func TestDryrunAndPrep(t *testing.T) {
	e := newEnv(t)
	app := e.app("dry")
	def, err := os.ReadFile(filepath.Join(app, "workflow.xml"))
	if err != nil {
		t.Fatal(err)
	}
	v := e.do("POST", "/oozie/v2/validate?file=/local/workflow.xml&user=joe&user.name=joe", "application/xml", string(def))
	if v.status != 200 || v.json(t)["validate"] != "Valid workflow-app" {
		t.Fatalf("validate: %d %s", v.status, v.body)
	}
	r := e.do("POST", "/oozie/v2/jobs?action=dryrun&user.name=joe", "application/xml", confXML("oozie.wf.application.path", app))
	if r.status != 201 || r.json(t)["id"] != "OK" {
		t.Fatalf("dryrun: %d %s", r.status, r.body)
	}
	id := e.submit("joe", "", "oozie.wf.application.path", app, "oozie.wf.external.id", "ext-42")
	if got := e.do("GET", "/oozie/v2/jobs?external-id=ext-42", "", "").json(t)["id"]; got != id {
		t.Errorf("external-id lookup = %v, want %s", got, id)
	}
	if got, ok := e.do("GET", "/oozie/v2/jobs?external-id=nope", "", "").json(t)["id"]; !ok || got != nil {
		t.Errorf("unknown external-id = %v (present %v), want null", got, ok)
	}
	if s := e.do("GET", "/oozie/v2/job/"+id+"?show=status", "", "").json(t)["status"]; s != "PREP" {
		t.Fatalf("submitted job status %v, want PREP", s)
	}
	if r := e.do("PUT", "/oozie/v2/job/"+id+"?action=start&user.name=joe", "", ""); r.status != 200 {
		t.Fatalf("start: %d %s", r.status, r.body)
	}
	e.waitStatus(id, "SUCCEEDED")
}

var testNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// TestShellActionConsoleAndErrorLog runs a failing shell action: its
// stdout and stderr are reachable from its consoleUrl, the failure is in
// show=errorlog, and a rerun skipping nothing runs it again.
func TestShellActionConsoleAndErrorLog(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.dir, "apps", "sh")
	flag := filepath.Join(e.dir, "ok-now")
	wf := `<workflow-app xmlns="uri:oozie:workflow:1.0" name="sh">
  <start to="step"/>
  <action name="step">
    <shell xmlns="uri:oozie:shell-action:1.0">
      <resource-manager>local</resource-manager><name-node>file:///</name-node>
      <exec>sh</exec><argument>-c</argument>
      <argument>echo hello; echo oops >&amp;2; test -e ` + flag + `</argument>
    </shell>
    <ok to="end"/><error to="fail"/>
  </action>
  <kill name="fail"><message>step failed</message></kill>
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
	act := e.do("GET", "/oozie/v2/job/"+id+"@step", "", "").json(t)
	console, _ := act["consoleUrl"].(string)
	if !strings.HasPrefix(console, e.base+"/console/action/") {
		t.Fatalf("consoleUrl %q", console)
	}
	path := strings.TrimPrefix(console, e.ts.URL)
	if out := e.do("GET", path, "", ""); out.status != 200 || strings.TrimSpace(string(out.body)) != "hello" {
		t.Errorf("stdout: %d %q", out.status, out.body)
	}
	if errOut := e.do("GET", strings.TrimSuffix(path, "stdout")+"stderr", "", ""); strings.TrimSpace(string(errOut.body)) != "oops" {
		t.Errorf("stderr: %q", errOut.body)
	}
	errlog := string(e.do("GET", "/oozie/v2/job/"+id+"?show=errorlog", "", "").body)
	if !strings.Contains(errlog, " WARN gozie") || !strings.Contains(errlog, "ACTION["+id+"@step]") || strings.Contains(errlog, " INFO ") {
		t.Errorf("errorlog:\n%s", errlog)
	}
	warnOnly := string(e.do("GET", "/oozie/v2/job/"+id+"?show=log&logfilter=loglevel%3DWARN", "", "").body)
	if warnOnly != errlog {
		t.Errorf("loglevel=WARN:\n%s\nwant the errorlog:\n%s", warnOnly, errlog)
	}
	// Fix the cause and rerun the failed node.
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.do("PUT", "/oozie/v2/job/"+id+"?action=rerun&user.name=joe", "application/xml", confXML("oozie.wf.rerun.failnodes", "true"))
	if r.status != 200 {
		t.Fatalf("rerun: %d %s", r.status, r.body)
	}
	e.waitStatus(id, "SUCCEEDED")
	// A second rerun of a succeeded job with both properties is refused.
	r = e.do("PUT", "/oozie/v2/job/"+id+"?action=rerun&user.name=joe", "application/xml",
		confXML("oozie.wf.rerun.failnodes", "true", "oozie.wf.rerun.skip.nodes", "step"))
	if r.status != 400 || r.header.Get("oozie-error-code") != "E0404" {
		t.Errorf("rerun with both: %d %v", r.status, r.header)
	}
}

// TestPostgres runs a workflow over REST on the PostgreSQL store (skipped
// when no PostgreSQL server is reachable).
func TestPostgres(t *testing.T) {
	e := newEnvOn(t, t.TempDir(), postgres.OpenTest(t))
	id := e.submit("joe", "start", "oozie.wf.application.path", e.app("pg"))
	e.waitStatus(id, "SUCCEEDED")
	list := e.do("GET", "/oozie/v2/jobs?filter=name%3Dpg", "", "").json(t)
	if list["total"] != float64(1) {
		t.Errorf("list: %v", list)
	}
	if log := string(e.do("GET", "/oozie/v2/job/"+id+"?show=log", "", "").body); !strings.Contains(log, "to [SUCCEEDED]") {
		t.Errorf("log:\n%s", log)
	}
}

// localRequest is httptest.NewRequest as a client on this host sends it:
// Host 127.0.0.1, since the default example.com is not a name of the
// server (the Host check refuses it).
func localRequest(method, target string) *http.Request {
	r := httptest.NewRequest(method, target, nil)
	r.Host = "127.0.0.1:11000"
	return r
}
