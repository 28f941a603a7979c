package shell

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"
)

// gatedBody is a shell body whose program appends "ran" to count in its
// work directory once the file gate exists. It fails when its
// OOZIE_ACTION_CONF_XML is not its own: the supervisor gives concurrent
// steps one cached environment, each with additions of its own. It reads
// its standard input to the end first: /dev/null, shared by all steps.
func gatedBody(gate string) string {
	return `<exec>sh</exec><argument>-c</argument><argument>cat; test "$OOZIE_ACTION_CONF_XML" = "$PWD/action.xml" || exit 3; ` +
		`while ! test -e ` + gate + `; do sleep 0.01; done; echo ran >> count</argument>`
}

// supervisorSockets counts the sockets the process pid holds open.
func supervisorSockets(t *testing.T, pid int) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/" + fd.Name()); err == nil && strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}

// startAll starts the actions from as many goroutines at once.
func startAll(t *testing.T, e action.Executor, as []*action.Context) {
	t.Helper()
	errs := make(chan error, len(as))
	for _, a := range as {
		go func() {
			_, err := e.Start(context.Background(), a)
			errs <- err
		}()
	}
	for range as {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// Many steps started at once travel on one connection to the supervisor
// (protocol 5): its sockets are the listener and that connection, every
// step is notified and ran once.
func TestSupervisorMuxConcurrent(t *testing.T) {
	e := NewShell(launchtest.Supervised(t))
	gate := filepath.Join(t.TempDir(), "gate")
	const n = 30
	var as []*action.Context
	var notes []chan struct{}
	for i := 0; i < n; i++ {
		a, notified := launchtest.ShellAction(t, t.TempDir(), gatedBody(gate))
		as, notes = append(as, a), append(notes, notified)
	}
	startAll(t, e, as)
	sup, _ := launch.ReadPID(as[0].WorkDir)
	if got := supervisorSockets(t, sup.PID); got != 2 {
		t.Errorf("supervisor holds %d sockets with %d steps running, want 2 (listener and one connection)", got, n)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, a := range as {
		select {
		case <-notes[i]:
		case <-timeAfter():
			t.Fatalf("step %d: no notification", i)
		}
		r, err := e.Check(context.Background(), a, a.WorkDir)
		if err != nil || r.Status != action.OK {
			t.Errorf("step %d = %+v, %v", i, r, err)
		}
		if pid, _ := launch.ReadPID(a.WorkDir); pid.PID != sup.PID {
			t.Errorf("step %d ran under %d, want %d", i, pid.PID, sup.PID)
		}
		if b, _ := os.ReadFile(filepath.Join(a.WorkDir, "count")); string(b) != "ran\n" {
			t.Errorf("step %d: count = %q", i, b)
		}
	}
}

// A supervisor killed with several steps outstanding on the shared
// connection: every step's executor is notified and Check reports each
// lost (JA017), as when a connection per step ended; Kill reaches every
// orphaned program; the next step starts a new supervisor and connection.
func TestSupervisorMuxDies(t *testing.T) {
	opts := launchtest.Supervised(t)
	e := NewShell(opts)
	const n = 5
	var as []*action.Context
	var notes []chan struct{}
	for i := 0; i < n; i++ {
		a, notified := launchtest.ShellAction(t, t.TempDir(), `<exec>sh</exec><argument>-c</argument><argument>sleep 100</argument>`)
		as, notes = append(as, a), append(notes, notified)
	}
	startAll(t, e, as)
	var groups []int
	for _, a := range as {
		launchtest.WaitFor(t, "the program's group in the pid file", func() bool {
			pid, _ := launch.ReadPID(a.WorkDir)
			return pid.PGID > 0
		})
		pid, _ := launch.ReadPID(a.WorkDir)
		groups = append(groups, pid.PGID)
	}
	sup, _ := launch.ReadPID(as[0].WorkDir)
	if err := syscall.Kill(sup.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i := range as {
		select {
		case <-notes[i]:
		case <-timeAfter():
			t.Fatalf("step %d: no notification when the supervisor died", i)
		}
	}
	launchtest.WaitFor(t, "the supervisor to be gone", func() bool { return !launch.Alive(sup) })
	for i, a := range as {
		r, err := e.Check(context.Background(), a, a.WorkDir)
		if err != nil || !r.Done || r.ErrorCode != launch.CodeLauncherGone {
			t.Errorf("step %d after the supervisor died = %+v, %v; want %s", i, r, err, launch.CodeLauncherGone)
		}
		if err := e.Kill(context.Background(), a, a.WorkDir); err != nil {
			t.Error(err)
		}
		if launch.GroupAlive(groups[i]) {
			t.Errorf("step %d: the orphaned program's group survived Kill", i)
		}
	}
	b, notified := launchtest.ShellAction(t, t.TempDir(), `<exec>true</exec>`)
	if r := launchtest.RunToEnd(t, e, b, notified); r.Status != action.OK {
		t.Fatalf("next step = %+v", r)
	}
	if pid, _ := launch.ReadPID(b.WorkDir); !pid.Supervised || pid.PID == sup.PID {
		t.Errorf("next step ran under %+v, want a new supervisor", pid)
	}
}

// A restarted server re-attaches to a step the supervisor runs for the
// server before it: its Start runs nothing and it is notified (through
// "wait") when the program ends.
func TestSupervisorMuxReattach(t *testing.T) {
	opts := launchtest.Supervised(t)
	gate := filepath.Join(t.TempDir(), "gate")
	a, _ := launchtest.ShellAction(t, t.TempDir(), gatedBody(gate))
	if _, err := NewShell(opts).Start(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	again := *a
	notified := make(chan struct{}, 4)
	again.Notify = func() { notified <- struct{}{} }
	restarted := NewShell(opts)
	if r, err := restarted.Start(context.Background(), &again); err != nil || r.Done {
		t.Fatalf("Start after the restart = %+v, %v; want running", r, err)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := launchtest.RunToEnd(t, restarted, &again, notified); r.Status != action.OK {
		t.Fatalf("step = %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(a.WorkDir, "count")); string(b) != "ran\n" {
		t.Errorf("count = %q, want one run", b)
	}
}

// A supervisor of protocol 4 (one request per connection) still running
// a step after an upgrade: the upgraded client's first request makes it
// stop listening and a supervisor of protocol 5 runs the new steps, while
// the old one records its step and exits, and a new server re-attaches to
// that step.
func TestSupervisorMuxOldSupervisor(t *testing.T) {
	opts := launchtest.Supervised(t)
	old := startTestSupervisor(t, opts.SupervisorDir, launchtest.ProtocolEnv+"=4")
	gate := filepath.Join(t.TempDir(), "gate")
	a, _ := launchtest.ShellAction(t, t.TempDir(), gatedBody(gate))
	if err := os.MkdirAll(a.WorkDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := launch.ReserveLauncherFiles(a.WorkDir, 2048, true); err != nil {
		t.Fatal(err)
	}
	// The old server's request, as protocol 4 sent it.
	conn, err := net.Dial("unix", filepath.Join(opts.SupervisorDir, launch.SupervisorSocket))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := map[string]any{"v": 4, "op": "run", "dir": a.WorkDir, "env": os.Environ(),
		"spec": map[string]any{"exec": "sh", "args": []string{"-c", "while ! test -e " + gate + "; do sleep 0.01; done; echo ran >> count"}, "maxOutput": 2048}}
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		t.Fatal(err)
	}
	var rep struct{ Event string }
	if err := json.NewDecoder(bufio.NewReader(conn)).Decode(&rep); err != nil || rep.Event != "started" {
		t.Fatalf("old supervisor answered %+v, %v", rep, err)
	}

	e := NewShell(opts)
	b, notifiedB := launchtest.ShellAction(t, t.TempDir(), `<exec>true</exec>`)
	if r := launchtest.RunToEnd(t, e, b, notifiedB); r.Status != action.OK {
		t.Fatalf("new step = %+v", r)
	}
	if pid, _ := launch.ReadPID(b.WorkDir); !pid.Supervised || pid.PID == old.Process.Pid {
		t.Errorf("new step ran under %+v, want a new supervisor", pid)
	}
	if launchtest.Exited(old) {
		t.Fatal("the old supervisor exited with its program running")
	}

	notified := make(chan struct{}, 4)
	a.Notify = func() { notified <- struct{}{} }
	if r, err := e.Start(context.Background(), a); err != nil || r.Done {
		t.Fatalf("re-attaching the old step = %+v, %v; want running", r, err)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := launchtest.RunToEnd(t, e, a, notified); r.Status != action.OK {
		t.Fatalf("old step = %+v", r)
	}
	launchtest.WaitFor(t, "the old supervisor to exit", func() bool { return launchtest.Exited(old) })
	if c, _ := os.ReadFile(filepath.Join(a.WorkDir, "count")); string(c) != "ran\n" {
		t.Errorf("old step: count = %q, want one run", c)
	}
}

// A supervisor whose only connection is a server's idle multiplexed one
// still exits when idle, and the server's next step starts a new one.
func TestSupervisorMuxIdle(t *testing.T) {
	opts := launchtest.Supervised(t)
	sup := startTestSupervisor(t, opts.SupervisorDir, launchtest.IdleMSEnv+"=50")
	e := NewShell(opts)
	a, notified := launchtest.ShellAction(t, t.TempDir(), `<exec>true</exec>`)
	if r := launchtest.RunToEnd(t, e, a, notified); r.Status != action.OK {
		t.Fatalf("step = %+v", r)
	}
	if pid, _ := launch.ReadPID(a.WorkDir); pid.PID != sup.Process.Pid {
		t.Fatalf("step ran under %d, want %d", pid.PID, sup.Process.Pid)
	}
	launchtest.WaitFor(t, "the idle supervisor to exit", func() bool { return launchtest.Exited(sup) })
	b, notifiedB := launchtest.ShellAction(t, t.TempDir(), `<exec>true</exec>`)
	if r := launchtest.RunToEnd(t, e, b, notifiedB); r.Status != action.OK {
		t.Fatalf("next step = %+v", r)
	}
	if pid, _ := launch.ReadPID(b.WorkDir); !pid.Supervised || pid.PID == sup.Process.Pid {
		t.Errorf("next step ran under %+v, want a new supervisor", pid)
	}
}
