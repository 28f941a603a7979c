package storetest

import (
	"errors"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// takeOver has c take over instance dead at the beat c sees now.
func takeOver(t *testing.T, c store.Cluster, me, dead string) {
	t.Helper()
	seen, ok := beatOf(t, c, dead)
	if !ok {
		t.Fatalf("%s is not listed before its take-over", dead)
	}
	if moved, err := c.TakeOver(ctx, me, dead, seen.Beat); err != nil || !moved {
		t.Fatalf("TakeOver(%s, %s) = %v, %v; want true", me, dead, moved, err)
	}
}

// testHeirChain: b takes a over, then c takes b over. One hop names c as
// the owner of a's jobs: c's commits to them pass the fence, a's and b's
// fail, c's scans and counts include them, and a and b are no longer
// listed nor able to beat or create jobs.
func testHeirChain(t *testing.T, ss []store.Store) {
	a, b, c := register(t, ss[0], "a#1"), register(t, ss[1], "b#1"), register(t, ss[2], "c#1")
	putJobs(t, ss[0], "1-W", "2-C")
	mustUpdate(t, ss[0], func(tx store.Tx) error {
		act := sampleAction("1-W", "run")
		act.Status = store.ActionRunning
		if err := tx.PutAction(ctx, act); err != nil {
			return err
		}
		return tx.AddEffect(ctx, &store.Effect{JobID: "1-W", ActionID: "1-W@start", Kind: store.EffectStart})
	})
	takeOver(t, b, "b#1", "a#1")
	takeOver(t, c, "c#1", "b#1")

	for _, job := range []string{"1-W", "2-C"} {
		for i, cc := range []store.Cluster{a, b, c} {
			if got := ownerOf(t, cc, job); got != "c#1" {
				t.Errorf("store %d: owner of %s = %q, want c#1", i, job, got)
			}
		}
	}
	write := func(s store.Store, job string) error {
		return s.Update(ctx, func(tx store.Tx) error { return tx.PutAction(ctx, sampleAction(job, "w")) })
	}
	for _, w := range []struct {
		name  string
		s     store.Store
		job   string
		owner bool
	}{
		{"c on a's workflow", ss[2], "1-W", true},
		{"b on a's workflow", ss[1], "1-W", false},
		{"a on its workflow", ss[0], "1-W", false},
	} {
		err := write(w.s, w.job)
		if w.owner && err != nil {
			t.Errorf("%s: %v, want the commit to pass", w.name, err)
		}
		if !w.owner && !errors.Is(err, store.ErrNotOwner) {
			t.Errorf("%s: %v, want ErrNotOwner", w.name, err)
		}
	}
	// A taken-over instance creates no job either: it would belong to
	// nobody working.
	if err := ss[0].Update(ctx, func(tx store.Tx) error { return tx.PutJob(ctx, sampleJob("9-W")) }); !errors.Is(err, store.ErrNotOwner) {
		t.Errorf("new job by a taken-over instance: %v, want ErrNotOwner", err)
	}
	for i, s := range ss {
		var effects, running int
		err := s.View(ctx, func(tx store.Tx) error {
			es, err := tx.PendingEffects(ctx, "", 0)
			effects = len(es)
			if err != nil {
				return err
			}
			acts, err := tx.ActionsByStatus(ctx, store.ActionRunning)
			running = len(acts)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if i == 2 {
			want = 1
		}
		if effects != want || running != want {
			t.Errorf("store %d scans %d pending effects and %d running actions, want %d each", i, effects, running, want)
		}
	}
	for _, x := range []struct {
		id          string
		owned, host int
	}{{"c#1", 2, 2}, {"b#1", 0, 0}, {"a#1", 0, 0}} {
		if n, err := c.CountOwned(ctx, x.id); err != nil || n != x.owned {
			t.Errorf("CountOwned(%s) = %d, %v; want %d", x.id, n, err, x.owned)
		}
		if n, err := c.CountHostSteps(ctx, x.id); err != nil || n != x.host {
			t.Errorf("CountHostSteps(%s) = %d, %v; want %d", x.id, n, err, x.host)
		}
	}
	all, err := c.Servers(ctx)
	if err != nil || len(all) != 1 || all[0].ID != "c#1" {
		t.Errorf("Servers() = %v, %v; want c#1 alone", all, err)
	}
	for _, x := range []struct {
		c  store.Cluster
		id string
	}{{a, "a#1"}, {b, "b#1"}} {
		if err := x.c.Heartbeat(ctx, x.id, 0); !errors.Is(err, store.ErrNotOwner) {
			t.Errorf("heartbeat of taken-over %s: %v, want ErrNotOwner", x.id, err)
		}
		// Nor can anyone take it over again.
		if moved, err := c.TakeOver(ctx, "c#1", x.id, 1); err != nil || moved {
			t.Errorf("TakeOver of taken-over %s = %v, %v; want false", x.id, moved, err)
		}
	}
}

// testHeirTakesBack: an instance taken over whose server registers again
// (a new instance) owns nothing of its earlier jobs; a take-over of the
// heir by the new instance (a server restarted under the heir's name)
// hands them on in one hop.
func testHeirTakesBack(t *testing.T, ss []store.Store) {
	register(t, ss[0], "a#1")
	b := register(t, ss[1], "b#1")
	putJobs(t, ss[0], "1-W", "2-C")
	takeOver(t, b, "b#1", "a#1")
	b2 := register(t, ss[2], "b#2")
	takeOver(t, b2, "b#2", "b#1")
	if got := ownerOf(t, b2, "1-W"); got != "b#2" {
		t.Errorf("owner of a's job after b's restart = %q, want b#2", got)
	}
	mustUpdate(t, ss[2], func(tx store.Tx) error { return tx.PutAction(ctx, sampleAction("2-C", "w")) })
}
