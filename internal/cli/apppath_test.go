package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAppPathSameInRunAndServer is issue 14 point 7: one job.properties
// whose application path is relative ("."), used from another directory,
// runs the same application in `gozie run` and on a server, and the path
// a shell step gets from ${oozie.wf.application.path} is a plain path it
// can use in both (it was a file:// URI on the server, so cp failed).
func TestAppPathSameInRunAndServer(t *testing.T) {
	pinEnv(t)
	app := t.TempDir()
	if err := os.MkdirAll(filepath.Join(app, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	wf := `<workflow-app xmlns="uri:oozie:workflow:0.5" name="paths"><start to="look"/>
  <action name="look"><shell xmlns="uri:oozie:shell-action:0.3"><job-tracker>local</job-tracker><name-node>file:///</name-node>
    <exec>ls</exec><argument>${inputDir}</argument></shell><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>${wf:errorMessage(wf:lastErrorNode())}</message></kill><end name="end"/></workflow-app>`
	props := filepath.Join(app, "job.properties")
	for name, text := range map[string]string{
		"workflow.xml":   wf,
		"job.properties": "oozie.wf.application.path=.\ninputDir=${oozie.wf.application.path}/data\n",
	} {
		if err := os.WriteFile(filepath.Join(app, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(t.TempDir()) // somewhere else: "." must mean the file's directory

	t.Run("run", func(t *testing.T) {
		var out, errOut bytes.Buffer
		if code := runRun([]string{"-config", props, "-data", t.TempDir()}, &out, &errOut); code != exitOK {
			t.Fatalf("exit %d:\n%s%s", code, out.String(), errOut.String())
		}
		if want := "App Path : " + app + "\n"; !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	})
	t.Run("server", func(t *testing.T) {
		url := startServer(t)
		var out, errOut bytes.Buffer
		if code := Main([]string{"job", "-oozie", url, "-config", props, "-run"}, &out, &errOut); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		id := strings.TrimSpace(strings.TrimPrefix(out.String(), "job: "))
		deadline := time.Now().Add(30 * time.Second)
		st := e2eStatus(t, url, id)
		for (st == "RUNNING" || st == "PREP") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond) // polling a real server, not timing
			st = e2eStatus(t, url, id)
		}
		if st != "SUCCEEDED" {
			out.Reset()
			Main([]string{"job", "-oozie", url, "-log", id}, &out, &errOut)
			t.Fatalf("status %s, want SUCCEEDED; log:\n%s", st, out.String())
		}
	})
}
