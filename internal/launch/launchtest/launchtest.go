// Package launchtest holds what the tests of the launch runtime and of the
// action families share: a TestMain that makes the test binary act as
// `gozie launch`, launch options for both launch modes, action contexts
// and waits bounded by Deadline.
package launchtest

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/osuser/osusertest"
	"github.com/gozie/gozie/internal/workflow"
)

// ActionBody parses body (an action element such as <fs>...</fs>) with the
// real workflow parser, as the engine would hand it over.
func ActionBody(t testing.TB, body string) *workflow.Element {
	t.Helper()
	doc := `<workflow-app xmlns="uri:oozie:workflow:0.5" name="w"><start to="a"/>` +
		`<action name="a">` + body + `<ok to="end"/><error to="end"/></action><end name="end"/></workflow-app>`
	app, err := workflow.ParseNoValidate([]byte(doc))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, doc)
	}
	return app.Node("a").Action.Body
}

// MkTree creates files (names ending in "/" are directories) under root.
func MkTree(t testing.TB, root string, files ...string) {
	t.Helper()
	for _, name := range files {
		p := filepath.Join(root, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// GitBody wraps inner in a <git> action element of schema 1.0.
func GitBody(inner string) string {
	return `<git xmlns="uri:oozie:git-action:1.0"><name-node>file:///</name-node>` + inner + `</git>`
}

// launcherEnv makes the test binary act as `gozie launch`, so that the
// shell executor can be tested without building gozie. Built-in tools run
// as steps, which never get GOZIE_* variables (stepEnv): hence the name.
const launcherEnv = "GZTEST_LAUNCHER"

// Fault injection into the launcher process (a child of the tests, so
// package variables cannot be set from the test itself).
const (
	// NoSpaceFlagEnv names a file: while it exists, the launcher's
	// status writes fail with ENOSPC, as on a full disk.
	NoSpaceFlagEnv = "GOZIE_TEST_LAUNCHER_NOSPACE_FLAG"
	// RetryMSEnv sets the launcher's wait between status attempts.
	RetryMSEnv = "GOZIE_TEST_LAUNCHER_RETRY_MS"
	// ProtocolEnv makes a supervisor speak another protocol version.
	ProtocolEnv = "GOZIE_TEST_SUPERVISOR_PROTOCOL"
	// IdleMSEnv sets how long a supervisor stays idle before it exits.
	IdleMSEnv = "GOZIE_TEST_SUPERVISOR_IDLE_MS"
	// BuildEnv makes a supervisor take itself for another build.
	BuildEnv = "GOZIE_TEST_SUPERVISOR_BUILD"
)

// Main is the TestMain of a package whose tests start launchers: run as
// the launcher by the executors under test (the environment says so), the
// test binary acts as `gozie launch`, with the fault injection the
// environment asks for; otherwise it runs the tests.
func Main(m *testing.M) {
	if os.Getenv(launcherEnv) == "1" {
		if ms, err := strconv.Atoi(os.Getenv(RetryMSEnv)); err == nil {
			launch.StatusRetryWait = func(int) time.Duration { return time.Duration(ms) * time.Millisecond }
		}
		if v, err := strconv.Atoi(os.Getenv(ProtocolEnv)); err == nil {
			launch.SupervisorProtocol = v
		}
		if b := os.Getenv(BuildEnv); b != "" {
			launch.BuildOf = func(string) string { return b }
		}
		if ms, err := strconv.Atoi(os.Getenv(IdleMSEnv)); err == nil {
			launch.SupervisorIdle = time.Duration(ms) * time.Millisecond
		}
		if flag := os.Getenv(NoSpaceFlagEnv); flag != "" {
			real := launch.WriteStatus
			launch.WriteStatus = func(dir string, data []byte) error {
				if _, err := os.Stat(flag); err == nil {
					return &os.PathError{Op: "write", Path: dir + "/" + launch.StatusFile, Err: syscall.ENOSPC}
				} else if !errors.Is(err, os.ErrNotExist) {
					return err
				}
				return real(dir, data)
			}
		}
		os.Exit(launch.RunLauncher(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Setenv(launcherEnv, "1")
	os.Exit(m.Run())
}

// Launcher is the launcher command of the tests: this very binary.
func Launcher(t testing.TB) launch.Options {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return launch.Options{Launcher: []string{self}}
}

// Modes are the two ways the shell executor starts programs; tests
// of behaviour both must have run over this table.
var Modes = []struct {
	Name string
	Opts func(t testing.TB) launch.Options
}{
	{"launcher", Launcher},
	{"supervisor", Supervised},
}

// Supervised is testLauncher with a launch supervisor in a directory
// of its own, stopped when the test ends.
func Supervised(t testing.TB) launch.Options {
	opts := Launcher(t)
	opts.SupervisorDir = SupervisorDir(t)
	return opts
}

// SupervisorDir is a short temporary directory (a unix socket path
// has at most 107 bytes) whose supervisor, if any, is stopped and waited
// for when the test ends.
func SupervisorDir(t testing.TB) string {
	dir, err := os.MkdirTemp("", "gozie-sup")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := launch.StopSupervisor(dir, Deadline); err != nil {
			t.Errorf("stopping the supervisor: %v", err)
		}
		os.RemoveAll(dir)
	})
	return dir
}

// TestUser is the account the run-as tests act as.
const TestUser = osusertest.Name

// EnsureTestUser returns the test account (osusertest creates it when
// missing, or skips the test).
func EnsureTestUser(t *testing.T) *user.User {
	t.Helper()
	osusertest.User(t)
	u, err := user.Lookup(TestUser)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// OpenDir is a temporary directory every user may traverse, as a server's
// data directory must be with RunAsUser.
func OpenDir(t *testing.T) string { return osusertest.OpenDir(t) }

// Registered returns the executor RegisterBuiltins makes for actionType.
func Registered(t *testing.T, actionType string, opts launch.Options) action.Executor {
	t.Helper()
	reg := action.NewRegistry()
	if opts.Launcher == nil {
		opts.Launcher = Launcher(t).Launcher
	}
	launch.RegisterBuiltins(reg, opts)
	e, ok := reg.Lookup(actionType)
	if !ok {
		t.Fatalf("no executor for %s", actionType)
	}
	return e
}

// Within runs fn and fails the test when it has not returned after d: the
// findings below are calls that never returned.
func Within(t *testing.T, d time.Duration, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("still blocked after %v", d)
		return nil
	}
}

// ShellNS is the namespace attribute of a shell action element.
const ShellNS = `xmlns="uri:oozie:shell-action:0.3"`

// Deadline bounds every wait of these tests; nothing sleeps for
// correctness, the tests wait for processes and files up to it.
const Deadline = 20 * time.Second

// ShellAction builds a Context for a shell body and a channel that receives
// the executor's notifications.
func ShellAction(t testing.TB, appDir, body string) (*action.Context, chan struct{}) {
	t.Helper()
	notified := make(chan struct{}, 16)
	a := &action.Context{
		JobID: "0000001-gozie-W", ActionID: "0000001-gozie-W@sh", Name: "sh", Type: "shell",
		AppPath: appDir, WorkDir: filepath.Join(t.TempDir(), "work"),
		Element: ActionBody(t, "<shell "+ShellNS+">"+body+"</shell>"),
		Conf:    conf.FromMap(map[string]string{"mapred.job.queue.name": "default", "my.prop": "a&b"}),
		Notify:  func() { notified <- struct{}{} },
	}
	return a, notified
}

// RunToEnd starts the action, waits for the notification and checks it.
func RunToEnd(t testing.TB, e action.Executor, a *action.Context, notified chan struct{}) action.Result {
	t.Helper()
	res, err := e.Start(context.Background(), a)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if res.ExternalID == "" {
		t.Fatal("Start set no ExternalID")
	}
	if !res.Done {
		select {
		case <-notified:
		case <-time.After(Deadline):
			t.Fatal("no notification before the deadline")
		}
	}
	res, err = e.Check(context.Background(), a, res.ExternalID)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if !res.Done {
		t.Fatalf("Check after notification: not done: %+v", res)
	}
	return res
}

// WaitFor polls cond until it holds or the deadline passes.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(Deadline)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// StartAndReap starts a process that exits at once, waits for it and
// returns its pid: a pid nobody uses any more.
func StartAndReap(t *testing.T) int {
	var attr syscall.ProcAttr
	pid, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", "exit 0"}, &attr)
	if err != nil {
		t.Fatal(err)
	}
	var ws syscall.WaitStatus
	syscall.Wait4(pid, &ws, 0, nil)
	return pid
}

// WriteTgz writes a gzipped tar archive of files at path.
func WriteTgz(t *testing.T, path string, files map[string]string) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
}

// ZipFile writes a zip archive of files at path.
func ZipFile(t *testing.T, path string, files map[string]string) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	zw.Close()
}

// Exited reports whether the process of cmd has ended (and reaps it).
func Exited(cmd *exec.Cmd) bool {
	var ws syscall.WaitStatus
	pid, _ := syscall.Wait4(cmd.Process.Pid, &ws, syscall.WNOHANG, nil)
	return pid == cmd.Process.Pid || !launch.ProcessExists(cmd.Process.Pid)
}

// ToolAction builds the Context of one action body of the given type.
func ToolAction(t testing.TB, typ, appDir, body string, props map[string]string) (*action.Context, chan struct{}) {
	t.Helper()
	notified := make(chan struct{}, 16)
	if props == nil {
		props = map[string]string{"mapred.job.queue.name": "default", "my.prop": "a&b"}
	}
	return &action.Context{
		JobID: "0000001-gozie-W", ActionID: "0000001-gozie-W@" + typ, Name: typ, Type: typ, User: "alice",
		AppPath: appDir, WorkDir: filepath.Join(t.TempDir(), "work"),
		Element: ActionBody(t, body),
		Conf:    conf.FromMap(props),
		Notify:  func() { notified <- struct{}{} },
	}, notified
}
