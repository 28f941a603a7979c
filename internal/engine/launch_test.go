package engine

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	_ "github.com/gozie/gozie/internal/action/all"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/store"
)

// The launch supervisor killed while a step runs: the step ends lost
// (JA017) through its error transition, never OK, and the next step
// starts a new supervisor.
func TestShellSupervisorDies(t *testing.T) {
	h := newHarness(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	supDir := filepath.Join(h.dir, "launcher")
	launch.RegisterBuiltins(h.e.actions, launch.Options{Launcher: []string{self}, SupervisorDir: supDir})
	t.Cleanup(func() {
		if err := launch.StopSupervisor(supDir, 20*time.Second); err != nil {
			t.Error(err)
		}
	})
	gate := filepath.Join(t.TempDir(), "gate")
	shell := func(name, script, ok, errTo string) string {
		return `<action name="` + name + `"><shell xmlns="uri:oozie:shell-action:0.3"><job-tracker>j</job-tracker><name-node>n</name-node>` +
			`<exec>sh</exec><argument>-c</argument><argument>` + script + `</argument></shell>` +
			`<ok to="` + ok + `"/><error to="` + errTo + `"/></action>`
	}
	app := wf(`<start to="sh"/>` + shell("sh", "touch "+gate+"; sleep 100", "fail", "after") +
		shell("after", "true", "end", "fail") + `<kill name="fail"><message>failed</message></kill><end name="end"/>`)
	id := h.run(props(h.writeApp("supdies", app, nil)))

	h.eventually("the program to run", func() bool { _, err := os.Stat(gate); return err == nil })
	pidOf := func(node string) launch.LauncherPID {
		p, ok := launch.ReadLauncherPID(launch.WorkDir(h.dir, id+"@"+node, 0))
		if !ok || !p.Supervised || p.PGID <= 0 {
			t.Fatalf("pid file of %s: %+v, %v; want a supervised step", node, p, ok)
		}
		return p
	}
	p := pidOf("sh")
	t.Cleanup(func() { syscall.Kill(-p.PGID, syscall.SIGKILL) }) // the orphaned sleep
	if err := syscall.Kill(p.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("job %s: %s", j.Status, h.describe(id))
	}
	_, m := h.job(id)
	if m["sh"].Status != store.ActionError || m["sh"].ErrorCode != launch.CodeLauncherGone {
		t.Errorf("sh = %s %s %q, want ERROR %s", m["sh"].Status, m["sh"].ErrorCode, m["sh"].ErrorMessage, launch.CodeLauncherGone)
	}
	if m["after"].Status != store.ActionOK {
		t.Errorf("after = %s", m["after"].Status)
	}
	if q := pidOf("after"); q.PID == p.PID {
		t.Errorf("the next step ran under the dead supervisor %d", p.PID)
	}
}
