package shell

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"

	"github.com/gozie/gozie/internal/testfs"
)

// recordStatus keeps trying while the disk is full and gives up at once
// on any other error; it waits through the sleep it is given, never the
// wall clock.
func TestRecordStatus(t *testing.T) {
	nospace := &os.PathError{Op: "write", Path: "status.json", Err: syscall.ENOSPC}
	quota := &os.PathError{Op: "write", Path: "status.json", Err: syscall.EDQUOT}
	denied := &os.PathError{Op: "open", Path: "status.json", Err: syscall.EACCES}
	cases := []struct {
		name      string
		errs      []error // successive results of writeStatus; then nil
		wantErr   error
		wantCalls int
	}{
		{"written at once", nil, nil, 1},
		{"disk full three times", []error{nospace, nospace, nospace}, nil, 4},
		{"quota exceeded", []error{quota}, nil, 2},
		{"other error", []error{denied}, denied, 1},
		{"disk full then other error", []error{nospace, denied}, denied, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			saved := launch.WriteStatus
			t.Cleanup(func() { launch.WriteStatus = saved })
			launch.WriteStatus = func(dir string, data []byte) error {
				calls++
				if calls <= len(c.errs) {
					return c.errs[calls-1]
				}
				return nil
			}
			var slept []time.Duration
			var log strings.Builder
			err := launch.RecordStatus(t.TempDir(), []byte("{}"), func(d time.Duration) { slept = append(slept, d) }, &log)
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("err = %v, want %v", err, c.wantErr)
			}
			if calls != c.wantCalls || len(slept) != calls-1 {
				t.Errorf("%d writes, %d waits; want %d writes", calls, len(slept), c.wantCalls)
			}
			for i := 1; i < len(slept); i++ {
				if slept[i] < slept[i-1] {
					t.Errorf("waits %v do not back off", slept)
				}
			}
		})
	}
}

// The status goes into the room reserved by the executor, so that a disk
// filled by the program itself does not stop the launcher from recording
// its outcome.
func TestWriteStatusUsesReserve(t *testing.T) {
	dir := t.TempDir()
	if err := launch.ReserveLauncherFiles(dir, 0, false); err != nil {
		t.Fatal(err)
	}
	if err := launch.WriteStatus(dir, []byte(`{"exitCode":0}`)); err != nil {
		t.Fatal(err)
	}
	if launch.Exists(filepath.Join(dir, launch.StatusReserveFile)) {
		t.Error("the reserve was not used")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, launch.StatusFile)); string(b) != `{"exitCode":0}` {
		t.Errorf("status.json = %q", b)
	}
	// A link planted under the reserve's name is not written through.
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	os.Remove(filepath.Join(dir, launch.StatusFile))
	os.Symlink(victim, filepath.Join(dir, launch.StatusReserveFile))
	if err := launch.WriteStatus(dir, []byte(`{"exitCode":1}`)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the status was written through a link: victim = %q", b)
	}
}

// Fault point 10a, by injection: the program runs, the launcher cannot
// write its status (ENOSPC); the action stays RUNNING, never lost, and
// when space returns the outcome is recorded: OK once, with its output.
//
// The supervisor, started by this test, inherits the fault's environment.
func TestShellStatusDiskFull(t *testing.T) {
	for _, mode := range launchtest.Modes {
		t.Run(mode.Name, func(t *testing.T) { testShellStatusDiskFull(t, mode.Opts) })
	}
}

func testShellStatusDiskFull(t *testing.T, options func(testing.TB) launch.Options) {
	flag := filepath.Join(t.TempDir(), "disk-full")
	os.WriteFile(flag, nil, 0o644)
	t.Setenv(launchtest.NoSpaceFlagEnv, flag)
	t.Setenv(launchtest.RetryMSEnv, "5")
	count := filepath.Join(t.TempDir(), "count")
	a, notified := launchtest.ShellAction(t, t.TempDir(),
		`<exec>sh</exec><argument>-c</argument><argument>echo run >> `+count+`; echo k=v</argument><capture-output/>`)
	opts := options(t)
	e := NewShell(opts)
	res, err := e.Start(context.Background(), a)
	if err != nil || res.Done {
		t.Fatalf("Start = %+v, %v", res, err)
	}
	log := filepath.Join(a.WorkDir, launch.LauncherLog)
	if opts.SupervisorDir != "" {
		log = filepath.Join(opts.SupervisorDir, launch.SupervisorLog)
	}
	launchtest.WaitFor(t, "the launcher to meet the full disk", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "cannot record status")
	})
	for _, ex := range []action.Executor{e, NewShell(opts)} { // this server, and one restarted
		r, err := ex.Check(context.Background(), a, res.ExternalID)
		if err != nil || r.Done {
			t.Fatalf("Check on a full disk = %+v, %v; want still running", r, err)
		}
	}
	os.Remove(flag) // space returns
	select {
	case <-notified:
	case <-time.After(launchtest.Deadline):
		t.Fatal("no notification after space returned")
	}
	r, err := e.Check(context.Background(), a, res.ExternalID)
	if err != nil || !r.Done || r.Status != action.OK || r.Data["k"] != "v" {
		t.Fatalf("Check after space returned = %+v, %v", r, err)
	}
	if b, _ := os.ReadFile(count); string(b) != "run\n" {
		t.Errorf("program runs: %q, want one", b)
	}
}

// Fault point 10b, by injection: a working directory that cannot be made
// on a full disk is a transient error (START_RETRY in the engine), with
// nothing run; other errors keep their own message.
func TestShellStartDiskFull(t *testing.T) {
	cases := []struct {
		name     string
		errno    syscall.Errno
		wantKind action.ErrorKind
		wantMsg  string
	}{
		{"no space", syscall.ENOSPC, action.Transient, "disk full: creating working directory"},
		{"quota", syscall.EDQUOT, action.Transient, "disk full: creating working directory"},
		{"denied", syscall.EACCES, action.Transient, "creating working directory: mkdir"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			saved := launch.MkdirAll
			t.Cleanup(func() { launch.MkdirAll = saved })
			launch.MkdirAll = func(p string, _ os.FileMode) error { return &os.PathError{Op: "mkdir", Path: p, Err: c.errno} }
			a, _ := launchtest.ShellAction(t, t.TempDir(), `<exec>true</exec>`)
			_, err := NewShell(launchtest.Launcher(t)).Start(context.Background(), a)
			var ee *action.ExecError
			if !errors.As(err, &ee) || ee.Kind != c.wantKind || ee.Code != launch.CodeIO || !strings.Contains(ee.Msg, c.wantMsg) {
				t.Fatalf("Start = %v; want kind %d, %s", err, c.wantKind, c.wantMsg)
			}
			if launch.Exists(a.WorkDir) {
				t.Error("a working directory was made")
			}
		})
	}
}

// A launcher that died without a status is lost only when the disk has
// room: on a full disk the check is retried (END_RETRY in the engine).
func TestShellLauncherGoneDiskFull(t *testing.T) {
	for _, full := range []bool{true, false} {
		saved := launch.DiskFullCheck
		launch.DiskFullCheck = func(string) bool { return full }
		a, _ := launchtest.ShellAction(t, t.TempDir(), `<exec>true</exec>`)
		os.MkdirAll(a.WorkDir, 0o755)
		dead := launchtest.StartAndReap(t)
		launch.WriteFileAtomic(filepath.Join(a.WorkDir, launch.PIDFile), []byte(`{"pid":`+itoa(dead)+`,"pgid":`+itoa(dead)+`}`))
		r, err := NewShell(launchtest.Launcher(t)).Check(context.Background(), a, a.WorkDir)
		launch.DiskFullCheck = saved
		var ee *action.ExecError
		if full {
			if !errors.As(err, &ee) || ee.Kind != action.Transient || r.Done || !strings.Contains(ee.Msg, "disk full") {
				t.Errorf("full disk: Check = %+v, %v; want a transient disk-full error", r, err)
			}
		} else if err != nil || !r.Done || r.ErrorCode != launch.CodeLauncherGone {
			t.Errorf("disk with room: Check = %+v, %v; want %s", r, err, launch.CodeLauncherGone)
		}
	}
}

// Fault point 10, on a real full disk (tmpfs, as root): a start on the full
// disk fails transiently and leaves nothing; a program that fills the disk
// still gets its outcome recorded (in the reserved room) at once; one that
// also removes the reserve keeps its launcher waiting until space is
// freed, and then ends OK, having run once.
func TestShellRealDiskFull(t *testing.T) {
	for _, mode := range launchtest.Modes {
		t.Run(mode.Name, func(t *testing.T) { testShellRealDiskFull(t, mode.Opts(t)) })
	}
}

func testShellRealDiskFull(t *testing.T, opts launch.Options) {
	mnt := filepath.Join(t.TempDir(), "disk")
	testfs.Mount(t, mnt, "512k")
	t.Setenv(launchtest.RetryMSEnv, "10")
	outside := t.TempDir()

	free := testfs.Fill(t, filepath.Join(mnt, "fill"))
	a, _ := launchtest.ShellAction(t, t.TempDir(), `<exec>true</exec>`)
	a.WorkDir = filepath.Join(mnt, "a", "0")
	_, err := NewShell(opts).Start(context.Background(), a)
	var ee *action.ExecError
	if !errors.As(err, &ee) || ee.Kind != action.Transient || !strings.Contains(ee.Msg, "no space left on device") {
		t.Fatalf("Start on a full disk = %v; want a transient disk-full error", err)
	}
	if launch.Exists(a.WorkDir) {
		t.Error("the failed attempt left its working directory")
	}
	free()

	for _, c := range []struct {
		name, script string
		waits        bool
	}{
		{"program fills the disk", `echo k=v; head -c 1048576 /dev/zero > ` + mnt + `/fill 2>/dev/null; true`, false},
		{"program fills the disk and takes the reserve", `echo k=v; rm -f .status.reserve; head -c 1048576 /dev/zero > ` + mnt + `/fill 2>/dev/null; true`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			count := filepath.Join(outside, c.name)
			a, notified := launchtest.ShellAction(t, t.TempDir(), `<exec>sh</exec><argument>-c</argument><argument>echo run >> '`+count+`'; `+c.script+`</argument><capture-output/>`)
			a.WorkDir = filepath.Join(mnt, strings.ReplaceAll(c.name, " ", "-"), "0")
			e := NewShell(opts)
			res, err := e.Start(context.Background(), a)
			if err != nil {
				t.Fatal(err)
			}
			if c.waits {
				launchtest.WaitFor(t, "the program to fill the disk", func() bool { return launch.Exists(filepath.Join(mnt, "fill")) && launch.DiskFullCheck(mnt) })
				time.Sleep(50 * time.Millisecond) // only lets the launcher fail a few times; the checks below do not depend on it
				if r, err := e.Check(context.Background(), a, res.ExternalID); err != nil || r.Done {
					t.Fatalf("Check while the disk is full = %+v, %v; want running", r, err)
				}
				os.Remove(filepath.Join(mnt, "fill"))
			}
			select {
			case <-notified:
			case <-time.After(launchtest.Deadline):
				t.Fatal("no notification")
			}
			r, err := e.Check(context.Background(), a, res.ExternalID)
			if err != nil || !r.Done || r.Status != action.OK || r.Data["k"] != "v" {
				t.Fatalf("Check = %+v, %v; want OK with k=v", r, err)
			}
			if b, _ := os.ReadFile(count); string(b) != "run\n" {
				t.Errorf("program runs: %q, want one", b)
			}
			os.Remove(filepath.Join(mnt, "fill"))
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
