package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUserRetryExternalID is issue 26 point 14: an action waiting in
// USER_RETRY shows the failed attempt's program pid as its external id
// (local:<pid>), not the path of that attempt's work directory, and the
// pid is the program's own (the shell's $$), not a launcher's.
func TestUserRetryExternalID(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.dir, "apps", "retry")
	wf := `<workflow-app xmlns="uri:oozie:workflow:1.0" name="retry">
  <start to="step"/>
  <action name="step" retry-max="1" retry-interval="60">
    <shell xmlns="uri:oozie:shell-action:1.0">
      <resource-manager>local</resource-manager><name-node>file:///</name-node>
      <exec>sh</exec><argument>-c</argument><argument>echo $$; exit 1</argument>
    </shell>
    <ok to="end"/><error to="fail"/>
  </action>
  <kill name="fail"><message>step failed</message></kill>
  <end name="end"/>
</workflow-app>`
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	id := e.submit("joe", "start", "oozie.wf.application.path", dir)
	var act map[string]any
	for deadline := time.Now().Add(20 * time.Second); ; {
		act = e.do("GET", "/oozie/v2/job/"+id+"@step", "", "").json(t)
		if act["status"] == "USER_RETRY" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("action never reached USER_RETRY: %v", act)
		}
		time.Sleep(20 * time.Millisecond) // polling a condition
	}
	defer e.do("PUT", "/oozie/v2/job/"+id+"?action=kill&user.name=joe", "", "")
	out, err := os.ReadFile(filepath.Join(e.dir, "actions", id+"@step.0", "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	want := "local:" + strings.TrimSpace(string(out))
	if ext, _ := act["externalId"].(string); ext != want {
		t.Errorf("externalId %q in USER_RETRY, want %q (the failed attempt's program)", ext, want)
	}
}
