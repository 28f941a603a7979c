package coordengine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// TestCoordSubmissionLimits is the coordinator part of the workflow
// engine's TestSubmissionLimits: a coordinator submission whose ${var}
// expansion would grow without bound, whose app path is /dev/zero or whose
// coordinator.xml is a FIFO is refused at once, through the workflow
// engine's Submit and with its limits, with an Oozie code and the property
// or path named, and leaves no job behind.
func TestCoordSubmissionLimits(t *testing.T) {
	dir := t.TempDir()
	s, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	e, err := newEngines(engine.Options{Store: s, Actions: action.NewRegistry(), DataDir: dir, DefaultUser: "tester",
		SystemID: "oozie-test", Logf: t.Logf, PollInterval: time.Hour,
		Expand: conf.ExpandLimits{Value: 64 << 10, Total: 1 << 20}, MaxDefinitionBytes: 4096}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	big := strings.Repeat("x", 1000)
	bomb := strings.Repeat("${big}", 1000)
	fifoIn := func(app, name string) string {
		p := filepath.Join(dir, "apps", app)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join(p, name), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	coordProps := func(appPath string, kv ...string) *conf.Config {
		c := conf.New()
		c.Set(engine.PropCoordAppPath, appPath)
		for i := 0; i+1 < len(kv); i += 2 {
			c.Set(kv[i], kv[i+1])
		}
		return c
	}
	cases := []struct {
		name     string
		props    func() *conf.Config
		code     string
		mentions string
	}{
		{"coordinator expansion bomb", func() *conf.Config {
			return coordProps(dir, "big", big, "bomb", bomb)
		}, "E1004", "[bomb]"},
		{"coordinator app path /dev/zero", func() *conf.Config { return coordProps("/dev/zero") }, "E0710", "[/dev/zero] is a device"},
		{"coordinator.xml is a FIFO", func() *conf.Config {
			return coordProps(fifoIn("fifo-coord", "coordinator.xml"))
		}, "E0710", "coordinator.xml] is a named pipe"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The deadline is a safety net: a FIFO read would block.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			start := time.Now()
			_, err := e.Submit(ctx, c.props())
			if err == nil {
				t.Fatal("submission accepted")
			}
			if engine.ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.mentions) {
				t.Fatalf("err = %v, want code %s mentioning %q", err, c.code, c.mentions)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("refusal took %v", d)
			}
		})
	}
	var jobs []*store.CoordJob
	err = s.View(context.Background(), func(tx store.Tx) (err error) {
		jobs, err = tx.CoordJobs(context.Background(), store.JobFilter{})
		return err
	})
	if err != nil || len(jobs) != 0 {
		t.Errorf("coordinator jobs after refused submissions: %d, %v", len(jobs), err)
	}
}

// bigCoord is an hourly coordinator without inputs whose workflow
// configuration is n properties each ${big}.
func bigCoord(n int) string {
	var b strings.Builder
	b.WriteString(`<coordinator-app name="big" frequency="${coord:hours(1)}" start="${start}" end="${end}" timezone="UTC"
    xmlns="uri:oozie:coordinator:0.4"><action><workflow><app-path>${wfApp}</app-path><configuration>`)
	for i := range n {
		fmt.Fprintf(&b, `<property><name>p%d</name><value>${big}</value></property>`, i)
	}
	b.WriteString(`</configuration></workflow></action></coordinator-app>`)
	return b.String()
}

// TestCoordActionAmplification is the workflow engine's
// TestActionAmplification for coordinator actions, whose configuration is
// resolved per action (materialization: the action XML; start: the
// workflow's run configuration) and stored with each: 300 properties of a
// 900 KB variable are refused at submission with E1004 naming the limit,
// allocating far less than the 270 MB they would build per action.
func TestCoordActionAmplification(t *testing.T) {
	h := newCoordHarness(t, time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), Options{})
	writeFiles(t, filepath.Join(h.dir, "apps"), map[string]string{"big/coordinator.xml": bigCoord(300), "wf/workflow.xml": holdWorkflow})
	props := h.bigProps(strings.Repeat("b", 900_000))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := h.e.Submit(context.Background(), props)
	runtime.ReadMemStats(&after)
	if engine.ErrorCode(err) != "E1004" || !strings.Contains(err.Error(), fmt.Sprint(engine.DefaultMaxActionBytes)) {
		t.Fatalf("Submit = %v, want E1004 naming the limit", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 100<<20 {
		t.Errorf("the submission allocated %d MB", grew>>20)
	}
	var jobs []*store.CoordJob
	err = h.store.View(context.Background(), func(tx store.Tx) (err error) {
		jobs, err = tx.CoordJobs(context.Background(), store.JobFilter{})
		return err
	})
	if err != nil || len(jobs) != 0 {
		t.Errorf("coordinator jobs after the refusal: %d, %v", len(jobs), err)
	}
}

// TestCoordStoredAmplification: a coordinator stored before the bound
// (here: under a larger limit) whose action configuration resolves past it
// materializes an action XML that keeps the configuration unresolved, and
// its action fails with E1004 when its workflow configuration is built,
// storing none.
func TestCoordStoredAmplification(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	h := newCoordHarness(t, now, Options{})
	writeFiles(t, filepath.Join(h.dir, "apps"), map[string]string{"big/coordinator.xml": bigCoord(12), "wf/workflow.xml": holdWorkflow})
	h.engineOpts = func(o *engine.Options) { o.MaxActionBytes = 8 << 20 }
	h.restart()
	props := h.bigProps(strings.Repeat("b", 200_000))
	props.Set("start", "2026-03-01T14:00Z")
	id, err := h.e.Run(context.Background(), props)
	if err != nil {
		t.Fatalf("Run under the larger limit: %v", err)
	}
	h.engineOpts = nil
	h.restart()
	h.advance(2*time.Hour, 15*time.Minute, nil)
	acts := h.actions(id)
	if len(acts) == 0 {
		t.Fatal("no action materialized")
	}
	a := acts[0]
	if a.Status != store.CoordActionFailed || a.ErrorCode != "E1004" || !strings.Contains(a.ErrorMessage, fmt.Sprint(engine.DefaultMaxActionBytes)) {
		t.Errorf("action 1: %s %s %q; want FAILED E1004 naming the limit", a.Status, a.ErrorCode, a.ErrorMessage)
	}
	if a.RunConf != "" {
		t.Errorf("run configuration of %d bytes stored", len(a.RunConf))
	}
	if len(a.ActionXML) > engine.DefaultMaxActionBytes || !strings.Contains(a.ActionXML, "${big}") {
		t.Errorf("action XML of %d bytes, want the configuration unresolved", len(a.ActionXML))
	}
}

// bigProps are the job properties of bigCoord.
func (h *coordHarness) bigProps(big string) *conf.Config {
	c := conf.New()
	for _, p := range [][2]string{
		{engine.PropCoordAppPath, "file://" + filepath.Join(h.dir, "apps", "big")},
		{"wfApp", "file://" + filepath.Join(h.dir, "apps", "wf")},
		{"start", "2026-03-01T12:00Z"}, {"end", "2026-03-02T00:00Z"},
		{engine.PropUser, "tester"}, {"big", big},
	} {
		c.Set(p[0], p[1])
	}
	return c
}

// TestCoordQuarantineTick: a coordinator tick the server died performing
// twice (the crash journal says so) is quarantined by the next server: not
// performed, a line in the job's log, and the tick dropped, so that a
// command steps the job again instead of it waiting for a tick that never
// comes.
func TestCoordQuarantineTick(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	h := newCoordHarness(t, now, Options{})
	props := h.coordProps(holdWorkflow, "start", "2026-03-01T15:00Z", "end", "2026-03-01T18:00Z")
	id, err := h.e.Run(context.Background(), props)
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	tick := h.pendingEffect(id, EffectCoordTick)
	h.e.Close()
	journal := filepath.Join(h.dir, engine.CrashJournalFile)
	if err := os.WriteFile(journal, []byte(fmt.Sprintf("deaths %d 1\nbegin %d\n", tick.ID, tick.ID)), 0o600); err != nil {
		t.Fatal(err)
	}
	h.startEngine()
	h.advance(3*time.Hour, 15*time.Minute, nil)
	if ef := h.pendingEffect(id, EffectCoordTick); ef != nil && ef.ID == tick.ID {
		t.Fatalf("tick %d still pending", tick.ID)
	}
	if n := len(h.actions(id)); n != 0 {
		t.Errorf("%d actions materialized by the quarantined tick", n)
	}
	found := false
	for line := range h.jobLog(id) {
		found = found || strings.Contains(line, "the server died twice while performing [coord-tick]")
	}
	if !found {
		t.Errorf("job log: %v", h.jobLog(id))
	}
	if extra := decodeCoordExtra(h.coordJob(id).State); extra.TickID != 0 {
		t.Errorf("the job still waits for tick %d", extra.TickID)
	}
	ctx := context.Background()
	if err := h.e.Suspend(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := h.e.Resume(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.advance(time.Hour, 15*time.Minute, nil)
	if n := len(h.actions(id)); n == 0 {
		t.Error("no action materialized after a resume")
	}
}

// pendingEffect returns a job's pending effect of a kind, nil if none.
func (h *coordHarness) pendingEffect(jobID, kind string) *store.Effect {
	h.t.Helper()
	var out *store.Effect
	err := h.store.View(context.Background(), func(tx store.Tx) error {
		effs, err := tx.PendingEffects(context.Background(), jobID, 0)
		for _, ef := range effs {
			if ef.Kind == kind {
				out = ef
			}
		}
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

// TestCoordQuarantineLaunch: a coordinator action's workflow launch the
// server died performing twice is not performed again: the action fails
// with engine.CodeQuarantined and no workflow is launched for it.
func TestCoordQuarantineLaunch(t *testing.T) {
	start := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	h := newCoordHarness(t, start, Options{InputCheckInterval: time.Minute})
	props := h.coordProps(holdWorkflow, "start", "2026-03-02T00:00Z", "end", "2026-03-02T02:00Z", "timeout", "-1")
	h.publish(start)
	h.publish(start.Add(time.Hour))
	id, err := h.e.Run(context.Background(), props)
	if err != nil {
		t.Fatal(err)
	}
	h.advance(2*time.Hour, 15*time.Minute, nil)
	acts := h.actions(id)
	if len(acts) != 2 || acts[1].Status != store.CoordActionReady {
		t.Fatalf("actions %v, want the second READY behind the first (concurrency 1)", h.countByStatus(id))
	}
	h.e.Close()
	// The state a server killed while launching the second action's
	// workflow leaves, twice.
	ctx := context.Background()
	a := acts[1]
	launch := &store.Effect{Kind: EffectCoordSubmit, JobID: id, ActionID: a.ID, CreatedTime: h.clock.Now()}
	err = h.store.Update(ctx, func(tx store.Tx) error {
		a.Status = store.CoordActionSubmitted
		if err := tx.PutCoordAction(ctx, a); err != nil {
			return err
		}
		return tx.AddEffect(ctx, launch)
	})
	if err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(h.dir, engine.CrashJournalFile)
	if err := os.WriteFile(journal, []byte(fmt.Sprintf("deaths %d 2\n", launch.ID)), 0o600); err != nil {
		t.Fatal(err)
	}
	h.startEngine()
	h.settle()
	got := h.actions(id)[1]
	if got.Status != store.CoordActionFailed || got.ErrorCode != engine.CodeQuarantined {
		t.Errorf("action 2: %s %s %q; want FAILED %s", got.Status, got.ErrorCode, got.ErrorMessage, engine.CodeQuarantined)
	}
	if wfs := h.workflowsByParent()[a.ID]; len(wfs) != 0 {
		t.Errorf("workflows launched for the quarantined action: %v", wfs)
	}
}
