package coordengine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/postgres"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// The coordinator crash test is the workflow crash test (crash_test.go) for
// a coordinator: a helper process runs an 8-action hourly coordinator whose
// workflows have three steps each, is SIGKILLed twice mid-run, and a last
// run finishes it. Every step of every action must have run exactly once
// and every action must have launched exactly one workflow.

// coordCrashHelperEnv names the helper's data directory.
const coordCrashHelperEnv = "GOZIE_ENGINE_COORD_CRASH_HELPER_DIR"

const coordCrashActions, coordCrashSteps = 8, 3

// hourLabel labels a crash line with the coordinator action's hour.
func hourLabel(a *action.Context) string {
	hour, _ := a.JobConf.Get("hour")
	return hour
}

// writeCoordCrashApp writes the coordinator and its workflow into dir/app.
func writeCoordCrashApp(t *testing.T, dir string) {
	t.Helper()
	var steps strings.Builder
	for i := 1; i <= coordCrashSteps; i++ {
		next := fmt.Sprintf("s%d", i+1)
		if i == coordCrashSteps {
			next = "end"
		}
		fmt.Fprintf(&steps, `<action name="s%d"><sh xmlns="uri:gozie:sh:1.0"/><ok to="%s"/><error to="fail"/></action>`, i, next)
	}
	wfXML := wf(`<start to="s1"/>` + steps.String() + `<kill name="fail"><message>failed</message></kill><end name="end"/>`)
	coordXML := fmt.Sprintf(`<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="crash" frequency="${coord:hours(1)}"
    start="2026-01-01T00:00Z" end="2026-01-01T%02d:00Z" timezone="UTC">
  <controls><concurrency>2</concurrency></controls>
  <action><workflow><app-path>%s</app-path><configuration>
    <property><name>hour</name><value>${coord:formatTime(coord:nominalTime(), 'HH')}</value></property>
  </configuration></workflow></action>
</coordinator-app>`, coordCrashActions, filepath.Join(dir, "app", "wf"))
	for path, text := range map[string]string{"wf/workflow.xml": wfXML, "coordinator.xml": coordXML} {
		p := filepath.Join(dir, "app", path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func openCrashStore(ctx context.Context, dir string) (store.Store, error) {
	if dsn := os.Getenv(crashDSNEnv); dsn != "" {
		return postgres.Open(ctx, dsn)
	}
	return sqlite.Open(ctx, filepath.Join(dir, "gozie.db"))
}

// coordCrashHelper is the server process: it resumes what the store holds,
// submits the coordinator if there is none yet, and waits for it to end.
func coordCrashHelper(dir string) int {
	ctx := context.Background()
	fail := func(err error) int { fmt.Fprintln(os.Stderr, err); return 2 }
	s, err := openCrashStore(ctx, dir)
	if err != nil {
		return fail(err)
	}
	if at := os.Getenv(launchCrashEnv); at != "" {
		s = newLaunchKiller(s, at)
	}
	reg := action.NewRegistry()
	reg.Register("sh", shExec{Log: filepath.Join(dir, "log"), Label: hourLabel})
	e, err := newEngines(engine.Options{Store: s, Actions: reg, DataDir: dir, PollInterval: 20 * time.Millisecond,
		DefaultUser: "crash"}, Options{InputCheckInterval: 20 * time.Millisecond})
	if err != nil {
		return fail(err)
	}
	if err := e.Start(ctx); err != nil {
		return fail(err)
	}
	var jobs []*store.CoordJob
	if err := s.View(ctx, func(tx store.Tx) (err error) { jobs, err = tx.CoordJobs(ctx, store.JobFilter{}); return err }); err != nil {
		return fail(err)
	}
	var id string
	if len(jobs) > 0 {
		id = jobs[0].ID
	} else {
		p := conf.New()
		p.Set("oozie.coord.application.path", filepath.Join(dir, "app"))
		p.Set("user.name", "crash")
		if id, err = e.Run(ctx, p); err != nil {
			return fail(err)
		}
	}
	deadline := time.Now().Add(time.Minute)
	for {
		j, err := e.CoordJob(ctx, id)
		if err != nil {
			return fail(err)
		}
		if j.Status == store.CoordSucceeded || j.Status == store.CoordDoneWithError ||
			j.Status == store.CoordKilled || j.Status == store.CoordFailed {
			e.Close()
			s.Close()
			fmt.Println(j.Status)
			return 0
		}
		if time.Now().After(deadline) {
			return fail(fmt.Errorf("coordinator %s still %s after a minute", id, j.Status))
		}
		time.Sleep(20 * time.Millisecond) // polling the job's status
	}
}

func TestCoordCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	t.Run("sqlite", func(t *testing.T) { testCoordCrashRecovery(t, "") })
	t.Run("postgres", func(t *testing.T) { testCoordCrashRecovery(t, postgres.TestDSN(t)) })
}

func testCoordCrashRecovery(t *testing.T, dsn string) {
	dir := t.TempDir()
	writeCoordCrashApp(t, dir)
	logPath := filepath.Join(dir, "log")
	total := coordCrashActions * coordCrashSteps
	helper := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), coordCrashHelperEnv+"="+dir, crashDSNEnv+"="+dsn)
		cmd.Stderr = os.Stderr
		return cmd
	}
	killMidRun(t, helper, logPath, 4, 15)
	if lines, _ := readLines(logPath); len(lines) >= total {
		t.Fatalf("the run finished before the last kill (%d lines); nothing was tested", len(lines))
	}
	finishCoordCrashRun(t, dir, dsn, helper)
}

// finishCoordCrashRun runs the helper to the coordinator's end and checks
// that every step of every action ran exactly once and every action
// launched exactly one workflow.
func finishCoordCrashRun(t *testing.T, dir, dsn string, helper func() *exec.Cmd) {
	t.Helper()
	logPath := filepath.Join(dir, "log")
	total := coordCrashActions * coordCrashSteps
	out, err := helper().Output()
	if err != nil {
		t.Fatalf("restarted server: %v (%s)", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != store.CoordSucceeded {
		t.Fatalf("coordinator ended %s", got)
	}
	lines, err := readLines(logPath)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, l := range lines {
		count[l]++
	}
	for h := range coordCrashActions {
		for s := 1; s <= coordCrashSteps; s++ {
			if c := count[fmt.Sprintf("%02d/s%d#0", h, s)]; c != 1 {
				t.Errorf("hour %02d step s%d ran %d times, want exactly once", h, s, c)
			}
		}
	}
	if len(lines) != total {
		t.Errorf("%d log lines for %d steps: %v", len(lines), total, lines)
	}
	// Every action launched exactly one workflow.
	ctx := context.Background()
	t.Setenv(crashDSNEnv, dsn)
	s, err := openCrashStore(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.View(ctx, func(tx store.Tx) error {
		wfs, err := tx.Jobs(ctx, store.JobFilter{})
		if err != nil {
			return err
		}
		perAction := map[string]int{}
		for _, j := range wfs {
			perAction[j.ParentID]++
		}
		if len(perAction) != coordCrashActions {
			t.Errorf("workflows belong to %d actions, want %d: %v", len(perAction), coordCrashActions, perAction)
		}
		for a, n := range perAction {
			if n != 1 {
				t.Errorf("action %s launched %d workflows", a, n)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// launchCrashEnv makes the crash helper SIGKILL itself at a coordinator
// launch: "before N" inside the Nth launch's transaction, before it
// commits; "after N" once it has committed, before anything it stored is
// dispatched.
const launchCrashEnv = "GOZIE_ENGINE_COORD_LAUNCH_CRASH"

// launchKiller is a store that kills its process at a launch.
type launchKiller struct {
	store.Store
	after bool
	n     int
	mu    sync.Mutex
	seen  int
}

func newLaunchKiller(s store.Store, at string) *launchKiller {
	when, n, _ := strings.Cut(at, " ")
	k := &launchKiller{Store: s, after: when == "after"}
	k.n, _ = strconv.Atoi(n)
	return k
}

// launchTx notes whether its transaction writes a coordinator's workflow.
type launchTx struct {
	store.Tx
	launch *bool
}

func (tx launchTx) PutJob(ctx context.Context, j *store.Job) error {
	if strings.Contains(j.ParentID, "-C@") && j.Status == store.JobRunning {
		*tx.launch = true
	}
	return tx.Tx.PutJob(ctx, j)
}

func (k *launchKiller) Update(ctx context.Context, fn func(store.Tx) error) error {
	var launch bool
	err := k.Store.Update(ctx, func(tx store.Tx) error {
		launch = false
		if err := fn(launchTx{tx, &launch}); err != nil {
			return err
		}
		if launch && !k.after && k.count() {
			k.die()
		}
		return nil
	})
	if err == nil && launch && k.after && k.count() {
		k.die()
	}
	return err
}

// count counts a launch and reports whether it is the one to die at.
func (k *launchKiller) count() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.seen++
	return k.seen == k.n
}

func (k *launchKiller) die() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way
}

// TestCoordLaunchCrash kills the server at coordinator launches, inside
// the launch's transaction and right after its commit: the launch is one
// commit, so each action still launches exactly one workflow whose steps
// each run once.
func TestCoordLaunchCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	t.Run("sqlite", func(t *testing.T) { testCoordLaunchCrash(t, "") })
	t.Run("postgres", func(t *testing.T) { testCoordLaunchCrash(t, postgres.TestDSN(t)) })
}

func testCoordLaunchCrash(t *testing.T, dsn string) {
	dir := t.TempDir()
	writeCoordCrashApp(t, dir)
	helper := func(crash string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), coordCrashHelperEnv+"="+dir, crashDSNEnv+"="+dsn, launchCrashEnv+"="+crash)
		cmd.Stderr = os.Stderr
		return cmd
	}
	for _, crash := range []string{"before 1", "after 1", "before 3", "after 2"} {
		err := helper(crash).Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != -1 {
			t.Fatalf("helper with crash %q: %v, want killed", crash, err)
		}
	}
	finishCoordCrashRun(t, dir, dsn, func() *exec.Cmd { return helper("") })
}
