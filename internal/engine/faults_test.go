package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/storetest"
)

// onceExec is an executor as idempotent as the real ones: asked to start
// an attempt it already started, it reports on that run instead of running
// again. It counts real runs per node, so a test can check that every step
// ran exactly once however often the engine retried.
type onceExec struct {
	mu       sync.Mutex
	async    map[string]bool
	started  map[string]action.Result // by action id and attempt
	starts   map[string]int           // Start calls per node
	runs     map[string]int           // real runs per node
	finished map[string]bool
	contexts map[string]*action.Context
	// onStart is called (outside the lock) after every Start call.
	onStart func(name string, call int)
}

func newOnceExec() *onceExec {
	return &onceExec{async: map[string]bool{}, started: map[string]action.Result{}, starts: map[string]int{},
		runs: map[string]int{}, finished: map[string]bool{}, contexts: map[string]*action.Context{}}
}

func (x *onceExec) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	x.mu.Lock()
	x.starts[a.Name]++
	call := x.starts[a.Name]
	key := fmt.Sprintf("%s#%d", a.ActionID, a.Attempt)
	res, ok := x.started[key]
	if !ok {
		x.runs[a.Name]++
		res = action.Result{ExternalID: key, ExternalStatus: "SUCCEEDED", Done: true, Status: action.OK}
		if x.async[a.Name] {
			res = action.Result{ExternalID: key, ExternalStatus: "RUNNING"}
		}
		x.started[key] = res
	}
	x.contexts[a.Name] = a
	hook := x.onStart
	x.mu.Unlock()
	if hook != nil {
		hook(a.Name, call)
	}
	return res, nil
}

func (x *onceExec) Check(ctx context.Context, a *action.Context, id string) (action.Result, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.finished[a.Name] {
		return action.Result{ExternalID: id, ExternalStatus: "SUCCEEDED", Done: true, Status: action.OK}, nil
	}
	return action.Result{ExternalID: id, ExternalStatus: "RUNNING"}, nil
}

func (x *onceExec) Kill(ctx context.Context, a *action.Context, id string) error { return nil }

func (x *onceExec) count(m map[string]int, name string) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return m[name]
}

// logRecorder keeps the engine's log lines for the test to count.
type logRecorder struct {
	t     *testing.T
	mu    sync.Mutex
	lines []string
}

func (l *logRecorder) logf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	l.mu.Lock()
	l.lines = append(l.lines, line)
	l.mu.Unlock()
	l.t.Log(line)
}

func (l *logRecorder) count(substr string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.lines {
		if strings.Contains(s, substr) {
			n++
		}
	}
	return n
}

// faultHarness is a harness whose store fails on command and whose
// actions are of type "once".
func faultHarness(t *testing.T, sweep time.Duration) (*harness, *storetest.Faulty, *onceExec, *logRecorder) {
	var f *storetest.Faulty
	x := newOnceExec()
	logs := &logRecorder{t: t}
	h := newHarness(t, func(o *Options) {
		f = storetest.NewFaulty(o.Store)
		o.Store = f
		o.Actions.Register("once", x)
		o.Logf = logs.logf
		o.SweepInterval = sweep
	})
	return h, f, x, logs
}

const onceChain = `<start to="a"/>
<action name="a"><once xmlns="uri:gozie:test:1.0"/><ok to="b"/><error to="fail"/></action>
<action name="b"><once xmlns="uri:gozie:test:1.0"/><ok to="c"/><error to="fail"/></action>
<action name="c"><once xmlns="uri:gozie:test:1.0"/><ok to="end"/><error to="fail"/></action>
<kill name="fail"><message>failed</message></kill>
<end name="end"/>`

// TestStoreOutageRetriesEffects reproduces the defect of a database outage
// during an action's transition: the failed commit was only logged, and
// the job stayed RUNNING with its next action in PREP until a restart.
// Now the effect is performed again (after 1s, 2s, 4s on the engine's
// clock), a lost commit acknowledgement is repaired by the sweep, and a
// failed check is repeated by the poll; every step runs exactly once.
func TestStoreOutageRetriesEffects(t *testing.T) {
	for _, tc := range []struct {
		name string
		// arm is the node whose first Start makes the store fail.
		arm     string
		async   string // node that runs until the test finishes it
		fail    int
		lostAck bool
		sweep   time.Duration
		// advance moves the fake clock until the job ends; false when
		// nothing may depend on the clock (sweep, poll).
		advance bool
	}{
		{name: "commit after start fails", arm: "b", fail: 3, sweep: time.Hour, advance: true},
		{name: "commit acknowledgement lost", arm: "a", fail: 1, lostAck: true, sweep: 20 * time.Millisecond},
		{name: "check commit fails", async: "b", fail: 3, sweep: time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, f, x, logs := faultHarness(t, tc.sweep)
			if tc.async != "" {
				x.async[tc.async] = true
			}
			x.onStart = func(name string, call int) {
				if name == tc.arm && call == 1 {
					f.FailUpdates(0, tc.fail, tc.lostAck)
				}
			}
			id := h.run(props(h.writeApp("chain", wf(onceChain), nil)))
			if tc.async != "" {
				h.eventually("async step running", func() bool { return h.actionStatus(id, tc.async) == store.ActionRunning })
				f.FailUpdates(0, tc.fail, false)
				x.mu.Lock()
				x.finished[tc.async] = true
				actx := x.contexts[tc.async]
				x.mu.Unlock()
				actx.Notify()
			}
			deadline := time.Now().Add(20 * time.Second)
			for !store.Terminal(h.status(id)) {
				if time.Now().After(deadline) {
					t.Fatalf("job still %s after the outage: %s", h.status(id), h.describe(id))
				}
				if tc.advance && f.Failed() > 0 && h.clock.Pending() > 0 {
					h.clock.Advance(time.Second)
				}
				time.Sleep(2 * time.Millisecond)
			}
			if got := h.status(id); got != store.JobSucceeded {
				t.Fatalf("job %s, want SUCCEEDED: %s", got, h.describe(id))
			}
			if f.Failed() != tc.fail {
				t.Errorf("%d updates failed, want %d", f.Failed(), tc.fail)
			}
			for _, n := range []string{"a", "b", "c"} {
				if got := x.count(x.runs, n); got != 1 {
					t.Errorf("step %s ran %d times, want once", n, got)
				}
			}
			if tc.advance {
				// The first failure is logged and then nothing more
				// within the minute; the recovery once.
				if got := logs.count("retrying in"); got != 1 {
					t.Errorf("%d retry lines logged, want 1", got)
				}
				if got := logs.count(fmt.Sprintf("performed after %d failed attempt(s)", tc.fail)); got != 1 {
					t.Errorf("%d recovery lines logged, want 1", got)
				}
			}
		})
	}
}

// TestLongOutageLogsSparingly keeps the store down for an hour of fake
// time: the effect is tried about every 30s, yet logged about once a
// minute, and the job completes when the store is back.
func TestLongOutageLogsSparingly(t *testing.T) {
	h, f, x, logs := faultHarness(t, time.Hour)
	x.onStart = func(name string, call int) {
		if name == "b" && call == 1 {
			f.FailUpdates(0, 1<<30, false)
		}
	}
	id := h.run(props(h.writeApp("chain", wf(onceChain), nil)))
	h.eventually("outage", func() bool { return f.Failed() > 0 })
	for elapsed := time.Duration(0); elapsed < time.Hour; elapsed += time.Second {
		h.eventually("retry scheduled", func() bool { return h.clock.Pending() > 0 })
		before := f.Failed()
		h.clock.Advance(time.Second)
		if h.clock.Pending() == 0 {
			// The retry came due: wait until it has failed again.
			h.eventually("retry failed", func() bool { return f.Failed() > before })
		}
	}
	h.eventually("last retry scheduled", func() bool { return h.clock.Pending() > 0 })
	failed := f.Failed()
	t.Logf("one hour of outage: %d attempts, %d retry log lines", failed, logs.count("retrying in"))
	if failed < 100 || failed > 140 {
		t.Errorf("%d attempts in an hour, want about 120 (every 30s)", failed)
	}
	if got := logs.count("retrying in"); got < 55 || got > 65 {
		t.Errorf("%d retry log lines in an hour, want about 60", got)
	}
	if got := h.actionStatus(id, "b"); got != store.ActionPrep {
		t.Fatalf("b is %s during the outage, want PREP", got)
	}
	f.FailUpdates(0, 0, false)
	for !store.Terminal(h.status(id)) {
		h.clock.Advance(time.Second)
		time.Sleep(2 * time.Millisecond)
	}
	if got := h.status(id); got != store.JobSucceeded || x.count(x.runs, "b") != 1 {
		t.Fatalf("job %s, b ran %d times; want SUCCEEDED, once", got, x.count(x.runs, "b"))
	}
}

// TestStoreOutageDuringSubWorkflowStart: the child job's submission fails
// on the store. Before, that was the sub-workflow action's error and the
// parent took its error transition; now the start is retried and the
// child created once.
func TestStoreOutageDuringSubWorkflowStart(t *testing.T) {
	h, f, x, _ := faultHarness(t, time.Hour)
	child := h.writeApp("child", wf(`<start to="c"/><action name="c"><once xmlns="uri:gozie:test:1.0"/><ok to="end"/><error to="fail"/></action>
<kill name="fail"><message>failed</message></kill><end name="end"/>`), nil)
	parent := h.writeApp("parent", wf(`<start to="a"/>
<action name="a"><once xmlns="uri:gozie:test:1.0"/><ok to="sub"/><error to="fail"/></action>
<action name="sub"><sub-workflow><app-path>`+child+`</app-path></sub-workflow><ok to="end"/><error to="fail"/></action>
<kill name="fail"><message>failed</message></kill><end name="end"/>`), nil)
	x.onStart = func(name string, call int) {
		if name == "a" && call == 1 {
			f.FailUpdates(1, 2, false) // a's own commit passes; the child's submission fails twice
		}
	}
	id := h.run(props(parent))
	deadline := time.Now().Add(20 * time.Second)
	for !store.Terminal(h.status(id)) {
		if time.Now().After(deadline) {
			t.Fatalf("job still %s: %s", h.status(id), h.describe(id))
		}
		if f.Failed() > 0 && h.clock.Pending() > 0 {
			h.clock.Advance(time.Second)
		}
		time.Sleep(2 * time.Millisecond)
	}
	if got := h.status(id); got != store.JobSucceeded || f.Failed() != 2 {
		t.Fatalf("job %s after %d failures: %s", got, f.Failed(), h.describe(id))
	}
	if kids := h.children(id); len(kids) != 1 || x.count(x.runs, "c") != 1 {
		t.Fatalf("%d children, child step ran %d times; want 1 and once", len(kids), x.count(x.runs, "c"))
	}
}
