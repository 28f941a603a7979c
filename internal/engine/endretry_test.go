package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	_ "github.com/gozie/gozie/internal/action/all"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/testfs"
)

// diskFullExec starts every action asynchronously and answers its checks
// with a disk-full error until the test lets the end through, as the shell
// executor does for a launcher gone without status on a full disk.
type diskFullExec struct {
	mu     sync.Mutex
	full   bool
	starts int
	checks int
}

func (x *diskFullExec) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.starts++
	return action.Result{ExternalID: "ext-" + a.Name, ExternalStatus: "RUNNING"}, nil
}

func (x *diskFullExec) Check(ctx context.Context, a *action.Context, id string) (action.Result, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.checks++
	if x.full {
		e := action.Errorf(action.Transient, launch.CodeDiskFull, "disk full: no status yet")
		e.Err = syscall.ENOSPC
		return action.Result{}, e
	}
	return action.Result{ExternalID: id, ExternalStatus: "SUCCEEDED", Done: true, Status: action.OK}, nil
}

func (x *diskFullExec) Kill(ctx context.Context, a *action.Context, id string) error { return nil }

func (x *diskFullExec) setFull(full bool) {
	x.mu.Lock()
	x.full = full
	x.mu.Unlock()
}

// An action whose end cannot be recorded because the disk is full goes to
// END_RETRY and is checked again at the retry interval; when space returns
// it ends OK, started once. Retries exhausted: END_MANUAL, the job
// suspended; a resume checks again.
func TestEndRetryDiskFull(t *testing.T) {
	for _, c := range []struct {
		name      string
		freeAfter int // END_RETRY rounds before space returns
		manual    bool
	}{
		{"space returns during the retries", 2, false},
		{"retries exhausted, resumed", 3, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, func(o *Options) { o.StartRetryMax = 3; o.StartRetryInterval = time.Minute })
			x := &diskFullExec{full: true}
			h.e.actions.Register("test", x)
			id := h.run(props(h.writeApp("er", twoStepApp(), nil)))
			for i := 1; i <= c.freeAfter; i++ {
				h.eventually("END_RETRY", func() bool {
					_, m := h.job(id)
					return m["a"].Status == store.ActionEndRetry && m["a"].Retries == i && h.clock.PendingIn(time.Minute)
				})
				if i == 1 {
					_, m := h.job(id)
					if !strings.Contains(m["a"].ErrorMessage, "disk full") || m["a"].ErrorCode != launch.CodeDiskFull {
						t.Errorf("END_RETRY error = %s %q", m["a"].ErrorCode, m["a"].ErrorMessage)
					}
				}
				if i == c.freeAfter && !c.manual {
					x.setFull(false)
				}
				h.clock.Advance(time.Minute)
			}
			if c.manual {
				h.eventually("END_MANUAL", func() bool { return h.actionStatus(id, "a") == store.ActionEndManual })
				if s := h.status(id); s != store.JobSuspended {
					t.Fatalf("job %s, want SUSPENDED", s)
				}
				x.setFull(false)
				if err := h.e.Resume(context.Background(), id); err != nil {
					t.Fatal(err)
				}
			}
			if j := h.wait(id); j.Status != store.JobSucceeded {
				t.Fatalf("job %s: %s", j.Status, h.describe(id))
			}
			if s := h.actionStatus(id, "a"); s != store.ActionOK {
				t.Errorf("a = %s", s)
			}
			x.mu.Lock()
			defer x.mu.Unlock()
			if x.starts != 2 { // a and b, once each
				t.Errorf("%d starts, want 2", x.starts)
			}
		})
	}
}

// Fault points 10a and 10b through the engine on a real full disk (a
// tmpfs, as root): the action's work directory cannot be written, so the
// start goes to START_RETRY; when space returns the step runs once. Its
// program then fills the disk itself and takes the launcher's reserved
// room, so the outcome cannot be recorded: the action stays RUNNING (never
// lost) until space returns, then ends OK, having run once.
func TestShellOnFullDisk(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.StartRetryMax = 3; o.StartRetryInterval = time.Minute })
	testfs.Mount(t, filepath.Join(h.dir, "actions"), "1m")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	launch.RegisterBuiltins(h.e.actions, launch.Options{Launcher: []string{self}})
	fill := filepath.Join(h.dir, "actions", "fill")
	free := testfs.Fill(t, fill)
	count := filepath.Join(t.TempDir(), "count")
	gate := filepath.Join(t.TempDir(), "gate")
	script := `echo run >> ` + count + `; echo k=v; rm -f .status.reserve; ` +
		`head -c 2097152 /dev/zero > ` + fill + ` 2>/dev/null; touch ` + gate + `; true`
	app := wf(`<start to="sh"/><action name="sh"><shell xmlns="uri:oozie:shell-action:0.3"><job-tracker>j</job-tracker><name-node>n</name-node><exec>sh</exec>` +
		`<argument>-c</argument><argument>` + script + `</argument><capture-output/></shell>` +
		`<ok to="end"/><error to="fail"/></action><kill name="fail"><message>failed</message></kill><end name="end"/>`)
	id := h.run(props(h.writeApp("full", app, nil)))

	h.eventually("START_RETRY", func() bool {
		_, m := h.job(id)
		return m["sh"] != nil && m["sh"].Status == store.ActionStartRetry && h.clock.Pending() > 0
	})
	if _, m := h.job(id); !strings.Contains(m["sh"].ErrorMessage, "no space left on device") {
		t.Errorf("START_RETRY message %q does not say the disk is full", m["sh"].ErrorMessage)
	}
	free()
	h.clock.Advance(time.Minute)

	h.eventually("the program to fill the disk", func() bool { _, err := os.Stat(gate); return err == nil })
	// The launcher is now waiting for room: the action must stay RUNNING
	// through several polls.
	for i := 0; i < 5; i++ {
		time.Sleep(20 * time.Millisecond) // a few of the harness's 20ms polls; correctness does not depend on it
		if s := h.actionStatus(id, "sh"); s != store.ActionRunning {
			t.Fatalf("action %s while the disk is full, want RUNNING: %s", s, h.describe(id))
		}
	}
	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("job %s: %s", j.Status, h.describe(id))
	}
	_, m := h.job(id)
	if m["sh"].Status != store.ActionOK || !strings.Contains(m["sh"].Data, "k=v") {
		t.Errorf("sh = %s, data %q", m["sh"].Status, m["sh"].Data)
	}
	if b, _ := os.ReadFile(count); string(b) != "run\n" {
		t.Errorf("program runs: %q, want one", b)
	}
}

// TestEndRetryDueWhileChecking: an END_RETRY check that comes due while
// another check of the same action still holds it (the check that
// scheduled it, finishing its commit) runs when that one lets go, not
// only at the next sweep (30 s later, or never within a test).
func TestEndRetryDueWhileChecking(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.StartRetryMax = 3; o.StartRetryInterval = time.Minute })
	x := &diskFullExec{full: true}
	h.e.actions.Register("test", x)
	id := h.run(props(h.writeApp("er", twoStepApp(), nil)))
	h.eventually("END_RETRY", func() bool {
		_, m := h.job(id)
		return m["a"].Status == store.ActionEndRetry && m["a"].Retries == 1 && h.clock.PendingIn(time.Minute)
	})
	key := endRetryKey(ActionID(id, "a"))
	if !h.e.claim(key) {
		t.Fatal("the action's check is already claimed")
	}
	x.setFull(false)
	h.clock.Advance(time.Minute)
	h.eventually("the due check waits for the claim", func() bool {
		h.e.mu.Lock()
		defer h.e.mu.Unlock()
		return h.e.endRetryNext[key] != nil
	})
	h.e.releaseEndRetry(key)
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("job %s: %s", j.Status, h.describe(id))
	}
}
