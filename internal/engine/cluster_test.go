package engine

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/postgres"
)

// clusterHarness is an engine on one of several stores sharing a
// PostgreSQL schema, registered as server instance id: a server of a
// cluster, with a test executor of its own.
func clusterHarness(t *testing.T, dsn, id string, configure ...func(*Options)) *harness {
	t.Helper()
	s, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.(store.Cluster).Register(context.Background(), store.ServerInfo{ID: id, Name: id}); err != nil {
		t.Fatal(err)
	}
	return newHarnessOn(t, s, t.TempDir(), configure...)
}

// takeOver moves every job of instance dead to the harness's instance me,
// as package cluster does once dead's heartbeats stopped, and lets the
// engine take them up.
func (h *harness) takeOver(me, dead string) {
	h.t.Helper()
	c := h.store.(store.Cluster)
	all, err := c.Servers(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	for _, s := range all {
		if s.ID != dead {
			continue
		}
		moved, err := c.TakeOver(context.Background(), me, dead, s.Beat)
		if err != nil || !moved {
			h.t.Fatalf("TakeOver(%s) = %v, %v", dead, moved, err)
		}
	}
	if err := h.e.Adopt(context.Background()); err != nil {
		h.t.Fatal(err)
	}
}

// TestClusterTakeOverPausedServer: server a runs a job's first step; b takes
// a's jobs over while a is alive but cut off (paused). When a's step ends,
// a's commit is refused, so a never starts the next step; b checks the
// step, sees it end and runs the rest: every step starts exactly once.
func TestClusterTakeOverPausedServer(t *testing.T) {
	dsn := postgres.TestDSN(t)
	a := clusterHarness(t, dsn, "a#1")
	b := clusterHarness(t, dsn, "b#1")
	a.exec.set("s1", &behaviour{async: true})
	app := a.writeApp("two", wf(`<start to="s1"/>`+testAction("s1", "s2", "fail")+testAction("s2", "end", "fail")+
		`<kill name="fail"><message>failed</message></kill><end name="end"/>`), nil)
	id := a.run(props(app))
	a.eventually("s1 running on a", func() bool { return a.actionStatus(id, "s1") == store.ActionRunning })

	b.exec.set("s1", &behaviour{async: true})
	b.takeOver("b#1", "a#1")
	// a's step ends; a is told first, as the launcher on its host would.
	a.exec.finish(t, "s1", action.Result{Status: action.OK})
	a.eventually("a refused", func() bool { return a.exec.count(a.exec.kills, "s1") == 0 && a.status(id) == store.JobRunning })
	// b sees the same outcome when it checks (on one host it reads the
	// same work directory).
	b.exec.mu.Lock()
	b.exec.finished["s1"] = action.Result{Done: true, Status: action.OK}
	b.exec.mu.Unlock()
	if j := b.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("job %s on b: %s; %s", id, j.Status, b.describe(id))
	}
	if n := a.exec.count(a.exec.starts, "s2"); n != 0 {
		t.Errorf("the paused server started s2 %d time(s) after losing the job", n)
	}
	if n := b.exec.count(b.exec.starts, "s2"); n != 1 {
		t.Errorf("b started s2 %d times, want 1", n)
	}
	if n := b.exec.count(b.exec.starts, "s1"); n != 0 {
		t.Errorf("b started s1 again %d time(s); it should have re-attached", n)
	}
}

// TestClusterTakeOverDeadServer: a server stops (its engine gone) with one
// path of a fork running and the other's start failed transiently, its
// retry (START_RETRY) pending on the dead server's clock; the server taking
// over re-attaches to the first and performs the pending retry.
func TestClusterTakeOverDeadServer(t *testing.T) {
	dsn := postgres.TestDSN(t)
	a := clusterHarness(t, dsn, "a#1")
	a.exec.set("p1", &behaviour{async: true})
	a.exec.set("p2", &behaviour{startErrs: []error{action.Errorf(action.Transient, "JA009", "no room")}})
	app := a.writeApp("fork", wf(`<start to="f"/><fork name="f"><path start="p1"/><path start="p2"/></fork>`+
		testAction("p1", "j", "fail")+testAction("p2", "j", "fail")+`<join name="j" to="end"/>`+
		`<kill name="fail"><message>failed</message></kill><end name="end"/>`), nil)
	id := a.run(props(app))
	a.eventually("p1 running, p2 to be retried", func() bool {
		return a.actionStatus(id, "p1") == store.ActionRunning && a.actionStatus(id, "p2") == store.ActionStartRetry
	})
	a.e.Close()

	b := clusterHarness(t, dsn, "b#1")
	b.exec.mu.Lock()
	b.exec.finished["p1"] = action.Result{Done: true, Status: action.OK}
	b.exec.mu.Unlock()
	b.takeOver("b#1", "a#1")
	b.eventually("the retry on b's clock", func() bool { return b.clock.Pending() > 0 })
	b.clock.Advance(time.Minute)
	if j := b.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("job on b: %s; %s", j.Status, b.describe(id))
	}
	if n := b.exec.count(b.exec.starts, "p1"); n != 0 {
		t.Errorf("b started p1 %d time(s); it should have re-attached", n)
	}
	if n := b.exec.count(b.exec.starts, "p2"); n != 1 {
		t.Errorf("b started p2 %d time(s), want the one retry", n)
	}
}

// TestLeaseExpiredDelaysStart: an engine whose lease is not current
// starts no action; the start happens once the lease is renewed.
func TestLeaseExpiredDelaysStart(t *testing.T) {
	var valid atomic.Bool
	h := newHarness(t, func(o *Options) { o.LeaseValid = valid.Load })
	app := h.writeApp("one", wf(`<start to="s1"/>`+testAction("s1", "end", "fail")+
		`<kill name="fail"><message>failed</message></kill><end name="end"/>`), nil)
	id := h.run(props(app))
	h.eventually("a retry of the start on the clock", func() bool { return h.clock.Pending() > 0 })
	if n := h.exec.count(h.exec.starts, "s1"); n != 0 {
		t.Fatalf("started %d time(s) without a lease", n)
	}
	valid.Store(true)
	h.clock.Advance(time.Minute)
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("job: %s; %s", j.Status, h.describe(id))
	}
	if n := h.exec.count(h.exec.starts, "s1"); n != 1 {
		t.Errorf("s1 started %d times, want 1", n)
	}
}
