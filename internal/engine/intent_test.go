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
	_ "github.com/gozie/gozie/internal/action/all"
	"github.com/gozie/gozie/internal/cluster"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/postgres"
)

// diesAfterLaunch is an executor whose Start launches the program (the
// real executor's Start) and then never returns until the engine closes:
// a server killed after the launch and before it committed the step's
// start. launched is closed once the program is on its way.
type diesAfterLaunch struct {
	action.Executor
	once     sync.Once
	launched chan struct{}
}

func (x *diesAfterLaunch) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	res, err := x.Executor.Start(ctx, a)
	x.once.Do(func() { close(x.launched) })
	<-ctx.Done()
	return res, err
}

// logLines collects an engine's server log.
type logLines struct {
	t     *testing.T
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	l.mu.Lock()
	l.lines = append(l.lines, line)
	l.mu.Unlock()
	l.t.Log(line)
}

func (l *logLines) count(substr string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if strings.Contains(line, substr) {
			n++
		}
	}
	return n
}

// memberClock is the fake monotonic clock the cluster members of a test
// share.
type memberClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *memberClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *memberClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// shellServer is a server of a cluster on PostgreSQL: a member named name
// (lease 20s, the given hold, its heartbeats on clk) and an engine running
// real shell steps (per-step launcher: this test binary) in a data
// directory of its own, recording its start intents as gozie server does.
// wrap, when set, wraps its shell executor.
func shellServer(t *testing.T, dsn, name string, clk *memberClock, hold time.Duration,
	wrap func(action.Executor) action.Executor) (*harness, *cluster.Member, *logLines) {
	t.Helper()
	dir := t.TempDir()
	dataID, err := launch.DataDirID(dir)
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	logs := &logLines{t: t}
	m, err := cluster.Join(context.Background(), cluster.Options{Store: s.(store.Cluster), Name: name,
		URL: "http://" + name + "/oozie", Lease: 20 * time.Second, Now: clk.Now, Logf: logs.logf,
		Host: "host-" + name, DataDir: dir, DataID: dataID, Hold: hold,
		Sees: func(s store.ServerInfo) bool { return launch.SameDataDir(s.DataDir, s.DataID) }})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessOn(t, s, dir, func(o *Options) {
		shells := action.NewRegistry()
		launch.RegisterBuiltins(shells, launch.Options{Launcher: []string{self}})
		x, _ := shells.Lookup("shell")
		if wrap != nil {
			x = wrap(x)
		}
		o.Actions.Register("shell", x)
		o.DataID, o.Host, o.ServerID = dataID, "host-"+name, m.ID
		o.Logf = logs.logf
	})
	return h, m, logs
}

// markApp is one shell step appending a line to marker: the marker's
// lines count the step's runs.
func (h *harness) markApp(marker string) string {
	return h.writeApp("mark", wf(`<start to="s1"/><action name="s1"><shell xmlns="uri:oozie:shell-action:1.0">`+
		`<resource-manager>local</resource-manager><name-node>file:///</name-node><exec>sh</exec>`+
		`<argument>-c</argument><argument>echo "$PWD" &gt;&gt; `+marker+`</argument></shell>`+
		`<ok to="end"/><error to="fail"/></action><kill name="fail"><message>failed</message></kill><end name="end"/>`), nil)
}

// TestTakeOverStartInFlight: server a launches a step and dies before it
// records the start; b finds a dead (its fake clock) and takes its jobs
// over, performing the start still pending. Where b sees a's data
// directory (same host, or shared), it takes them over after the lease
// and re-attaches to the program a launched there: the step runs once and
// its outcome is recorded from a's directory. Where it cannot (the
// directory at that path on b's host is another one), it waits the hold
// too (a restarted meanwhile would take its jobs back), then starts the
// step again in its own directory, saying in the job log and its own log
// that the step may have run twice.
func TestTakeOverStartInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	const lease, hold = 20 * time.Second, time.Minute
	for _, tc := range []struct {
		name    string
		visible bool
		after   time.Duration // when b takes a's jobs over, after a's last beat
	}{
		{"visible", true, lease},
		{"not visible", false, lease + hold},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn := postgres.TestDSN(t)
			clk := &memberClock{now: time.Unix(1000, 0)}
			var dying *diesAfterLaunch
			a, _, _ := shellServer(t, dsn, "a", clk, hold, func(x action.Executor) action.Executor {
				dying = &diesAfterLaunch{Executor: x, launched: make(chan struct{})}
				return dying
			})
			marker := filepath.Join(t.TempDir(), "marker")
			id := a.run(props(a.markApp(marker)))
			<-dying.launched
			a.eventually("the program's run", func() bool { lines, _ := readLines(marker); return len(lines) == 1 })
			a.e.Close() // killed before the start's commit: the effect is pending
			if st := a.actionStatus(id, "s1"); st != store.ActionPrep {
				t.Fatalf("s1 is %s after the interrupted start, want PREP", st)
			}
			if !tc.visible {
				// b's host has a directory at a's path, but not a's.
				if err := os.WriteFile(filepath.Join(a.dir, launch.DataIDFile), []byte("another-directory\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}

			b, bm, blog := shellServer(t, dsn, "b", clk, hold, nil)
			ctx := context.Background()
			bm.Tick(ctx) // b sees a's last beat
			start := clk.Now()
			var took time.Duration
			for took == 0 && clk.Now().Sub(start) < 2*(lease+hold) {
				clk.add(lease / 4)
				bm.Tick(ctx)
				if o, err := b.store.(store.Cluster).Owner(ctx, id); err == nil && o == bm.ID() {
					took = clk.Now().Sub(start)
				}
			}
			if took < tc.after-lease/8 || took > tc.after+lease/8 {
				t.Fatalf("b took a's jobs over %v after a's last beat, want %v", took, tc.after)
			}
			// What gozie server's heartbeat loop does after a take-over.
			if err := b.e.Adopt(ctx); err != nil {
				t.Fatal(err)
			}
			if j := b.wait(id); j.Status != store.JobSucceeded {
				t.Fatalf("job on b: %s; %s", j.Status, b.describe(id))
			}
			runs, _ := readLines(marker)
			_, acts := b.job(id)
			s1 := acts["s1"]
			logs, err := b.e.Logs(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			warned := 0
			for _, l := range logs {
				if l.ActionID == s1.ID && strings.Contains(l.Message, "may run twice") {
					warned++
				}
			}
			if tc.visible {
				if len(runs) != 1 {
					t.Errorf("the step ran %d times, want once: %q", len(runs), runs)
				}
				if want := launch.WorkDir(a.dir, s1.ID, 0); s1.ExternalID != want {
					t.Errorf("s1's external id %q, want a's work directory %q", s1.ExternalID, want)
				}
				if warned != 0 || blog.count("may run twice") != 0 {
					t.Errorf("a re-attached step was reported as possibly run twice")
				}
				return
			}
			if len(runs) != 2 || !strings.HasPrefix(runs[1], b.dir+string(filepath.Separator)) {
				t.Errorf("runs %q: want a's, then one in b's data directory %s", runs, b.dir)
			}
			if want := launch.WorkDir(b.dir, s1.ID, 0); s1.ExternalID != want {
				t.Errorf("s1's external id %q, want b's work directory %q", s1.ExternalID, want)
			}
			if warned != 1 {
				t.Errorf("%d job log lines say the step may run twice, want 1", warned)
			}
			if n := blog.count("may run twice"); n != 1 {
				t.Errorf("%d server log lines say the step may run twice, want 1", n)
			}
			if n := blog.count("waiting 1m0s more for it to come back"); n != 1 {
				t.Errorf("%d server log lines say b holds a's jobs, want 1", n)
			}
		})
	}
}

// TestParseIntent: a start effect's payload is read as an intent only
// when it is one; anything else (none, an earlier version's, garbage)
// means this server's own directory, never a failure.
func TestParseIntent(t *testing.T) {
	for _, c := range []struct {
		payload string
		ok      bool
	}{
		{`{"server":"a#1","host":"h","data":"/var/lib/gozie","dataid":"x1"}`, true},
		{`{"data":"/var/lib/gozie","dataid":"x1"}`, true},
		{"", false},
		{"p", false},
		{"{", false},
		{`{"data":"/var/lib/gozie"}`, false},
		{`{"data":"relative/dir","dataid":"x1"}`, false},
		{`{"data":"","dataid":"x1"}`, false},
		{`{"data":1,"dataid":"x1"}`, false},
		{`["/var/lib/gozie","x1"]`, false},
	} {
		in, ok := parseIntent(c.payload)
		if ok != c.ok || (ok && (in.Data != "/var/lib/gozie" || in.DataID != "x1")) {
			t.Errorf("parseIntent(%q) = %+v, %v; want ok %v", c.payload, in, ok, c.ok)
		}
	}
}

// TestRecordIntents: with a data directory identity, the start effects a
// change commits name this server, its host and data directory; other
// effects, and starts that already name a server, are left as they are;
// without one nothing is recorded.
func TestRecordIntents(t *testing.T) {
	dir := t.TempDir()
	mk := func() []*store.Effect {
		return []*store.Effect{
			{Kind: store.EffectStart, ActionID: "1-W@a"},
			{Kind: store.EffectKill, ActionID: "1-W@b"},
			{Kind: store.EffectStart, ActionID: "1-W@c", Payload: `{"data":"/x","dataid":"other"}`},
		}
	}
	for _, c := range []struct {
		name   string
		dataID string
		want   []string
	}{
		{"one server", "", []string{"", "", `{"data":"/x","dataid":"other"}`}},
		{"cluster", "d1", []string{`{"server":"a#1","host":"h1","data":"` + dir + `","dataid":"d1"}`, "", `{"data":"/x","dataid":"other"}`}},
	} {
		server := "a#1"
		e := &Engine{opts: Options{DataID: c.dataID, Host: "h1", ServerID: func() string { return server }}, dataDir: dir}
		efs := mk()
		e.recordIntents(efs)
		for i, ef := range efs {
			if ef.Payload != c.want[i] {
				t.Errorf("%s: effect %d payload %q, want %q", c.name, i, ef.Payload, c.want[i])
			}
		}
		// Registered anew (a new instance token): the next starts name it.
		server = "a#2"
		efs = mk()
		e.recordIntents(efs)
		if want := strings.Replace(c.want[0], "a#1", "a#2", 1); efs[0].Payload != want {
			t.Errorf("%s: after a new registration, payload %q, want %q", c.name, efs[0].Payload, want)
		}
	}
}
