package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestCoordCommandsEndToEnd runs `gozie job -change`, `-rerun` and
// `-ignore` of a coordinator against the real in-process server.
func TestCoordCommandsEndToEnd(t *testing.T) {
	pinEnv(t)
	url := startServer(t)
	app := t.TempDir()
	files := map[string]string{
		"coordinator.xml": `<coordinator-app name="e2e-coord" frequency="${coord:hours(1)}" start="2026-01-01T00:00Z"
    end="2026-01-01T02:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <action><workflow><app-path>file://` + app + `/wf</app-path></workflow></action>
</coordinator-app>`,
		"wf/workflow.xml": `<workflow-app xmlns="uri:oozie:workflow:0.5" name="e2e-coord-wf">
  <start to="mk"/>
  <action name="mk"><fs><mkdir path="file://` + app + `/made"/></fs><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>mkdir failed</message></kill>
  <end name="end"/>
</workflow-app>`,
		"job.properties": "oozie.coord.application.path=file://" + app + "\n",
	}
	for name, body := range files {
		p := filepath.Join(app, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := Main(append([]string{"job", "-oozie", url}, args...), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	code, out, errOut := run("-config", filepath.Join(app, "job.properties"), "-run")
	m := regexp.MustCompile(`^job: (\S+-C)\n$`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("job -run: exit %d %q %s", code, out, errOut)
	}
	id := m[1]
	waitFor := func(want string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for e2eStatus(t, url, id) != want {
			if time.Now().After(deadline) {
				t.Fatalf("coordinator %s not %s in time", id, want)
			}
			time.Sleep(20 * time.Millisecond) // polling a condition, not timing it
		}
	}
	waitFor("SUCCEEDED")

	if code, _, errOut := run("-change", id, "-value", "concurrency=2"); code != 0 {
		t.Errorf("-change: exit %d %s", code, errOut)
	}
	if code, _, errOut := run("-change", id, "-value", "colour=red"); code == 0 || !strings.Contains(errOut, "E1015") {
		t.Errorf("-change with a bad key: exit %d %q", code, errOut)
	}
	code, out, errOut = run("-rerun", id, "-action", "1")
	if code != 0 || !strings.Contains(out, id+"@1") {
		t.Fatalf("-rerun: exit %d %q %s", code, out, errOut)
	}
	waitFor("SUCCEEDED")
	if code, _, errOut := run("-ignore", id, "-action", "1"); code == 0 || !strings.Contains(errOut, "E1024") {
		t.Errorf("-ignore of a SUCCEEDED action: exit %d %q", code, errOut)
	}
	if code, _, errOut := run("-rerun", id); code == 0 || errOut == "" {
		t.Errorf("-rerun without -action or -date: exit %d %q", code, errOut)
	}
	if code, _, errOut := run("-update", id); code == 0 || !strings.Contains(errOut, "E1023") {
		t.Errorf("-update of a SUCCEEDED coordinator: exit %d %q", code, errOut)
	}

	// -update of a live coordinator (it starts in 2030): -dryrun reports
	// the definition's change, then the update applies it.
	def := filepath.Join(app, "coordinator.xml")
	later := strings.NewReplacer(`start="2026-01-01T00:00Z"`, `start="2030-01-01T00:00Z"`, `end="2026-01-01T02:00Z"`, `end="2030-01-01T02:00Z"`).Replace(files["coordinator.xml"])
	if err := os.WriteFile(def, []byte(later), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run("-config", filepath.Join(app, "job.properties"), "-run")
	m = regexp.MustCompile(`^job: (\S+-C)\n$`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("job -run: exit %d %q %s", code, out, errOut)
	}
	live := m[1]
	withControls := strings.Replace(later, "<action>", "<controls><concurrency>4</concurrency></controls>\n  <action>", 1)
	if err := os.WriteFile(def, []byte(withControls), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dry := range []bool{true, false} {
		args := []string{"-update", live}
		if dry {
			args = append(args, "-dryrun")
		}
		code, out, errOut = run(args...)
		if code != 0 || !strings.HasPrefix(out, "**********Job definition changes**********\n") || !strings.Contains(out, "+") ||
			!strings.Contains(out, "<concurrency>4</concurrency>") || !strings.Contains(out, "No conf update requested") {
			t.Fatalf("-update (dry run %v): exit %d\n%s%s", dry, code, out, errOut)
		}
	}
	// Applied: a second update finds nothing left to change.
	code, out, _ = run("-update", live)
	if code != 0 || strings.Contains(out, "@@") {
		t.Errorf("-update after the update: exit %d\n%s", code, out)
	}

	// -config with -update replaces the job's configuration (issue 26:
	// the docs said coordinator -update was not supported).
	newProps := filepath.Join(app, "job2.properties")
	if err := os.WriteFile(newProps, []byte(files["job.properties"]+"queueName=night\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	confPart := func(out string) string {
		_, after, _ := strings.Cut(out, "**********Job conf changes****************\n")
		return after
	}
	for _, dry := range []bool{true, false} {
		args := []string{"-config", newProps, "-update", live}
		if dry {
			args = append(args, "-dryrun")
		}
		code, out, errOut = run(args...)
		if c := confPart(out); code != 0 || !strings.Contains(c, "+") || !strings.Contains(c, "queueName") || !strings.Contains(c, "night") ||
			strings.Contains(c, "No conf update requested") {
			t.Fatalf("-config -update (dry run %v): exit %d\n%s%s", dry, code, out, errOut)
		}
	}
	code, out, errOut = run("-config", newProps, "-update", live)
	if c := confPart(out); code != 0 || strings.Contains(c, "queueName") {
		t.Errorf("-config -update once more: exit %d, the configuration changed again:\n%s%s", code, out, errOut)
	}
}
