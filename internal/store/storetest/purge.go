package storetest

import (
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// RunPurge checks store.Purger: which jobs a purge removes (Oozie's
// PurgeXCommand rules) and that every row of a removed job goes. open
// must return a new, empty store that implements store.Purger.
func RunPurge(t *testing.T, open func(t *testing.T) store.Store) {
	for _, oldActions := range []bool{false, true} {
		t.Run(fmt.Sprintf("oldcoordaction=%v", oldActions), func(t *testing.T) {
			s := open(t)
			defer s.Close()
			testPurge(t, s, oldActions)
		})
	}
	t.Run("Lock", func(t *testing.T) {
		s := open(t)
		defer s.Close()
		p := s.(store.Purger)
		release, ok, err := p.PurgeLock(ctx)
		if err != nil || !ok {
			t.Fatalf("PurgeLock = %v, %v; want taken", ok, err)
		}
		if _, ok2, err := p.PurgeLock(ctx); err != nil || ok2 {
			t.Fatalf("second PurgeLock = %v, %v; want refused while held", ok2, err)
		}
		release()
		release, ok, err = p.PurgeLock(ctx)
		if err != nil || !ok {
			t.Fatalf("PurgeLock after release = %v, %v; want taken", ok, err)
		}
		release()
	})
}

// purgeNow is the purge's "now" in the fixture; days(n) is n days before.
var purgeNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func days(n int) time.Time { return purgeNow.Add(-time.Duration(n) * 24 * time.Hour) }

// purgeFixture writes the jobs of the purge test. Names say what they
// are; the test's table says which go.
func purgeFixture(t *testing.T, s store.Store) {
	wf := func(id, parent, status string, end, lastMod time.Time) *store.Job {
		return &store.Job{ID: id, ParentID: parent, Status: status, AppName: "a", User: "u",
			CreatedTime: days(60), EndTime: end, LastModTime: lastMod}
	}
	coord := func(id, parent, status string, lastMod time.Time) *store.CoordJob {
		return &store.CoordJob{ID: id, ParentID: parent, Status: status, AppName: "c", User: "u",
			CreatedTime: days(60), LastModTime: lastMod}
	}
	action := func(id, status, wfID string) *store.CoordAction {
		return &store.CoordAction{ID: id, JobID: id[:len(id)-2], Number: int(id[len(id)-1] - '0'), Status: status,
			ExternalID: wfID, CreatedTime: days(60), LastModTime: days(40)}
	}
	bundle := func(id, status string, lastMod time.Time) *store.BundleJob {
		return &store.BundleJob{ID: id, Status: status, AppName: "b", User: "u", CreatedTime: days(60), LastModTime: lastMod}
	}
	jobs := []*store.Job{
		wf("old-W", "", store.JobSucceeded, days(40), days(40)),
		wf("recent-W", "", store.JobSucceeded, days(10), days(10)),
		wf("running-W", "", store.JobRunning, time.Time{}, days(40)),
		wf("noend-W", "", store.JobFailed, time.Time{}, days(40)),
		wf("parent-W", "", store.JobKilled, days(40), days(40)),
		wf("parent-sub-W", "parent-W", store.JobSucceeded, days(41), days(41)),
		wf("parent2-W", "", store.JobSucceeded, days(40), days(40)),
		wf("parent2-sub-W", "parent2-W", store.JobRunning, time.Time{}, days(41)),
		wf("c1run-W", "c1-C@1", store.JobSucceeded, days(40), days(40)),
		wf("c2run-W", "c2-C@1", store.JobSucceeded, days(10), days(10)),
		wf("c3run1-W", "c3-C@1", store.JobSucceeded, days(40), days(40)),
		wf("c3run1-sub-W", "c3run1-W", store.JobSucceeded, days(40), days(40)),
		wf("c3run2-W", "c3-C@2", store.JobRunning, time.Time{}, days(1)),
		wf("c4run-W", "c4-C@1", store.JobSucceeded, days(40), days(40)),
		wf("c5run-W", "c5-C@1", store.JobSucceeded, days(40), days(40)),
	}
	coords := []*store.CoordJob{
		coord("c1-C", "", store.CoordSucceeded, days(10)),
		coord("c2-C", "", store.CoordDoneWithError, days(10)),
		coord("c3-C", "", store.CoordRunning, days(1)),
		coord("c4-C", "b1-B", store.CoordSucceeded, days(10)),
		coord("c5-C", "b2-B", store.CoordSucceeded, days(10)),
		coord("c6-C", "b2-B", store.CoordRunning, days(1)),
	}
	actions := []*store.CoordAction{
		action("c1-C@1", store.CoordActionSucceeded, "c1run-W"),
		action("c2-C@1", store.CoordActionSucceeded, "c2run-W"),
		action("c3-C@1", store.CoordActionSucceeded, "c3run1-W"),
		action("c3-C@2", store.CoordActionRunning, "c3run2-W"),
		action("c4-C@1", store.CoordActionSucceeded, "c4run-W"),
		action("c5-C@1", store.CoordActionSucceeded, "c5run-W"),
	}
	bundles := []*store.BundleJob{
		bundle("b1-B", store.BundleSucceeded, days(10)),
		bundle("b2-B", store.BundleSucceeded, days(10)),
	}
	mustUpdate(t, s, func(tx store.Tx) error {
		for _, j := range jobs {
			if err := tx.PutJob(ctx, j); err != nil {
				return err
			}
			if err := errors.Join(
				tx.PutAction(ctx, &store.Action{ID: j.ID + "@a", JobID: j.ID, Name: "a", Type: "fs", Status: store.ActionOK}),
				tx.AppendLog(ctx, &store.LogEntry{JobID: j.ID, Time: days(40), Level: "INFO", Message: "m"}),
				tx.AddEffect(ctx, &store.Effect{JobID: j.ID, Kind: store.EffectNotify}),
				tx.PutSLA(ctx, &store.SLA{ID: j.ID, AppType: "WORKFLOW_JOB", ExpectedDurationMs: -1, ActualDurationMs: -1}),
				tx.PutSLA(ctx, &store.SLA{ID: j.ID + "@a", AppType: "WORKFLOW_ACTION", ExpectedDurationMs: -1, ActualDurationMs: -1}),
			); err != nil {
				return err
			}
		}
		for _, c := range coords {
			if err := errors.Join(tx.PutCoordJob(ctx, c),
				tx.AppendLog(ctx, &store.LogEntry{JobID: c.ID, Time: days(40), Level: "INFO", Message: "m"}),
				tx.AddEffect(ctx, &store.Effect{JobID: c.ID, Kind: "coord-tick"})); err != nil {
				return err
			}
		}
		for _, a := range actions {
			if err := errors.Join(tx.PutCoordAction(ctx, a),
				tx.AppendLog(ctx, &store.LogEntry{JobID: a.JobID, ActionID: a.ID, Time: days(40), Level: "INFO", Message: "m"}),
				tx.PutSLA(ctx, &store.SLA{ID: a.ID, AppType: "COORDINATOR_ACTION", ExpectedDurationMs: -1, ActualDurationMs: -1})); err != nil {
				return err
			}
		}
		for _, b := range bundles {
			if err := errors.Join(tx.PutBundleJob(ctx, b),
				tx.PutBundleAction(ctx, &store.BundleAction{ID: b.ID + "_x", BundleID: b.ID, CoordName: "x"}),
				tx.AppendLog(ctx, &store.LogEntry{JobID: b.ID, Time: days(40), Level: "INFO", Message: "m"})); err != nil {
				return err
			}
		}
		return nil
	})
}

// purgeAll runs every step of a round in batches of r.Limit, as the
// purge service does.
func purgeAll(t *testing.T, p store.Purger, r store.PurgeRules, oldActions bool) store.PurgeCount {
	t.Helper()
	var total store.PurgeCount
	for _, step := range []store.PurgeStep{store.PurgeWorkflows, store.PurgeCoordActions, store.PurgeCoords, store.PurgeBundles} {
		if step == store.PurgeCoordActions && !oldActions {
			continue
		}
		for after, batches := "", 0; ; batches++ {
			n, next, err := p.PurgeBatch(ctx, step, r, after)
			if err != nil {
				t.Fatalf("PurgeBatch(%s, %q): %v", step, after, err)
			}
			total.Add(n)
			if next == "" {
				break
			}
			if next <= after || batches > 100 {
				t.Fatalf("PurgeBatch(%s): cursor %q after %q does not advance", step, next, after)
			}
			after = next
		}
	}
	return total
}

func testPurge(t *testing.T, s store.Store, oldActions bool) {
	purgeFixture(t, s)
	r := store.PurgeRules{WorkflowBefore: days(30), CoordBefore: days(7), BundleBefore: days(7), Limit: 2}
	got := purgeAll(t, s.(store.Purger), r, oldActions)

	// What goes, and why; everything else of the fixture stays.
	gone := map[string]string{
		"old-W":        "ended before the cut-off",
		"noend-W":      "no end time: last modified before the cut-off",
		"parent-W":     "ended, and so did its sub-workflow",
		"parent-sub-W": "goes with its parent",
		"c1-C":         "ended coordinator whose runs ended before the workflow cut-off",
		"c1-C@1":       "its action",
		"c1run-W":      "its action's run",
		"b1-B":         "ended bundle whose coordinators may go",
		"c4-C":         "goes with its bundle",
		"c4-C@1":       "its action",
		"c4run-W":      "its action's run",
	}
	if oldActions {
		gone["c3-C@1"] = "ended action of a running coordinator (purge.old.coord.action)"
		gone["c3run1-W"] = "its run"
		gone["c3run1-sub-W"] = "its run's sub-workflow"
		gone["c5-C@1"] = "ended action of a coordinator its bundle keeps (purge.old.coord.action)"
		gone["c5run-W"] = "its run"
	}
	kept := []string{"recent-W", "running-W", "parent2-W", "parent2-sub-W", "c2-C", "c2-C@1", "c2run-W",
		"c3-C", "c3-C@2", "c3run2-W", "b2-B", "c5-C", "c6-C"}
	if !oldActions {
		kept = append(kept, "c3-C@1", "c3run1-W", "c3run1-sub-W", "c5-C@1", "c5run-W")
	}
	for id, why := range gone {
		if exists(t, s, id) {
			t.Errorf("%s still there; it should go: %s", id, why)
		}
		checkNoRows(t, s, id)
	}
	for _, id := range kept {
		if !exists(t, s, id) {
			t.Errorf("%s was purged; it should stay", id)
		}
	}
	want := store.PurgeCount{Workflows: 6, CoordActions: 2, Coords: 2, Bundles: 1}
	if oldActions {
		want.Workflows += 3
		want.CoordActions += 2
	}
	if got.Rows == 0 {
		t.Errorf("PurgeCount.Rows = 0")
	}
	got.Rows = 0
	if got != want {
		t.Errorf("PurgeCount = %+v, want %+v", got, want)
	}
	// A second round finds nothing.
	if again := purgeAll(t, s.(store.Purger), r, oldActions); again != (store.PurgeCount{}) {
		t.Errorf("second round purged %+v", again)
	}
}

// exists reports whether a workflow, coordinator or bundle job, or a
// coordinator action, is in the store.
func exists(t *testing.T, s store.Store, id string) bool {
	t.Helper()
	var err error
	_ = s.View(ctx, func(tx store.Tx) error {
		switch {
		case len(id) > 2 && id[len(id)-2] == '@':
			_, err = tx.CoordAction(ctx, id)
		case id[len(id)-1] == 'C':
			_, err = tx.CoordJob(ctx, id)
		case id[len(id)-1] == 'B':
			_, err = tx.BundleJob(ctx, id)
		default:
			_, err = tx.Job(ctx, id)
		}
		return nil
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("%s: %v", id, err)
	}
	return err == nil
}

// checkNoRows fails when a purged job or action left a row behind: its
// records, log lines, effects, SLA records, bundle actions.
func checkNoRows(t *testing.T, s store.Store, id string) {
	t.Helper()
	var left []string
	err := s.View(ctx, func(tx store.Tx) error {
		if acts, err := tx.Actions(ctx, id); err != nil || len(acts) > 0 {
			left = append(left, fmt.Sprintf("actions %d %v", len(acts), err))
		}
		logs, err := tx.Logs(ctx, id, 0, 0)
		if err != nil {
			return err
		}
		for _, l := range logs {
			left = append(left, "log line of "+l.JobID+l.ActionID)
		}
		if len(id) > 2 && id[len(id)-2] == '@' {
			jobLogs, err := tx.Logs(ctx, id[:len(id)-2], 0, 0)
			if err != nil {
				return err
			}
			for _, l := range jobLogs {
				if l.ActionID == id {
					left = append(left, "log line of action "+id)
				}
			}
		}
		effs, err := tx.PendingEffects(ctx, id, 0)
		if err != nil {
			return err
		}
		if len(effs) > 0 {
			left = append(left, fmt.Sprintf("%d effects", len(effs)))
		}
		for _, sid := range []string{id, id + "@a"} {
			if _, err := tx.SLA(ctx, sid); !errors.Is(err, store.ErrNotFound) {
				left = append(left, "SLA record "+sid)
			}
		}
		bas, err := tx.BundleActions(ctx, id)
		if err != nil {
			return err
		}
		if len(bas) > 0 {
			left = append(left, fmt.Sprintf("%d bundle actions", len(bas)))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	sort.Strings(left)
	if len(left) > 0 {
		t.Errorf("purged %s left rows: %v", id, left)
	}
}
