package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestRunRefusedSaysWhereAndCleansUp is issue 26 point 13: a workflow
// `gozie run` refuses before running gets the line and column that
// `gozie validate` prints, and the temporary data directory made for the
// run goes away (nothing ran, nothing to read); -keep keeps it.
func TestRunRefusedSaysWhereAndCleansUp(t *testing.T) {
	app := writeApp(t, `<workflow-app xmlns="uri:oozie:workflow:0.5" name="typo">
  <start to="a"/>
  <action name="a"><fs><mkdir path="/tmp/x"/></fs><ok to="end"/><error to="fial"/></action>
  <kill name="fail"><message>m</message></kill>
  <end name="end"/>
</workflow-app>`)
	tests := []struct {
		name string
		keep bool
	}{{"temporary directory removed", false}, {"-keep keeps it", true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			args := []string{"-D", "oozie.wf.application.path=" + app}
			if tt.keep {
				args = append(args, "-keep")
			}
			var out, errOut bytes.Buffer
			if code := runRun(args, &out, &errOut); code != exitFail {
				t.Fatalf("exit %d, want %d:\n%s", code, exitFail, errOut.String())
			}
			text := errOut.String()
			want := "E0708: Invalid transition, node [a] transition [fial]; did you mean [fail]? (line 3, column 3)"
			if !strings.Contains(text, want) {
				t.Errorf("stderr lacks %q:\n%s", want, text)
			}
			entries, err := os.ReadDir(tmp)
			if err != nil {
				t.Fatal(err)
			}
			kept := strings.Contains(text, "data kept in")
			if tt.keep != (len(entries) == 1) || tt.keep != kept {
				t.Errorf("keep %v: %d entries left in TMPDIR, 'data kept in' said: %v\n%s", tt.keep, len(entries), kept, text)
			}
		})
	}
}
