package storetest

import (
	"errors"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// OpenShared opens n stores on one fresh, empty database: the servers of a
// cluster. The suite closes them.
type OpenShared func(t *testing.T, n int) []store.Store

// RunCluster runs the suite of store.Cluster: registration, ownership of
// new jobs, fenced commits, scans limited to owned jobs, heartbeats,
// take-over and its beat check, unowned jobs, shared secrets; the same for
// bundle jobs (bundle_cluster.go) and SLA records (sla_cluster.go).
func RunCluster(t *testing.T, open OpenShared) {
	tests := []struct {
		name string
		fn   func(t *testing.T, ss []store.Store)
	}{
		{"NewJobsBelongToRegistered", testOwnNewJobs},
		{"FencedWrites", testFencedWrites},
		{"AuditLinesUnfenced", testAuditUnfenced},
		{"ScansSeeOwnJobs", testOwnedScans},
		{"Heartbeat", testHeartbeat},
		{"WhereStepsAre", testWhereStepsAre},
		{"CountHostSteps", testCountHostSteps},
		{"TakeOver", testTakeOver},
		{"TakeOverBeforeCommit", testTakeOverBeforeCommit},
		{"HeirChain", testHeirChain},
		{"HeirTakesBack", testHeirTakesBack},
		{"ClaimUnowned", testClaimUnowned},
		{"BundleOwnership", testBundleOwnership},
		{"BundleFencedWrites", testBundleFencedWrites},
		{"BundleScans", testBundleScans},
		{"BundleTakeOver", testBundleTakeOver},
		{"BundleClaimUnowned", testBundleClaimUnowned},
		{"SLAOwnership", testSLAOwnership},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ss := open(t, 3)
			defer func() {
				for _, s := range ss {
					s.Close()
				}
			}()
			tc.fn(t, ss)
		})
	}
}

func cl(t *testing.T, s store.Store) store.Cluster {
	t.Helper()
	c, ok := s.(store.Cluster)
	if !ok {
		t.Fatalf("%T does not implement store.Cluster", s)
	}
	return c
}

// register registers s as instance id (name = id).
func register(t *testing.T, s store.Store, id string) store.Cluster {
	t.Helper()
	c := cl(t, s)
	if err := c.Register(ctx, store.ServerInfo{ID: id, Name: id, URL: "http://" + id + "/oozie", Started: at(0)}); err != nil {
		t.Fatalf("Register(%s): %v", id, err)
	}
	return c
}

func ownerOf(t *testing.T, c store.Cluster, job string) string {
	t.Helper()
	o, err := c.Owner(ctx, job)
	if err != nil {
		t.Fatalf("Owner(%s): %v", job, err)
	}
	return o
}

// putJobs creates a workflow job and a coordinator job through s.
func putJobs(t *testing.T, s store.Store, wf, coordID string) {
	t.Helper()
	mustUpdate(t, s, func(tx store.Tx) error {
		if err := tx.PutJob(ctx, sampleJob(wf)); err != nil {
			return err
		}
		return tx.PutCoordJob(ctx, &store.CoordJob{ID: coordID, Status: store.CoordRunning})
	})
}

func testOwnNewJobs(t *testing.T, ss []store.Store) {
	a, b := register(t, ss[0], "a#1"), register(t, ss[1], "b#1")
	putJobs(t, ss[0], "1-W", "2-C")
	putJobs(t, ss[1], "3-W", "4-C")
	for _, c := range []struct{ job, want string }{{"1-W", "a#1"}, {"2-C", "a#1"}, {"3-W", "b#1"}, {"4-C", "b#1"}} {
		if got := ownerOf(t, a, c.job); got != c.want {
			t.Errorf("owner of %s = %q, want %q", c.job, got, c.want)
		}
	}
	// Replacing a job keeps its owner, even through another registered
	// store whose commit is then refused.
	j := sampleJob("1-W")
	j.Status = store.JobRunning
	mustUpdate(t, ss[0], func(tx store.Tx) error { return tx.PutJob(ctx, j) })
	if got := ownerOf(t, b, "1-W"); got != "a#1" {
		t.Errorf("owner after replace = %q", got)
	}
	if _, err := b.Owner(ctx, "9-W"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Owner(missing) = %v, want ErrNotFound", err)
	}
}

func testFencedWrites(t *testing.T, ss []store.Store) {
	register(t, ss[0], "a#1")
	register(t, ss[1], "b#1")
	putJobs(t, ss[0], "1-W", "2-C")
	var ef store.Effect
	mustUpdate(t, ss[0], func(tx store.Tx) error {
		ef = store.Effect{JobID: "1-W", ActionID: "1-W@x", Kind: store.EffectStart}
		return tx.AddEffect(ctx, &ef)
	})
	writes := []struct {
		name string
		fn   func(tx store.Tx) error
	}{
		{"PutJob", func(tx store.Tx) error { return tx.PutJob(ctx, sampleJob("1-W")) }},
		{"PutAction", func(tx store.Tx) error { return tx.PutAction(ctx, sampleAction("1-W", "x")) }},
		{"DeleteAction", func(tx store.Tx) error { return tx.DeleteAction(ctx, "1-W@x") }},
		{"AddEffect", func(tx store.Tx) error {
			return tx.AddEffect(ctx, &store.Effect{JobID: "1-W", Kind: store.EffectSignal})
		}},
		{"QueueEffect", func(tx store.Tx) error {
			return tx.QueueEffect(ctx, &store.Effect{JobID: "1-W", Kind: store.EffectSignal})
		}},
		{"DoneEffect", func(tx store.Tx) error { return tx.DoneEffect(ctx, ef.ID) }},
		{"AppendLog", func(tx store.Tx) error {
			return tx.AppendLog(ctx, &store.LogEntry{JobID: "1-W", Time: at(1), Level: "INFO", Message: "m"})
		}},
		{"PutCoordJob", func(tx store.Tx) error {
			return tx.PutCoordJob(ctx, &store.CoordJob{ID: "2-C", Status: store.CoordKilled})
		}},
		{"PutCoordAction", func(tx store.Tx) error {
			return tx.PutCoordAction(ctx, &store.CoordAction{ID: "2-C@1", JobID: "2-C", Number: 1, Status: store.CoordActionReady})
		}},
		{"DeleteCoordAction", func(tx store.Tx) error { return tx.DeleteCoordAction(ctx, "2-C@1") }},
	}
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			err := ss[1].Update(ctx, w.fn)
			if !errors.Is(err, store.ErrNotOwner) {
				t.Fatalf("write by another instance: %v, want ErrNotOwner", err)
			}
			// The same write followed by a read, which makes a store
			// that holds writes back (PostgreSQL) send them before the
			// commit: still refused at the commit.
			err = ss[1].Update(ctx, func(tx store.Tx) error {
				if err := w.fn(tx); err != nil {
					return err
				}
				_, err := tx.PendingEffects(ctx, "1-W", 0)
				return err
			})
			if !errors.Is(err, store.ErrNotOwner) {
				t.Fatalf("write and read by another instance: %v, want ErrNotOwner", err)
			}
			// The owner's own write of the same kind commits.
			if err := ss[0].Update(ctx, w.fn); err != nil {
				t.Fatalf("write by the owner: %v", err)
			}
		})
	}
	// Nothing the refused transactions wrote is there: the effect marked
	// done by the owner only, no log line from b.
	var logs []*store.LogEntry
	if err := ss[0].View(ctx, func(tx store.Tx) (err error) { logs, err = tx.Logs(ctx, "1-W", 0, 0); return err }); err != nil {
		t.Fatal(err)
	}
	if len(logs) != 1 {
		t.Errorf("log lines = %d, want 1 (the owner's)", len(logs))
	}
}

// testAuditUnfenced: an audit line records a request a server answered
// about a job, not a change of the job, so any server may write one: the
// server that refused a command because the job's owner did not answer
// must be able to say so in the job's audit log. Other lines stay fenced
// (testFencedWrites).
func testAuditUnfenced(t *testing.T, ss []store.Store) {
	register(t, ss[0], "a#1")
	register(t, ss[1], "b#1")
	putJobs(t, ss[0], "1-W", "2-C")
	for _, job := range []string{"1-W", "2-C"} {
		err := ss[1].Update(ctx, func(tx store.Tx) error {
			return tx.AppendLog(ctx, &store.LogEntry{JobID: job, Time: at(1), Level: store.LevelAudit, Message: "refused"})
		})
		if err != nil {
			t.Fatalf("audit line of %s by another instance: %v", job, err)
		}
		var logs []*store.LogEntry
		if err := ss[0].View(ctx, func(tx store.Tx) (err error) { logs, err = tx.Logs(ctx, job, 0, 0); return err }); err != nil {
			t.Fatal(err)
		}
		if len(logs) != 1 || logs[0].Level != store.LevelAudit || logs[0].Message != "refused" {
			t.Errorf("log of %s = %+v, want the audit line", job, logs)
		}
	}
	// An audit line does not carry other writes past the fence.
	err := ss[1].Update(ctx, func(tx store.Tx) error {
		if err := tx.AppendLog(ctx, &store.LogEntry{JobID: "1-W", Time: at(2), Level: store.LevelAudit, Message: "m"}); err != nil {
			return err
		}
		return tx.PutJob(ctx, sampleJob("1-W"))
	})
	if !errors.Is(err, store.ErrNotOwner) {
		t.Errorf("audit line and a job write by another instance: %v, want ErrNotOwner", err)
	}
}

func testOwnedScans(t *testing.T, ss []store.Store) {
	register(t, ss[0], "a#1")
	register(t, ss[1], "b#1")
	for i, s := range ss[:2] {
		wf, co := []string{"1-W", "3-W"}[i], []string{"2-C", "4-C"}[i]
		putJobs(t, s, wf, co)
		mustUpdate(t, s, func(tx store.Tx) error {
			a := sampleAction(wf, "x")
			a.Status = store.ActionRunning
			if err := tx.PutAction(ctx, a); err != nil {
				return err
			}
			if err := tx.AddEffect(ctx, &store.Effect{JobID: wf, Kind: store.EffectSignal}); err != nil {
				return err
			}
			return tx.AddEffect(ctx, &store.Effect{JobID: co, Kind: "coord-tick"})
		})
	}
	for i, s := range ss[:2] {
		own := map[string]bool{[]string{"1-W", "3-W"}[i]: true, []string{"2-C", "4-C"}[i]: true}
		err := s.View(ctx, func(tx store.Tx) error {
			es, err := tx.PendingEffects(ctx, "", 0)
			if err != nil {
				return err
			}
			if len(es) != 2 {
				t.Errorf("store %d: %d pending effects, want its own 2", i, len(es))
			}
			for _, e := range es {
				if !own[e.JobID] {
					t.Errorf("store %d lists effect of %s", i, e.JobID)
				}
			}
			running, err := tx.ActionsByStatus(ctx, store.ActionRunning)
			if err != nil {
				return err
			}
			if len(running) != 1 || !own[running[0].JobID] {
				t.Errorf("store %d: running actions %v, want its own one", i, running)
			}
			// A named job's effects are listed whoever owns it.
			other := []string{"3-W", "1-W"}[i]
			es, err = tx.PendingEffects(ctx, other, 0)
			if len(es) != 1 {
				t.Errorf("store %d: PendingEffects(%s) = %d, want 1", i, other, len(es))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func beatOf(t *testing.T, c store.Cluster, id string) (store.ServerInfo, bool) {
	t.Helper()
	all, err := c.Servers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		if s.ID == id {
			return s, true
		}
	}
	return store.ServerInfo{}, false
}

func testHeartbeat(t *testing.T, ss []store.Store) {
	a := register(t, ss[0], "a#1")
	s0, ok := beatOf(t, a, "a#1")
	if !ok || s0.URL != "http://a#1/oozie" || s0.Name != "a#1" || !s0.Started.Equal(at(0)) {
		t.Fatalf("registered server = %+v (found %v)", s0, ok)
	}
	if err := a.Heartbeat(ctx, "a#1", 7); err != nil {
		t.Fatal(err)
	}
	s1, _ := beatOf(t, a, "a#1")
	if s1.Beat != s0.Beat+1 || s1.Load != 7 || s1.Heartbeat.Before(s0.Heartbeat) {
		t.Errorf("after a heartbeat: %+v, before %+v", s1, s0)
	}
	if err := a.Heartbeat(ctx, "nobody#1", 0); !errors.Is(err, store.ErrNotOwner) {
		t.Errorf("heartbeat of an unknown instance: %v, want ErrNotOwner", err)
	}
	putJobs(t, ss[0], "1-W", "2-C")
	mustUpdate(t, ss[0], func(tx store.Tx) error {
		j := sampleJob("5-W")
		j.Status = store.JobSucceeded
		return tx.PutJob(ctx, j)
	})
	if n, err := a.CountOwned(ctx, "a#1"); err != nil || n != 2 {
		t.Errorf("CountOwned = %d, %v; want 2 unfinished (a PREP workflow, a RUNNING coordinator)", n, err)
	}
}

// testWhereStepsAre: an instance registers its host, data directory and
// that directory's identity, and every server lists them.
func testWhereStepsAre(t *testing.T, ss []store.Store) {
	a := cl(t, ss[0])
	in := store.ServerInfo{ID: "a#1", Name: "a", Started: at(0), Host: "h1", DataDir: "/var/lib/gozie", DataID: "d1"}
	if err := a.Register(ctx, in); err != nil {
		t.Fatal(err)
	}
	register(t, ss[1], "b#1") // an instance that says nothing of it
	for i, s := range ss[:2] {
		got, ok := beatOf(t, cl(t, s), "a#1")
		if !ok || got.Host != "h1" || got.DataDir != "/var/lib/gozie" || got.DataID != "d1" {
			t.Errorf("store %d lists a as %+v", i, got)
		}
	}
	if got, _ := beatOf(t, a, "b#1"); got.Host != "" || got.DataDir != "" || got.DataID != "" {
		t.Errorf("b without a place: %+v", got)
	}
}

// testCountHostSteps: the steps only an instance's host can tell the
// outcome of are its jobs' pending starts and RUNNING steps, not
// sub-workflows, nor finished steps, done effects or other instances'.
func testCountHostSteps(t *testing.T, ss []store.Store) {
	register(t, ss[0], "a#1")
	b := register(t, ss[1], "b#1")
	putJobs(t, ss[0], "1-W", "2-C")
	putJobs(t, ss[1], "3-W", "4-C")
	var done store.Effect
	mustUpdate(t, ss[0], func(tx store.Tx) error {
		for _, x := range []struct{ name, typ, status string }{
			{"run", "shell", store.ActionRunning},
			{"sub", "sub-workflow", store.ActionRunning},
			{"start", "shell", store.ActionPrep},
			{"substart", "sub-workflow", store.ActionPrep},
			{"ended", "shell", store.ActionOK},
		} {
			act := sampleAction("1-W", x.name)
			act.Type, act.Status = x.typ, x.status
			if err := tx.PutAction(ctx, act); err != nil {
				return err
			}
		}
		for _, ef := range []*store.Effect{
			{JobID: "1-W", ActionID: "1-W@start", Kind: store.EffectStart},
			{JobID: "1-W", ActionID: "1-W@substart", Kind: store.EffectStart},
			{JobID: "1-W", ActionID: "1-W@gone", Kind: store.EffectStart}, // no record: counted
			{JobID: "1-W", ActionID: "1-W@run", Kind: store.EffectKill},
			{JobID: "2-C", Kind: "coord-tick"},
		} {
			if err := tx.AddEffect(ctx, ef); err != nil {
				return err
			}
		}
		done = store.Effect{JobID: "1-W", ActionID: "1-W@ended", Kind: store.EffectStart}
		return tx.AddEffect(ctx, &done)
	})
	mustUpdate(t, ss[0], func(tx store.Tx) error { return tx.DoneEffect(ctx, done.ID) })
	mustUpdate(t, ss[1], func(tx store.Tx) error {
		act := sampleAction("3-W", "run")
		act.Status = store.ActionRunning
		if err := tx.PutAction(ctx, act); err != nil {
			return err
		}
		return tx.AddEffect(ctx, &store.Effect{JobID: "3-W", ActionID: "3-W@run", Kind: store.EffectStart})
	})
	for _, c := range []struct {
		id   string
		want int
	}{{"a#1", 3}, {"b#1", 2}, {"nobody#1", 0}} {
		if n, err := b.CountHostSteps(ctx, c.id); err != nil || n != c.want {
			t.Errorf("CountHostSteps(%s) = %d, %v; want %d", c.id, n, err, c.want)
		}
	}
}

func testTakeOver(t *testing.T, ss []store.Store) {
	a, b := register(t, ss[0], "a#1"), register(t, ss[1], "b#1")
	putJobs(t, ss[0], "1-W", "2-C")
	seen, _ := beatOf(t, b, "a#1")
	if err := a.Heartbeat(ctx, "a#1", 0); err != nil {
		t.Fatal(err)
	}
	// a's beat moved since b looked: a is alive, nothing moves.
	moved, err := b.TakeOver(ctx, "b#1", "a#1", seen.Beat)
	if err != nil || moved {
		t.Fatalf("TakeOver with a stale beat = %v, %v; want false", moved, err)
	}
	if got := ownerOf(t, b, "1-W"); got != "a#1" {
		t.Fatalf("owner = %q after a refused take-over", got)
	}
	seen, _ = beatOf(t, b, "a#1")
	if moved, err = b.TakeOver(ctx, "b#1", "a#1", seen.Beat); err != nil || !moved {
		t.Fatalf("TakeOver = %v, %v; want true", moved, err)
	}
	for _, job := range []string{"1-W", "2-C"} {
		if got := ownerOf(t, b, job); got != "b#1" {
			t.Errorf("owner of %s = %q, want b#1", job, got)
		}
	}
	if _, ok := beatOf(t, b, "a#1"); ok {
		t.Error("the dead instance is still registered")
	}
	// The old owner is fenced off; its heartbeat says it lost its jobs.
	if err := a.Heartbeat(ctx, "a#1", 0); !errors.Is(err, store.ErrNotOwner) {
		t.Errorf("heartbeat of a taken-over instance: %v, want ErrNotOwner", err)
	}
	if err := ss[0].Update(ctx, func(tx store.Tx) error { return tx.PutAction(ctx, sampleAction("1-W", "x")) }); !errors.Is(err, store.ErrNotOwner) {
		t.Errorf("write by the old owner: %v, want ErrNotOwner", err)
	}
	mustUpdate(t, ss[1], func(tx store.Tx) error { return tx.PutAction(ctx, sampleAction("1-W", "x")) })
	// Taking over a missing instance moves nothing.
	if moved, err := b.TakeOver(ctx, "b#1", "a#1", seen.Beat); err != nil || moved {
		t.Errorf("second TakeOver = %v, %v; want false", moved, err)
	}
}

// testTakeOverBeforeCommit: a take-over that commits while a transaction of
// the old owner is under way (before its ownership check) fails that
// transaction; nothing of it is kept.
func testTakeOverBeforeCommit(t *testing.T, ss []store.Store) {
	register(t, ss[0], "a#1")
	b := register(t, ss[1], "b#1")
	putJobs(t, ss[0], "1-W", "2-C")
	err := ss[0].Update(ctx, func(tx store.Tx) error {
		if err := tx.PutAction(ctx, sampleAction("1-W", "late")); err != nil {
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
	err = ss[1].View(ctx, func(tx store.Tx) error {
		_, err := tx.Action(ctx, "1-W@late")
		return err
	})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the fenced transaction's action: %v, want ErrNotFound", err)
	}
}

func testClaimUnowned(t *testing.T, ss []store.Store) {
	// ss[2] is not registered: like a server of an older version, its
	// jobs have no owner and its writes are not fenced.
	putJobs(t, ss[2], "1-W", "2-C")
	b := register(t, ss[1], "b#1")
	if got := ownerOf(t, b, "1-W"); got != "" {
		t.Fatalf("owner of an unregistered store's job = %q", got)
	}
	n, err := b.ClaimUnowned(ctx, "b#1")
	if err != nil || n != 2 {
		t.Fatalf("ClaimUnowned = %d, %v; want 2", n, err)
	}
	if got := ownerOf(t, b, "2-C"); got != "b#1" {
		t.Errorf("owner after claim = %q", got)
	}
	if n, err := b.ClaimUnowned(ctx, "b#1"); err != nil || n != 0 {
		t.Errorf("second ClaimUnowned = %d, %v; want 0", n, err)
	}
}
