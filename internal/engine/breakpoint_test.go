package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/store"
)

func TestSuspendsBefore(t *testing.T) {
	tests := []struct {
		list, node string
		want       bool
	}{
		{"", "a", false},
		{"   ", "a", false},
		{"*", "a", true},
		{" * ", "end", true},
		{"a", "a", true},
		{"a", "ab", false},
		{"b,a", "a", true},
		{" b , a ", "a", true},
		{"a,,b", "", false},
		{"*,a", "b", false}, // "*" counts only alone, as in Oozie
		{"*,a", "a", true},
		{"A", "a", false},
	}
	for _, tt := range tests {
		if got := suspendsBefore(tt.list, tt.node); got != tt.want {
			t.Errorf("suspendsBefore(%q, %q) = %v, want %v", tt.list, tt.node, got, tt.want)
		}
	}
}

// suspendedAt waits until the job is SUSPENDED and returns its actions.
func (h *harness) suspendedAt(id string) map[string]*store.Action {
	h.t.Helper()
	h.eventually("the job suspended", func() bool { return h.status(id) == store.JobSuspended })
	_, m := h.job(id)
	return m
}

func (h *harness) resume(id string) {
	h.t.Helper()
	if err := h.e.Resume(context.Background(), id); err != nil {
		h.t.Fatal(err)
	}
}

// oozie.suspend.on.nodes names an action: the job is suspended before it
// with the action's record in PREP and nothing started; the resume runs
// it and the job goes on.
func TestSuspendOnNodesAction(t *testing.T) {
	h := newHarness(t)
	id := h.run(props(h.writeApp("bp", twoStepApp(), nil), "oozie.suspend.on.nodes", "b"))
	m := h.suspendedAt(id)
	if m["a"].Status != store.ActionOK || m["b"] == nil || m["b"].Status != store.ActionPrep {
		t.Fatalf("at the stop: %s; want a OK, b PREP", h.describe(id))
	}
	if n := h.exec.count(h.exec.starts, "b"); n != 0 {
		t.Fatalf("b started %d times before the resume", n)
	}
	logs, err := h.e.Logs(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range logs {
		found = found || strings.Contains(l.Message, "Reached suspend node at [b]")
	}
	if !found {
		t.Errorf("no job log line names the stop")
	}
	h.resume(id)
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("status %s: %s", j.Status, h.describe(id))
	}
	if n := h.exec.count(h.exec.starts, "b"); n != 1 {
		t.Errorf("b started %d times, want 1", n)
	}
}

// "*" stops before every node, control nodes included: start -> a -> b ->
// end takes three resumes (before a, b and end).
func TestSuspendOnNodesEveryNode(t *testing.T) {
	h := newHarness(t)
	id := h.run(props(h.writeApp("bp", twoStepApp(), nil), "oozie.suspend.on.nodes", "*"))
	for _, next := range []string{"a", "b", "end"} {
		m := h.suspendedAt(id)
		if next != "end" && (m[next] == nil || m[next].Status != store.ActionPrep) {
			t.Fatalf("stopped before %s: %s", next, h.describe(id))
		}
		if next == "end" && (m["b"].Status != store.ActionOK || m["end"] != nil) {
			t.Fatalf("stopped before end: %s", h.describe(id))
		}
		h.resume(id)
	}
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("status %s: %s", j.Status, h.describe(id))
	}
}

// Control nodes and lists: a fork's two paths both listed stop the job
// once (both actions PREP, both started by one resume); a join and a
// decision stop it before they are taken.
func TestSuspendOnNodesControl(t *testing.T) {
	app := wf(`<start to="f"/><fork name="f"><path start="x"/><path start="y"/></fork>` +
		testAction("x", "j", "fail") + testAction("y", "j", "fail") + `<join name="j" to="d"/>` +
		`<decision name="d"><switch><case to="end">${true}</case><default to="fail"/></switch></decision>` +
		`<kill name="fail"><message>failed</message></kill><end name="end"/>`)
	h := newHarness(t)
	id := h.run(props(h.writeApp("bp", app, nil), "oozie.suspend.on.nodes", " x, y ,j,d"))
	m := h.suspendedAt(id)
	if m["x"] == nil || m["y"] == nil || m["x"].Status != store.ActionPrep || m["y"].Status != store.ActionPrep {
		t.Fatalf("at the fork's paths: %s; want x and y PREP", h.describe(id))
	}
	h.resume(id)
	m = h.suspendedAt(id)
	if m["x"].Status != store.ActionOK || m["y"].Status != store.ActionOK || m["j"] != nil {
		t.Fatalf("before the join: %s; want x, y OK and no j", h.describe(id))
	}
	h.resume(id)
	m = h.suspendedAt(id)
	if m["j"] == nil || m["j"].Status != store.ActionOK || m["d"] != nil {
		t.Fatalf("before the decision: %s; want j OK and no d", h.describe(id))
	}
	h.resume(id)
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("status %s: %s", j.Status, h.describe(id))
	}
	if _, m := h.job(id); m["d"].Transition != "end" {
		t.Errorf("d took %q", m["d"].Transition)
	}
}

// The stop is committed with the job's state: an engine started again on
// the same store finds the job suspended before the node, and its resume
// runs it. Without the property nothing stops (the run of the same app
// ends without a resume).
func TestSuspendOnNodesSurvivesRestart(t *testing.T) {
	var opts *Options
	h := newHarness(t, func(o *Options) { opts = o })
	app := h.writeApp("bp", twoStepApp(), nil)
	if j := h.wait(h.run(props(app))); j.Status != store.JobSucceeded {
		t.Fatalf("without the property: %s", j.Status)
	}
	id := h.run(props(app, "oozie.suspend.on.nodes", "b"))
	h.suspendedAt(id)
	h.e.Close()

	reg := action.NewRegistry()
	reg.Register("test", h.exec)
	o := *opts
	o.Actions = reg
	e2, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	h.e = e2 // closed by the harness's cleanup
	if err := e2.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if m := h.suspendedAt(id); m["b"].Status != store.ActionPrep || h.exec.count(h.exec.starts, "b") != 1 {
		t.Fatalf("after the restart: %s, b started %d times (once by the run without the property)", h.describe(id), h.exec.count(h.exec.starts, "b"))
	}
	h.resume(id)
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("status %s: %s", j.Status, h.describe(id))
	}
}
