package server

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/conf"
)

// runAsConfig turns run-as mode on: steps run as the job's owner. The
// test engine's executors ignore it (no OS users are needed); the server
// reads the same key to decide who may change what runs as the owner.
var runAsConfig = map[string]string{"gozie.launch.as.user": "true"}

// jobConf reads the configuration of a workflow job as its owner sees it.
func (e *env) jobConf(id string) (*conf.Config, map[string]any) {
	e.t.Helper()
	job := e.do("GET", "/oozie/v2/job/"+id+"?user.name=joe", "", "").json(e.t)
	c, err := conf.ParseXML(strings.NewReader(job["conf"].(string)), "conf")
	if err != nil {
		e.t.Fatal(err)
	}
	return c, job
}

// TestRerunInRunAsMode (issue 23 point 9): an ACL member reran a job with
// oozie.wf.application.path pointing at their own application, and it ran
// as the owner. In run-as mode only the owner or an admin may change the
// application or the properties on rerun; others may rerun the job as it
// is (failed nodes, skip lists). Outside run-as mode nothing changed.
func TestRerunInRunAsMode(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	runAs := newEnvConfigured(t, runAsConfig)
	plain := newEnv(t)
	type want struct {
		status  int
		code    string
		app     string // "own" or "other"
		x, user string
	}
	refused := want{status: 401, code: "E0508", app: "own", x: "1", user: "joe"}
	cases := []struct {
		name  string
		e     *env
		who   string
		props func(own, other string) []string
		want  want
	}{
		{"acl user, another application", runAs, "ann",
			func(own, other string) []string { return []string{"oozie.wf.application.path", other} }, refused},
		{"acl user, a changed property", runAs, "ann",
			func(own, other string) []string { return []string{"x", "2"} }, refused},
		{"acl user, an added property", runAs, "ann",
			func(own, other string) []string { return []string{"y", "new"} }, refused},
		{"acl group, another application", runAs, "carl",
			func(own, other string) []string { return []string{"oozie.wf.application.path", other} }, refused},
		{"acl user, the job's own properties", runAs, "ann",
			func(own, other string) []string {
				return []string{"oozie.wf.application.path", own, "x", "1", "oozie.job.acl", "ann ops", "user.name", "joe"}
			}, want{200, "", "own", "1", "joe"}},
		{"acl user, the same application written as a URI", runAs, "ann",
			func(own, other string) []string { return []string{"oozie.wf.application.path", "file://" + own} },
			want{200, "", "own", "1", "joe"}},
		{"acl user, rerun options only", runAs, "ann",
			func(own, other string) []string { return nil }, want{200, "", "own", "1", "joe"}},
		{"owner changes both", runAs, "joe",
			func(own, other string) []string { return []string{"oozie.wf.application.path", other, "x", "2"} },
			want{200, "", "other", "2", "joe"}},
		{"admin changes both", runAs, "root",
			func(own, other string) []string { return []string{"oozie.wf.application.path", other, "x", "3"} },
			want{200, "", "other", "3", "root"}},
		{"acl user outside run-as mode", plain, "ann",
			func(own, other string) []string { return []string{"oozie.wf.application.path", other, "x", "2"} },
			want{200, "", "other", "2", "ann"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := c.e
			own, other := e.app("own-"+strings.ReplaceAll(c.name, " ", "-")), e.app("other-"+strings.ReplaceAll(c.name, " ", "-"))
			id := e.submit("joe", "start", "oozie.wf.application.path", own, "x", "1", "oozie.job.acl", "ann ops")
			e.waitStatus(id, "SUCCEEDED")
			body := confXML(append(c.props(own, other), "oozie.wf.rerun.failnodes", "false")...)
			r := e.do("PUT", "/oozie/v2/job/"+id+"?action=rerun&user.name="+c.who, "application/xml", body)
			if r.status != c.want.status || r.header.Get("oozie-error-code") != c.want.code {
				t.Fatalf("rerun: %d %s %s, want %d %s", r.status, r.header.Get("oozie-error-code"), r.body, c.want.status, c.want.code)
			}
			run := 0.0
			if c.want.status == 200 {
				e.waitStatus(id, "SUCCEEDED")
				run = 1
			} else {
				msg := r.header.Get("oozie-error-message")
				for _, part := range []string{"User [" + c.who + "] not authorized for WF job [" + id + "]", "gozie.launch.as.user", "[joe]", "owner or an admin"} {
					if !strings.Contains(msg, part) {
						t.Errorf("refusal %q lacks %q", msg, part)
					}
				}
				audit := string(e.do("GET", "/oozie/v2/job/"+id+"?show=auditlog", "", "").body)
				if !strings.Contains(audit, "OPERATION [rerun]") || !strings.Contains(audit, "STATUS [FAILED]") {
					t.Errorf("audit log:\n%s", audit)
				}
			}
			cfg, job := e.jobConf(id)
			wantApp := own
			if c.want.app == "other" {
				wantApp = other
			}
			if job["run"] != run || job["appPath"] != wantApp || job["status"] != "SUCCEEDED" {
				t.Errorf("job after the rerun: run %v app %v status %v, want run %v app %s", job["run"], job["appPath"], job["status"], run, wantApp)
			}
			if v, _ := cfg.Get("oozie.wf.application.path"); v != wantApp {
				t.Errorf("conf app path %q, want %q", v, wantApp)
			}
			if v, _ := cfg.Raw("x"); v != c.want.x {
				t.Errorf("x = %q, want %q", v, c.want.x)
			}
			if v, _ := cfg.Raw("user.name"); v != c.want.user {
				t.Errorf("user.name = %q, want %q", v, c.want.user)
			}
			if cfg.Has("y") {
				t.Errorf("y was added")
			}
		})
	}
	// The console's rerun of failed nodes is the job's own configuration.
	t.Run("console rerun by an acl user", func(t *testing.T) {
		sh := runAs.shellApp("console-rerun", "exit 0")
		id := runAs.submit("joe", "start", "oozie.wf.application.path", sh, "oozie.job.acl", "ann")
		runAs.waitStatus(id, "SUCCEEDED")
		r := runAs.do("PUT", "/oozie/console/job/"+id+"?action=rerun-skip&user.name=ann", "", "")
		if r.status != 200 {
			t.Fatalf("console rerun: %d %s", r.status, r.body)
		}
		runAs.waitStatus(id, "SUCCEEDED")
		if cfg, _ := runAs.jobConf(id); cfg.GetDefault("user.name", "") != "joe" {
			t.Errorf("user.name after the console rerun: %q, want the owner's", cfg.GetDefault("user.name", ""))
		}
	})
}

// TestCoordChangesInRunAsMode is point 9 for coordinators: an update
// replaces the job's configuration (and may name another application),
// so in run-as mode only the owner or an admin may change it; a
// coordinator rerun takes no configuration and stays open to ACL members.
func TestCoordChangesInRunAsMode(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	runAs := newEnvConfigured(t, runAsConfig)
	plain := newEnv(t)
	props := func(app string, extra ...string) []string {
		return append([]string{"oozie.coord.application.path", app, "appDir", app, "nameNode", "file:///",
			"jobTracker", "local", "queueName", "default", "x", "1", "oozie.job.acl", "ann ops"}, extra...)
	}
	cases := []struct {
		name   string
		e      *env
		who    string
		body   func(app string) string
		status int
		code   string
		x      string
	}{
		{"acl user changes a property", runAs, "ann", func(app string) string { return confXML(props(app, "x", "2")...) }, 401, "E0509", "1"},
		{"acl user adds a property", runAs, "ann", func(app string) string { return confXML(props(app, "y", "2")...) }, 401, "E0509", "1"},
		{"acl user, another application", runAs, "ann", func(app string) string { return confXML(props(app + "-copy")...) }, 401, "E0509", "1"},
		{"acl user, the same properties", runAs, "ann", func(app string) string { return confXML(props(app)...) }, 200, "", "1"},
		{"acl user, no configuration", runAs, "ann", func(app string) string { return "" }, 200, "", "1"},
		{"owner changes a property", runAs, "joe", func(app string) string { return confXML(props(app, "x", "2")...) }, 200, "", "2"},
		{"admin changes a property", runAs, "root", func(app string) string { return confXML(props(app, "x", "3")...) }, 200, "", "3"},
		{"acl user outside run-as mode", plain, "ann", func(app string) string { return confXML(props(app, "x", "2")...) }, 200, "", "2"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := c.e
			app := filepath.Join(e.dir, "coord-"+itoa(i))
			copyDir(t, "../../examples/apps/coord-hourly", app)
			copyDir(t, "../../examples/apps/coord-hourly", app+"-copy")
			id := e.submit("joe", "", props(app)...)
			before := e.do("GET", "/oozie/v2/job/"+id+"?user.name=joe", "", "").json(t)["conf"]
			r := e.do("PUT", "/oozie/v2/job/"+id+"?action=update&user.name="+c.who, "application/xml", c.body(app))
			if r.status != c.status || r.header.Get("oozie-error-code") != c.code {
				t.Fatalf("update: %d %s %s, want %d %s", r.status, r.header.Get("oozie-error-code"), r.body, c.status, c.code)
			}
			job := e.do("GET", "/oozie/v2/job/"+id+"?user.name=joe", "", "").json(t)
			cfg, err := conf.ParseXML(strings.NewReader(job["conf"].(string)), "conf")
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := cfg.Raw("x"); v != c.x {
				t.Errorf("x = %q, want %q", v, c.x)
			}
			if c.status != 200 {
				if job["conf"] != before || job["coordJobPath"] != app {
					t.Errorf("refused update changed the job: path %v conf\n%v", job["coordJobPath"], job["conf"])
				}
				if msg := r.header.Get("oozie-error-message"); !strings.Contains(msg, "not authorized for Coord job") || !strings.Contains(msg, "gozie.launch.as.user") {
					t.Errorf("refusal: %q", msg)
				}
			}
		})
	}
	t.Run("coordinator rerun by an acl user", func(t *testing.T) {
		app := filepath.Join(runAs.dir, "coord-rerun")
		copyDir(t, "../../examples/apps/coord-hourly", app)
		id := runAs.submit("joe", "", props(app)...)
		runAs.waitStatus(id+"@1", "SUCCEEDED")
		// A configuration sent with a coordinator rerun is not used.
		r := runAs.do("PUT", "/oozie/v2/job/"+id+"?action=coord-rerun&type=action&scope=1&user.name=ann", "application/xml",
			confXML("oozie.coord.application.path", filepath.Join(runAs.dir, "elsewhere"), "x", "9"))
		if r.status != 200 {
			t.Fatalf("coord rerun: %d %s", r.status, r.body)
		}
		runAs.waitRuns(id, "1", 2)
		job := runAs.do("GET", "/oozie/v2/job/"+id+"?user.name=joe", "", "").json(t)
		if job["coordJobPath"] != app || strings.Contains(job["conf"].(string), "elsewhere") {
			t.Errorf("coordinator after the rerun: %v\n%v", job["coordJobPath"], job["conf"])
		}
	})
}
