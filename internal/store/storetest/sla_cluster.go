package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// The SLA part of the cluster suite (RunCluster): a record belongs with
// the job owning its entity (the workflow job of a workflow action, the
// coordinator job of a coordinator action), so only that job's instance
// may write it and only that instance's calculator scans it.

// putSLAJobs creates, through s, a workflow job wf with an action "a" and
// a coordinator job coordID with action 1, and a due record for each of
// the three.
func putSLAJobs(t *testing.T, s store.Store, wf, coordID string) {
	t.Helper()
	putJobs(t, s, wf, coordID)
	mustUpdate(t, s, func(tx store.Tx) error {
		if err := tx.PutAction(ctx, sampleAction(wf, "a")); err != nil {
			return err
		}
		return tx.PutCoordAction(ctx, sampleCoordAction(coordID, 1, store.CoordActionRunning))
	})
	putSLAs(t, s,
		dueSLA(wf, "WORKFLOW_JOB", store.JobPrep, at(10)),
		dueSLA(wf+"@a", "WORKFLOW_ACTION", store.ActionPrep, at(20)),
		dueSLA(coordID+"@1", "COORDINATOR_ACTION", store.CoordActionRunning, at(30)))
}

// testSLAOwnership: DueSLAs lists the records of the instance's own jobs
// (an unregistered store all of them), and a write of a record of
// another instance's job fails its commit with ErrNotOwner, whichever
// kind of entity it tracks.
func testSLAOwnership(t *testing.T, ss []store.Store) {
	register(t, ss[0], "a#1")
	register(t, ss[1], "b#1")
	putSLAJobs(t, ss[0], "1-W", "2-C")
	putSLAJobs(t, ss[1], "3-W", "4-C")
	for _, c := range []struct {
		s    store.Store
		want []string
	}{
		{ss[0], []string{"1-W", "1-W@a", "2-C@1"}},
		{ss[1], []string{"3-W", "3-W@a", "4-C@1"}},
		{ss[2], []string{"1-W", "3-W", "1-W@a", "3-W@a", "2-C@1", "4-C@1"}},
	} {
		if got := dueIDs(t, c.s, at(100), 0); !slices.Equal(got, c.want) {
			t.Errorf("DueSLAs = %v, want %v", got, c.want)
		}
	}
	// A status change is seen by the owner's scan only.
	mustUpdate(t, ss[1], func(tx store.Tx) error {
		return tx.PutCoordAction(ctx, sampleCoordAction("4-C", 1, store.CoordActionSucceeded))
	})
	if got := dueIDs(t, ss[0], at(0), 0); len(got) != 0 {
		t.Errorf("a#1 sees b#1's changed record: %v", got)
	}
	if got := dueIDs(t, ss[1], at(0), 0); !slices.Equal(got, []string{"4-C@1"}) {
		t.Errorf("b#1's changed records = %v, want [4-C@1]", got)
	}
	for _, id := range []struct{ id, typ string }{{"1-W", "WORKFLOW_JOB"}, {"1-W@a", "WORKFLOW_ACTION"}, {"2-C@1", "COORDINATOR_ACTION"}} {
		err := ss[1].Update(ctx, func(tx store.Tx) error { return tx.PutSLA(ctx, dueSLA(id.id, id.typ, "DONE", at(1))) })
		if !errors.Is(err, store.ErrNotOwner) {
			t.Errorf("b#1 writes the record of %s: err = %v, want ErrNotOwner", id.id, err)
		}
		if r, err := getSLA(t, ss[2], id.id); err != nil || r.JobStatus == "DONE" {
			t.Errorf("record of %s after the refused write: %+v, %v", id.id, r, err)
		}
	}
	// The owner's own writes pass.
	mustUpdate(t, ss[0], func(tx store.Tx) error { return tx.PutSLA(ctx, dueSLA("2-C@1", "COORDINATOR_ACTION", "DONE", at(1))) })
}
