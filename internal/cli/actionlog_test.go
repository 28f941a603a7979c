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

// TestJobLogOfAction is issue 26 point 10: `gozie job -log ID@node`
// prints the action's log lines, then its stdout and stderr; -stream
// prints one of them byte for byte.
func TestJobLogOfAction(t *testing.T) {
	pinEnv(t)
	url := startServer(t)
	app := t.TempDir()
	wf := `<workflow-app xmlns="uri:oozie:workflow:0.5" name="talk">
  <start to="say"/>
  <action name="say"><shell xmlns="uri:oozie:shell-action:0.3"><job-tracker>local</job-tracker><name-node>file:///</name-node>
    <exec>sh</exec><argument>-c</argument><argument>echo hello; echo careful >&amp;2; printf tail</argument></shell>
    <ok to="quiet"/><error to="fail"/></action>
  <action name="quiet"><fs><mkdir path="${wf:conf('out')}"/></fs><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>`
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	props := filepath.Join(app, "job.properties")
	if err := os.WriteFile(props, []byte("oozie.wf.application.path="+app+"\nout="+filepath.Join(t.TempDir(), "o")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := Main([]string{"job", "-oozie", url, "-config", props, "-run"}, &out, &errOut); code != 0 {
		t.Fatalf("-run: exit %d: %s", code, errOut.String())
	}
	id := strings.TrimSpace(strings.TrimPrefix(out.String(), "job: "))
	for deadline := time.Now().Add(30 * time.Second); e2eStatus(t, url, id) != "SUCCEEDED"; {
		if time.Now().After(deadline) {
			t.Fatalf("job %s did not succeed", id)
		}
		time.Sleep(50 * time.Millisecond) // polling a condition
	}
	tests := []struct {
		name string
		args []string
		want *regexp.Regexp
	}{
		{"log, stdout and stderr", []string{"-log", id + "@say"}, regexp.MustCompile(`(?s)^.*ACTION\[` + regexp.QuoteMeta(id) + `@say\].*\n` +
			regexp.QuoteMeta("----- stdout of "+id+"@say -----\nhello\ntail\n----- stderr of "+id+"@say -----\ncareful\n") + `$`)},
		{"stdout alone", []string{"-log", id + "@say", "-stream", "stdout"}, regexp.MustCompile(`^hello\ntail$`)},
		{"stderr alone", []string{"-log", id + "@say", "-stream", "stderr"}, regexp.MustCompile(`^careful\n$`)},
		{"an action without a process", []string{"-log", id + "@quiet"}, regexp.MustCompile(
			regexp.QuoteMeta("----- stdout of "+id+"@quiet -----\n(empty)\n----- stderr of "+id+"@quiet -----\n(empty)\n") + `$`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out.Reset()
			errOut.Reset()
			if code := Main(append([]string{"job", "-oozie", url}, tt.args...), &out, &errOut); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			if !tt.want.MatchString(out.String()) {
				t.Errorf("stdout:\n%s\nwant to match %s", out.String(), tt.want)
			}
		})
	}
	for _, bad := range [][]string{{"-log", id, "-stream", "stdout"}, {"-log", id + "@say", "-stream", "both"}} {
		errOut.Reset()
		if code := Main(append([]string{"job", "-oozie", url}, bad...), &out, &errOut); code != exitRemote || !strings.Contains(errOut.String(), "-stream") {
			t.Errorf("%v: exit %d, stderr %q", bad, code, errOut.String())
		}
	}
}

// TestJobLogOfActionOnOozie: a server without action output (Apache
// Oozie) gets the log and a plain explanation instead of a bare 404; for
// -stream, that explanation is the error.
func TestJobLogOfActionOnOozie(t *testing.T) {
	pinEnv(t)
	id := "0000001-260101000000000-oozie-root-W@say"
	_, url := newFakeOozie(t, map[string]reply{
		"GET /oozie/v2/job/" + id + "?show=log":       {body: "a log line\n"},
		"GET /oozie/console/action/" + id + "/stdout": {status: 404},
	})
	var out, errOut bytes.Buffer
	code := Main([]string{"job", "-oozie", url, "-log", id}, &out, &errOut)
	if code != exitOK || !strings.HasPrefix(out.String(), "a log line\n") || !strings.Contains(out.String(), "does not serve the stdout and stderr of actions") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	out.Reset()
	code = Main([]string{"job", "-oozie", url, "-log", id, "-stream", "stdout"}, &out, &errOut)
	if code != exitRemote || !strings.Contains(errOut.String(), "does not serve the stdout and stderr of actions") {
		t.Errorf("-stream: exit %d, stderr %q", code, errOut.String())
	}
}
