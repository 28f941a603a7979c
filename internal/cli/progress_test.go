package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/server"
	"github.com/gozie/gozie/internal/store"
)

// writeApp writes workflow.xml into a new application directory.
func writeApp(t *testing.T, wf string) string {
	t.Helper()
	app := t.TempDir()
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	return app
}

// TestRunProgress is issue 14 point 8: `gozie run` names the job at once,
// prints a line per node as it starts and ends, and a failed step shows
// the end of its stderr and where its stdout and stderr are kept (the
// temporary data directory is kept for that).
func TestRunProgress(t *testing.T) {
	app := writeApp(t, `<workflow-app xmlns="uri:oozie:workflow:0.5" name="noisy"><start to="ok"/>
  <action name="ok"><fs><mkdir path="${wf:conf('out')}"/></fs><ok to="boom"/><error to="fail"/></action>
  <action name="boom"><shell xmlns="uri:oozie:shell-action:0.3"><job-tracker>local</job-tracker><name-node>file:///</name-node>
    <exec>sh</exec><argument>-c</argument><argument>for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "err line $i" >&amp;2; done; exit 3</argument></shell>
    <ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>`)
	t.Setenv("TMPDIR", t.TempDir()) // the run's kept data directory goes here
	var out, errOut bytes.Buffer
	code := runRun([]string{"-D", "oozie.wf.application.path=" + app, "-D", "out=" + filepath.Join(t.TempDir(), "o")}, &out, &errOut)
	if code != exitFail {
		t.Fatalf("exit %d, want %d:\n%s%s", code, exitFail, out.String(), errOut.String())
	}
	text := errOut.String()
	lines := strings.Split(text, "\n")
	if !regexp.MustCompile(`^job: \d{7}-\d{15}-oozie-\S+-W \(app noisy\)$`).MatchString(lines[0]) {
		t.Errorf("first line %q, want the job id", lines[0])
	}
	kept := regexp.MustCompile(`data kept in (\S+)`).FindStringSubmatch(text)
	if kept == nil {
		t.Fatalf("no 'data kept in':\n%s", text)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d ok +fs +started$`),
		regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d ok +fs +OK -> boom$`),
		regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d boom +shell +started$`),
		regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d boom +shell +ERROR \[JA018\] .*exit code \[3\] -> fail$`),
		regexp.MustCompile(`full stderr in ` + regexp.QuoteMeta(kept[1]) + `/actions/\S+@boom\.0/stderr, stdout in \S+/stdout`),
		regexp.MustCompile(`(?m)^ +err line 12$`),
		regexp.MustCompile(`(?m)^ +err line 3$`),
	} {
		if !want.MatchString(text) {
			t.Errorf("stderr lacks %v:\n%s", want, text)
		}
	}
	if strings.Contains(text, "err line 2\n") {
		t.Errorf("more than %d lines of stderr:\n%s", 10, text)
	}
	if _, err := os.Stat(kept[1]); err != nil {
		t.Errorf("data directory of a failed run not kept: %v", err)
	}
}

// manualExec fails every start in a way only a person can fix, which
// leaves the action in START_MANUAL and the job SUSPENDED.
type manualExec struct{}

func (manualExec) Start(context.Context, *action.Context) (action.Result, error) {
	return action.Result{}, action.Errorf(action.NonTransient, "T0001", "the disk is on fire")
}
func (manualExec) Check(context.Context, *action.Context, string) (action.Result, error) {
	return action.Result{}, nil
}
func (manualExec) Kill(context.Context, *action.Context, string) error { return nil }

// TestRunSuspended is issue 14 point 8: a job that gets suspended (an
// action in START_MANUAL) does not make `gozie run` wait for ever: it says
// why and what to do, kills the job and fails.
func TestRunSuspended(t *testing.T) {
	old := runRegistry
	runRegistry = func(cfg server.Config, supDir string) *action.Registry {
		reg := old(cfg, supDir)
		reg.Register("fs", manualExec{})
		return reg
	}
	t.Cleanup(func() { runRegistry = old })
	app := writeApp(t, `<workflow-app xmlns="uri:oozie:workflow:0.5" name="stuck"><start to="a"/>
  <action name="a"><fs><mkdir path="/tmp/x"/></fs><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>`)
	var out, errOut bytes.Buffer
	code := runRun([]string{"-D", "oozie.wf.application.path=" + app, "-data", t.TempDir()}, &out, &errOut)
	if code != exitFail {
		t.Fatalf("exit %d, want %d:\n%s%s", code, exitFail, out.String(), errOut.String())
	}
	for _, want := range []string{
		"is SUSPENDED: action [a] is START_MANUAL, error [T0001] the disk is on fire",
		"kills the job", "gozie job -resume ID",
	} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	if !strings.Contains(out.String(), "Status : KILLED") {
		t.Errorf("summary:\n%s", out.String())
	}
}

// TestActionInfoStderrURL is issue 14 point 8: -info of an action whose
// console is gozie's points at its stderr too.
func TestActionInfoStderrURL(t *testing.T) {
	var out bytes.Buffer
	base := "http://h:11000/oozie/console/action/0000001-260101000000000-oozie-root-W@a"
	printWorkflowAction(&out, &client.WorkflowAction{ID: "x@a", ConsoleURL: client.Str(base + "/stdout")}, dates{loc: time.UTC})
	if !strings.Contains(out.String(), "Stderr URL        : "+base+"/stderr\n") {
		t.Errorf("no stderr URL:\n%s", out.String())
	}
	out.Reset()
	printWorkflowAction(&out, &client.WorkflowAction{ID: "x@a", ConsoleURL: "http://rm:8088/proxy/app_1/"}, dates{loc: time.UTC})
	if strings.Contains(out.String(), "Stderr URL") {
		t.Errorf("stderr URL for a foreign console:\n%s", out.String())
	}
}

// TestOnSuspendAfterTheFact: the job runs while its submission returns, so
// it may be SUSPENDED before `gozie run` asks to hear of it; the callback
// then runs at once instead of never (gozie run waited for ever). Either
// order of the two events calls it exactly once.
func TestOnSuspendAfterTheFact(t *testing.T) {
	suspended := engine.Transition{Job: store.Job{ID: "j", Status: store.JobSuspended}}
	for _, order := range []string{"suspended first", "registered first"} {
		t.Run(order, func(t *testing.T) {
			p := newProgress(io.Discard, t.TempDir())
			calls := 0
			if order == "suspended first" {
				p.note(suspended)
				p.onSuspend("j", func() { calls++ })
			} else {
				p.onSuspend("j", func() { calls++ })
				p.note(suspended)
			}
			if calls != 1 {
				t.Fatalf("callback ran %d times once both happened, want once", calls)
			}
			p.note(suspended) // a later transition of the suspended job
			if calls != 1 {
				t.Fatalf("callback ran %d times, want once", calls)
			}
		})
	}
}
