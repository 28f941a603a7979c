package bundleengine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// put writes a bundle job in status with actions in the given statuses
// (their coordinators not submitted, so commands change the bundle only).
func (h *harness) put(status string, pause time.Time, actions ...string) string {
	h.t.Helper()
	id := h.submit(h.bundleXML("2031-01-01T00:00Z", "c1=c1"), false)
	err := h.store.Update(context.Background(), func(tx store.Tx) error {
		j, err := tx.BundleJob(context.Background(), id)
		if err != nil {
			return err
		}
		j.Status, j.PauseTime = status, pause
		if status == store.BundleSuspended || status == store.BundleSuspendedWithError || status == store.BundlePrepSuspended {
			j.SuspendedTime = h.clock.Now()
		}
		for i, s := range actions {
			name := fmt.Sprintf("a%d", i)
			a := &store.BundleAction{ID: id + "_" + name, BundleID: id, CoordName: name, Status: s, LastModTime: h.clock.Now()}
			if err := tx.PutBundleAction(context.Background(), a); err != nil {
				return err
			}
		}
		return tx.PutBundleJob(context.Background(), j)
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return id
}

// TestLifecycleTable checks every row of the bundle status table (spec:
// bundle 4.2, vocab's bundleLifecycle), each pair by the command or the
// roll-up that makes it, and that the engine makes no other pair.
func TestLifecycleTable(t *testing.T) {
	ctx := context.Background()
	type op func(h *harness, id string) error
	suspend := func(h *harness, id string) error { return h.b.Suspend(ctx, id) }
	resume := func(h *harness, id string) error { return h.b.Resume(ctx, id) }
	kill := func(h *harness, id string) error { return h.b.Kill(ctx, id) }
	start := func(h *harness, id string) error { return h.b.Start(ctx, id) }
	pause := func(h *harness, id string) error {
		if err := h.b.BundleChange(ctx, id, "pausetime="+fmtUTC(h.clock.Now().Add(time.Minute))); err != nil {
			return err
		}
		h.advance(2*time.Minute, time.Minute)
		return nil
	}
	unpause := func(h *harness, id string) error { return h.b.BundleChange(ctx, id, "pausetime=") }
	rows := []struct {
		from, to string
		pause    time.Time
		actions  []string
		op       op
	}{
		{"PREP", "PREPSUSPENDED", time.Time{}, nil, suspend},
		{"PREP", "PREPPAUSED", time.Time{}, nil, pause},
		{"PREP", "RUNNING", time.Time{}, nil, start},
		{"PREP", "KILLED", time.Time{}, nil, kill},
		{"RUNNING", "RUNNINGWITHERROR", time.Time{}, []string{"RUNNING", "KILLED"}, nil},
		{"RUNNING", "SUSPENDED", time.Time{}, []string{"RUNNING"}, suspend},
		{"RUNNING", "PAUSED", time.Time{}, []string{"RUNNING"}, pause},
		{"RUNNING", "SUCCEEDED", time.Time{}, []string{"SUCCEEDED", "SUCCEEDED"}, nil},
		{"RUNNING", "KILLED", time.Time{}, []string{"RUNNING"}, kill},
		{"RUNNINGWITHERROR", "RUNNING", time.Time{}, []string{"RUNNING", "RUNNING"}, nil},
		{"RUNNINGWITHERROR", "SUSPENDEDWITHERROR", time.Time{}, []string{"RUNNING", "FAILED"}, suspend},
		{"RUNNINGWITHERROR", "PAUSEDWITHERROR", time.Time{}, []string{"RUNNING", "FAILED"}, pause},
		{"RUNNINGWITHERROR", "DONEWITHERROR", time.Time{}, []string{"SUCCEEDED", "FAILED"}, nil},
		{"RUNNINGWITHERROR", "FAILED", time.Time{}, []string{"FAILED", "FAILED"}, nil},
		{"RUNNINGWITHERROR", "KILLED", time.Time{}, []string{"RUNNING", "FAILED"}, kill},
		{"PREPSUSPENDED", "PREP", time.Time{}, nil, resume},
		{"PREPSUSPENDED", "KILLED", time.Time{}, nil, kill},
		{"SUSPENDED", "RUNNING", time.Time{}, []string{"SUSPENDED"}, resume},
		{"SUSPENDED", "KILLED", time.Time{}, []string{"SUSPENDED"}, kill},
		{"SUSPENDEDWITHERROR", "RUNNINGWITHERROR", time.Time{}, []string{"SUSPENDEDWITHERROR"}, resume},
		{"SUSPENDEDWITHERROR", "KILLED", time.Time{}, []string{"SUSPENDEDWITHERROR"}, kill},
		{"PREPPAUSED", "PREP", t0, nil, unpause},
		{"PREPPAUSED", "KILLED", t0, nil, kill},
		{"PAUSED", "SUSPENDED", t0, []string{"PAUSED"}, suspend},
		{"PAUSED", "RUNNING", t0, []string{"PAUSED"}, unpause},
		{"PAUSED", "KILLED", t0, []string{"PAUSED"}, kill},
		{"PAUSEDWITHERROR", "SUSPENDEDWITHERROR", t0, []string{"PAUSED", "FAILED"}, suspend},
		{"PAUSEDWITHERROR", "RUNNINGWITHERROR", t0, []string{"PAUSED", "FAILED"}, unpause},
		{"PAUSEDWITHERROR", "KILLED", t0, []string{"PAUSED", "FAILED"}, kill},
	}
	covered := map[[2]string]bool{}
	for _, r := range rows {
		covered[[2]string{r.from, r.to}] = true
		t.Run(r.from+"->"+r.to, func(t *testing.T) {
			if !vocab.CanTransition(vocab.BundleStatus(r.from), vocab.BundleStatus(r.to)) {
				t.Fatalf("%s -> %s is not a row of the table", r.from, r.to)
			}
			if r.op == nil {
				// The roll-up of the coordinators' statuses makes it.
				in := RollUpInput{Status: r.from, PauseTime: !r.pause.IsZero()}
				for _, s := range r.actions {
					in.Actions = append(in.Actions, RollUpAction{Status: s})
				}
				if got, ok := RollUp(in); !ok || got != r.to {
					t.Fatalf("roll-up of %v: %s (%v), want %s", in, got, ok, r.to)
				}
				return
			}
			h := newHarness(t)
			id := h.put(r.from, r.pause, r.actions...)
			if err := r.op(h, id); err != nil {
				t.Fatal(err)
			}
			h.settle()
			if got := h.job(id).Status; got != r.to {
				t.Fatalf("got %s, want %s", got, r.to)
			}
		})
	}
	for _, from := range []vocab.BundleStatus{"", "PREP", "RUNNING", "RUNNINGWITHERROR", "PREPSUSPENDED", "SUSPENDED",
		"SUSPENDEDWITHERROR", "PREPPAUSED", "PAUSED", "PAUSEDWITHERROR"} {
		for _, to := range vocab.Next(from) {
			if from != "" && !covered[[2]string{string(from), string(to)}] {
				t.Errorf("row %s -> %s has no case", from, to)
			}
		}
	}
}

// TestRefusals: the commands refuse what Oozie refuses, with its codes.
func TestRefusals(t *testing.T) {
	ctx := context.Background()
	rows := []struct {
		status string
		do     func(h *harness, id string) error
		code   string
	}{
		{"SUCCEEDED", func(h *harness, id string) error { return h.b.Suspend(ctx, id) }, "E1312"},
		{"KILLED", func(h *harness, id string) error { return h.b.Kill(ctx, id) }, "E1020"},
		{"DONEWITHERROR", func(h *harness, id string) error { return h.b.Kill(ctx, id) }, "E1020"},
		{"RUNNING", func(h *harness, id string) error { return h.b.Resume(ctx, id) }, "E1100"},
		{"RUNNING", func(h *harness, id string) error { return h.b.Start(ctx, id) }, "E1100"},
		{"KILLED", func(h *harness, id string) error { return h.b.BundleRerun(ctx, id, "c1", "", false, false) }, "E1100"},
		{"FAILED", func(h *harness, id string) error {
			return h.b.BundleRerun(ctx, id, "", "2030-01-01T00:00Z", false, false)
		}, "E1100"},
		{"SUCCEEDED", func(h *harness, id string) error { return h.b.BundleChange(ctx, id, "pausetime=2031-01-01T00:00Z") }, "E1312"},
		{"KILLED", func(h *harness, id string) error { return h.b.BundleChange(ctx, id, "endtime=2031-01-01T00:00Z") }, "E1312"},
		{"RUNNING", func(h *harness, id string) error { return h.b.BundleChange(ctx, id, "concurrency=3") }, "E1317"},
		{"RUNNING", func(h *harness, id string) error { return h.b.BundleChange(ctx, id, "endtime=x") }, "E1317"},
		{"RUNNING", func(h *harness, id string) error { return h.b.BundleChange(ctx, id, "pausetime=2029-01-01T00:00Z") }, "E1317"},
		{"RUNNING", func(h *harness, id string) error { return h.b.BundleChange(ctx, id, "endtime=2030-06-01T00:00Z") }, "E1317"},
		{"RUNNING", func(h *harness, id string) error { return h.b.BundleChange(ctx, id, "a=1;b=2;c=3") }, "E1317"},
		{"RUNNING", func(h *harness, id string) error { return h.b.Kill(ctx, id+"x") }, "E0604"},
	}
	h := newHarness(t)
	for i, r := range rows {
		id := h.put(r.status, time.Time{})
		err := r.do(h, id)
		if got := vocab.CodeOf(err); got != r.code {
			t.Errorf("row %d (%s): %v, want %s", i, r.status, err, r.code)
		}
		if j := h.job(id); j.Status != r.status {
			t.Errorf("row %d: a refused command changed the status to %s", i, j.Status)
		}
	}
}
