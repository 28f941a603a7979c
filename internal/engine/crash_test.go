package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	_ "github.com/gozie/gozie/internal/action/all"
	"github.com/gozie/gozie/internal/engine/enginetest"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/postgres"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// The crash test re-executes the test binary as a "server" process
// (crashHelperEnv names its data directory), kills it with SIGKILL in the
// middle of a run, and starts it again on the same data directory.

const crashHelperEnv = "GOZIE_ENGINE_CRASH_HELPER_DIR"

// crashDSNEnv, when set, makes the crash helper use PostgreSQL at that DSN
// instead of SQLite in its data directory.
const crashDSNEnv = "GOZIE_ENGINE_CRASH_HELPER_DSN"

// benchLauncherEnv makes the test binary act as `gozie launch` when the
// shell executor of the benchmarks starts it.
const benchLauncherEnv = "GZTEST_ENGINE_AS_LAUNCHER" // not GOZIE_*: steps never get those (built-in tools are steps)

// crashShellEnv makes the crash helper run real shell actions through the
// launch supervisor instead of shExec.
const crashShellEnv = "GOZIE_ENGINE_CRASH_HELPER_SHELL"

// dieExec is an action type whose Start kills the process with SIGKILL, as
// the kernel's OOM killer kills a server that a job's effect exhausts.
type dieExec struct{}

func (dieExec) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way
}
func (dieExec) Check(ctx context.Context, a *action.Context, id string) (action.Result, error) {
	return action.Result{ExternalID: id}, nil
}
func (dieExec) Kill(ctx context.Context, a *action.Context, id string) error { return nil }

func TestMain(m *testing.M) {
	// A launcher or supervisor started by a crash helper inherits the
	// helper's environment: its arguments, not a -test flag, tell it apart.
	if os.Getenv(benchLauncherEnv) == "1" && len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-test.") {
		os.Exit(launch.RunLauncher(os.Args[1:], os.Stdout, os.Stderr))
	}
	if dir := os.Getenv(crashHelperEnv); dir != "" {
		os.Exit(crashHelper(dir))
	}
	os.Setenv(benchLauncherEnv, "1")
	os.Exit(m.Run())
}

// shExec is the shell executor of package enginetest.
type shExec = enginetest.ShExec

func readLines(path string) ([]string, error) { return enginetest.ReadLines(path) }

// crashApp is 10 steps, a fork of three, 10 more steps. Each step's body
// is <sh/> (shExec) or, with shellLog set, a real shell action appending
// "<node>#0" to that file.
func crashApp(shellLog string) (string, []string) {
	var b strings.Builder
	var names []string
	step := func(name, next string) {
		names = append(names, name)
		body := `<sh xmlns="uri:gozie:sh:1.0"/>`
		if shellLog != "" {
			body = `<shell xmlns="uri:oozie:shell-action:1.0"><resource-manager>local</resource-manager>` +
				`<name-node>file:///</name-node><exec>sh</exec><argument>-c</argument>` +
				`<argument>sleep 0.02; echo ` + name + `#0 &gt;&gt; ` + shellLog + `</argument></shell>`
		}
		fmt.Fprintf(&b, `<action name="%s">%s<ok to="%s"/><error to="fail"/></action>`, name, body, next)
	}
	b.WriteString(`<start to="s1"/>`)
	for i := 1; i <= 10; i++ {
		next := fmt.Sprintf("s%d", i+1)
		if i == 10 {
			next = "f"
		}
		step(fmt.Sprintf("s%d", i), next)
	}
	b.WriteString(`<fork name="f"><path start="p1"/><path start="p2"/><path start="p3"/></fork>`)
	for i := 1; i <= 3; i++ {
		step(fmt.Sprintf("p%d", i), "j")
	}
	b.WriteString(`<join name="j" to="s11"/>`)
	for i := 11; i <= 20; i++ {
		next := fmt.Sprintf("s%d", i+1)
		if i == 20 {
			next = "end"
		}
		step(fmt.Sprintf("s%d", i), next)
	}
	b.WriteString(`<kill name="fail"><message>failed</message></kill><end name="end"/>`)
	return wf(b.String()), names
}

// crashHelper is the server process: it resumes whatever the store holds,
// submits the job if there is none yet, and waits for it to end.
func crashHelper(dir string) int {
	ctx := context.Background()
	var s store.Store
	var err error
	if dsn := os.Getenv(crashDSNEnv); dsn != "" {
		s, err = postgres.Open(ctx, dsn)
	} else {
		s, err = sqlite.Open(ctx, filepath.Join(dir, "gozie.db"))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	reg := action.NewRegistry()
	reg.Register("sh", shExec{Log: filepath.Join(dir, "log")})
	reg.Register("die", dieExec{})
	if os.Getenv(crashShellEnv) == "1" {
		self, err := os.Executable()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		launch.RegisterBuiltins(reg, launch.Options{Launcher: []string{self}, SupervisorDir: filepath.Join(dir, "launcher")})
	}
	e, err := New(Options{Store: s, Actions: reg, DataDir: dir, PollInterval: 20 * time.Millisecond, DefaultUser: "crash",
		StartSettle:  DefaultStartSettle, // as gozie server runs: crashes while a start settles too
		CrashJournal: filepath.Join(dir, "effects.journal")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := e.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var jobs []*store.Job
	if err := s.View(ctx, func(tx store.Tx) (err error) { jobs, err = tx.Jobs(ctx, store.JobFilter{}); return err }); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var id string
	if len(jobs) > 0 {
		id = jobs[0].ID
	} else {
		p := props(filepath.Join(dir, "app"))
		if id, err = e.Run(ctx, p); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	j, err := e.Wait(wctx, id)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	e.Close()
	s.Close()
	fmt.Println(j.Status)
	if j.Status != store.JobSucceeded {
		return 1
	}
	return 0
}

// TestCrashRecovery SIGKILLs the server twice in the middle of a run, on
// each store: after a restart the job succeeds and every step ran once.
//
// With real shell steps, the launch supervisor outlives every server: each
// restarted server re-attaches to it, and every step still runs once.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	for _, shell := range []bool{false, true} {
		name := "sh"
		if shell {
			name = "shell-supervisor"
		}
		t.Run(name, func(t *testing.T) {
			t.Run("sqlite", func(t *testing.T) { testCrashRecovery(t, "", shell) })
			t.Run("postgres", func(t *testing.T) { testCrashRecovery(t, postgres.TestDSN(t), shell) })
		})
	}
}

func testCrashRecovery(t *testing.T, dsn string, shell bool) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log")
	shellLog, shellEnv := "", "0"
	if shell {
		shellLog, shellEnv = logPath, "1"
		supDir := filepath.Join(dir, "launcher")
		if len(supDir) > 90 {
			// Not to test the per-step launcher fallback by accident.
			t.Skipf("temporary directory too long for a unix socket path")
		}
		t.Cleanup(func() {
			if err := launch.StopSupervisor(supDir, 20*time.Second); err != nil {
				t.Error(err)
			}
		})
	}
	appXML, names := crashApp(shellLog)
	if err := os.MkdirAll(filepath.Join(dir, "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app", "workflow.xml"), []byte(appXML), 0o644); err != nil {
		t.Fatal(err)
	}
	server := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashHelperEnv+"="+dir, crashDSNEnv+"="+dsn, crashShellEnv+"="+shellEnv)
		cmd.Stderr = os.Stderr
		return cmd
	}
	// Kill the server twice, at different points of the run.
	killMidRun(t, server, logPath, 4, 14)
	lines, _ := readLines(logPath)
	if len(lines) >= len(names) {
		t.Fatalf("the run finished before the last kill (%d lines); nothing was tested", len(lines))
	}
	cmd := server()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("restarted server: %v (%s)", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != store.JobSucceeded {
		t.Fatalf("job ended %s", got)
	}
	// Wait for any shell still writing (none should be), then count.
	lines, err = readLines(logPath)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, l := range lines {
		count[l]++
	}
	for _, n := range names {
		if c := count[n+"#0"]; c != 1 {
			t.Errorf("step %s ran %d times, want exactly once", n, c)
		}
	}
	if len(lines) != len(names) {
		t.Errorf("%d log lines for %d steps: %v", len(lines), len(names), lines)
	}
	if shell {
		// One supervisor ran every step, across the three servers.
		pids := map[int][]string{}
		files, _ := filepath.Glob(filepath.Join(dir, "actions", "*.0", launch.PIDFile))
		for _, f := range files {
			p, ok := launch.ReadLauncherPID(filepath.Dir(f))
			if !ok || !p.Supervised {
				t.Errorf("%s: %+v, %v; want a supervised step", f, p, ok)
			}
			pids[p.PID] = append(pids[p.PID], filepath.Base(filepath.Dir(f)))
		}
		if len(files) != len(names) || len(pids) != 1 {
			t.Errorf("%d pid files for %d steps, supervisors: %v", len(files), len(names), pids)
		}
	}
}

// TestCrashQuarantine: an action whose start kills the server (SIGKILL,
// as the OOM killer's) kills it twice, then the third server quarantines
// it: the action fails with CodeQuarantined, its error transition runs,
// and the job ends instead of killing every restart.
func TestCrashQuarantine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	appXML := wf(`<start to="boom"/><action name="boom"><die xmlns="uri:gozie:test:1.0"/><ok to="end"/><error to="after"/></action>` +
		`<action name="after"><sh xmlns="uri:gozie:sh:1.0"/><ok to="end"/><error to="end"/></action><end name="end"/>`)
	if err := os.MkdirAll(filepath.Join(dir, "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app", "workflow.xml"), []byte(appXML), 0o644); err != nil {
		t.Fatal(err)
	}
	for life := 1; life <= 3; life++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashHelperEnv+"="+dir, crashDSNEnv+"=", crashShellEnv+"=0")
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		killed := false
		if ee, ok := err.(*exec.ExitError); ok {
			ws, _ := ee.Sys().(syscall.WaitStatus)
			killed = ws.Signaled() && ws.Signal() == syscall.SIGKILL
		}
		if life < 3 && !killed {
			t.Fatalf("server %d: %v (%s), want killed by its action", life, err, out)
		}
		if life == 3 && (err != nil || strings.TrimSpace(string(out)) != store.JobSucceeded) {
			t.Fatalf("server 3: %v (%s), want the job to end", err, out)
		}
	}
	s, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var acts []*store.Action
	err = s.View(ctx, func(tx store.Tx) error {
		jobs, err := tx.Jobs(ctx, store.JobFilter{})
		if err != nil || len(jobs) != 1 {
			return fmt.Errorf("jobs: %d, %v", len(jobs), err)
		}
		acts, err = tx.Actions(ctx, jobs[0].ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, a := range acts {
		got[a.Name] = a.Status + " " + a.ErrorCode
	}
	if got["boom"] != store.ActionError+" "+CodeQuarantined || got["after"] != store.ActionOK+" " {
		t.Errorf("actions %v; want boom quarantined, after run", got)
	}
}

// killMidRun is enginetest.KillMidRun.
func killMidRun(t *testing.T, helper func() *exec.Cmd, logPath string, atLines ...int) {
	t.Helper()
	enginetest.KillMidRun(t, helper, logPath, atLines...)
}

// TestRestartReattaches closes an engine while an action runs and starts a
// new one on the same store: it checks the running action instead of
// starting it again, and the job finishes.
func TestRestartReattaches(t *testing.T) {
	h := newHarness(t)
	h.exec.set("a", &behaviour{async: true})
	id := h.run(props(h.writeApp("re", twoStepApp(), nil)))
	h.eventually("a running", func() bool { return h.actionStatus(id, "a") == store.ActionRunning })
	h.e.Close()

	// The "external system" finished the action while no engine ran.
	exec2 := newTestExec()
	exec2.finished["a"] = action.Result{Done: true, Status: action.OK, ExternalStatus: "SUCCEEDED"}
	reg := action.NewRegistry()
	reg.Register("test", exec2)
	e2, err := New(Options{Store: h.store, Actions: reg, DataDir: h.dir, Clock: h.clock, PollInterval: time.Hour, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	if err := e2.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	j, err := e2.Wait(ctx, id)
	if err != nil || j.Status != store.JobSucceeded {
		t.Fatalf("after restart: %v %v", j, err)
	}
	if n := exec2.count(exec2.starts, "a"); n != 0 {
		t.Fatalf("a started %d times after the restart, want 0 (re-attach)", n)
	}
	if n := exec2.count(exec2.starts, "b"); n != 1 {
		t.Fatalf("b started %d times", n)
	}
}
