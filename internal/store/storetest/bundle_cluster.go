package storetest

import (
	"errors"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// The bundle part of the cluster suite (RunCluster): a bundle job belongs
// to the instance that created it like any job, its commits are fenced,
// its effects are its owner's to perform, and take-overs and claims move
// it.

// putBundle creates a bundle job of the given status with one action
// through s.
func putBundle(t *testing.T, s store.Store, id, status string) {
	t.Helper()
	mustUpdate(t, s, func(tx store.Tx) error {
		j := sampleBundleJob(id)
		j.Status = status
		if err := tx.PutBundleJob(ctx, j); err != nil {
			return err
		}
		return tx.PutBundleAction(ctx, sampleBundleAction(id, "c1"))
	})
}

// testBundleOwnership: new bundle jobs belong to the registered instance,
// a replace keeps the owner, Owner answers for "-B" ids and CountOwned
// counts the unfinished bundles only.
func testBundleOwnership(t *testing.T, ss []store.Store) {
	a, b := register(t, ss[0], "a#1"), register(t, ss[1], "b#1")
	unfinished := []string{store.BundlePrep, store.BundleRunning, store.BundleRunningWithError,
		store.BundlePrepSuspended, store.BundleSuspended, store.BundleSuspendedWithError,
		store.BundlePrepPaused, store.BundlePaused, store.BundlePausedWithError}
	finished := []string{store.BundleSucceeded, store.BundleDoneWithError, store.BundleKilled, store.BundleFailed}
	for i, st := range append(append([]string{}, unfinished...), finished...) {
		putBundle(t, ss[0], string(rune('a'+i))+"-B", st)
	}
	putBundle(t, ss[1], "z-B", store.BundleRunning)
	for _, c := range []struct{ job, want string }{{"a-B", "a#1"}, {"m-B", "a#1"}, {"z-B", "b#1"}} {
		if got := ownerOf(t, b, c.job); got != c.want {
			t.Errorf("owner of %s = %q, want %q", c.job, got, c.want)
		}
	}
	putBundle(t, ss[0], "a-B", store.BundleSuspended)
	if got := ownerOf(t, b, "a-B"); got != "a#1" {
		t.Errorf("owner after replace = %q, want a#1", got)
	}
	if _, err := a.Owner(ctx, "nope-B"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Owner(missing bundle) = %v, want ErrNotFound", err)
	}
	for _, c := range []struct {
		id   string
		want int
	}{{"a#1", len(unfinished)}, {"b#1", 1}} {
		if n, err := a.CountOwned(ctx, c.id); err != nil || n != c.want {
			t.Errorf("CountOwned(%s) = %d, %v; want %d unfinished bundles", c.id, n, err, c.want)
		}
	}
}

// testBundleFencedWrites: every write to a bundle job of another instance
// fails its commit with ErrNotOwner (its row, its actions, its effects,
// its log lines), as testFencedWrites checks for the other jobs; an audit
// line passes.
func testBundleFencedWrites(t *testing.T, ss []store.Store) {
	register(t, ss[0], "a#1")
	register(t, ss[1], "b#1")
	putBundle(t, ss[0], "1-B", store.BundleRunning)
	var ef store.Effect
	mustUpdate(t, ss[0], func(tx store.Tx) error {
		ef = store.Effect{JobID: "1-B", Kind: "bundle-start"}
		return tx.AddEffect(ctx, &ef)
	})
	writes := []struct {
		name string
		fn   func(tx store.Tx) error
	}{
		{"PutBundleJob", func(tx store.Tx) error { return tx.PutBundleJob(ctx, sampleBundleJob("1-B")) }},
		{"PutBundleAction", func(tx store.Tx) error { return tx.PutBundleAction(ctx, sampleBundleAction("1-B", "c2")) }},
		{"AddEffect", func(tx store.Tx) error { return tx.AddEffect(ctx, &store.Effect{JobID: "1-B", Kind: "bundle-tick"}) }},
		{"QueueEffect", func(tx store.Tx) error {
			return tx.QueueEffect(ctx, &store.Effect{JobID: "1-B", Kind: "bundle-tick"})
		}},
		{"DoneEffect", func(tx store.Tx) error { return tx.DoneEffect(ctx, ef.ID) }},
		{"AppendLog", func(tx store.Tx) error {
			return tx.AppendLog(ctx, &store.LogEntry{JobID: "1-B", Time: at(1), Level: "INFO", Message: "m"})
		}},
	}
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			if err := ss[1].Update(ctx, w.fn); !errors.Is(err, store.ErrNotOwner) {
				t.Fatalf("write by another instance: %v, want ErrNotOwner", err)
			}
			// Followed by a read, so that a store holding writes back
			// sends them before the commit: still refused.
			err := ss[1].Update(ctx, func(tx store.Tx) error {
				if err := w.fn(tx); err != nil {
					return err
				}
				_, err := tx.BundleActions(ctx, "1-B")
				return err
			})
			if !errors.Is(err, store.ErrNotOwner) {
				t.Fatalf("write and read by another instance: %v, want ErrNotOwner", err)
			}
			if err := ss[0].Update(ctx, w.fn); err != nil {
				t.Fatalf("write by the owner: %v", err)
			}
		})
	}
	// Nothing of the refused transactions is there.
	var acts []*store.BundleAction
	var logs []*store.LogEntry
	err := ss[0].View(ctx, func(tx store.Tx) (err error) {
		if acts, err = tx.BundleActions(ctx, "1-B"); err != nil {
			return err
		}
		logs, err = tx.Logs(ctx, "1-B", 0, 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 2 || len(logs) != 1 {
		t.Errorf("%d actions and %d log lines, want 2 and 1 (the owner's)", len(acts), len(logs))
	}
	err = ss[1].Update(ctx, func(tx store.Tx) error {
		return tx.AppendLog(ctx, &store.LogEntry{JobID: "1-B", Time: at(2), Level: store.LevelAudit, Message: "refused"})
	})
	if err != nil {
		t.Errorf("audit line of a bundle by another instance: %v", err)
	}
}

// testBundleScans: the scan of pending effects lists the effects of the
// instance's own bundles, not another's.
func testBundleScans(t *testing.T, ss []store.Store) {
	register(t, ss[0], "a#1")
	register(t, ss[1], "b#1")
	for i, id := range []string{"1-B", "2-B"} {
		putBundle(t, ss[i], id, store.BundleRunning)
		mustUpdate(t, ss[i], func(tx store.Tx) error {
			return tx.AddEffect(ctx, &store.Effect{JobID: id, Kind: "bundle-tick"})
		})
	}
	for i, own := range []string{"1-B", "2-B"} {
		var es []*store.Effect
		if err := ss[i].View(ctx, func(tx store.Tx) (err error) { es, err = tx.PendingEffects(ctx, "", 0); return err }); err != nil {
			t.Fatal(err)
		}
		if len(es) != 1 || es[0].JobID != own {
			t.Errorf("store %d lists %d pending effects (%v), want its own bundle's one", i, len(es), es)
		}
	}
	// An unregistered store (one server) lists them all.
	var es []*store.Effect
	if err := ss[2].View(ctx, func(tx store.Tx) (err error) { es, err = tx.PendingEffects(ctx, "", 0); return err }); err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 {
		t.Errorf("unregistered store lists %d pending effects, want 2", len(es))
	}
}

// testBundleTakeOver: a take-over moves the dead instance's bundles, fences
// the old owner off, and fails its transaction under way.
func testBundleTakeOver(t *testing.T, ss []store.Store) {
	register(t, ss[0], "a#1")
	b := register(t, ss[1], "b#1")
	putBundle(t, ss[0], "1-B", store.BundleRunning)
	putBundle(t, ss[1], "2-B", store.BundleRunning)
	err := ss[0].Update(ctx, func(tx store.Tx) error {
		if err := tx.PutBundleAction(ctx, sampleBundleAction("1-B", "late")); err != nil {
			return err
		}
		seen, _ := beatOf(t, b, "a#1")
		moved, err := b.TakeOver(ctx, "b#1", "a#1", seen.Beat)
		if err != nil || !moved {
			t.Errorf("TakeOver during a's transaction = %v, %v", moved, err)
		}
		return nil
	})
	if !errors.Is(err, store.ErrNotOwner) {
		t.Fatalf("a's commit after the take-over: %v, want ErrNotOwner", err)
	}
	if _, err := getBundleAction(t, ss[1], "1-B_late"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the fenced transaction's action: %v, want ErrNotFound", err)
	}
	for _, job := range []string{"1-B", "2-B"} {
		if got := ownerOf(t, b, job); got != "b#1" {
			t.Errorf("owner of %s = %q, want b#1", job, got)
		}
	}
	if n, err := b.CountOwned(ctx, "b#1"); err != nil || n != 2 {
		t.Errorf("CountOwned(b#1) = %d, %v; want 2", n, err)
	}
	if err := ss[0].Update(ctx, func(tx store.Tx) error { return tx.PutBundleJob(ctx, sampleBundleJob("1-B")) }); !errors.Is(err, store.ErrNotOwner) {
		t.Errorf("write by the old owner: %v, want ErrNotOwner", err)
	}
	mustUpdate(t, ss[1], func(tx store.Tx) error { return tx.PutBundleAction(ctx, sampleBundleAction("1-B", "late")) })
}

// testBundleClaimUnowned: bundles of an unregistered server are claimed
// with the other jobs.
func testBundleClaimUnowned(t *testing.T, ss []store.Store) {
	putJobs(t, ss[2], "1-W", "2-C")
	putBundle(t, ss[2], "3-B", store.BundleRunning)
	b := register(t, ss[1], "b#1")
	if got := ownerOf(t, b, "3-B"); got != "" {
		t.Fatalf("owner of an unregistered store's bundle = %q", got)
	}
	if n, err := b.ClaimUnowned(ctx, "b#1"); err != nil || n != 3 {
		t.Fatalf("ClaimUnowned = %d, %v; want 3", n, err)
	}
	if got := ownerOf(t, b, "3-B"); got != "b#1" {
		t.Errorf("owner after claim = %q", got)
	}
}
