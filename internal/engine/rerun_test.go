package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/store"
)

// rerunApp is start -> fork(a, b) -> join -> c -> end; errors go to kill.
func rerunApp() string {
	return wf(`<start to="f"/><fork name="f"><path start="a"/><path start="b"/></fork>` +
		testAction("a", "j", "fail") + testAction("b", "j", "fail") + `<join name="j" to="c"/>` +
		testAction("c", "end", "fail") + `<kill name="fail"><message>failed</message></kill><end name="end"/>`)
}

func TestRerun(t *testing.T) {
	// b fails once a has ended OK, then succeeds when run again.
	bFailsOnce := func(h *harness) {
		h.exec.set("b", &behaviour{async: true})
	}
	failB := func(t *testing.T, h *harness, id string) {
		h.eventually("a OK, b running", func() bool {
			return h.actionStatus(id, "a") == store.ActionOK && h.actionStatus(id, "b") == store.ActionRunning
		})
		h.exec.set("b", &behaviour{})
		h.exec.finish(t, "b", action.Result{Status: action.Error, ErrorCode: "JA018", ErrorMessage: "exit 1"})
	}
	cases := []struct {
		name     string
		rerun    []string
		wantCode string
		// runs of each node after the rerun ended
		wantRuns map[string]int
	}{
		{"failnodes=true skips what succeeded", []string{PropRerunFailNodes, "true"}, "", map[string]int{"a": 1, "b": 2, "c": 1}},
		{"failnodes=false runs everything", []string{PropRerunFailNodes, "false"}, "", map[string]int{"a": 2, "b": 2, "c": 1}},
		{"skip.nodes=a", []string{PropRerunSkipNodes, "a"}, "", map[string]int{"a": 1, "b": 2, "c": 1}},
		{"skip a node that failed", []string{PropRerunSkipNodes, "a,b"}, CodeRerunSkipNotRun, nil},
		{"both properties", []string{PropRerunSkipNodes, "a", PropRerunFailNodes, "true"}, CodeRerunOneOf, nil},
		{"neither property", nil, CodeRerunOneOf, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			bFailsOnce(h)
			id := h.run(props(h.writeApp("fork", rerunApp(), nil)))
			failB(t, h, id)
			if j := h.wait(id); j.Status != store.JobKilled {
				t.Fatalf("first run: %s", h.describe(id))
			}
			err := h.e.Rerun(context.Background(), id, props("", c.rerun...).Clone())
			if c.wantCode != "" {
				if ErrorCode(err) != c.wantCode {
					t.Fatalf("Rerun = %v, want %s", err, c.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatalf("Rerun: %v", err)
			}
			j := h.wait(id)
			if j.Status != store.JobSucceeded || j.Run != 1 {
				t.Fatalf("after rerun: status %s run %d: %s", j.Status, j.Run, h.describe(id))
			}
			for node, want := range c.wantRuns {
				if got := h.exec.count(h.exec.runs, node); got != want {
					t.Errorf("%s ran %d times, want %d", node, got, want)
				}
			}
			if _, acts := h.job(id); acts["b"].Attempt == 0 {
				t.Errorf("rerun of b reused attempt 0 (its old work directory)")
			}
			logs, err := h.e.Logs(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			text := ""
			for _, l := range logs {
				text += l.Message + "\n"
			}
			if !strings.Contains(text, "rerun [1]") || !strings.Contains(text, "from [PREP] to [RUNNING]") {
				t.Errorf("log lacks the rerun:\n%s", text)
			}
		})
	}
}

func TestRerunOfRunningJob(t *testing.T) {
	h := newHarness(t)
	h.exec.set("a", &behaviour{async: true})
	id := h.run(props(h.writeApp("sr", twoStepApp(), nil)))
	err := h.e.Rerun(context.Background(), id, props("", PropRerunFailNodes, "true"))
	if ErrorCode(err) != CodeRerunNotEnded {
		t.Fatalf("Rerun of a running job = %v, want %s", err, CodeRerunNotEnded)
	}
}

func TestJobLog(t *testing.T) {
	h := newHarness(t)
	h.exec.set("b", &behaviour{results: []action.Result{{Done: true, Status: action.Error, ErrorCode: "JA018", ErrorMessage: "exit 1"}}})
	id := h.run(props(h.writeApp("two", twoStepApp(), nil)))
	h.wait(id)
	logs, err := h.e.Logs(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range logs {
		lines = append(lines, l.Level+" "+l.ActionID+" "+l.Message)
	}
	text := strings.Join(lines, "\n")
	for _, want := range []string{
		"INFO  Workflow job submitted",
		"INFO  Workflow job status changed from [PREP] to [RUNNING]",
		"INFO " + id + "@a Action [a] ended with status [OK]",
		"WARN " + id + "@b Action [b] ended with status [ERROR]",
		"error code [JA018], message [exit 1]",
		"WARN  Workflow job status changed from [RUNNING] to [KILLED]",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("log lacks %q:\n%s", want, text)
		}
	}
	// Issue 14 point 12: the job runs before its nodes start, and ends
	// after the node that ended it; no line names the job id in its text.
	running := strings.Index(text, "to [RUNNING]")
	started := strings.Index(text, "Start action [a]")
	killedAt := strings.Index(text, "to [KILLED]")
	if running < 0 || started < 0 || running > started || killedAt < strings.Index(text, "Node [fail]") {
		t.Errorf("lines out of order:\n%s", text)
	}
	for _, l := range logs {
		if strings.Contains(l.Message, id) {
			t.Errorf("message repeats the job id: %q", l.Message)
		}
	}
	if _, err := h.e.Logs(context.Background(), "0000099-000000000000000-oozie-test-W"); ErrorCode(err) != CodeJobNotFound {
		t.Errorf("Logs of a missing job = %v, want E0604", err)
	}
	line := FormatLogLine("joe", "", "app", logs[0])
	if !strings.Contains(line, " INFO gozie - USER[joe] GROUP[-] TOKEN[] APP[app] JOB["+id+"] ACTION[-] Workflow job submitted") {
		t.Errorf("FormatLogLine = %q", line)
	}
}

// TestRerunOwnConf: a rerun restricted to the job's own configuration
// (issue 23 point 9, run-as mode) refuses another application and any
// changed or added property before anything changes, accepts the job's
// own application however it is written (a file: URI, ${var} of the job's
// properties) and keeps the job's user.
func TestRerunOwnConf(t *testing.T) {
	cases := []struct {
		name    string
		rerun   func(own, other string) []string
		changed []string // nil: the rerun runs
	}{
		{"another application", func(own, other string) []string { return []string{PropAppPath, other} }, []string{PropAppPath}},
		{"a changed property", func(own, other string) []string { return []string{"x", "2"} }, []string{"x"}},
		{"an added property", func(own, other string) []string { return []string{"y", "1", "x", "2"} }, []string{"x", "y"}},
		{"the same value written otherwise", func(own, other string) []string { return []string{"x", " 1"} }, []string{"x"}},
		{"the job's own properties", func(own, other string) []string {
			return []string{PropAppPath, own, "x", "1", "base", filepath.Dir(own)}
		}, nil},
		{"the own application as a URI", func(own, other string) []string { return []string{PropAppPath, "file://" + own} }, nil},
		{"the own application through a variable", func(own, other string) []string {
			return []string{PropAppPath, "${base}/" + filepath.Base(own)}
		}, nil},
		{"another user", func(own, other string) []string { return []string{PropUser, "ann", "mapreduce.job.user.name", "ann"} }, nil},
		{"nothing but the rerun option", func(own, other string) []string { return nil }, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			own := h.writeApp("own", rerunApp(), nil)
			other := h.writeApp("other", rerunApp(), nil)
			id := h.run(props(own, PropUser, "joe", "x", "1", "base", filepath.Dir(own)))
			if j := h.wait(id); j.Status != store.JobSucceeded {
				t.Fatalf("first run: %s", h.describe(id))
			}
			before, _ := h.job(id)
			err := h.e.RerunOwnConf(context.Background(), id, props("", append(c.rerun(own, other), PropRerunFailNodes, "false")...))
			if c.changed != nil {
				ce, ok := err.(*ConfChangeError)
				if !ok || strings.Join(ce.Names, ",") != strings.Join(c.changed, ",") || ce.JobID != id {
					t.Fatalf("RerunOwnConf = %v, want a ConfChangeError naming %v", err, c.changed)
				}
				if after, _ := h.job(id); after.Run != 0 || after.Conf != before.Conf || after.AppPath != before.AppPath {
					t.Errorf("refused rerun changed the job: run %d app %s", after.Run, after.AppPath)
				}
				return
			}
			if err != nil {
				t.Fatalf("RerunOwnConf: %v", err)
			}
			j := h.wait(id)
			if j.Status != store.JobSucceeded || j.Run != 1 || j.AppPath != before.AppPath {
				t.Errorf("after the rerun: status %s run %d app %s (was %s)", j.Status, j.Run, j.AppPath, before.AppPath)
			}
			cfg, err := conf.ParseXML(strings.NewReader(j.Conf), "conf")
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range map[string]string{"x": "1", PropUser: "joe", PropAppPath: before.AppPath, "mapreduce.job.user.name": ""} {
				if got, _ := cfg.Raw(name); got != want {
					t.Errorf("%s = %q after the rerun, want %q", name, got, want)
				}
			}
		})
	}
}
