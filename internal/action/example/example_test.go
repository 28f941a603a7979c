// Package example_test shows what a new action type costs: one package
// whose init registers the type with the launch runtime, and one blank
// import of that package in internal/action/all. Here the package is this
// test (so the type exists only in the test binary) and the workflow runs
// through the engine with the built-in types beside it.
package example_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	_ "github.com/gozie/gozie/internal/action/all"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// exampleExecutor runs <example>: it ends at once, OK, with the text of
// its <greeting> as the action's data.
type exampleExecutor struct{}

func (exampleExecutor) Start(_ context.Context, a *action.Context) (action.Result, error) {
	greeting := ""
	if g := a.Element.Child("greeting"); g != nil {
		greeting = g.TrimText()
	}
	return action.Result{ExternalID: a.ActionID, ExternalStatus: "SUCCEEDED", Done: true, Status: action.OK,
		Data: map[string]string{"greeting": greeting}}, nil
}

func (e exampleExecutor) Check(ctx context.Context, a *action.Context, _ string) (action.Result, error) {
	return e.Start(ctx, a)
}

func (exampleExecutor) Kill(context.Context, *action.Context, string) error { return nil }

// The whole of the registration: what a family package does in its init.
func init() {
	launch.Register("example", func(*launch.Runtime) action.Executor { return exampleExecutor{} })
}

const exampleWorkflow = `<workflow-app xmlns="uri:oozie:workflow:1.0" name="example-wf">
  <start to="hello"/>
  <action name="hello">
    <example xmlns="uri:gozie:example-action:0.1"><greeting>hi there</greeting></example>
    <ok to="after"/>
    <error to="fail"/>
  </action>
  <action name="after">
    <fs><mkdir path="${appPath}/made-by-fs"/></fs>
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail"><message>failed</message></kill>
  <end name="end"/>
</workflow-app>`

// TestExampleActionType registers the built-in types and the example type
// the way gozie server does (launch.RegisterBuiltins) and runs a workflow
// using both through the engine.
func TestExampleActionType(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(exampleWorkflow), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := action.NewRegistry()
	launch.RegisterBuiltins(reg, launch.Options{})
	if _, ok := reg.Lookup("example"); !ok {
		t.Fatalf("example not registered: %v", reg.Types())
	}
	if _, ok := reg.Lookup("fs"); !ok {
		t.Fatalf("fs not registered beside it: %v", reg.Types())
	}

	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Options{Store: s, Actions: reg, DataDir: dir, PollInterval: 20 * time.Millisecond,
		DefaultUser: "tester", Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close(); s.Close() })

	id, err := e.Run(ctx, conf.FromMap(map[string]string{
		"oozie.wf.application.path": app, "appPath": app, "user.name": "tester"}))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	end := time.Now().Add(20 * time.Second)
	for {
		job, actions, err := e.Job(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if job.Status == "SUCCEEDED" {
			for _, a := range actions {
				if a.Name == "hello" && (a.Status != "OK" || !strings.Contains(a.Data, "hi there")) {
					t.Errorf("hello: status %s, data %q", a.Status, a.Data)
				}
			}
			break
		}
		if job.Status != "RUNNING" && job.Status != "PREP" || time.Now().After(end) {
			t.Fatalf("job %s: %s", id, job.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(app, "made-by-fs")); err != nil {
		t.Errorf("the fs step after it did not run: %v", err)
	}
}
