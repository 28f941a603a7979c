package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// TestOutputOfAttemptElsewhere: a step another server launched in its
// own data directory, which this server re-attached to after taking the
// job over, keeps that directory as its external id. The job's JSON shows
// its short external id (local:<pid>) and console URL, and its stdout and
// stderr are served from there, as for a step of this server's own.
func TestOutputOfAttemptElsewhere(t *testing.T) {
	dir := t.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvOn(t, dir, st)
	app := filepath.Join(e.dir, "apps", "sh")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	wf := `<workflow-app xmlns="uri:oozie:workflow:1.0" name="sh"><start to="step"/>
  <action name="step"><shell xmlns="uri:oozie:shell-action:1.0">
      <resource-manager>local</resource-manager><name-node>file:///</name-node>
      <exec>sh</exec><argument>-c</argument><argument>echo hello; echo oops >&amp;2</argument>
    </shell><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>step failed</message></kill><end name="end"/></workflow-app>`
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	id := e.submit("joe", "start", "oozie.wf.application.path", app)
	e.waitStatus(id, "SUCCEEDED")

	// Move the attempt to another data directory and record it there, as
	// a take-over that re-attached to it would have.
	actionID := id + "@step"
	other := filepath.Join(t.TempDir(), "other")
	elsewhere := filepath.Join(other, "actions", actionID+".0")
	if err := os.MkdirAll(filepath.Dir(elsewhere), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(launch.WorkDir(dir, actionID, 0), elsewhere); err != nil {
		t.Fatal(err)
	}
	err = st.Update(context.Background(), func(tx store.Tx) error {
		a, err := tx.Action(context.Background(), actionID)
		if err != nil {
			return err
		}
		a.ExternalID = elsewhere
		return tx.PutAction(context.Background(), a)
	})
	if err != nil {
		t.Fatal(err)
	}

	act := e.do("GET", "/oozie/v2/job/"+actionID, "", "").json(t)
	if ext, _ := act["externalId"].(string); !strings.HasPrefix(ext, "local:") || strings.Contains(ext, "/") {
		t.Errorf("externalId %q, want local:<pid>", ext)
	}
	console, _ := act["consoleUrl"].(string)
	if !strings.HasPrefix(console, e.base+"/console/action/") {
		t.Fatalf("consoleUrl %q", console)
	}
	path := strings.TrimPrefix(console, e.ts.URL)
	for _, c := range []struct{ path, want string }{
		{path, "hello"},
		{strings.TrimSuffix(path, "stdout") + "stderr", "oops"},
		{path + "?attempt=0", "hello"},
	} {
		if out := e.do("GET", c.path, "", ""); out.status != 200 || strings.TrimSpace(string(out.body)) != c.want {
			t.Errorf("GET %s: %d %q, want %q", c.path, out.status, out.body, c.want)
		}
	}
}
