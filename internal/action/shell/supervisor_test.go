package shell

import (
	"bufio"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"
)

// startTestSupervisor starts a supervisor by hand, with extra environment
// (an old or new protocol), and returns its process once it listens.
func startTestSupervisor(t *testing.T, dir string, env ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(self, "-supervise", dir)
	cmd.Env = append(os.Environ(), env...)
	cmd.ExtraFiles = []*os.File{w}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, _ := bufio.NewReader(r).ReadString('\n')
	if !strings.HasPrefix(line, "ok") {
		t.Fatalf("supervisor said %q", line)
	}
	return cmd
}

// A supervisor that dies while its program runs: the step is reported lost
// (JA017), never OK; Kill still reaches the program's group; the next
// step starts a new supervisor.
func TestSupervisorDies(t *testing.T) {
	// The programs must see the server's environment, sent once to a
	// supervisor and named by its id afterwards (protocol 4), including
	// to a new supervisor that never got it.
	t.Setenv("STEP_ENV_PROBE", "yes")
	opts := launchtest.Supervised(t)
	e := NewShell(opts)
	a, notified := launchtest.ShellAction(t, t.TempDir(), `<exec>sh</exec><argument>-c</argument><argument>sleep 100</argument>`)
	res, err := e.Start(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	pid, ok := launch.ReadPID(a.WorkDir)
	if !ok || !pid.Supervised || pid.PGID <= 0 || pid.PGID == pid.PID {
		t.Fatalf("pid file = %+v, %v; want the supervisor and the program's own group", pid, ok)
	}
	if pid.PID != launch.SupervisorPID(opts.SupervisorDir) {
		t.Fatalf("pid file names %d, the supervisor is %d", pid.PID, launch.SupervisorPID(opts.SupervisorDir))
	}
	if err := syscall.Kill(pid.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-notified: // the connection to the supervisor ended
	case <-timeAfter():
		t.Fatal("no notification when the supervisor died")
	}
	launchtest.WaitFor(t, "the supervisor to be gone", func() bool { return !launch.Alive(pid) })
	r, err := e.Check(context.Background(), a, res.ExternalID)
	if err != nil || !r.Done || r.Status != action.Error || r.ErrorCode != launch.CodeLauncherGone {
		t.Fatalf("Check after the supervisor died = %+v, %v; want %s", r, err, launch.CodeLauncherGone)
	}
	if !launch.GroupAlive(pid.PGID) {
		t.Fatal("the program died with the supervisor; the test shows nothing about Kill")
	}
	if err := NewShell(opts).Kill(context.Background(), a, res.ExternalID); err != nil {
		t.Fatal(err)
	}
	if launch.GroupAlive(pid.PGID) {
		t.Error("the orphaned program's group survived Kill")
	}

	// Restarted on demand, with the environment: the new supervisor
	// does not know the id the client sends, and asks for the whole.
	probe := `<exec>sh</exec><argument>-c</argument><argument>test "$STEP_ENV_PROBE" = yes</argument>`
	b, notifiedB := launchtest.ShellAction(t, t.TempDir(), probe)
	if r := launchtest.RunToEnd(t, e, b, notifiedB); r.Status != action.OK {
		t.Fatalf("next step = %+v", r)
	}
	pidB, _ := launch.ReadPID(b.WorkDir)
	if !pidB.Supervised || pidB.PID == pid.PID {
		t.Errorf("next step ran under %+v, want a new supervisor", pidB)
	}
	// And the step after it, which sends only the id.
	c, notifiedC := launchtest.ShellAction(t, t.TempDir(), probe)
	if r := launchtest.RunToEnd(t, e, c, notifiedC); r.Status != action.OK {
		t.Fatalf("third step = %+v", r)
	}
	if pidC, _ := launch.ReadPID(c.WorkDir); pidC.PID != pidB.PID {
		t.Errorf("third step ran under %+v, want the supervisor of the second (%d)", pidC, pidB.PID)
	}
}

// A supervisor speaking an older protocol, or running another build of
// the binary (an upgrade), hands over to a new one; a newer one is left
// alone and the per-step launcher is used.
func TestSupervisorVersion(t *testing.T) {
	tests := []struct {
		name        string
		env         string
		supervised  bool // the step ran under a supervisor
		replacedOld bool // the first supervisor stopped
	}{
		{"older supervisor", launchtest.ProtocolEnv + "=" + strconv.Itoa(launch.SupervisorProtocol-1), true, true},
		{"newer supervisor", launchtest.ProtocolEnv + "=" + strconv.Itoa(launch.SupervisorProtocol+1), false, false},
		{"other build", launchtest.BuildEnv + "=1-2", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := launchtest.Supervised(t)
			old := startTestSupervisor(t, opts.SupervisorDir, tt.env)
			a, notified := launchtest.ShellAction(t, t.TempDir(), `<exec>sh</exec><argument>-c</argument><argument>echo ran >> count</argument>`)
			if r := launchtest.RunToEnd(t, NewShell(opts), a, notified); r.Status != action.OK {
				t.Fatalf("step = %+v", r)
			}
			pid, _ := launch.ReadPID(a.WorkDir)
			if pid.Supervised != tt.supervised {
				t.Errorf("pid file = %+v, want supervised %v", pid, tt.supervised)
			}
			if tt.supervised && pid.PID == old.Process.Pid {
				t.Error("the step ran under the old supervisor")
			}
			if tt.replacedOld {
				launchtest.WaitFor(t, "the old supervisor to exit", func() bool { return launchtest.Exited(old) })
			} else if launchtest.Exited(old) {
				t.Error("the newer supervisor was stopped by an older client")
			}
			b, _ := os.ReadFile(filepath.Join(a.WorkDir, "count"))
			if n := strings.Count(string(b), "ran"); n != 1 {
				t.Errorf("program ran %d times", n)
			}
		})
	}
}

// A socket file nobody listens on (a supervisor killed with its socket
// left behind) does not stop steps: a new supervisor replaces it.
func TestSupervisorStaleSocket(t *testing.T) {
	opts := launchtest.Supervised(t)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(opts.SupervisorDir, launch.SupervisorSocket), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	a, notified := launchtest.ShellAction(t, t.TempDir(), `<exec>true</exec>`)
	if r := launchtest.RunToEnd(t, NewShell(opts), a, notified); r.Status != action.OK {
		t.Fatalf("step = %+v", r)
	}
	if pid, _ := launch.ReadPID(a.WorkDir); !pid.Supervised {
		t.Errorf("pid file = %+v, want supervised", pid)
	}
}

// An idle supervisor exits by itself, and one whose socket is removed
// (its data directory deleted) too.
func TestSupervisorExits(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	tests := []struct {
		name  string
		env   []string
		after func(dir string)
	}{
		{"idle", []string{launchtest.IdleMSEnv + "=50"}, func(string) {}},
		{"socket removed", nil, func(dir string) { os.Remove(filepath.Join(dir, launch.SupervisorSocket)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := launchtest.SupervisorDir(t)
			sup := startTestSupervisor(t, dir, tt.env...)
			tt.after(dir)
			launchtest.WaitFor(t, "the supervisor to exit", func() bool { return launchtest.Exited(sup) })
		})
	}
}

// Many steps at once share one supervisor, each run once.
func TestSupervisorConcurrentSteps(t *testing.T) {
	e := NewShell(launchtest.Supervised(t))
	const n = 20
	type step struct {
		a        *action.Context
		notified chan struct{}
	}
	var steps []step
	for i := 0; i < n; i++ {
		a, notified := launchtest.ShellAction(t, t.TempDir(), `<exec>sh</exec><argument>-c</argument><argument>echo ran >> count; echo i=`+strconv.Itoa(i)+`</argument><capture-output/>`)
		if _, err := e.Start(context.Background(), a); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, step{a, notified})
	}
	sup := 0
	for i, s := range steps {
		select {
		case <-s.notified:
		case <-timeAfter():
			t.Fatalf("step %d: no notification", i)
		}
		r, err := e.Check(context.Background(), s.a, s.a.WorkDir)
		if err != nil || r.Status != action.OK || r.Data["i"] != strconv.Itoa(i) {
			t.Errorf("step %d = %+v, %v", i, r, err)
		}
		pid, _ := launch.ReadPID(s.a.WorkDir)
		if sup == 0 {
			sup = pid.PID
		}
		if !pid.Supervised || pid.PID != sup {
			t.Errorf("step %d ran under %+v, want supervisor %d", i, pid, sup)
		}
		if b, _ := os.ReadFile(filepath.Join(s.a.WorkDir, "count")); string(b) != "ran\n" {
			t.Errorf("step %d: count = %q", i, b)
		}
	}
}

func timeAfter() <-chan time.Time { return time.After(launchtest.Deadline) }
