package cli

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRunVerboseStreamsOutput is issue 26 point 10: `gozie run -v` prints
// each step's stdout and stderr lines, after its node name, before the
// step's end line; without -v they are not printed.
func TestRunVerboseStreamsOutput(t *testing.T) {
	app := writeApp(t, `<workflow-app xmlns="uri:oozie:workflow:0.5" name="talk"><start to="first"/>
  <action name="first"><shell xmlns="uri:oozie:shell-action:0.3"><job-tracker>local</job-tracker><name-node>file:///</name-node>
    <exec>sh</exec><argument>-c</argument><argument>echo one; echo two; echo warn >&amp;2; printf 'no newline'</argument></shell>
    <ok to="second"/><error to="fail"/></action>
  <action name="second"><shell xmlns="uri:oozie:shell-action:0.3"><job-tracker>local</job-tracker><name-node>file:///</name-node>
    <exec>sh</exec><argument>-c</argument><argument>echo three</argument></shell>
    <ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>`)
	for _, verbose := range []bool{true, false} {
		t.Run(map[bool]string{true: "-v", false: "quiet"}[verbose], func(t *testing.T) {
			args := []string{"-D", "oozie.wf.application.path=" + app, "-data", filepath.Join(t.TempDir(), "d")}
			if verbose {
				args = append(args, "-v")
			}
			var out, errOut bytes.Buffer
			if code := runRun(args, &out, &errOut); code != exitOK {
				t.Fatalf("exit %d:\n%s", code, errOut.String())
			}
			text := errOut.String()
			lines := []string{"[first] one", "[first] two", "[first stderr] warn", "[first] no newline", "[second] three"}
			if !verbose {
				for _, l := range lines {
					if strings.Contains(text, l) {
						t.Errorf("without -v, stderr has %q:\n%s", l, text)
					}
				}
				return
			}
			for _, l := range lines {
				if !regexp.MustCompile(`(?m)^ +` + regexp.QuoteMeta(l) + `$`).MatchString(text) {
					t.Errorf("stderr lacks the line %q:\n%s", l, text)
				}
			}
			// Each step's output comes before its end line, in order.
			order := []string{"[first] one", "[first] two", "first                shell        OK -> second", "[second] three", "second               shell        OK -> end"}
			at := 0
			for _, o := range order {
				i := strings.Index(text[at:], o)
				if i < 0 {
					t.Fatalf("%q missing or out of order in:\n%s", o, text)
				}
				at += i + len(o)
			}
		})
	}
}
