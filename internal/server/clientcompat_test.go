package server

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeWF writes workflow.xml into a new application directory.
func (e *env) writeWF(name, body string) string {
	e.t.Helper()
	dir := filepath.Join(e.dir, "apps", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	wf := fmt.Sprintf(`<workflow-app xmlns="uri:oozie:workflow:1.0" name="%s">%s</workflow-app>`, name, body)
	if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(wf), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return dir
}

// TestShowRetries: show=retries of a workflow action lists each run that
// ended in a user retry, with string values as JsonTags/the client read
// them (attempt, startTime, endTime, consoleUrl, externalChildIDs).
func TestShowRetries(t *testing.T) {
	e := newEnv(t)
	app := e.writeWF("retries", fmt.Sprintf(`<start to="a"/>
  <action name="a" retry-max="2" retry-interval="0"><fs><chmod path="%s/missing*" permissions="755"/></fs><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>failed</message></kill><end name="end"/>`, e.dir))
	id := e.submit("joe", "start", "oozie.wf.application.path", app)
	e.waitStatus(id, "KILLED")
	r := e.do("GET", "/oozie/v2/job/"+id+"@a?show=retries", "", "")
	if r.status != http.StatusOK {
		t.Fatalf("retries: %d %s", r.status, r.body)
	}
	list, ok := r.json(t)["retries"].([]any)
	if !ok || len(list) != 2 {
		t.Fatalf("retries = %s, want 2 entries", r.body)
	}
	for i, x := range list {
		m := x.(map[string]any)
		for k, v := range m {
			if _, isStr := v.(string); !isStr {
				t.Errorf("retry %d: %s is %T, want a string", i, k, v)
			}
		}
		if m["attempt"] != fmt.Sprint(i+1) {
			t.Errorf("retry %d: attempt %v", i, m["attempt"])
		}
		for _, k := range []string{"startTime", "endTime"} {
			if s, _ := m[k].(string); !strings.HasSuffix(s, " GMT") {
				t.Errorf("retry %d: %s = %v, want an RFC 822 GMT date", i, k, m[k])
			}
		}
	}
	// An action without retries has an empty list; v1 does not know it;
	// a job id is not an action.
	id2 := e.submit("joe", "start", "oozie.wf.application.path", e.app("noretry"))
	e.waitStatus(id2, "SUCCEEDED")
	if r := e.do("GET", "/oozie/v2/job/"+id2+"@prepare?show=retries", "", ""); r.status != 200 || strings.TrimSpace(string(r.body)) != `{"retries":[]}` {
		t.Errorf("no retries: %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/oozie/v1/job/"+id+"@a?show=retries", "", ""); r.status != 400 || r.header.Get("oozie-error-code") != "E0302" {
		t.Errorf("v1: %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/oozie/v2/job/"+id+"?show=retries", "", ""); r.status != 400 {
		t.Errorf("job id: %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/oozie/v2/job/"+id+"@zz?show=retries", "", ""); r.status != 400 || r.header.Get("oozie-error-code") != "E0605" {
		t.Errorf("unknown action: %d %s", r.status, r.body)
	}
}
