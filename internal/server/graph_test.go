package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGraphOfFailedJob: a job that failed into a kill node has that kill
// node in its graph even without show-kill (kill nodes the job did not
// reach stay out), and the graph comes as PNG by default.
func TestGraphOfFailedJob(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.dir, "apps", "fails")
	wf := `<workflow-app xmlns="uri:oozie:workflow:1.0" name="fails">
  <start to="bad"/>
  <action name="bad"><fs><move source="` + filepath.Join(e.dir, "no-such-file") + `" target="` + filepath.Join(e.dir, "x") + `"/></fs><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>bad failed</message></kill>
  <kill name="unused"><message>never</message></kill>
  <end name="end"/>
</workflow-app>`
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	id := e.submit("joe", "start", "oozie.wf.application.path", dir)
	e.waitStatus(id, "KILLED")
	svg := string(e.do("GET", "/oozie/v2/job/"+id+"?show=graph&format=svg", "", "").body)
	for _, want := range []string{`data-name="fail"`, `data-failed="true" data-name="bad"`} {
		if !strings.Contains(svg, want) {
			t.Errorf("graph lacks %s:\n%s", want, svg)
		}
	}
	if strings.Contains(svg, `data-name="unused"`) {
		t.Errorf("graph draws the kill node the job did not reach")
	}
	if r := e.do("GET", "/oozie/v2/job/"+id+"?show=graph&show-kill=true&format=svg", "", ""); !strings.Contains(string(r.body), `data-name="unused"`) {
		t.Errorf("show-kill=true leaves out a kill node")
	}
	if r := e.do("GET", "/oozie/v2/job/"+id+"?show=graph", "", ""); r.header.Get("Content-Type") != "image/png" || !strings.HasPrefix(string(r.body), "\x89PNG") {
		t.Errorf("default graph: %v %.20q", r.header, r.body)
	}
}
