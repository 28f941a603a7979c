package bundleengine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// workflows counts the workflows a coordinator's actions launched.
func (h *harness) workflows(coordID string) int {
	h.t.Helper()
	var n int
	err := h.store.View(context.Background(), func(tx store.Tx) (err error) {
		n, err = tx.CountJobs(context.Background(), store.JobFilter{ParentPrefix: coordID + "@"})
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return n
}

// TestRerun: a rerun by coordinator name reruns that coordinator's whole
// run; one by date reruns that date in every coordinator; the bundle
// runs again and ends again.
func TestRerun(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	id := h.submit(h.bundleXML("", "c1=c1", "c2=c2"), true)
	h.advance(4*24*time.Hour, 6*time.Hour)
	h.want(id, "SUCCEEDED: c1=SUCCEEDED c2=SUCCEEDED")
	cs := h.coords(id)
	c1, c2 := cs["c1"].ID, cs["c2"].ID
	if h.workflows(c1) != 2 || h.workflows(c2) != 2 {
		t.Fatalf("workflows before: %d %d", h.workflows(c1), h.workflows(c2))
	}
	if err := h.b.BundleRerun(ctx, id, "c1", "", false, true); err != nil {
		t.Fatal(err)
	}
	if s := h.job(id).Status; s != store.BundleRunning {
		t.Errorf("bundle after the rerun command: %s, want RUNNING", s)
	}
	h.advance(time.Hour, 10*time.Minute)
	h.want(id, "SUCCEEDED: c1=SUCCEEDED c2=SUCCEEDED")
	if h.workflows(c1) != 4 || h.workflows(c2) != 2 {
		t.Fatalf("workflows after -coordinator c1: %d %d, want 4 2", h.workflows(c1), h.workflows(c2))
	}
	if err := h.b.BundleRerun(ctx, id, "", "2030-01-03T00:00Z", false, true); err != nil {
		t.Fatal(err)
	}
	h.advance(time.Hour, 10*time.Minute)
	h.want(id, "SUCCEEDED: c1=SUCCEEDED c2=SUCCEEDED")
	if h.workflows(c1) != 5 || h.workflows(c2) != 3 {
		t.Fatalf("workflows after -date: %d %d, want 5 3", h.workflows(c1), h.workflows(c2))
	}
	// A name not in the bundle reruns nothing, as in Oozie.
	if err := h.b.BundleRerun(ctx, id, "nope", "", false, true); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if h.job(id).Status != store.BundleSucceeded {
		t.Errorf("a rerun of nothing changed the bundle to %s", h.job(id).Status)
	}
}

// TestChangePropagates: a pause time reaches the coordinators, which
// pause on it as the bundle does; clearing it unpauses all; an end time
// reaches the coordinators too.
func TestChangePropagates(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	id := h.submit(h.bundleXML("", "c1=c1", "c2=c2"), true)
	h.want(id, "RUNNING: c1=RUNNING c2=RUNNING")
	if err := h.b.BundleChange(ctx, id, "pausetime=2030-01-01T02:00Z"); err != nil {
		t.Fatal(err)
	}
	h.settle()
	for _, c := range h.coords(id) {
		if !c.PauseTime.Equal(time.Date(2030, 1, 1, 2, 0, 0, 0, time.UTC)) {
			t.Errorf("coordinator %s pause time %v", c.AppName, c.PauseTime)
		}
	}
	h.advance(3*time.Hour, time.Hour)
	h.want(id, "PAUSED: c1=PAUSED c2=PAUSED")
	if err := h.b.BundleChange(ctx, id, "pausetime="); err != nil {
		t.Fatal(err)
	}
	h.settle()
	h.want(id, "RUNNING: c1=RUNNING c2=RUNNING")
	if err := h.b.BundleChange(ctx, id, "endtime=2030-01-03T00:00Z"); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if j := h.job(id); !j.EndTime.Equal(time.Date(2030, 1, 3, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("bundle end time %v", j.EndTime)
	}
	h.advance(4*24*time.Hour, 6*time.Hour)
	h.want(id, "SUCCEEDED: c1=SUCCEEDED c2=SUCCEEDED")
	if n := h.workflows(h.coords(id)["c1"].ID); n != 1 {
		t.Errorf("c1 ran %d workflows, want 1 (its end moved to the 3rd)", n)
	}
}

// TestSuspendBeforeSubmission: a bundle suspended before its
// coordinators exist holds them suspended once they are submitted.
func TestSuspendBeforeSubmission(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	id, err := h.b.Run(ctx, h.props(h.bundleXML("", "c1=c1")))
	if err != nil {
		t.Fatal(err)
	}
	// The submission effect may or may not have run: both orders end
	// with a suspended coordinator.
	if err := h.b.Suspend(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if got := h.statuses(id); got != "SUSPENDED: c1=SUSPENDED" && got != "SUSPENDED: c1=PREPSUSPENDED" {
		t.Fatalf("statuses %q", got)
	}
	if err := h.b.Resume(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if got := h.statuses(id); !strings.HasPrefix(got, "RUNNING: c1=") || strings.Contains(got, "SUSPENDED") {
		t.Fatalf("statuses after resume %q", got)
	}
}

// TestSubmitOnce: the submission effect of a coordinator performed again
// (a crash after its commit, a second server) submits nothing more, and
// a restart in the middle of a bundle's life loses nothing.
func TestSubmitOnce(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	id := h.submit(h.bundleXML("", "c1=c1", "c2=c2"), true)
	acts, _ := h.b.BundleActions(ctx, id)
	for _, a := range acts {
		ef := &store.Effect{ID: 1 << 40, JobID: id, ActionID: a.ID, Kind: EffectBundleSubmit}
		if err := h.b.PerformEffect(ctx, ef); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(h.coords(id)); n != 2 {
		t.Fatalf("%d coordinators", n)
	}
	h.advance(30*time.Hour, 6*time.Hour)
	h.restart()
	h.advance(3*24*time.Hour, 6*time.Hour)
	h.want(id, "SUCCEEDED: c1=SUCCEEDED c2=SUCCEEDED")
	for _, c := range h.coords(id) {
		if n := h.workflows(c.ID); n != 2 {
			t.Errorf("coordinator %s ran %d workflows, want 2", c.AppName, n)
		}
	}
}

// TestLogAndInfo: the bundle's log names its steps, and its REST bean
// lists its coordinators with Oozie's keys.
func TestLogAndInfo(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	id := h.submit(h.bundleXML("2030-01-01T01:00Z", "c1=c1"), false)
	h.advance(time.Hour, time.Hour)
	info, err := h.b.BundleJobInfo(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if info.BundleJobID != id || info.Status != "RUNNING" || len(info.BundleCoordJobs) != 1 ||
		string(info.BundleCoordJobs[0].CoordJobName) != "c1" || info.TimeUnit != "NONE" ||
		info.ToString != "Bundle id["+id+"] status[RUNNING]" {
		t.Fatalf("info %+v", info)
	}
	list, total, err := h.b.BundleJobList(ctx, store.JobFilter{})
	if err != nil || total != 1 || list[0].BundleJobID != id {
		t.Fatalf("list %v %d %v", list, total, err)
	}
	var lines []string
	err = h.store.View(ctx, func(tx store.Tx) error {
		ls, err := tx.Logs(ctx, id, 0, 0)
		for _, l := range ls {
			lines = append(lines, l.Message)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(lines, "\n")
	for _, want := range []string{"bundle job submitted", "PREP -> RUNNING", "coordinator [c1] submitted as [", "-C]"} {
		if !strings.Contains(text, want) {
			t.Errorf("log lacks %q:\n%s", want, text)
		}
	}
}

// TestSuspendResumeInQuickSuccession: a resume right after a suspend,
// whose effects may reach a coordinator in either order, leaves every
// coordinator running with the bundle; reversed holds the rule.
func TestSuspendResumeInQuickSuccession(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	id := h.submit(h.bundleXML("", "c1=c1", "c2=c2"), true)
	for range 3 {
		if err := h.b.Suspend(ctx, id); err != nil {
			t.Fatal(err)
		}
		if err := h.b.Resume(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	h.settle()
	h.want(id, "RUNNING: c1=RUNNING c2=RUNNING")
	for _, r := range []struct {
		status, op string
		want       bool
	}{
		{"SUSPENDED", "suspend", false}, {"RUNNING", "suspend", true}, {"PREPSUSPENDED", "suspend", false},
		{"RUNNING", "resume", false}, {"SUSPENDEDWITHERROR", "resume", true}, {"KILLED", "kill", false},
	} {
		if got := reversed(r.status, r.op); got != r.want {
			t.Errorf("reversed(%s, %s) = %v", r.status, r.op, got)
		}
	}
}
