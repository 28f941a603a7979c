package coordengine

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/postgres"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// traceStore records, per committed transaction, the workflow jobs and
// coordinator actions it wrote.
type traceStore struct {
	store.Store
	mu      sync.Mutex
	commits []traceCommit
}

type traceCommit struct {
	jobs    []store.Job // as written
	actions []store.CoordAction
}

type traceTx struct {
	store.Tx
	c *traceCommit
}

func (tx traceTx) PutJob(ctx context.Context, j *store.Job) error {
	tx.c.jobs = append(tx.c.jobs, *j)
	return tx.Tx.PutJob(ctx, j)
}

func (tx traceTx) PutCoordAction(ctx context.Context, a *store.CoordAction) error {
	tx.c.actions = append(tx.c.actions, *a)
	return tx.Tx.PutCoordAction(ctx, a)
}

func (s *traceStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	var c traceCommit
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		c = traceCommit{} // a retried transaction starts again
		return fn(traceTx{tx, &c})
	})
	if err == nil {
		s.mu.Lock()
		s.commits = append(s.commits, c)
		s.mu.Unlock()
	}
	return err
}

// launchCommits counts the transactions of the launch of coordinator
// action actionID: from the one that first writes its workflow to the one
// that records the action RUNNING, both included.
func (s *traceStore) launchCommits(actionID string) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := -1
	for i, c := range s.commits {
		for _, j := range c.jobs {
			if j.ParentID == actionID && first < 0 {
				first = i
			}
		}
		for _, a := range c.actions {
			if a.ID == actionID && a.Status == store.CoordActionRunning && first >= 0 {
				return i - first + 1, true
			}
		}
	}
	return 0, false
}

// TestCoordLaunchOneCommit: a coordinator action's launch (its workflow
// created and started, the action RUNNING) is one store transaction.
func TestCoordLaunchOneCommit(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "gozie.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		testCoordLaunchOneCommit(t, s)
	})
	t.Run("postgres", func(t *testing.T) { testCoordLaunchOneCommit(t, postgres.OpenTest(t)) })
}

func testCoordLaunchOneCommit(t *testing.T, s store.Store) {
	ts := &traceStore{Store: s}
	h := newCoordHarnessOn(t, ts, policyNow, Options{InputCheckInterval: time.Minute})
	for n := 0; n < 4; n++ {
		h.publish(policyNow.Add(time.Duration(n-3) * time.Hour))
	}
	id, err := h.e.Run(context.Background(), h.coordProps(holdWorkflow,
		"start", "2026-03-02T08:00Z", "end", "2026-03-02T09:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	h.advance(2*time.Minute, time.Minute, nil)
	acts := h.actions(id)
	if len(acts) != 1 || acts[0].Status != store.CoordActionRunning {
		t.Fatalf("%d actions (first %+v), want one RUNNING", len(acts), *acts[0])
	}
	n, ok := ts.launchCommits(acts[0].ID)
	if !ok {
		t.Fatal("no launch found in the transactions")
	}
	t.Logf("launch of %s: %d transaction(s)", acts[0].ID, n)
	if n != 1 {
		t.Errorf("launch took %d transactions, want 1", n)
	}
}
