package slatrack

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	fsaction "github.com/gozie/gozie/internal/action/fs"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/engine/enginetest"
	"github.com/gozie/gozie/internal/sla"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/postgres"
	"github.com/gozie/gozie/internal/store/sqlite"
	"github.com/gozie/gozie/internal/vocab"
)

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// mail is one alert the harness's sender received.
type mail struct{ to, subject, body string }

// harness runs the workflow and coordinator engines and the tracker on
// one SQLite store with a fake clock; the tracker's passes are run by the
// test (pass), not by a timer.
type harness struct {
	t     *testing.T
	dir   string
	store store.Store
	clock *enginetest.FakeClock
	wf    *engine.Engine
	co    *coordengine.Engine
	tr    *Tracker
	mails chan mail
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newHarnessOn(t, dir, st)
}

// newHarnessOn is a harness on a given store.
func newHarnessOn(t *testing.T, dir string, st store.Store) *harness {
	t.Helper()
	h := &harness{t: t, dir: dir, store: st, clock: enginetest.NewFakeClock(t0), mails: make(chan mail, 100)}
	h.start()
	t.Cleanup(func() { h.wf.Close() })
	return h
}

// start builds the engines and a tracker (after a restart: new ones on the
// same store).
func (h *harness) start() {
	h.t.Helper()
	reg := action.NewRegistry()
	reg.Register("hold", holdExec{})
	reg.Register("fs", fsaction.NewFS())
	wf, err := engine.New(engine.Options{Store: h.store, Actions: reg, DataDir: h.dir, Clock: h.clock,
		PollInterval: time.Hour, DefaultUser: "tester", SystemID: "oozie-test", Logf: h.t.Logf})
	if err != nil {
		h.t.Fatal(err)
	}
	h.wf = wf
	h.co = coordengine.New(wf, wf.Runtime(), coordengine.Options{MinFrequencyMinutes: -1})
	h.tr = New(wf.Runtime(), Options{JobURL: "http://gozie/oozie/?job=", Logf: h.t.Logf,
		Send: func(_ context.Context, to, subject, body string) error {
			h.mails <- mail{to, subject, body}
			return nil
		}})
	if err := wf.Start(context.Background()); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) restart() {
	h.t.Helper()
	h.wf.Close()
	h.start()
}

// holdExec is an action type that runs until its job is killed: a job
// that stays RUNNING.
type holdExec struct{}

func (holdExec) Start(context.Context, *action.Context) (action.Result, error) {
	return action.Result{ExternalID: "hold", ExternalStatus: "RUNNING"}, nil
}
func (holdExec) Check(_ context.Context, _ *action.Context, id string) (action.Result, error) {
	return action.Result{ExternalID: id, ExternalStatus: "RUNNING"}, nil
}
func (holdExec) Kill(context.Context, *action.Context, string) error { return nil }

// pass runs a pass at the fake clock's time and settles the effects.
func (h *harness) pass() {
	h.t.Helper()
	if err := h.tr.Pass(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	h.settle()
}

// settle waits until no effect is due (enginetest.Settle).
func (h *harness) settle() {
	h.t.Helper()
	enginetest.Settle(h.t, h.store, h.clock.Now)
}

// workflow writes a workflow app with an <sla:info> and the given action
// body ("BODY|ACTION-SLA" for an action with an <sla:info> of its own),
// and returns its job properties.
func (h *harness) workflow(name, actionBody, slaInfo string) *conf.Config {
	h.t.Helper()
	body, actionSLA, _ := strings.Cut(actionBody, "|")
	dir := filepath.Join(h.dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.t.Fatal(err)
	}
	xml := `<workflow-app xmlns="uri:oozie:workflow:0.5" xmlns:sla="uri:oozie:sla:0.2" name="` + name + `">
  <start to="a"/>
  <action name="a">` + body + `<ok to="end"/><error to="end"/>` + actionSLA + `</action>
  <end name="end"/>` + slaInfo + `
</workflow-app>`
	if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(xml), 0o644); err != nil {
		h.t.Fatal(err)
	}
	p := conf.New()
	p.Set(vocab.PropAppPath, dir)
	p.Set(vocab.PropUser, "tester")
	return p
}

// record reads the SLA record of id.
func (h *harness) record(id string) *store.SLA {
	h.t.Helper()
	var s *store.SLA
	err := h.store.View(context.Background(), func(tx store.Tx) (err error) {
		s, err = tx.SLA(context.Background(), id)
		return err
	})
	if err != nil {
		h.t.Fatalf("SLA record %s: %v", id, err)
	}
	return s
}

// drain returns the mails received so far.
func (h *harness) drain() []mail {
	var out []mail
	for {
		select {
		case m := <-h.mails:
			out = append(out, m)
		default:
			return out
		}
	}
}

const slaInfo = `<sla:info>
    <sla:nominal-time>2030-01-01T00:00Z</sla:nominal-time>
    <sla:should-start>${10 * MINUTES}</sla:should-start>
    <sla:should-end>${1 * HOURS}</sla:should-end>
    <sla:max-duration>${30 * MINUTES}</sla:max-duration>
    <sla:alert-events>start_miss,end_miss,duration_miss</sla:alert-events>
    <sla:alert-contact>ops@example.com</sla:alert-contact>
  </sla:info>`

// TestWorkflowMet: a job that starts and ends in time meets every
// criterion; nothing is mailed (only misses are, by its alert-events).
func TestWorkflowMet(t *testing.T) {
	h := newHarness(t)
	id, err := h.wf.Run(context.Background(), h.workflow("met", `<fs><delete path="`+h.dir+`/nothing"/></fs>`, slaInfo))
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	h.pass()
	s := h.record(id)
	if s.SLAStatus != sla.Met || s.EventProcessed&sla.ProcDone == 0 || s.AppType != sla.AppTypeWorkflowJob {
		t.Fatalf("record %+v", s)
	}
	if m := h.drain(); len(m) != 0 {
		t.Errorf("mails for a met SLA: %v", m)
	}
}

// TestNeverStartedMissesAcrossRestart: a job submitted and never started
// misses its start at should-start and its end at should-end, found by
// the first pass after a server that was down across both deadlines; each
// miss is mailed once, and later passes add nothing.
func TestNeverStartedMissesAcrossRestart(t *testing.T) {
	h := newHarness(t)
	id, err := h.wf.Submit(context.Background(), h.workflow("late", `<fs><delete path="`+h.dir+`/nothing"/></fs>`, slaInfo))
	if err != nil {
		t.Fatal(err)
	}
	h.pass()
	if s := h.record(id); s.SLAStatus != sla.NotStarted || s.EventStatus != "" {
		t.Fatalf("before the deadlines: %+v", s)
	}
	h.wf.Close() // the server is down across both deadlines
	h.clock.Advance(2 * time.Hour)
	h.start()
	h.pass()
	h.pass()
	s := h.record(id)
	if s.SLAStatus != sla.Miss || s.EventProcessed&sla.ProcStart == 0 || s.EventProcessed&sla.ProcEnd == 0 {
		t.Fatalf("after the restart: %+v", s)
	}
	mails := h.drain()
	var subjects []string
	for _, m := range mails {
		subjects = append(subjects, m.subject)
		if m.to != "ops@example.com" || !strings.Contains(m.body, id) {
			t.Errorf("mail %+v", m)
		}
	}
	// The two mails are separate effects due at the same instant, performed
	// in either order; what matters is one of each.
	sort.Strings(subjects) // "...SLA END_MISS..." sorts before "...SLA START_MISS..."
	if len(mails) != 2 || !strings.Contains(subjects[0], "END_MISS") || !strings.Contains(subjects[1], "START_MISS") {
		t.Fatalf("mails %v, want one START_MISS and one END_MISS", subjects)
	}
}

// TestActionDurationMissAndDisable: an action running past its
// max-duration misses it; a disabled record decides its events but mails
// none.
func TestActionDurationMissAndDisable(t *testing.T) {
	ctx := context.Background()
	actionSLA := `<hold xmlns="uri:gozie:test:1.0"/>|<sla:info><sla:nominal-time>2030-01-01T00:00Z</sla:nominal-time>
      <sla:should-end>${2 * HOURS}</sla:should-end><sla:max-duration>${20 * MINUTES}</sla:max-duration>
      <sla:alert-events>duration_miss,end_miss</sla:alert-events><sla:alert-contact>a@example.com</sla:alert-contact></sla:info>`
	h := newHarness(t)
	id, err := h.wf.Run(ctx, h.workflow("dur", actionSLA, ""))
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	h.pass()
	aid := engine.ActionID(id, "a")
	if s := h.record(aid); s.SLAStatus != sla.InProcess || s.AppType != sla.AppTypeWorkflowAction || s.ParentID != id {
		t.Fatalf("running: %+v", s)
	}
	h.clock.Advance(25 * time.Minute)
	h.pass()
	if s := h.record(aid); s.EventStatus != sla.DurationMiss {
		t.Fatalf("after 25 minutes: %+v", s)
	}
	if m := h.drain(); len(m) != 1 || !strings.Contains(m[0].subject, "DURATION_MISS") {
		t.Fatalf("mails %v", m)
	}
	if err := h.tr.SLAEnable(ctx, id, sla.Scope{}, false); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(2 * time.Hour)
	h.pass()
	if s := h.record(aid); s.SLAStatus != sla.Miss || !s.Disabled {
		t.Fatalf("after the end deadline: %+v", s)
	}
	if m := h.drain(); len(m) != 0 {
		t.Errorf("a disabled record mailed %v", m)
	}
}

// TestChangeMovesTheDeadline: sla-change of should-end before the
// deadline moves it; the pass at the old deadline decides nothing.
func TestChangeMovesTheDeadline(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	id, err := h.wf.Submit(ctx, h.workflow("chg", `<fs><delete path="`+h.dir+`/nothing"/></fs>`, slaInfo))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.tr.SLAChange(ctx, id, sla.Scope{}, "should-start=180;should-end=240"); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(90 * time.Minute)
	h.pass()
	if s := h.record(id); s.EventStatus != "" || s.SLAStatus != sla.NotStarted {
		t.Fatalf("at the old deadlines: %+v", s)
	}
	if err := h.tr.SLAChange(ctx, id+"x", sla.Scope{}, "should-end=10"); vocab.CodeOf(err) == "" {
		t.Errorf("change of an unknown job: %v", err)
	}
}

// TestCoordinatorActionSLA: a coordinator action's <sla:info>, resolved
// at materialization, is tracked: its workflow runs in time and it is met.
func TestCoordinatorActionSLA(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	wf := h.workflow("cwf", `<fs><delete path="`+h.dir+`/nothing"/></fs>`, "")
	coordDir := filepath.Join(h.dir, "coord")
	if err := os.MkdirAll(coordDir, 0o755); err != nil {
		t.Fatal(err)
	}
	app, _ := wf.Get(vocab.PropAppPath)
	xml := `<coordinator-app xmlns="uri:oozie:coordinator:0.4" xmlns:sla="uri:oozie:sla:0.2" name="c" frequency="${coord:days(1)}"
    start="2030-01-01T00:00Z" end="2030-01-02T00:00Z" timezone="UTC">
  <action><workflow><app-path>` + app + `</app-path></workflow>
    <sla:info><sla:nominal-time>${coord:nominalTime()}</sla:nominal-time><sla:should-end>${60 * MINUTES}</sla:should-end></sla:info>
  </action></coordinator-app>`
	if err := os.WriteFile(filepath.Join(coordDir, "coordinator.xml"), []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	p := conf.New()
	p.Set(vocab.PropCoordAppPath, coordDir)
	p.Set(vocab.PropUser, "tester")
	cid, err := h.co.Submit(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	h.pass()
	s := h.record(cid + "@1")
	if s.AppType != sla.AppTypeCoordAction || s.ParentID != cid || !s.ExpectedEnd.Equal(t0.Add(time.Hour)) || s.SLAStatus != sla.Met {
		t.Fatalf("record %+v", s)
	}
	if h.tr.Tracked() != 0 {
		t.Errorf("tracked %d, want 0", h.tr.Tracked())
	}
}

// TestTwoServersSharePostgres: two servers share a PostgreSQL store; each
// pass decides only the records of its own jobs, so the owner alone
// mails and records the events, once.
func TestTwoServersSharePostgres(t *testing.T) {
	ctx := context.Background()
	dsn := postgres.TestDSN(t)
	servers := map[string]*harness{}
	for _, name := range []string{"a", "b"} {
		st, err := postgres.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		if err := st.(store.Cluster).Register(ctx, store.ServerInfo{ID: name, Name: name, URL: "http://" + name + "/oozie", Started: t0}); err != nil {
			t.Fatal(err)
		}
		servers[name] = newHarnessOn(t, t.TempDir(), st)
	}
	a, b := servers["a"], servers["b"]
	id, err := a.wf.Submit(ctx, a.workflow("shared", `<fs><delete path="`+a.dir+`/nothing"/></fs>`, slaInfo))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []*harness{a, b} {
		h.clock.Advance(2 * time.Hour)
	}
	b.pass()
	if s := b.record(id); s.SLAStatus != sla.NotStarted || s.EventProcessed != 0 {
		t.Fatalf("the other server decided a record it does not own: %+v", s)
	}
	a.pass()
	b.pass()
	a.pass()
	if s := a.record(id); s.SLAStatus != sla.Miss {
		t.Fatalf("the owner's pass: %+v", s)
	}
	if m := a.drain(); len(m) != 2 {
		t.Errorf("the owner mailed %d alerts, want START_MISS and END_MISS", len(m))
	}
	if m := b.drain(); len(m) != 0 {
		t.Errorf("the other server mailed %v", m)
	}
}
