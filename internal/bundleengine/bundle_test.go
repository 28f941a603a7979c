package bundleengine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// TestKickoffAndCompletion: a submitted bundle waits in PREP for its
// kick-off time, then submits its enabled coordinators (named as in the
// bundle, with its configuration), and succeeds when they all do.
func TestKickoffAndCompletion(t *testing.T) {
	for name, newH := range map[string]func(testing.TB) *harness{"sqlite": newHarness, "postgres": newPostgresHarness} {
		t.Run(name, func(t *testing.T) { testKickoffAndCompletion(t, newH(t)) })
	}
}

func testKickoffAndCompletion(t *testing.T, h *harness) {
	id := h.submit(h.bundleXML("2030-01-01T06:00Z", "c1=c1", "c2!=c2", "off-=c1"), false)
	h.want(id, "PREP:")
	h.advance(5*time.Hour, time.Hour)
	h.want(id, "PREP:")
	h.advance(time.Hour, time.Hour)
	h.want(id, "RUNNING: c1=RUNNING c2=RUNNING")
	cs := h.coords(id)
	if len(cs) != 2 || cs["off"] != nil {
		t.Fatalf("coordinators %v: the disabled one must not be submitted", cs)
	}
	acts, _ := h.b.BundleActions(context.Background(), id)
	if !acts[1].Critical || acts[0].Critical || acts[0].ID != id+"_c1" || acts[0].CoordID != cs["c1"].ID {
		t.Errorf("actions %+v %+v", acts[0], acts[1])
	}
	if cs["c1"].ParentID != id || !contains(cs["c1"].Conf, "<name>oozie.bundle.id</name>") || !contains(cs["c1"].Conf, "<value>c1</value>") {
		t.Errorf("coordinator c1 conf %s parent %s", cs["c1"].Conf, cs["c1"].ParentID)
	}
	h.advance(4*24*time.Hour, 6*time.Hour)
	h.want(id, "SUCCEEDED: c1=SUCCEEDED c2=SUCCEEDED")
}

func contains(s, sub string) bool {
	return len(sub) == 0 || len(s) >= len(sub) && (indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// TestCommandsPropagate: suspend, resume and kill of a bundle reach its
// coordinators, and each coordinator's new status rolls back up.
func TestCommandsPropagate(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	id := h.submit(h.bundleXML("", "c1=c1", "data=data"), true)
	h.want(id, "RUNNING: c1=RUNNING data=RUNNING")
	if err := h.b.Suspend(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.settle()
	h.want(id, "SUSPENDED: c1=SUSPENDED data=SUSPENDED")
	if err := h.b.Resume(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.settle()
	h.want(id, "RUNNING: c1=RUNNING data=RUNNING")
	if err := h.b.Kill(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.settle()
	h.want(id, "KILLED: c1=KILLED data=KILLED")
	if err := h.b.Kill(ctx, id); vocab.CodeOf(err) != "E1020" {
		t.Errorf("kill of a killed bundle: %v, want E1020", err)
	}
}

// TestDataDependency: a coordinator waiting for its input keeps the
// bundle RUNNING while the others end; once the data arrives the bundle
// succeeds.
func TestDataDependency(t *testing.T) {
	h := newHarness(t)
	id := h.submit(h.bundleXML("", "c1=c1", "data=data"), true)
	h.advance(4*24*time.Hour, 6*time.Hour)
	h.want(id, "RUNNING: c1=SUCCEEDED data=RUNNING")
	for _, d := range []string{"20300102", "20300103"} {
		if err := os.MkdirAll(filepath.Join(h.dir, "data", d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(h.dir, "data", d, "_SUCCESS"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h.advance(2*time.Hour, 10*time.Minute)
	h.want(id, "SUCCEEDED: c1=SUCCEEDED data=SUCCEEDED")
}

// TestCoordinatorOnItsOwn: a coordinator of a bundle killed by itself
// makes the bundle RUNNINGWITHERROR, then DONEWITHERROR when the others
// succeed, critical or not (Oozie's roll-up does not read critical).
func TestCoordinatorOnItsOwn(t *testing.T) {
	for _, crit := range []string{"c1!=c1", "c1=c1"} {
		t.Run(crit, func(t *testing.T) {
			h := newHarness(t)
			id := h.submit(h.bundleXML("", crit, "c2=c2"), true)
			if err := h.co.Kill(context.Background(), h.coords(id)["c1"].ID); err != nil {
				t.Fatal(err)
			}
			h.settle()
			h.want(id, "RUNNINGWITHERROR: c1=KILLED c2=RUNNING")
			h.advance(4*24*time.Hour, 6*time.Hour)
			h.want(id, "DONEWITHERROR: c1=KILLED c2=SUCCEEDED")
		})
	}
}

// TestFailedSubmission: a coordinator that cannot be submitted fails the
// bundle and kills the others (Oozie kills such a bundle).
func TestFailedSubmission(t *testing.T) {
	h := newHarness(t)
	id := h.submit(h.bundleXML("", "c1=c1", "zbad=bad"), true)
	// c1 is killed, or never submitted when zbad's submission failed
	// first: the two submissions are separate effects.
	if got := h.statuses(id); got != "FAILED: c1=KILLED zbad=-" && got != "FAILED: c1=- zbad=-" {
		t.Fatalf("statuses %q", got)
	}
	acts, _ := h.b.BundleActions(context.Background(), id)
	for _, a := range acts {
		if a.Status != store.CoordKilled && a.Status != store.CoordFailed {
			t.Errorf("action %s %s, want KILLED or FAILED", a.CoordName, a.Status)
		}
	}
	j := h.job(id)
	if j.ErrorCode == "" || j.ErrorMessage == "" {
		t.Errorf("no error recorded: %+v", j)
	}
}

// TestAllDisabled: a bundle whose coordinators are all disabled fails
// with E1318.
func TestAllDisabled(t *testing.T) {
	h := newHarness(t)
	id := h.submit(h.bundleXML("", "c1-=c1"), true)
	if j := h.job(id); j.Status != store.BundleFailed || j.ErrorCode != "E1318" {
		t.Fatalf("bundle %s %s", j.Status, j.ErrorCode)
	}
}
