package engine

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
	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// blockExec is an action type whose Start never returns by itself: it
// reports the start and waits for the engine to close. A test copies the
// crash journal while a Start blocks, which is the journal a process
// killed at that moment leaves, and puts it back after the engine's
// graceful Close, which would have ended the effect.
type blockExec struct {
	started chan string // names of the actions started
	mu      sync.Mutex
	count   map[string]int
	block   bool // false: succeed at once
}

func newBlockExec(block bool) *blockExec {
	return &blockExec{started: make(chan string, 16), count: map[string]int{}, block: block}
}

func (x *blockExec) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	x.mu.Lock()
	x.count[a.Name]++
	x.mu.Unlock()
	x.started <- a.Name
	if !x.block {
		return action.Result{ExternalID: a.ActionID, ExternalStatus: "SUCCEEDED", Done: true, Status: action.OK}, nil
	}
	<-ctx.Done()
	return action.Result{}, ctx.Err()
}

func (x *blockExec) Check(ctx context.Context, a *action.Context, id string) (action.Result, error) {
	return action.Result{ExternalID: id, Done: true, Status: action.OK}, nil
}

func (x *blockExec) Kill(ctx context.Context, a *action.Context, id string) error { return nil }

func (x *blockExec) starts(name string) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.count[name]
}

// lives starts engines one after the other on one store and data
// directory, as a server's restarts do.
type lives struct {
	t       *testing.T
	dir     string
	store   store.Store
	mu      sync.Mutex
	logged  []string
	journal string
}

func newLives(t *testing.T) *lives {
	dir := t.TempDir()
	s, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &lives{t: t, dir: dir, store: s, journal: filepath.Join(dir, "effects.journal")}
}

// start starts an engine whose action type "boom" is x.
func (l *lives) start(x action.Executor, configure ...func(*Options)) *Engine {
	l.t.Helper()
	reg := action.NewRegistry()
	reg.Register("boom", x)
	reg.Register("noop", noop{})
	opts := Options{Store: l.store, Actions: reg, DataDir: l.dir, CrashJournal: l.journal,
		PollInterval: time.Hour, DefaultUser: "tester", Logf: func(format string, args ...any) {
			l.mu.Lock()
			l.logged = append(l.logged, fmt.Sprintf(format, args...))
			l.mu.Unlock()
		}}
	for _, c := range configure {
		c(&opts)
	}
	e, err := New(opts)
	if err != nil {
		l.t.Fatal(err)
	}
	if err := e.Start(context.Background()); err != nil {
		l.t.Fatal(err)
	}
	return e
}

// die ends a life while n starts of x block: the journal is left as a
// process killed then would leave it.
func (l *lives) die(e *Engine, x *blockExec, n int) {
	l.t.Helper()
	for range n {
		select {
		case <-x.started:
		case <-time.After(20 * time.Second):
			l.t.Fatal("no start")
		}
	}
	snapshot, err := os.ReadFile(l.journal)
	if err != nil {
		l.t.Fatal(err)
	}
	e.Close()
	if err := os.WriteFile(l.journal, snapshot, 0o600); err != nil {
		l.t.Fatal(err)
	}
}

func (l *lives) log() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.logged, "\n")
}

// TestQuarantineStart: a start effect the server died performing twice is
// not performed a third time. The action ends in ERROR with
// CodeQuarantined and takes its error transition, the job log and the
// server log say why, and the journal forgets the effect. After one death
// the start is performed again.
func TestQuarantineStart(t *testing.T) {
	l := newLives(t)
	app := filepath.Join(l.dir, "app")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(wf(`<start to="a"/>`+
		`<action name="a"><boom xmlns="uri:gozie:test:1.0"/><ok to="end"/><error to="cleanup"/></action>`+
		`<action name="cleanup"><noop xmlns="uri:gozie:test:1.0"/><ok to="end"/><error to="end"/></action>`+
		`<end name="end"/>`)), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	first := newBlockExec(true)
	e := l.start(first)
	id, err := e.Run(context.Background(), props(app))
	if err != nil {
		t.Fatal(err)
	}
	l.die(e, first, 1)

	second := newBlockExec(true)
	e = l.start(second)
	l.die(e, second, 1) // performed again after one death
	if !strings.Contains(l.log(), "died while performing effect(s)") {
		t.Errorf("server log says nothing of the death:\n%s", l.log())
	}

	third := newBlockExec(false)
	e = l.start(third)
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	j, err := e.Wait(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	_, acts, err := e.Job(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*store.Action{}
	for _, a := range acts {
		byName[a.Name] = a
	}
	if n := third.starts("a"); n != 0 {
		t.Errorf("a started %d times after two deaths", n)
	}
	a := byName["a"]
	if a.Status != store.ActionError || a.ErrorCode != CodeQuarantined || !strings.Contains(a.ErrorMessage, "died twice") {
		t.Errorf("a: %s %s %q; want ERROR %s", a.Status, a.ErrorCode, a.ErrorMessage, CodeQuarantined)
	}
	if c := byName["cleanup"]; j.Status != store.JobSucceeded || c == nil || c.Status != store.ActionOK {
		t.Errorf("job %s, cleanup %v; want the error transition taken", j.Status, c)
	}
	var logs []*store.LogEntry
	err = l.store.View(ctx, func(tx store.Tx) (err error) { logs, err = tx.Logs(ctx, id, 0, 0); return err })
	if err != nil {
		t.Fatal(err)
	}
	var joblog strings.Builder
	for _, line := range logs {
		joblog.WriteString(line.Message + "\n")
	}
	if !strings.Contains(joblog.String(), "the server died twice while starting it") || !strings.Contains(joblog.String(), CodeQuarantined) {
		t.Errorf("job log:\n%s", joblog.String())
	}
	if !strings.Contains(l.log(), "quarantined") {
		t.Errorf("server log:\n%s", l.log())
	}
	if n := e.rt.Suspects(); len(n) != 0 {
		t.Errorf("journal still counts %v", n)
	}
}

// forkApp writes a workflow forking into boom actions a1 and a2, each of
// whose error transitions goes to a noop action of its own.
func (l *lives) forkApp() string {
	l.t.Helper()
	app := filepath.Join(l.dir, "app")
	if err := os.MkdirAll(app, 0o755); err != nil {
		l.t.Fatal(err)
	}
	path := func(n string) string {
		return fmt.Sprintf(`<action name="%s"><boom xmlns="uri:gozie:test:1.0"/><ok to="j"/><error to="c%s"/></action>`+
			`<action name="c%s"><noop xmlns="uri:gozie:test:1.0"/><ok to="j"/><error to="j"/></action>`, n, n, n)
	}
	err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(wf(`<start to="f"/>`+
		`<fork name="f"><path start="a1"/><path start="a2"/></fork>`+path("a1")+path("a2")+
		`<join name="j" to="end"/><end name="end"/>`)), 0o644)
	if err != nil {
		l.t.Fatal(err)
	}
	return app
}

// outcome waits for job id on e and counts its boom actions quarantined
// and performed.
func (l *lives) outcome(e *Engine, id string) (quarantined, ok int, got []string) {
	l.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := e.Wait(ctx, id); err != nil {
		l.t.Fatal(err)
	}
	_, acts, err := e.Job(ctx, id)
	if err != nil {
		l.t.Fatal(err)
	}
	for _, a := range acts {
		got = append(got, a.Name+" "+a.Status+" "+a.ErrorCode)
		switch {
		case a.ErrorCode == CodeQuarantined:
			quarantined++
		case (a.Name == "a1" || a.Name == "a2") && a.Status == store.ActionOK:
			ok++
		}
	}
	return quarantined, ok, got
}

// TestQuarantineSlotWaitIsNoDeath: a start waiting for an action slot
// (gozie.actions.max.concurrent) when the server dies was not doing
// anything that could kill it: the journal a death leaves then counts the
// start that holds the slot only.
func TestQuarantineSlotWaitIsNoDeath(t *testing.T) {
	l := newLives(t)
	app := l.forkApp()
	x := newBlockExec(true)
	e := l.start(x, func(o *Options) { o.MaxRunningActions = 1 })
	defer e.Close()
	if _, err := e.Run(context.Background(), props(app)); err != nil {
		t.Fatal(err)
	}
	var started string
	select {
	case started = <-x.started:
	case <-time.After(20 * time.Second):
		t.Fatal("no start")
	}
	// The other start is waiting for the slot once it has said so.
	deadline := time.Now().Add(20 * time.Second)
	var snapshot []byte
	for !strings.Contains(string(snapshot), "pause ") {
		if time.Now().After(deadline) {
			t.Fatalf("no start waits for the slot: journal %q", snapshot)
		}
		time.Sleep(time.Millisecond) // polling the engine's journal
		snapshot, _ = os.ReadFile(l.journal)
	}
	dead := filepath.Join(t.TempDir(), "effects.journal")
	if err := os.WriteFile(dead, snapshot, 0o600); err != nil {
		t.Fatal(err)
	}
	suspects, err := effect.JournalSuspects(dead, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	var pending []*store.Effect
	err = l.store.View(context.Background(), func(tx store.Tx) (err error) {
		pending, err = tx.PendingEffects(context.Background(), "", 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, ef := range pending {
		if ef.Kind == store.EffectStart && (nodeName(ef.ActionID) == started) != (suspects[ef.ID] == 1) {
			t.Errorf("start of %s: %d death(s) counted; %s held the slot (journal %q)", nodeName(ef.ActionID), suspects[ef.ID], started, snapshot)
		}
	}
	if len(suspects) != 1 {
		t.Errorf("deaths %v, want the start holding the slot only", suspects)
	}
}

// TestQuarantineSparesBystanders: two starts in flight at the first
// death are performed one at a time after it, so the second death is
// charged to one of them only: exactly one is quarantined at the next
// start, and the other is performed.
func TestQuarantineSparesBystanders(t *testing.T) {
	l := newLives(t)
	app := l.forkApp()
	first := newBlockExec(true)
	e := l.start(first)
	id, err := e.Run(context.Background(), props(app))
	if err != nil {
		t.Fatal(err)
	}
	l.die(e, first, 2) // both in flight
	second := newBlockExec(true)
	l.die(l.start(second), second, 1) // one at a time: one in flight
	third := newBlockExec(false)
	e = l.start(third)
	defer e.Close()
	if q, ok, got := l.outcome(e, id); q != 1 || ok != 1 {
		t.Errorf("%d quarantined, %d performed; want one each: %v", q, ok, got)
	}
}

// TestQuarantineSuspectWaitBounded: a suspect whose start hangs holds the
// other suspects up for effect.SuspectWait at most, on the engine's clock.
func TestQuarantineSuspectWaitBounded(t *testing.T) {
	l := newLives(t)
	app := l.forkApp()
	first := newBlockExec(true)
	e := l.start(first)
	if _, err := e.Run(context.Background(), props(app)); err != nil {
		t.Fatal(err)
	}
	l.die(e, first, 2)

	clock := newFakeClock()
	hang := newBlockExec(true)
	e = l.start(hang, func(o *Options) { o.Clock = clock })
	defer e.Close()
	var got []string
	select {
	case n := <-hang.started:
		got = append(got, n)
	case <-time.After(20 * time.Second):
		t.Fatal("no suspect started")
	}
	if n := hang.starts("a1") + hang.starts("a2"); n != 1 {
		t.Fatalf("%d starts while the first suspect runs, want 1", n)
	}
	// The other suspect waits for the turn with a timer on the engine's
	// clock, set once its goroutine gets there: the clock is moved on
	// until that timer has fired.
	deadline := time.Now().Add(20 * time.Second)
	for len(got) < 2 {
		clock.Advance(effect.SuspectWait)
		select {
		case n := <-hang.started:
			got = append(got, n)
		case <-time.After(time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the other suspect did not start after %s", effect.SuspectWait)
		}
	}
	if got[0] == got[1] {
		t.Errorf("starts %v", got)
	}
}
