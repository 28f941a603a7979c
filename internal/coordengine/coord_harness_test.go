package coordengine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	fsaction "github.com/gozie/gozie/internal/action/fs"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/engine/enginetest"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/postgres"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// holdExec is an action type whose runs last until the test finishes them,
// by workflow job id: it keeps coordinator actions RUNNING for as long as a
// test needs to look at concurrency, suspend and kill.
type holdExec struct {
	mu       sync.Mutex
	contexts map[string]*action.Context // by workflow job id
	done     map[string]bool
	killed   map[string]int
	starts   map[string]int
}

func newHoldExec() *holdExec {
	return &holdExec{contexts: map[string]*action.Context{}, done: map[string]bool{}, killed: map[string]int{}, starts: map[string]int{}}
}

func (x *holdExec) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.contexts[a.JobID] = a
	x.starts[a.JobID]++
	return action.Result{ExternalID: "hold-" + a.JobID, ExternalStatus: "RUNNING"}, nil
}

func (x *holdExec) Check(ctx context.Context, a *action.Context, id string) (action.Result, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	// After a restart the new engine's context is the one to notify.
	x.contexts[a.JobID] = a
	if x.done[a.JobID] {
		return action.Result{ExternalID: id, ExternalStatus: "SUCCEEDED", Done: true, Status: action.OK}, nil
	}
	return action.Result{ExternalID: id, ExternalStatus: "RUNNING"}, nil
}

func (x *holdExec) Kill(ctx context.Context, a *action.Context, id string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.killed[a.JobID]++
	return nil
}

// finish lets the held action of a workflow job succeed.
func (x *holdExec) finish(wfID string) {
	x.mu.Lock()
	x.done[wfID] = true
	a := x.contexts[wfID]
	x.mu.Unlock()
	if a != nil && a.Notify != nil {
		a.Notify()
	}
}

// coordHarness runs coordinator jobs on a SQLite store with a fake clock;
// restart replaces the engine by a new one on the same store, as a server
// restart does.
type coordHarness struct {
	t     testing.TB
	dir   string
	store store.Store
	clock *fakeClock
	hold  *holdExec
	opts  Options
	e     *engines
	// engineOpts, when set, changes the workflow engine's options at the
	// next (re)start.
	engineOpts func(*engine.Options)
}

// harnessFactory makes a coordinator harness on some store.
type harnessFactory func(t testing.TB, now time.Time, opts Options) *coordHarness

// newCoordHarness is a harness on a fresh SQLite database.
func newCoordHarness(t testing.TB, now time.Time, opts Options) *coordHarness {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return newCoordHarnessOn(t, s, now, opts)
}

// newPostgresCoordHarness is a harness on a schema of its own on the test
// PostgreSQL server (skipped without one).
func newPostgresCoordHarness(t testing.TB, now time.Time, opts Options) *coordHarness {
	t.Helper()
	return newCoordHarnessOn(t, postgres.OpenTest(t), now, opts)
}

func newCoordHarnessOn(t testing.TB, s store.Store, now time.Time, opts Options) *coordHarness {
	t.Helper()
	clock := newFakeClock()
	clock.Set(now)
	h := &coordHarness{t: t, dir: t.TempDir(), store: s, clock: clock, hold: newHoldExec(), opts: opts}
	h.startEngine()
	t.Cleanup(func() { h.e.Close() })
	return h
}

func (h *coordHarness) startEngine() {
	h.t.Helper()
	reg := action.NewRegistry()
	reg.Register("fs", fsaction.NewFS())
	reg.Register("hold", h.hold)
	wfOpts := engine.Options{Store: h.store, Actions: reg, DataDir: h.dir, Clock: h.clock,
		PollInterval: time.Hour, DefaultUser: "tester", SystemID: "oozie-test", Logf: h.t.Logf,
		CrashJournal: filepath.Join(h.dir, "effects.journal")}
	if h.engineOpts != nil {
		h.engineOpts(&wfOpts)
	}
	e, err := newEngines(wfOpts, h.opts)
	if err != nil {
		h.t.Fatal(err)
	}
	if err := e.Start(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	h.e = e
}

// restart closes the engine and starts a new one on the same store.
func (h *coordHarness) restart() {
	h.t.Helper()
	h.settle()
	h.e.Close()
	h.startEngine()
	h.settle()
}

// settle waits until no effect is due (enginetest.Settle).
func (h *coordHarness) settle() {
	h.t.Helper()
	enginetest.Settle(h.t, h.store, h.clock.Now)
}

// advance moves the fake clock in steps of at most step, settling after
// each, and calls each (if set) at every step.
func (h *coordHarness) advance(d, step time.Duration, each func()) {
	h.t.Helper()
	for d > 0 {
		s := min(d, step)
		h.clock.Advance(s)
		d -= s
		h.settle()
		if each != nil {
			each()
		}
	}
}

// writeFiles writes files (relative path -> content) under dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fsWorkflow is a one-action workflow: mkdir ${outDir}.
const fsWorkflow = `<workflow-app name="fs-wf" xmlns="uri:oozie:workflow:0.5">
  <start to="mk"/>
  <action name="mk"><fs><mkdir path="${outDir}"/></fs><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>mkdir failed</message></kill>
  <end name="end"/>
</workflow-app>`

// holdWorkflow is a one-action workflow that runs until the test says.
const holdWorkflow = `<workflow-app name="hold-wf" xmlns="uri:oozie:workflow:0.5">
  <start to="h"/>
  <action name="h"><hold xmlns="uri:gozie:test:1.0"/><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>hold failed</message></kill>
  <end name="end"/>
</workflow-app>`

// hourlyCoord is an hourly coordinator reading one instance of an hourly
// dataset under ${dataRoot} (done flag _SUCCESS) per action.
const hourlyCoord = `<coordinator-app name="hourly" frequency="${coord:hours(1)}" start="${start}" end="${end}"
    timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <controls>
    <timeout>${timeout}</timeout>
    <concurrency>${concurrency}</concurrency>
    <execution>${execution}</execution>
    <throttle>${throttle}</throttle>
  </controls>
  <datasets>
    <dataset name="logs" frequency="${coord:hours(1)}" initial-instance="2026-01-01T00:00Z" timezone="UTC">
      <uri-template>file://${dataRoot}/${YEAR}${MONTH}${DAY}${HOUR}</uri-template>
      <done-flag>_SUCCESS</done-flag>
    </dataset>
  </datasets>
  <input-events>
    <data-in name="in" dataset="logs"><instance>${coord:current(0)}</instance></data-in>
  </input-events>
  <action>
    <workflow>
      <app-path>${wfApp}</app-path>
      <configuration>
        <property><name>outDir</name><value>${coord:dataIn('in')}/processed</value></property>
      </configuration>
    </workflow>
  </action>
</coordinator-app>`

// coordProps writes the coordinator and workflow apps and returns the job
// properties; kv overrides the defaults.
func (h *coordHarness) coordProps(wfXML string, kv ...string) *conf.Config {
	h.t.Helper()
	writeFiles(h.t, filepath.Join(h.dir, "apps"), map[string]string{
		"coord/coordinator.xml": hourlyCoord,
		"wf/workflow.xml":       wfXML,
	})
	c := conf.New()
	for _, p := range [][2]string{
		{engine.PropCoordAppPath, "file://" + filepath.Join(h.dir, "apps", "coord")},
		{"wfApp", "file://" + filepath.Join(h.dir, "apps", "wf")},
		{"dataRoot", filepath.Join(h.dir, "data")},
		{"timeout", "-1"}, {"concurrency", "1"}, {"execution", "FIFO"}, {"throttle", "12"},
		{engine.PropUser, "tester"},
	} {
		c.Set(p[0], p[1])
	}
	for i := 0; i+1 < len(kv); i += 2 {
		c.Set(kv[i], kv[i+1])
	}
	return c
}

// dataDir is the directory of the dataset instance at t.
func (h *coordHarness) dataDir(t time.Time) string {
	return filepath.Join(h.dir, "data", t.UTC().Format("2006010215"))
}

// publish makes the dataset instance at t available (its done flag).
func (h *coordHarness) publish(t time.Time) {
	writeFiles(h.t, h.dataDir(t), map[string]string{"_SUCCESS": ""})
}

func (h *coordHarness) coordJob(id string) *store.CoordJob {
	h.t.Helper()
	j, err := h.e.CoordJob(context.Background(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	return j
}

func (h *coordHarness) actions(id string) []*store.CoordAction {
	h.t.Helper()
	acts, err := h.e.coordActions(context.Background(), id, store.CoordActionFilter{})
	if err != nil {
		h.t.Fatal(err)
	}
	return acts
}

// countByStatus counts a job's actions by status.
func (h *coordHarness) countByStatus(id string) map[string]int {
	out := map[string]int{}
	for _, a := range h.actions(id) {
		out[a.Status]++
	}
	return out
}

// histories rebuilds every action's status sequence from the job log,
// where each transition is written in the transaction that makes it.
func (h *coordHarness) histories(id string) map[int][]string {
	h.t.Helper()
	var logs []*store.LogEntry
	err := h.store.View(context.Background(), func(tx store.Tx) (err error) {
		logs, err = tx.Logs(context.Background(), id, 0, 0)
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[int][]string{}
	for _, l := range logs {
		_, num, ok := strings.Cut(l.ActionID, "@")
		if !ok || !strings.HasPrefix(l.Message, "status ") {
			continue
		}
		var n int
		fmt.Sscan(num, &n)
		msg := strings.TrimPrefix(l.Message, "status ")
		msg, _, _ = strings.Cut(msg, ",")
		_, to, _ := strings.Cut(msg, "-> ")
		out[n] = append(out[n], strings.TrimSpace(to))
	}
	return out
}

// workflowsByParent lists the workflow jobs launched per coordinator
// action id.
func (h *coordHarness) workflowsByParent() map[string][]*store.Job {
	h.t.Helper()
	out := map[string][]*store.Job{}
	err := h.store.View(context.Background(), func(tx store.Tx) error {
		jobs, err := tx.Jobs(context.Background(), store.JobFilter{})
		for _, j := range jobs {
			out[j.ParentID] = append(out[j.ParentID], j)
		}
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

func statDir(p string) (bool, error) {
	info, err := os.Stat(p)
	if err != nil {
		return false, err
	}
	return info.IsDir(), nil
}

// finish lets a held workflow succeed and waits until the engine has
// recorded it: the executor's notification is a check, not an effect, so
// settle alone would not wait for it.
func (h *coordHarness) finish(wfID string) {
	h.t.Helper()
	h.hold.finish(wfID)
	deadline := time.Now().Add(30 * time.Second)
	for {
		j, _, err := h.e.Job(context.Background(), wfID)
		if err != nil {
			h.t.Fatal(err)
		}
		if store.Terminal(j.Status) {
			break
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("workflow %s did not end", wfID)
		}
		time.Sleep(time.Millisecond)
	}
	h.settle()
}
