package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// testWritesThenReads checks that a transaction reads its own writes
// whatever order it mixes them in (a store may hold writes back and send
// them together, as the PostgreSQL store does), and that the ids of
// queued effects and log lines are set when Update returns.
func testWritesThenReads(t *testing.T, s store.Store) {
	const job = "0000001-260102030405123-oozie-joe-W"
	var queued, added store.Effect
	var line store.LogEntry
	mustUpdate(t, s, func(tx store.Tx) error {
		if err := tx.PutJob(ctx, sampleJob(job)); err != nil {
			return err
		}
		a := sampleAction(job, "a")
		a.Seq = 7
		if err := tx.PutAction(ctx, a); err != nil {
			return err
		}
		queued = store.Effect{JobID: job, ActionID: job + "@a", Kind: store.EffectStart}
		if err := tx.QueueEffect(ctx, &queued); err != nil {
			return err
		}
		line = store.LogEntry{JobID: job, Time: at(1), Level: "INFO", Message: "hello"}
		if err := tx.AppendLog(ctx, &line); err != nil {
			return err
		}
		// Reads after the writes see them.
		if j, err := tx.Job(ctx, job); err != nil || j.Status != store.JobPrep {
			return fmt.Errorf("Job after PutJob = %v, %v", j, err)
		}
		acts, err := tx.Actions(ctx, job)
		if err != nil || len(acts) != 1 || acts[0].Seq != 7 {
			return fmt.Errorf("Actions after PutAction = %v, %v", acts, err)
		}
		pending, err := tx.PendingEffects(ctx, job, 0)
		if err != nil || len(pending) != 1 || pending[0].ID != queued.ID || queued.ID == 0 {
			return fmt.Errorf("PendingEffects after QueueEffect = %v, %v (queued id %d)", pending, err, queued.ID)
		}
		// AddEffect sets the id at once; a later DoneEffect and a read
		// see the effect gone.
		added = store.Effect{JobID: job, Kind: store.EffectSignal}
		if err := tx.AddEffect(ctx, &added); err != nil {
			return err
		}
		if added.ID == 0 {
			return fmt.Errorf("AddEffect left ID 0")
		}
		if err := tx.DoneEffect(ctx, queued.ID); err != nil {
			return err
		}
		pending, err = tx.PendingEffects(ctx, job, 0)
		if err != nil || len(pending) != 1 || pending[0].ID != added.ID {
			return fmt.Errorf("PendingEffects after DoneEffect = %v, %v", pending, err)
		}
		// More writes after the reads, committed with the rest.
		b := sampleAction(job, "b")
		b.Seq = 8
		return tx.PutAction(ctx, b)
	})
	if line.ID == 0 {
		t.Errorf("AppendLog: ID 0 after Update")
	}
	var acts []*store.Action
	var logs []*store.LogEntry
	err := s.View(ctx, func(tx store.Tx) (err error) {
		if acts, err = tx.Actions(ctx, job); err != nil {
			return err
		}
		logs, err = tx.Logs(ctx, job, 0, 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 2 || acts[1].Name != "b" {
		t.Errorf("actions after commit = %+v, want a and b", acts)
	}
	if len(logs) != 1 || logs[0].ID != line.ID {
		t.Errorf("logs after commit = %+v, want the line of id %d", logs, line.ID)
	}
}

// testFailedWriteRollsBack checks that a write the database refuses fails
// the Update, even when the store sends it only with the commit, and that
// nothing of the transaction remains: neither the writes before it nor
// those after it.
func testFailedWriteRollsBack(t *testing.T, s store.Store) {
	first := sampleJob("first")
	mustUpdate(t, s, func(tx store.Tx) error { return tx.PutJob(ctx, first) })
	tests := []struct {
		name string
		// read makes the transaction read after its writes.
		read bool
	}{
		{"writes only", false},
		{"write then read", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ef store.Effect
			err := s.Update(ctx, func(tx store.Tx) error {
				if err := tx.PutAction(ctx, sampleAction("first", "kept-out")); err != nil {
					return err
				}
				ef = store.Effect{JobID: "first", Kind: store.EffectSignal}
				if err := tx.QueueEffect(ctx, &ef); err != nil {
					return err
				}
				// Another job with the same user and external id: the
				// unique index refuses it.
				dup := sampleJob("dup")
				dup.ExternalID = first.ExternalID
				if err := tx.PutJob(ctx, dup); err != nil {
					return err
				}
				if tc.read {
					if _, err := tx.Job(ctx, "first"); err != nil {
						return err
					}
				}
				return tx.AppendLog(ctx, &store.LogEntry{JobID: "first", Time: at(2), Level: "INFO", Message: "never"})
			})
			if err == nil {
				t.Fatal("Update with a duplicate external id succeeded")
			}
			err = s.View(ctx, func(tx store.Tx) error {
				if _, err := tx.Action(ctx, "first@kept-out"); !errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("action of the failed transaction: %v", err)
				}
				if _, err := tx.Job(ctx, "dup"); !errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("job of the failed transaction: %v", err)
				}
				if es, err := tx.PendingEffects(ctx, "first", 0); err != nil || len(es) != 0 {
					return fmt.Errorf("effects of the failed transaction: %v %v", es, err)
				}
				if ls, err := tx.Logs(ctx, "first", 0, 0); err != nil || len(ls) != 0 {
					return fmt.Errorf("logs of the failed transaction: %v %v", ls, err)
				}
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	// The store still works after the failures (its connections are not
	// left inside a failed transaction).
	mustUpdate(t, s, func(tx store.Tx) error { return tx.PutAction(ctx, sampleAction("first", "after")) })
	var got *store.Action
	if err := s.View(ctx, func(tx store.Tx) (err error) { got, err = tx.Action(ctx, "first@after"); return err }); err != nil {
		t.Fatal(err)
	}
	want := sampleAction("first", "after")
	want.Seq = got.Seq
	if !reflect.DeepEqual(got, want) {
		t.Errorf("action after the failures:\n got %+v\nwant %+v", got, want)
	}
}
