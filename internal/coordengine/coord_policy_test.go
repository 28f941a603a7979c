package coordengine

import (
	"context"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
)

var policyNow = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// submittedOrder lists action numbers in the order they became SUBMITTED,
// from the job log.
func (h *coordHarness) submittedOrder(id string) []int {
	h.t.Helper()
	var logs []*store.LogEntry
	if err := h.store.View(context.Background(), func(tx store.Tx) (err error) {
		logs, err = tx.Logs(context.Background(), id, 0, 0)
		return err
	}); err != nil {
		h.t.Fatal(err)
	}
	var out []int
	for _, l := range logs {
		if strings.HasSuffix(l.Message, "-> SUBMITTED") {
			_, num, _ := strings.Cut(l.ActionID, "@")
			n, _ := strconv.Atoi(num)
			out = append(out, n)
		}
	}
	return out
}

// runningWorkflows lists the workflow ids of RUNNING coordinator actions,
// oldest action first.
func (h *coordHarness) runningWorkflows(id string) []string {
	var out []string
	for _, a := range h.actions(id) {
		if a.Status == store.CoordActionRunning && a.ExternalID != "" {
			out = append(out, a.ExternalID)
		}
	}
	return out
}

// TestCoordCatchUpThrottleConcurrency starts a job ten hours in the past:
// materialization catches up but stops at the throttle (5 WAITING) while
// inputs are missing; once they appear, actions run FIFO, never more than
// the concurrency (2) at once.
func TestCoordCatchUpThrottleConcurrency(t *testing.T) {
	testCoordCatchUp(t, newCoordHarness)
}

func testCoordCatchUp(t *testing.T, newH harnessFactory) {
	h := newH(t, policyNow, Options{InputCheckInterval: time.Minute})
	start := policyNow.Add(-10 * time.Hour)
	id, err := h.e.Run(context.Background(), h.coordProps(holdWorkflow,
		"start", "2026-03-02T00:00Z", "end", "2026-03-02T10:00Z", "concurrency", "2", "throttle", "5"))
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	h.advance(5*time.Minute, time.Minute, nil)
	j := h.coordJob(id)
	if got := h.countByStatus(id); got[store.CoordActionWaiting] != 5 || len(got) != 1 || j.LastActionNumber != 5 {
		t.Fatalf("throttled catch-up: counts %v, last action %d; want 5 WAITING", got, j.LastActionNumber)
	}
	for n := 0; n < 10; n++ {
		h.publish(start.Add(time.Duration(n) * time.Hour))
	}
	maxRunning := 0
	for step := 0; step < 60 && !CoordTerminal(h.coordJob(id).Status); step++ {
		h.advance(time.Minute, time.Minute, nil)
		counts := h.countByStatus(id)
		if counts[store.CoordActionWaiting] > 5 {
			t.Fatalf("%d WAITING, throttle 5", counts[store.CoordActionWaiting])
		}
		running := counts[store.CoordActionSubmitted] + counts[store.CoordActionRunning]
		if running > 2 {
			t.Fatalf("%d SUBMITTED+RUNNING, concurrency 2", running)
		}
		maxRunning = max(maxRunning, running)
		if wfs := h.runningWorkflows(id); len(wfs) > 0 {
			h.finish(wfs[0])
			h.settle()
		}
	}
	if maxRunning != 2 {
		t.Errorf("at most %d actions ran at once; the concurrency of 2 was never reached", maxRunning)
	}
	if j := h.coordJob(id); j.Status != store.CoordSucceeded {
		t.Fatalf("job %s, want SUCCEEDED; actions %v", j.Status, h.countByStatus(id))
	}
	if got, want := h.submittedOrder(id), []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}; !reflect.DeepEqual(got, want) {
		t.Errorf("FIFO submission order %v, want %v", got, want)
	}
}

// TestCoordLIFO: with every action READY at once (the catch-up
// materializes all nine) and concurrency 1, the newest runs first.
func TestCoordLIFO(t *testing.T) {
	h := newCoordHarness(t, policyNow, Options{InputCheckInterval: time.Minute})
	start := policyNow.Add(-10 * time.Hour)
	for n := 0; n < 10; n++ {
		h.publish(start.Add(time.Duration(n) * time.Hour))
	}
	id, err := h.e.Run(context.Background(), h.coordProps(holdWorkflow,
		"start", "2026-03-02T00:00Z", "end", "2026-03-02T09:00Z", "execution", "LIFO", "throttle", "20"))
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	for step := 0; step < 30 && !CoordTerminal(h.coordJob(id).Status); step++ {
		if wfs := h.runningWorkflows(id); len(wfs) > 0 {
			h.finish(wfs[0])
		}
		h.advance(time.Minute, time.Minute, nil)
	}
	if got, want := h.submittedOrder(id), []int{9, 8, 7, 6, 5, 4, 3, 2, 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("LIFO submission order %v, want %v", got, want)
	}
	if j := h.coordJob(id); j.Status != store.CoordSucceeded {
		t.Errorf("job %s, want SUCCEEDED", j.Status)
	}
}

// TestCoordSkipPolicies: started ten hours late with every input there,
// LAST_ONLY and NONE skip the actions whose time has passed (specification
// 6.1.3.2, 6.3) and run the ones that come due afterwards.
func TestCoordSkipPolicies(t *testing.T) {
	for _, execution := range []string{"LAST_ONLY", "NONE"} {
		t.Run(execution, func(t *testing.T) {
			h := newCoordHarness(t, policyNow, Options{InputCheckInterval: time.Minute})
			start := policyNow.Add(-10 * time.Hour)
			for n := 0; n < 13; n++ {
				h.publish(start.Add(time.Duration(n) * time.Hour))
			}
			id, err := h.e.Run(context.Background(), h.coordProps(fsWorkflow,
				"start", "2026-03-02T00:00Z", "end", "2026-03-02T13:00Z", "execution", execution))
			if err != nil {
				t.Fatal(err)
			}
			h.settle()
			h.advance(3*time.Hour+10*time.Minute, time.Minute, nil)
			j := h.coordJob(id)
			if j.Status != store.CoordSucceeded {
				t.Errorf("job %s, want SUCCEEDED (skipped actions are no error)", j.Status)
			}
			hist := h.histories(id)
			var skipped []int
			for _, a := range h.actions(id) {
				last := hist[a.Number][len(hist[a.Number])-1]
				if a.NominalTime.Before(policyNow) {
					if a.Status != store.CoordActionSkipped || last != store.CoordActionSkipped {
						t.Errorf("late action %d (%s): %s, history %v; want SKIPPED", a.Number, a.NominalTime, a.Status, hist[a.Number])
					}
					skipped = append(skipped, a.Number)
					continue
				}
				want := []string{"WAITING", "READY", "SUBMITTED", "RUNNING", "SUCCEEDED"}
				if !reflect.DeepEqual(hist[a.Number], want) {
					t.Errorf("on-time action %d: history %v, want %v", a.Number, hist[a.Number], want)
				}
			}
			sort.Ints(skipped)
			if len(skipped) != 10 {
				t.Errorf("skipped %v, want actions 1-10", skipped)
			}
		})
	}
}

// TestCoordFIFOConcurrentStartOrder: with every action READY at once and a
// concurrency that lets them all run, FIFO still launches their workflows
// in nominal-time order (the workflow ids, which are issued in submission
// order, increase with the action number). Launches of one tick used to
// race each other for the coordinator's lock.
func TestCoordFIFOConcurrentStartOrder(t *testing.T) {
	for round := range 3 {
		t.Run(strconv.Itoa(round), func(t *testing.T) {
			h := newCoordHarness(t, policyNow, Options{InputCheckInterval: time.Minute})
			start := policyNow.Add(-10 * time.Hour)
			for n := 0; n < 10; n++ {
				h.publish(start.Add(time.Duration(n) * time.Hour))
			}
			id, err := h.e.Run(context.Background(), h.coordProps(holdWorkflow,
				"start", "2026-03-02T00:00Z", "end", "2026-03-02T10:00Z", "concurrency", "10", "throttle", "20"))
			if err != nil {
				t.Fatal(err)
			}
			h.settle()
			h.advance(2*time.Minute, time.Minute, nil)
			acts := h.actions(id)
			sort.Slice(acts, func(i, j int) bool { return acts[i].Number < acts[j].Number })
			var ids []string
			for _, a := range acts {
				if a.ExternalID == "" {
					t.Fatalf("action %d (%s) has no workflow yet", a.Number, a.Status)
				}
				ids = append(ids, a.ExternalID)
			}
			if len(ids) != 10 {
				t.Fatalf("%d actions, want 10", len(ids))
			}
			if !sort.StringsAreSorted(ids) {
				t.Errorf("workflows by action number %v: not launched in nominal-time order", ids)
			}
			if got, want := h.submittedOrder(id), []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}; !reflect.DeepEqual(got, want) {
				t.Errorf("FIFO submission order %v, want %v", got, want)
			}
		})
	}
}
