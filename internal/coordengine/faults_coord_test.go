package coordengine

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
	"github.com/gozie/gozie/internal/store/storetest"
)

// TestCoordStoreOutage fails the store under a coordinator's tick, its
// workflow submissions and their starts. Before, a failed coordinator
// effect waited a whole input check interval (here 15 minutes) per retry;
// now it is retried after 1s, 2s, 4s, ... and the job succeeds within
// seconds of fake time, each action's workflow created once.
func TestCoordStoreOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	for _, tc := range []struct {
		name       string
		skip, fail int
		lostAck    bool
	}{
		{"tick fails", 0, 3, false},
		{"everything fails for a while", 0, 12, false},
		{"later updates fail", 3, 6, false},
		{"acknowledgements lost", 1, 4, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "gozie.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			f := storetest.NewFaulty(s)
			// All three hours are past: the first tick materializes and
			// submits every action.
			h := newCoordHarnessOn(t, f, weekStart.Add(4*time.Hour), Options{InputCheckInterval: 15 * time.Minute})
			for i := 0; i < 3; i++ {
				h.publish(weekStart.Add(time.Duration(i) * time.Hour))
			}
			props := h.coordProps(fsWorkflow, "start", "2026-03-02T00:00Z", "end", "2026-03-02T03:00Z", "concurrency", "3")
			f.FailUpdates(tc.skip+1, tc.fail, tc.lostAck) // Run's own commit passes
			id, err := h.e.Run(context.Background(), props)
			if err != nil {
				t.Fatal(err)
			}
			start := h.clock.Now()
			deadline := time.Now().Add(30 * time.Second)
			for h.coordJob(id).Status != store.CoordSucceeded {
				if time.Now().After(deadline) {
					t.Fatalf("coordinator %s after %d failures: %v", h.coordJob(id).Status, f.Failed(), h.countByStatus(id))
				}
				if h.clock.Pending() > 0 {
					h.clock.Advance(time.Second)
				}
				time.Sleep(2 * time.Millisecond)
			}
			if f.Failed() != tc.fail {
				t.Errorf("%d updates failed, want %d", f.Failed(), tc.fail)
			}
			if took := h.clock.Now().Sub(start); took > 5*time.Minute {
				t.Errorf("took %s of fake time, want well under the 15m input check interval", took)
			}
			wfs := h.workflowsByParent()
			for i := 1; i <= 3; i++ {
				if n := len(wfs[CoordActionID(id, i)]); n != 1 {
					t.Errorf("action %d has %d workflows, want 1", i, n)
					for _, w := range wfs[CoordActionID(id, i)] {
						t.Logf("  %s %s created %s", w.ID, w.Status, w.CreatedTime)
					}
				}
			}
		})
	}
}
