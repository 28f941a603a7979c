package purge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/postgres"
	"github.com/gozie/gozie/internal/store/sqlite"
	"github.com/gozie/gozie/internal/store/sqlstore"
	"github.com/gozie/gozie/internal/vocab"
)

// stallJobs is how many finished jobs TestPurgeStall purges.
const stallJobs = 100_000

// TestPurgeStall measures what a purge of 100,000 finished workflow jobs
// (each with 3 action records, 3 log lines and an SLA record, 800,000
// rows) costs the engine, on both stores: the engine runs workflows
// of 3 no-op actions, one after the other, for the whole purge, and
// every one of its commits is timed. The figures are logged (go test -v
// -run TestPurgeStall ./internal/purge/), never asserted: what is
// checked is that every old job went and every new one succeeded and
// stayed.
func TestPurgeStall(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: inserts and purges 800,000 rows per store")
	}
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			var s store.Store
			if backend == "sqlite" {
				var err error
				if s, err = sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "gozie.db")); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
			} else {
				s = postgres.OpenTest(t)
			}
			stall(t, s)
		})
	}
}

// timedStore times every Update (the engine's commits).
type timedStore struct {
	store.Store
	mu     sync.Mutex
	on     bool
	times  []commit
	before []time.Duration
}

// commit is one timed engine commit.
type commit struct {
	end time.Time
	d   time.Duration
}

func (s *timedStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	t0 := time.Now()
	err := s.Store.Update(ctx, fn)
	d := time.Since(t0)
	s.mu.Lock()
	if s.on {
		s.times = append(s.times, commit{t0.Add(d), d})
	} else {
		s.before = append(s.before, d)
	}
	s.mu.Unlock()
	return err
}

// timedPurger records when the round reclaims space, so that the
// commits waiting for the batches and for the reclaiming are told apart.
type timedPurger struct {
	store.Purger
	reclaimFrom time.Time
}

func (p *timedPurger) Reclaim(ctx context.Context) (int64, error) {
	p.reclaimFrom = time.Now()
	return p.Purger.Reclaim(ctx)
}

type noop struct{}

func (noop) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	return action.Result{ExternalID: a.ActionID, ExternalStatus: "SUCCEEDED", Done: true, Status: action.OK}, nil
}
func (noop) Check(ctx context.Context, a *action.Context, id string) (action.Result, error) {
	return action.Result{ExternalID: id, Done: true, Status: action.OK}, nil
}
func (noop) Kill(ctx context.Context, a *action.Context, id string) error { return nil }

func stall(t *testing.T, s store.Store) {
	ctx := context.Background()
	t0 := time.Now()
	insertFinished(t, s.(*sqlstore.DB), stallJobs)
	if s.(*sqlstore.DB).Dialect.Name == "postgres" {
		// Statistics, as autovacuum keeps them on a database that ran
		// 100,000 jobs: without them the planner takes an IN list of
		// 100 job ids for half the table and scans it (200 ms a batch
		// instead of 30).
		if _, err := s.(*sqlstore.DB).Write.Exec(`ANALYZE`); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("inserted %d finished jobs (%d rows) in %s", stallJobs, stallJobs*8, time.Since(t0).Round(time.Millisecond))

	dir := t.TempDir()
	ts := &timedStore{Store: s}
	reg := action.NewRegistry()
	reg.Register("noop", noop{})
	e, err := engine.New(engine.Options{Store: ts, Actions: reg, DataDir: dir, DefaultUser: "purge", Logf: t.Logf,
		PollInterval: 500 * time.Millisecond, StartSettle: engine.DefaultStartSettle})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	app := filepath.Join(dir, "app")
	var nodes strings.Builder
	for i := 1; i <= 3; i++ {
		next := fmt.Sprintf("a%d", i+1)
		if i == 3 {
			next = "end"
		}
		fmt.Fprintf(&nodes, `<action name="a%d"><n:noop/><ok to="%s"/><error to="fail"/></action>`, i, next)
	}
	xml := `<workflow-app xmlns="uri:oozie:workflow:1.0" xmlns:n="uri:gozie:noop:1.0" name="w"><start to="a1"/>` +
		nodes.String() + `<kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>`
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	runOne := func() (string, time.Duration, error) {
		c := conf.New()
		c.Set(vocab.PropAppPath, app)
		t0 := time.Now()
		id, err := e.Run(ctx, c)
		if err != nil {
			return "", 0, err
		}
		j, err := e.Wait(ctx, id)
		if err == nil && j.Status != store.JobSucceeded {
			err = fmt.Errorf("job %s %s", id, j.Status)
		}
		return id, time.Since(t0), err
	}
	// A baseline before the purge.
	var baseline []time.Duration
	for range 50 {
		_, d, err := runOne()
		if err != nil {
			t.Fatal(err)
		}
		baseline = append(baseline, d)
	}
	ts.mu.Lock()
	ts.on = true
	ts.mu.Unlock()

	done := make(chan struct{})
	var stopRuns atomic.Bool
	var ids []string
	var during []time.Duration
	var runErr error
	go func() {
		defer close(done)
		for !stopRuns.Load() {
			id, d, err := runOne()
			if err != nil {
				runErr = err
				return
			}
			ids = append(ids, id)
			during = append(during, d)
		}
	}()
	tp := &timedPurger{Purger: s.(store.Purger)}
	svc := New(tp, DefaultConfig, Options{})
	r, err := svc.Run(ctx, DefaultConfig)
	stopRuns.Store(true)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if runErr != nil {
		t.Fatal(runErr)
	}
	t.Logf("purge: %s", r)
	ts.mu.Lock()
	commits, before := slices.Clone(ts.times), slices.Clone(ts.before)
	ts.mu.Unlock()
	t.Logf("engine commits before the purge: %d, max %s, p99 %s", len(before), maxOf(before), p99(before))
	var batches, reclaiming []time.Duration
	for _, c := range commits {
		if !tp.reclaimFrom.IsZero() && c.end.After(tp.reclaimFrom) {
			reclaiming = append(reclaiming, c.d)
		} else {
			batches = append(batches, c.d)
		}
	}
	t.Logf("engine commits during the purge's batches: %d, max %s, p99 %s", len(batches), maxOf(batches), p99(batches))
	t.Logf("engine commits while it reclaims space: %d, max %s, p99 %s", len(reclaiming), maxOf(reclaiming), p99(reclaiming))
	t.Logf("workflows (3 actions) before the purge: %d, max %s, p99 %s", len(baseline), maxOf(baseline), p99(baseline))
	t.Logf("workflows (3 actions) during the purge: %d, max %s, p99 %s", len(during), maxOf(during), p99(during))

	if r.Workflows != stallJobs {
		t.Errorf("purged %d workflows, want %d", r.Workflows, stallJobs)
	}
	var left int
	if err := s.(*sqlstore.DB).Read.QueryRow(`SELECT COUNT(*) FROM wf_jobs WHERE id LIKE 'old-%'`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d old jobs left (%v)", left, err)
	}
	for _, table := range []string{"wf_actions", "job_logs", "sla"} {
		var n int
		if err := s.(*sqlstore.DB).Read.QueryRow(`SELECT COUNT(*) FROM ` + table + ` WHERE job_id LIKE 'old-%'`).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d rows of old jobs left (%v)", table, n, err)
		}
	}
	for _, id := range ids {
		j, _, err := e.Job(ctx, id)
		if err != nil || j == nil {
			t.Fatalf("new job %s: %v", id, err)
		}
	}
}

func maxOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return slices.Max(ds).Round(time.Microsecond)
}

func p99(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)*99/100].Round(time.Microsecond)
}

// insertFinished writes n workflow jobs that ended 40 days ago, each
// with 3 action records, 3 log lines and an SLA record, in multi-row
// INSERTs straight on the write pool.
func insertFinished(t *testing.T, db *sqlstore.DB, n int) {
	end := time.Now().Add(-40 * 24 * time.Hour).UnixMilli()
	conf := strings.Repeat("c", 512)
	const per = 200
	rebind := func(q string) string {
		if db.Dialect.Rebind != nil {
			return db.Dialect.Rebind(q)
		}
		return q
	}
	insert := func(table, cols string, width int, rows func(i int) [][]any) {
		for lo := 0; lo < n; lo += per {
			var ph []string
			var args []any
			for i := lo; i < min(lo+per, n); i++ {
				for _, r := range rows(i) {
					ph = append(ph, "("+strings.TrimSuffix(strings.Repeat("?,", width), ",")+")")
					args = append(args, r...)
				}
			}
			q := rebind(`INSERT INTO ` + table + ` (` + cols + `) VALUES ` + strings.Join(ph, ","))
			if _, err := db.Write.Exec(q, args...); err != nil {
				t.Fatalf("%s: %v", table, err)
			}
		}
	}
	id := func(i int) string { return fmt.Sprintf("old-%07d-W", i) }
	insert("wf_jobs", "id, status, conf, created_ms, end_ms, last_mod_ms", 6, func(i int) [][]any {
		return [][]any{{id(i), store.JobSucceeded, conf, end - 1000, end, end}}
	})
	insert("wf_actions", "id, job_id, name, type, seq, status, conf", 7, func(i int) [][]any {
		var out [][]any
		for k := 1; k <= 3; k++ {
			out = append(out, []any{fmt.Sprintf("%s@a%d", id(i), k), id(i), fmt.Sprintf("a%d", k), "shell", k, store.ActionOK, conf})
		}
		return out
	})
	insert("job_logs", "job_id, time_ms, level, message", 4, func(i int) [][]any {
		var out [][]any
		for k := 1; k <= 3; k++ {
			out = append(out, []any{id(i), end, "INFO", "action a" + fmt.Sprint(k) + " ended OK"})
		}
		return out
	})
	insert("sla", "id, job_id, app_type", 3, func(i int) [][]any {
		return [][]any{{id(i), id(i), "WORKFLOW_JOB"}}
	})
}
