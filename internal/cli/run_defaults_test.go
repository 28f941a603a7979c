package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gozie run gives actions that need a name-node and job-tracker and name
// none (shell 0.3 leaves them to <global> or the server) the local
// defaults file:/// and local, unless the job properties set Oozie's
// server defaults; a workflow written for a cluster-less Oozie server
// runs as it is. Issue 26, point 5.
func TestRunLocalActionDefaults(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	app := t.TempDir()
	wf := `<workflow-app xmlns="uri:oozie:workflow:0.5" name="w"><start to="a"/>
		<action name="a"><shell xmlns="uri:oozie:shell-action:0.3"><exec>true</exec></shell>
		<ok to="end"/><error to="fail"/></action>
		<kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>`
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		defs     []string
		wantConf []string
	}{
		{"local defaults", nil, []string{"<job-tracker>local</job-tracker>", "<name-node>file:///</name-node>"}},
		{"job properties win", []string{"-D", "oozie.actions.default.name-node=file:///tmp", "-D", "oozie.actions.default.job-tracker=rm:8032"},
			[]string{"<job-tracker>rm:8032</job-tracker>", "<name-node>file:///tmp</name-node>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append([]string{"-json", "-D", "oozie.wf.application.path=" + app}, tt.defs...)
			if code := runRun(args, &out, &errOut); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			var job struct {
				Status  string
				Actions []struct{ Name, Conf string }
			}
			if err := json.Unmarshal(out.Bytes(), &job); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out.String())
			}
			if job.Status != "SUCCEEDED" {
				t.Fatalf("status %s: %s", job.Status, errOut.String())
			}
			for _, a := range job.Actions {
				if a.Name != "a" {
					continue
				}
				for _, want := range tt.wantConf {
					if !strings.Contains(a.Conf, want) {
						t.Errorf("action a's XML lacks %s:\n%s", want, a.Conf)
					}
				}
			}
		})
	}
}
