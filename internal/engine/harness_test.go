package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/engine/enginetest"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// fakeClock is the hand-moved clock of package enginetest.
type fakeClock = enginetest.FakeClock

func newFakeClock() *fakeClock {
	return enginetest.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
}

// behaviour is what the test executor does for one node.
type behaviour struct {
	// startErrs are returned by the first Start calls, one each.
	startErrs []error
	// results are the outcomes of successive runs (attempts); the last
	// one repeats. Empty means OK.
	results []action.Result
	// async runs never finish by themselves: the test calls finish.
	async bool
	// killErr is returned by Kill.
	killErr error
}

// testExec is an executor driven by the test: per node behaviours, and a
// record of every call.
type testExec struct {
	mu       sync.Mutex
	behave   map[string]*behaviour
	starts   map[string]int
	runs     map[string]int // successful starts
	kills    map[string]int
	contexts map[string]*action.Context
	workDirs map[string][]string // WorkDir of every start, by node
	finished map[string]action.Result
}

func newTestExec() *testExec {
	return &testExec{
		behave: map[string]*behaviour{}, starts: map[string]int{}, runs: map[string]int{},
		kills: map[string]int{}, contexts: map[string]*action.Context{}, finished: map[string]action.Result{},
		workDirs: map[string][]string{},
	}
}

func (x *testExec) set(name string, b *behaviour) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.behave[name] = b
}

func (x *testExec) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	b := x.behave[a.Name]
	if b == nil {
		b = &behaviour{}
	}
	n := x.starts[a.Name]
	x.starts[a.Name]++
	x.workDirs[a.Name] = append(x.workDirs[a.Name], a.WorkDir)
	if n < len(b.startErrs) {
		return action.Result{}, b.startErrs[n]
	}
	run := x.runs[a.Name]
	x.runs[a.Name]++
	x.contexts[a.Name] = a
	ext := fmt.Sprintf("ext-%s-%d", a.Name, a.Attempt)
	if b.async {
		return action.Result{ExternalID: ext, ExternalStatus: "RUNNING"}, nil
	}
	res := action.Result{Done: true, Status: action.OK}
	if len(b.results) > 0 {
		res = b.results[min(run, len(b.results)-1)]
	}
	res.ExternalID = ext
	if res.ExternalStatus == "" {
		res.ExternalStatus = "SUCCEEDED"
		if res.Status == action.Error {
			res.ExternalStatus = "FAILED/KILLED"
		}
	}
	return res, nil
}

func (x *testExec) Check(ctx context.Context, a *action.Context, externalID string) (action.Result, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if res, ok := x.finished[a.Name]; ok {
		return res, nil
	}
	return action.Result{ExternalID: externalID, ExternalStatus: "RUNNING"}, nil
}

func (x *testExec) Kill(ctx context.Context, a *action.Context, externalID string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.kills[a.Name]++
	if b := x.behave[a.Name]; b != nil {
		return b.killErr
	}
	return nil
}

// finish completes an async node and notifies the engine.
func (x *testExec) finish(t *testing.T, name string, res action.Result) {
	t.Helper()
	x.mu.Lock()
	if !res.Done {
		res.Done = true
		if res.Status == "" {
			res.Status = action.OK
		}
	}
	x.finished[name] = res
	actx := x.contexts[name]
	x.mu.Unlock()
	if actx == nil {
		t.Fatalf("finish(%s): action never started", name)
	}
	actx.Notify()
}

func (x *testExec) count(m map[string]int, name string) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return m[name]
}

// harness is an engine on a fresh SQLite store with the test executor
// registered as type "test" (and "noop").
type harness struct {
	t     *testing.T
	e     *Engine
	store store.Store
	exec  *testExec
	clock *fakeClock
	dir   string
}

func newHarness(t *testing.T, configure ...func(*Options)) *harness {
	t.Helper()
	dir := t.TempDir()
	s, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	return newHarnessOn(t, s, dir, configure...)
}

// newHarnessOn is newHarness on a given store, closed with the engine.
func newHarnessOn(t *testing.T, s store.Store, dir string, configure ...func(*Options)) *harness {
	t.Helper()
	var err error
	h := &harness{t: t, store: s, exec: newTestExec(), clock: newFakeClock(), dir: dir}
	reg := action.NewRegistry()
	reg.Register("test", h.exec)
	reg.Register("noop", noop{})
	opts := Options{Store: s, Actions: reg, DataDir: dir, Clock: h.clock, PollInterval: 20 * time.Millisecond,
		DefaultUser: "tester", SystemID: "oozie-test", Logf: t.Logf,
		// As gozie server runs: every test performs its effects through
		// the crash journal.
		CrashJournal: filepath.Join(dir, "effects.journal")}
	for _, c := range configure {
		c(&opts)
	}
	h.e, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.e.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.e.Close()
		s.Close()
	})
	return h
}

// noop is an action type that succeeds at once; benchmarks measure the
// engine's own cost with it.
type noop struct{}

func (noop) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	return action.Result{ExternalID: a.ActionID, ExternalStatus: "SUCCEEDED", Done: true, Status: action.OK}, nil
}
func (noop) Check(ctx context.Context, a *action.Context, id string) (action.Result, error) {
	return action.Result{ExternalID: id, Done: true, Status: action.OK}, nil
}
func (noop) Kill(ctx context.Context, a *action.Context, id string) error { return nil }

// wf wraps node XML in a workflow-app of schema 1.0.
func wf(nodes string) string {
	return `<workflow-app xmlns="uri:oozie:workflow:1.0" name="test-wf">` + nodes + `</workflow-app>`
}

// testAction is an action node of type "test".
func testAction(name, ok, errTo string) string {
	return fmt.Sprintf(`<action name="%s"><test xmlns="uri:gozie:test:1.0"/><ok to="%s"/><error to="%s"/></action>`, name, ok, errTo)
}

// writeApp writes an application directory: workflow.xml plus files.
func (h *harness) writeApp(name, workflowXML string, files map[string]string) string {
	h.t.Helper()
	dir := filepath.Join(h.dir, "apps", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.t.Fatal(err)
	}
	all := map[string]string{"workflow.xml": workflowXML}
	for k, v := range files {
		all[k] = v
	}
	for k, v := range all {
		p := filepath.Join(dir, k)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			h.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			h.t.Fatal(err)
		}
	}
	return dir
}

func props(appPath string, kv ...string) *conf.Config {
	c := conf.New()
	c.Set(PropAppPath, appPath)
	for i := 0; i+1 < len(kv); i += 2 {
		c.Set(kv[i], kv[i+1])
	}
	return c
}

// run submits and starts a job, failing the test on refusal.
func (h *harness) run(p *conf.Config) string {
	h.t.Helper()
	id, err := h.e.Run(context.Background(), p)
	if err != nil {
		h.t.Fatalf("Run: %v", err)
	}
	return id
}

// wait waits (bounded) for a job to end.
func (h *harness) wait(id string) *store.Job {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	j, err := h.e.Wait(ctx, id)
	if err != nil {
		h.t.Fatalf("Wait(%s): %v; actions: %s", id, err, h.describe(id))
	}
	return j
}

// eventually polls cond until it holds or a deadline passes; used only to
// wait for the engine's own goroutines, never as a timing assumption.
func (h *harness) eventually(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (h *harness) job(id string) (*store.Job, map[string]*store.Action) {
	h.t.Helper()
	j, acts, err := h.e.Job(context.Background(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	m := map[string]*store.Action{}
	for _, a := range acts {
		m[a.Name] = a
	}
	return j, m
}

func (h *harness) status(id string) string {
	j, _ := h.job(id)
	return j.Status
}

func (h *harness) actionStatus(id, name string) string {
	_, m := h.job(id)
	if a := m[name]; a != nil {
		return a.Status
	}
	return ""
}

func (h *harness) describe(id string) string {
	_, acts, err := h.e.Job(context.Background(), id)
	if err != nil {
		return err.Error()
	}
	var parts []string
	for _, a := range acts {
		parts = append(parts, fmt.Sprintf("%s(%s %s %s %s)", a.Name, a.Type, a.Status, a.ErrorCode, a.ErrorMessage))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}
