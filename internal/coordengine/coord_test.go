package coordengine

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
)

var weekStart = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

// TestCoordWeekEndToEnd is the end-to-end run: an hourly
// coordinator over a week (168 actions) whose input directories appear
// 40 minutes after their hour, six of them never; the engine restarts in
// the middle. Every action's status history is checked from the job log,
// and every workflow exists exactly once.
func TestCoordWeekEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	h := newCoordHarness(t, weekStart.Add(-time.Hour), Options{InputCheckInterval: 15 * time.Minute})
	props := h.coordProps(fsWorkflow, "start", "2026-03-02T00:00Z", "end", "2026-03-09T00:00Z", "timeout", "120")
	id, err := h.e.Run(context.Background(), props)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !strings.HasSuffix(id, "-C") {
		t.Fatalf("coordinator id %q does not end in -C", id)
	}
	never := func(n int) bool { return n%30 == 7 }
	published := 0
	restarted := false
	h.settle()
	h.advance(7*24*time.Hour+5*time.Hour, 15*time.Minute, func() {
		now := h.clock.Now()
		for n := published + 1; n <= 168; n++ {
			nominal := weekStart.Add(time.Duration(n-1) * time.Hour)
			if nominal.Add(40 * time.Minute).After(now) {
				break
			}
			if !never(n) {
				h.publish(nominal)
			}
			published = n
		}
		counts := h.countByStatus(id)
		if w := counts[store.CoordActionWaiting]; w > 12 {
			t.Fatalf("%s: %d WAITING actions, throttle is 12", now, w)
		}
		if r := counts[store.CoordActionSubmitted] + counts[store.CoordActionRunning]; r > 1 {
			t.Fatalf("%s: %d actions SUBMITTED or RUNNING, concurrency is 1", now, r)
		}
		if !restarted && now.After(weekStart.Add(84*time.Hour)) {
			restarted = true
			h.restart()
		}
	})

	j := h.coordJob(id)
	if j.Status != store.CoordDoneWithError {
		t.Errorf("job status %s, want DONEWITHERROR (some actions TIMEDOUT)", j.Status)
	}
	if j.LastActionNumber != 168 || !j.DoneMaterialization {
		t.Errorf("materialized %d actions (done=%v), want 168", j.LastActionNumber, j.DoneMaterialization)
	}
	hist := h.histories(id)
	ok := []string{"WAITING", "READY", "SUBMITTED", "RUNNING", "SUCCEEDED"}
	timedOut := []string{"WAITING", "TIMEDOUT"}
	wfs := h.workflowsByParent()
	acts := h.actions(id)
	if len(acts) != 168 {
		t.Fatalf("%d actions, want 168", len(acts))
	}
	for _, a := range acts {
		want := ok
		if never(a.Number) {
			want = timedOut
		}
		if got := hist[a.Number]; !reflect.DeepEqual(got, want) {
			t.Errorf("action %d history %v, want %v", a.Number, got, want)
		}
		if a.ID != CoordActionID(id, a.Number) {
			t.Errorf("action id %s", a.ID)
		}
		if want := weekStart.Add(time.Duration(a.Number-1) * time.Hour); !a.NominalTime.Equal(want) {
			t.Errorf("action %d nominal %s, want %s", a.Number, a.NominalTime, want)
		}
		launched := wfs[a.ID]
		if never(a.Number) {
			if len(launched) != 0 || a.ExternalID != "" {
				t.Errorf("timed-out action %d launched %d workflows", a.Number, len(launched))
			}
			if want := "file://" + h.dataDir(a.NominalTime) + "/_SUCCESS"; a.MissingDependencies != want {
				t.Errorf("action %d missing %q, want %q", a.Number, a.MissingDependencies, want)
			}
			continue
		}
		if len(launched) != 1 || launched[0].ID != a.ExternalID || launched[0].Status != store.JobSucceeded {
			t.Errorf("action %d: workflows %d, externalId %s", a.Number, len(launched), a.ExternalID)
		}
		if a.MissingDependencies != "" {
			t.Errorf("action %d still missing %q", a.Number, a.MissingDependencies)
		}
	}
	// The workflows did their work: mkdir <input dir>/processed.
	if _, err := json.Marshal(acts); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 84, 168} {
		if ok, _ := dirExists(h.dataDir(weekStart.Add(time.Duration(n-1)*time.Hour)) + "/processed"); !ok {
			t.Errorf("action %d's workflow did not create its output", n)
		}
	}
	// No effect is left behind once the job has ended.
	var pending []*store.Effect
	_ = h.store.View(context.Background(), func(tx store.Tx) (err error) {
		pending, err = tx.PendingEffects(context.Background(), "", 0)
		return err
	})
	if len(pending) != 0 {
		t.Errorf("%d effects still pending after the job ended: first %+v", len(pending), pending[0])
	}
}

func dirExists(p string) (bool, error) {
	j, err := statDir(p)
	return j, err
}
