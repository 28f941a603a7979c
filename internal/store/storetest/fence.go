package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// register registers instance id with a store that can be shared, or
// skips the test for one that cannot (SQLite).
func register(t *testing.T, s store.Store, id string) store.Cluster {
	t.Helper()
	c, ok := s.(store.Cluster)
	if !ok {
		t.Skip("the store is not shareable")
	}
	if err := c.Register(ctx, store.ServerInfo{ID: id, Name: id, Started: at(0)}); err != nil {
		t.Skipf("the store is not shareable: %v", err)
	}
	return c
}

// beat returns an instance's current beat.
func beat(t *testing.T, c store.Cluster, id string) int64 {
	t.Helper()
	servers, err := c.Servers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range servers {
		if s.ID == id {
			return s.Beat
		}
	}
	t.Fatalf("instance %s is not registered", id)
	return 0
}

// testFencedCommits checks the fencing of a registered store: a commit
// that writes to a job of another instance, by any kind of write, fails
// with ErrNotOwner and leaves nothing behind, including when the job was
// taken over during the transaction; writes to the instance's own jobs
// commit.
func testFencedCommits(t *testing.T, s store.Store) {
	const (
		wfJob    = "0000001-260102030405123-oozie-joe-W"
		coordJob = "0000002-260102030405123-oozie-joe-C"
	)
	c := register(t, s, "a#1")
	var oldEffect store.Effect
	mustUpdate(t, s, func(tx store.Tx) error {
		if err := tx.PutJob(ctx, sampleJob(wfJob)); err != nil {
			return err
		}
		if err := tx.PutCoordJob(ctx, sampleCoordJob(coordJob)); err != nil {
			return err
		}
		oldEffect = store.Effect{JobID: wfJob, Kind: store.EffectSignal}
		return tx.AddEffect(ctx, &oldEffect)
	})
	for _, id := range []string{wfJob, coordJob} {
		if owner, err := c.Owner(ctx, id); err != nil || owner != "a#1" {
			t.Fatalf("owner of new job %s = %q, %v; want a#1", id, owner, err)
		}
	}

	writes := []struct {
		name  string
		write func(tx store.Tx) error
	}{
		{"PutJob", func(tx store.Tx) error { return tx.PutJob(ctx, sampleJob(wfJob)) }},
		{"PutAction", func(tx store.Tx) error { return tx.PutAction(ctx, sampleAction(wfJob, "x")) }},
		{"DeleteAction", func(tx store.Tx) error { return tx.DeleteAction(ctx, wfJob+"@x") }},
		{"AddEffect", func(tx store.Tx) error {
			return tx.AddEffect(ctx, &store.Effect{JobID: wfJob, Kind: store.EffectSignal})
		}},
		{"QueueEffect", func(tx store.Tx) error {
			return tx.QueueEffect(ctx, &store.Effect{JobID: wfJob, Kind: store.EffectSignal})
		}},
		{"DoneEffect", func(tx store.Tx) error { return tx.DoneEffect(ctx, oldEffect.ID) }},
		{"AppendLog", func(tx store.Tx) error {
			return tx.AppendLog(ctx, &store.LogEntry{JobID: wfJob, Time: at(3), Level: "INFO", Message: "m"})
		}},
		{"PutCoordJob", func(tx store.Tx) error { return tx.PutCoordJob(ctx, sampleCoordJob(coordJob)) }},
		{"PutCoordAction", func(tx store.Tx) error {
			return tx.PutCoordAction(ctx, sampleCoordAction(coordJob, 1, "WAITING"))
		}},
	}
	// Each write, alone and then followed by a read (which sends queued
	// writes early on a store that holds them back).
	fenced := func(t *testing.T, want error) {
		t.Helper()
		for _, w := range writes {
			for _, read := range []bool{false, true} {
				err := s.Update(ctx, func(tx store.Tx) error {
					// A line of a job that does not exist (no owner to
					// check), written first: it must be rolled back
					// with the rest.
					if err := tx.AppendLog(ctx, &store.LogEntry{JobID: "marker", Time: at(4), Level: "INFO", Message: w.name}); err != nil {
						return err
					}
					if err := w.write(tx); err != nil {
						return err
					}
					if read {
						_, err := tx.PendingEffects(ctx, wfJob, 0)
						return err
					}
					return nil
				})
				if !errors.Is(err, want) && !(want == nil && err == nil) {
					t.Errorf("%s (read after: %v): Update = %v, want %v", w.name, read, err, want)
				}
			}
		}
	}
	// a#1's own jobs: every write commits.
	fenced(t, nil)
	mustUpdate(t, s, func(tx store.Tx) error {
		oldEffect = store.Effect{JobID: wfJob, Kind: store.EffectSignal}
		return tx.AddEffect(ctx, &oldEffect)
	})
	var logsBefore int
	countLogs := func() int {
		var n int
		if err := s.View(ctx, func(tx store.Tx) error {
			ls, err := tx.Logs(ctx, "marker", 0, 0)
			n = len(ls)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	logsBefore = countLogs()

	// The store now speaks for b#1: a#1's jobs are not its own.
	register(t, s, "b#1")
	fenced(t, store.ErrNotOwner)
	if n := countLogs(); n != logsBefore {
		t.Errorf("%d lines of refused transactions were committed", n-logsBefore)
	}
	var pending []*store.Effect
	if err := s.View(ctx, func(tx store.Tx) (err error) { pending, err = tx.PendingEffects(ctx, wfJob, 0); return err }); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(pending, func(e *store.Effect) bool { return e.ID == oldEffect.ID }) {
		t.Errorf("a refused DoneEffect deleted effect %d", oldEffect.ID)
	}

	// Taken over by b#1 (while the store speaks for b#1): every write
	// commits again.
	if moved, err := c.TakeOver(ctx, "b#1", "a#1", beat(t, c, "a#1")); err != nil || !moved {
		t.Fatalf("TakeOver = %v, %v", moved, err)
	}
	fenced(t, nil)

	// Taken over by c#1 in the middle of b#1's transaction, before the
	// transaction wrote to the job: the commit fails and leaves nothing.
	before := countLogs()
	err := s.Update(ctx, func(tx store.Tx) error {
		if err := tx.AppendLog(ctx, &store.LogEntry{JobID: "marker", Time: at(5), Level: "INFO", Message: "late"}); err != nil {
			return err
		}
		if moved, err := c.TakeOver(ctx, "c#1", "b#1", beat(t, c, "b#1")); err != nil || !moved {
			t.Errorf("TakeOver during the transaction = %v, %v", moved, err)
		}
		return tx.PutAction(ctx, sampleAction(wfJob, "late"))
	})
	if !errors.Is(err, store.ErrNotOwner) {
		t.Errorf("commit after a take-over = %v, want ErrNotOwner", err)
	}
	if n := countLogs(); n != before {
		t.Errorf("the transaction taken over committed %d lines", n-before)
	}
}
