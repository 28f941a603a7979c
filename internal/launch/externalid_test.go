package launch

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLocalExternalID is issue 26 point 14: a step shows its own
// program's pid, never the supervisor's, and an action in USER_RETRY
// (external id: the failed attempt's directory, current attempt one
// more) shows that attempt's pid instead of the directory's path.
func TestLocalExternalID(t *testing.T) {
	actions := filepath.Join(t.TempDir(), "actions")
	attempt := func(id string, n int, pidFile string) string {
		dir := filepath.Join(actions, id+"."+string(rune('0'+n)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if pidFile != "" {
			if err := os.WriteFile(filepath.Join(dir, PIDFile), []byte(pidFile), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	supervised := attempt("1-W@sup", 0, `{"pid":100,"pgid":100,"supervised":true}`+"\n"+`{"pid":100,"pgid":4242,"childPid":4242,"supervised":true}`+"\n")
	claimed := attempt("1-W@claim", 0, `{"pid":100,"pgid":100,"supervised":true}`+"\n")
	perStep := attempt("1-W@step", 0, `{"pid":300,"pgid":300}`+"\n"+`{"pid":300,"pgid":300,"childPid":301}`+"\n")
	launcherOnly := attempt("1-W@launcher", 0, `{"pid":500,"pgid":500}`+"\n")
	failed := attempt("1-W@retry", 0, `{"pid":100,"pgid":100,"supervised":true}`+"\n"+`{"pid":100,"pgid":777,"childPid":777,"supervised":true}`+"\n")
	next := filepath.Join(actions, "1-W@retry.1") // not started yet
	other := attempt("1-W@other", 0, `{"pid":900,"pgid":900,"childPid":901}`+"\n")
	tests := []struct {
		name, ext, dir, want string
		ok                   bool
	}{
		{"supervised: the program's pid", supervised, supervised, "local:4242", true},
		{"supervised, program not started: the directory", claimed, claimed, "local:1-W@claim.0", true},
		{"per-step launcher: the program's pid", perStep, perStep, "local:301", true},
		{"per-step launcher before its program", launcherOnly, launcherOnly, "local:500", true},
		{"USER_RETRY: the failed attempt's pid", failed, next, "local:777", true},
		{"another action's directory", other, next, "", false},
		{"not a directory", "job_1_0001", next, "", false},
		{"no external id", "", next, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := LocalExternalID(tt.ext, tt.dir)
			if got != tt.want || ok != tt.ok {
				t.Errorf("LocalExternalID = %q %v, want %q %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
