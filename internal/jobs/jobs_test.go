package jobs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
	"github.com/gozie/gozie/internal/vocab"
)

const workflowXML = `<workflow-app xmlns="uri:oozie:workflow:0.5" name="w">
  <start to="end"/><end name="end"/>
</workflow-app>`

const coordinatorXML = `<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="c" frequency="${coord:days(1)}"
    start="2030-01-01T00:00Z" end="2030-01-02T00:00Z" timezone="UTC">
  <action><workflow><app-path>WF</app-path></workflow></action>
</coordinator-app>`

// newService builds both engines on a fresh store; coords false leaves
// the coordinator engine out.
func newService(t *testing.T, coords bool) (*Service, string) {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	wf, err := engine.New(engine.Options{Store: st, Actions: action.NewRegistry(), DataDir: dir,
		DefaultUser: "joe", PollInterval: time.Hour, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	var c *coordengine.Engine
	if coords {
		c = coordengine.New(wf, wf.Runtime(), coordengine.Options{})
	}
	s := New(wf, c, nil)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for name, text := range map[string]string{"wf/workflow.xml": workflowXML, "coord/coordinator.xml": coordinatorXML} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		text = strings.Replace(text, "WF", filepath.Join(dir, "wf"), 1)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return s, dir
}

// TestRouting: submissions and commands go to the engine of the job's
// kind; without a coordinator engine, coordinator ones are refused E0302.
func TestRouting(t *testing.T) {
	ctx := context.Background()
	s, dir := newService(t, true)
	cp := conf.New()
	cp.Set(vocab.PropCoordAppPath, filepath.Join(dir, "coord"))
	cid, err := s.Submit(ctx, cp)
	if err != nil {
		t.Fatal(err)
	}
	if j, err := s.CoordJob(ctx, cid); err != nil || j.ID != cid {
		t.Fatalf("coordinator %s: %v, %v", cid, j, err)
	}
	if err := s.Suspend(ctx, cid); err != nil {
		t.Errorf("suspend %s: %v", cid, err)
	}
	if err := s.Kill(ctx, cid); err != nil {
		t.Errorf("kill %s: %v", cid, err)
	}
	if j, _ := s.CoordJob(ctx, cid); j.Status != store.CoordKilled {
		t.Errorf("coordinator %s after kill, want KILLED", j.Status)
	}

	wp := conf.New()
	wp.Set(vocab.PropAppPath, filepath.Join(dir, "wf"))
	wid, err := s.Submit(ctx, wp)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StartJob(ctx, wid); err != nil {
		t.Fatal(err)
	}
	if j, err := s.Wait(ctx, wid); err != nil || j.Status != store.JobSucceeded {
		t.Errorf("workflow %s: %v, %v", wid, j, err)
	}

	alone, dir2 := newService(t, false)
	cp.Set(vocab.PropCoordAppPath, filepath.Join(dir2, "coord"))
	if _, err := alone.Run(ctx, cp); vocab.CodeOf(err) != "E0302" {
		t.Errorf("coordinator without a coordinator engine: %v, want E0302", err)
	}
	if err := alone.Kill(ctx, cid); vocab.CodeOf(err) != "E0302" {
		t.Errorf("kill of a coordinator without a coordinator engine: %v, want E0302", err)
	}
}
