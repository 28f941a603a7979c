package server

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/console"
	"github.com/gozie/gozie/internal/coordengine"
)

// The coordinator engine must implement Coordinators for the server to
// serve coordinator requests, and console.Coordinators for the console to
// show coordinator jobs.
func TestEngineImplementsCoordinators(t *testing.T) {
	e := newEnv(t)
	if e.srv.coords == nil {
		t.Fatal("the server has no coordinator engine")
	}
	var _ Coordinators = (*coordengine.Engine)(nil)
	if _, ok := e.srv.coords.(console.Coordinators); !ok {
		t.Fatal("*coordengine.Engine does not implement console.Coordinators")
	}
}

// copyDir copies an example application into a temporary directory, since
// coordinator runs write their output inside the application.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o755)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCoordinatorOverREST(t *testing.T) {
	e := newEnv(t)
	if e.srv.coords == nil {
		t.Skip("no coordinator engine")
	}
	app := filepath.Join(e.dir, "coord-hourly")
	copyDir(t, "../../examples/apps/coord-hourly", app)
	props := []string{"oozie.coord.application.path", app, "appDir", app, "nameNode", "file:///", "jobTracker", "local", "queueName", "default"}

	def, err := os.ReadFile(filepath.Join(app, "coordinator.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if v := e.do("POST", "/oozie/v2/validate?file=/c.xml&user=joe&user.name=joe", "application/xml", string(def)); v.status != 200 {
		t.Errorf("validate coordinator: %d %s", v.status, v.body)
	}
	dry := e.do("POST", "/oozie/v2/jobs?action=dryrun&user.name=joe", "application/xml", confXML(props...))
	if dry.status != 201 || !strings.Contains(dry.json(t)["id"].(string), "coordinator-app") {
		t.Fatalf("coord dryrun: %d %.300s", dry.status, dry.body)
	}
	id := e.submit("joe", "", props...)
	if !strings.HasSuffix(id, "-C") {
		t.Fatalf("coordinator id %s does not end in -C", id)
	}
	info := e.do("GET", "/oozie/v2/job/"+id, "", "")
	if info.status != 200 {
		t.Fatalf("info: %d %s", info.status, info.body)
	}
	job := info.json(t)
	if job["coordJobId"] != id || job["user"] != "joe" {
		t.Errorf("coord job: %.300s", info.body)
	}
	if acts, ok := job["actions"].([]any); !ok || len(acts) != 0 {
		t.Errorf("v2 info without len lists actions: %v", job["actions"])
	}
	if start, _ := job["startTime"].(string); !strings.HasSuffix(start, " GMT") {
		t.Errorf("startTime %q not in GMT", start)
	}
	local := e.do("GET", "/oozie/v2/job/"+id+"?timezone=America/Los_Angeles", "", "").json(t)
	if start, _ := local["startTime"].(string); !strings.HasSuffix(start, " PST") {
		t.Errorf("startTime %q with timezone=America/Los_Angeles", start)
	}
	list := e.do("GET", "/oozie/v2/jobs?jobtype=coordinator", "", "").json(t)
	if list["total"] != float64(1) || len(list["coordinatorjobs"].([]any)) != 1 {
		t.Errorf("coord list: %v", list)
	}
	if def := e.do("GET", "/oozie/v2/job/"+id+"?show=definition", "", ""); !strings.Contains(string(def.body), "<coordinator-app") {
		t.Errorf("definition: %.200s", def.body)
	}
	if r := e.do("GET", "/oozie/v2/job/"+id+"?show=log", "", ""); r.status != 200 {
		t.Errorf("log: %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/oozie/v2/job/"+id+"?filter=status%3Dbogus", "", ""); r.header.Get("oozie-error-code") != "E0421" {
		t.Errorf("bad action filter: %d %v", r.status, r.header)
	}
	if r := e.do("PUT", "/oozie/v2/job/"+id+"?action=start&user.name=joe", "", ""); r.header.Get("oozie-error-code") != "E0303" {
		t.Errorf("start of a coordinator: %d %v", r.status, r.header)
	}
	if r := e.do("PUT", "/oozie/v2/job/"+id+"?action=kill&user.name=bob", "", ""); r.status != 401 || r.header.Get("oozie-error-code") != "E0509" {
		t.Errorf("kill by a stranger: %d %v", r.status, r.header)
	}
	if r := e.do("PUT", "/oozie/v2/job/"+id+"?action=kill&user.name=joe", "", ""); r.status != 200 {
		t.Fatalf("kill: %d %s", r.status, r.body)
	}
	if s := e.do("GET", "/oozie/v2/job/"+id+"?show=status", "", "").json(t)["status"]; s != "KILLED" {
		t.Errorf("status after kill: %v", s)
	}
	// action=start submits and starts a coordinator (rest-api.md 3.1).
	started := e.submit("joe", "start", props...)
	e.waitStatus(started, "RUNNING")
	// Bulk suspend by filter reaches coordinators through the engine.
	r := e.do("PUT", "/oozie/v2/jobs?action=suspend&jobtype=coord&filter=status%3DRUNNING&user.name=joe", "", "")
	if r.status != 200 {
		t.Fatalf("bulk suspend: %d %s", r.status, r.body)
	}
	if s := e.do("GET", "/oozie/v2/job/"+started+"?show=status", "", "").json(t)["status"]; s != "SUSPENDED" {
		t.Errorf("status after bulk suspend: %v", s)
	}
}

// TestMissingDependenciesOverREST asks a running coordinator why its
// actions wait (rest-api.md 4.1, show=missing-dependencies).
func TestMissingDependenciesOverREST(t *testing.T) {
	e := newEnv(t)
	app := filepath.Join(e.dir, "coord-hourly")
	copyDir(t, "../../examples/apps/coord-hourly", app)
	id := e.submit("joe", "start", "oozie.coord.application.path", app, "appDir", app,
		"nameNode", "file:///", "jobTracker", "local", "queueName", "default")
	// The sample data completes hours 00 and 01 only: action 2 (02:00)
	// waits for data/2026/01/01/02/_SUCCESS.
	var deps []any
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := e.do("GET", "/oozie/v2/job/"+id+"?show=missing-dependencies&action-list=2", "", "")
		if r.status != 200 {
			t.Fatalf("missing-dependencies: %d %s", r.status, r.body)
		}
		deps, _ = r.json(t)["missingDependencies"].([]any)
		if len(deps) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // polling until the action is materialized
	}
	if len(deps) != 1 {
		t.Fatalf("missingDependencies = %v, want action 2", deps)
	}
	d := deps[0].(map[string]any)
	sets, _ := d["dataSets"].([]any)
	if d["id"] != float64(2) || !strings.HasSuffix(d["blockedOn"].(string), "/data/2026/01/01/02/_SUCCESS") || len(sets) != 1 ||
		sets[0].(map[string]any)["dataSet"] != "raw" {
		t.Errorf("action 2: %v", d)
	}
	one := e.do("GET", "/oozie/v2/job/"+id+"@2?show=missing-dependencies", "", "").json(t)
	if got, _ := one["missingDependencies"].([]any); len(got) != 1 {
		t.Errorf("action id form: %v", one)
	}
	for _, tc := range []struct{ path, code string }{
		{"/oozie/v1/job/" + id + "?show=missing-dependencies", "E0302"},
		{"/oozie/v2/job/0000001-260101000000000-oozie-test-W?show=missing-dependencies", "E0303"},
	} {
		if r := e.do("GET", tc.path, "", ""); r.header.Get("oozie-error-code") != tc.code {
			t.Errorf("%s: %d %v, want %s", tc.path, r.status, r.header, tc.code)
		}
	}
}
