package engine

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestJournalCannotOpen: a journal in a directory the engine cannot write
// is logged and left out; the engine runs without it.
func TestJournalCannotOpen(t *testing.T) {
	var mu sync.Mutex
	var logged []string
	h := newHarness(t, func(o *Options) {
		o.CrashJournal = filepath.Join(t.TempDir(), "missing", "effects.journal")
		o.Logf = func(format string, args ...any) {
			mu.Lock()
			logged = append(logged, fmt.Sprintf(format, args...))
			mu.Unlock()
		}
	})
	mu.Lock()
	if h.e.rt.Journaled() || len(logged) == 0 || !strings.Contains(logged[0], "effect journal") {
		t.Errorf("journal %v, log %q", h.e.rt.Journaled(), logged)
	}
	mu.Unlock()
	id := h.run(props(h.writeApp("ok", twoStepApp(), nil)))
	if j := h.wait(id); j.Status != "SUCCEEDED" {
		t.Errorf("job %s without a journal", j.Status)
	}
}
