package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStderrNote is issue 14 point 12: a failed action's log line carries
// the last lines of its stderr and where its stdout and stderr are.
func TestStderrNote(t *testing.T) {
	dir := t.TempDir()
	if got := stderrNote(dir); got != "" {
		t.Errorf("no stderr file: note %q, want none", got)
	}
	var b strings.Builder
	for i := 1; i <= 15; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "stderr"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	note := stderrNote(dir)
	for _, want := range []string{
		"stderr in [" + filepath.Join(dir, "stderr") + "]",
		"stdout in [" + filepath.Join(dir, "stdout") + "]",
		"\n    line 6\n", "\n    line 15",
	} {
		if !strings.Contains(note, want) {
			t.Errorf("note lacks %q:\n%s", want, note)
		}
	}
	if strings.Contains(note, "line 5\n") {
		t.Errorf("note has more than %d lines:\n%s", StderrTailLines, note)
	}
	if err := os.WriteFile(filepath.Join(dir, "stderr"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if note := stderrNote(dir); !strings.Contains(note, "stderr is empty") {
		t.Errorf("empty stderr: note %q", note)
	}
}
