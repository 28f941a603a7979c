package server

import (
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCoordCommandsOverREST drives PUT /job action=change, ignore,
// coord-rerun and rerun of a coordinator (rest-api.md 4.2): status codes,
// error codes, the {"actions":[…]} answers in GMT, and authorization.
func TestCoordCommandsOverREST(t *testing.T) {
	e := newEnv(t)
	if e.srv.coords == nil {
		t.Skip("no coordinator engine")
	}
	app := filepath.Join(e.dir, "coord-hourly")
	copyDir(t, "../../examples/apps/coord-hourly", app)
	id := e.submit("joe", "", "oozie.coord.application.path", app, "appDir", app, "nameNode", "file:///",
		"jobTracker", "local", "queueName", "default")
	// Action 1 reads complete hours and runs; action 2 waits for hour 02.
	e.waitStatus(id+"@1", "SUCCEEDED")

	put := func(ver, user, ct string, params ...string) resp {
		t.Helper()
		q := url.Values{"user.name": {user}}
		for i := 0; i+1 < len(params); i += 2 {
			q.Set(params[i], params[i+1])
		}
		return e.do("PUT", "/oozie/"+ver+"/job/"+id+"?"+q.Encode(), ct, "")
	}
	const xml = "application/xml"
	errCases := []struct {
		name   string
		r      func() resp
		status int
		code   string
	}{
		{"change by a stranger", func() resp { return put("v2", "bob", "", "action", "change", "value", "concurrency=3") }, 401, "E0509"},
		{"change unknown key", func() resp { return put("v2", "joe", "", "action", "change", "value", "color=red") }, 400, "E1015"},
		{"change pause time before a running action", func() resp {
			return put("v2", "joe", "", "action", "change", "value", "pausetime=2020-01-01T00:00Z")
		}, 400, "E1022"},
		{"ignore in v1", func() resp { return put("v1", "joe", "", "action", "ignore", "type", "action", "scope", "2") }, 400, "E0302"},
		{"ignore type date", func() resp { return put("v2", "joe", "", "action", "ignore", "type", "date", "scope", "2") }, 400, "E1024"},
		{"ignore a WAITING action", func() resp { return put("v2", "joe", "", "action", "ignore", "type", "action", "scope", "2") }, 400, "E1024"},
		{"ignore a RUNNING job", func() resp { return put("v2", "joe", "", "action", "ignore", "type", "action") }, 400, "E1024"},
		{"ignore by a stranger", func() resp { return put("v2", "bob", "", "action", "ignore", "type", "action", "scope", "1") }, 401, "E0509"},
		{"coord-rerun without XML", func() resp { return put("v2", "joe", "", "action", "coord-rerun", "type", "action", "scope", "1") }, 400, "E0300"},
		{"coord-rerun bad type", func() resp { return put("v2", "joe", xml, "action", "coord-rerun", "type", "week", "scope", "1") }, 400, "E1018"},
		{"coord-rerun of a WAITING action", func() resp {
			return put("v2", "joe", xml, "action", "coord-rerun", "type", "action", "scope", "2")
		}, 400, "E1018"},
		{"coord-rerun by a stranger", func() resp {
			return put("v2", "bob", xml, "action", "coord-rerun", "type", "action", "scope", "1")
		}, 401, "E0509"},
	}
	for _, c := range errCases {
		r := c.r()
		if r.status != c.status || r.header.Get("oozie-error-code") != c.code {
			t.Errorf("%s: %d %s %s, want %d %s", c.name, r.status, r.header.Get("oozie-error-code"), r.body, c.status, c.code)
		}
	}
	if r := put("v1", "joe", "", "action", "ignore"); !strings.Contains(r.header.Get("oozie-error-message"), "Not supported in v1") {
		t.Errorf("ignore in v1: %v", r.header)
	}

	// change: 200 with no body.
	if r := put("v2", "joe", "", "action", "change", "value", "concurrency=3"); r.status != 200 || len(r.body) != 0 {
		t.Fatalf("change: %d %q", r.status, r.body)
	}
	if c := e.do("GET", "/oozie/v2/job/"+id, "", "").json(t)["concurrency"]; c != 3.0 {
		t.Errorf("concurrency after change: %v", c)
	}

	// ignore: kill action 2, then ignore it.
	if r := put("v2", "joe", "", "action", "kill", "type", "action", "scope", "2"); r.status != 200 {
		t.Fatalf("kill action 2: %d %s", r.status, r.body)
	}
	r := put("v2", "joe", "", "action", "ignore", "type", "action", "scope", "1-2")
	if r.status != 200 {
		t.Fatalf("ignore: %d %s", r.status, r.body)
	}
	acts := r.json(t)["actions"].([]any)
	if len(acts) != 1 {
		t.Fatalf("ignore answer %s, want action 2 only", r.body)
	}
	a := acts[0].(map[string]any)
	if a["id"] != id+"@2" || a["status"] != "IGNORED" || a["nominalTime"] != "Thu, 01 Jan 2026 02:00:00 GMT" {
		t.Errorf("ignored action %v", a)
	}

	// coord-rerun: action 1 back to WAITING, then a second workflow run.
	r = put("v2", "joe", xml, "action", "coord-rerun", "type", "action", "scope", "1", "refresh", "false", "nocleanup", "false", "failed", "false")
	if r.status != 200 {
		t.Fatalf("coord-rerun: %d %s", r.status, r.body)
	}
	acts = r.json(t)["actions"].([]any)
	if len(acts) != 1 || acts[0].(map[string]any)["id"] != id+"@1" || acts[0].(map[string]any)["status"] != "WAITING" {
		t.Errorf("coord-rerun answer %s", r.body)
	}
	e.waitStatus(id+"@1", "SUCCEEDED")
	e.waitRuns(id, "1", 2)

	// rerun of a coordinator id is a coord-rerun; by date this time.
	r = put("v2", "joe", xml, "action", "rerun", "type", "date", "scope", "2026-01-01T01:00Z", "refresh", "true")
	if r.status != 200 {
		t.Fatalf("rerun: %d %s", r.status, r.body)
	}
	e.waitStatus(id+"@1", "SUCCEEDED")
	e.waitRuns(id, "1", 3)
}

// waitRuns waits until show=allruns lists n workflows for an action.
func (e *env) waitRuns(id, action string, n int) {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := e.do("GET", "/oozie/v2/job/"+id+"?show=allruns&type=action&scope="+action, "", "")
		runs, _ := r.json(e.t)["workflows"].([]any)
		if len(runs) == n {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("allruns of %s@%s: %s, want %d runs", id, action, r.body, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
