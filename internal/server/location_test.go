package server

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefusalNamesLineAndColumn is issue 26 point 13: a workflow the
// server refuses at submission (and at validation) carries the line and
// column gozie validate prints, after Oozie's text.
func TestRefusalNamesLineAndColumn(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.dir, "apps", "typo")
	wf := `<workflow-app xmlns="uri:oozie:workflow:0.5" name="w">
  <start to="a"/>
  <action name="a"><fs><mkdir path="/tmp/x"/></fs><ok to="ned"/><error to="fail"/></action>
  <kill name="fail"><message>m</message></kill>
  <end name="end"/>
</workflow-app>`
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "E0708: Invalid transition, node [a] transition [ned]; did you mean [end]? (line 3, column 3)"
	r := e.do("POST", "/oozie/v2/jobs?user.name=joe&action=start", "application/xml;charset=UTF-8",
		confXML("oozie.wf.application.path", dir, "user.name", "joe"))
	if r.status != http.StatusBadRequest || r.header.Get("oozie-error-message") != want {
		t.Errorf("submit: %d %q; want 400 %q", r.status, r.header.Get("oozie-error-message"), want)
	}
	r = e.do("POST", "/oozie/v2/validate?file=/app/workflow.xml&user=joe&user.name=joe", "application/xml", wf)
	if r.status != http.StatusBadRequest || !strings.Contains(r.header.Get("oozie-error-message"), "(line 3, column 3)") {
		t.Errorf("validate: %d %q; want the place", r.status, r.header.Get("oozie-error-message"))
	}
}
