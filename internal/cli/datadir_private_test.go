//go:build unix

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/gozie/gozie/internal/store/sqlite"
)

// lockedBuffer is a bytes.Buffer several goroutines may write.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Issue 23 point 6: what the data directory holds for the server alone —
// the SQLite store (which on one server holds everything), the cookie
// secret and the launch supervisor's directory — is private whatever the
// umask; a directory an older version (or an operator) left wider is
// narrowed when the server starts, and the server says so once.
func TestServerDataDirPrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	data := t.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(data, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := os.Chmod(filepath.Join(data, "gozie.db"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(data, "launcher"), 0o755); err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	startServeIn(t, data, nil, &stderr)
	for _, f := range []struct {
		name string
		mode os.FileMode
	}{
		{"gozie.db", 0o600}, {"gozie.db-wal", 0o600}, {"gozie.db-shm", 0o600},
		{"auth-secret", 0o600}, {"launcher", 0o700},
	} {
		fi, err := os.Stat(filepath.Join(data, f.name))
		if err != nil {
			t.Errorf("%s: %v", f.name, err)
			continue
		}
		if fi.Mode().Perm() != f.mode {
			t.Errorf("%s has mode %#o, want %#o", f.name, fi.Mode().Perm(), f.mode)
		}
	}
	log := stderr.String()
	for _, name := range []string{"gozie.db", "launcher"} {
		if n := strings.Count(log, filepath.Join(data, name)+" "); n != 1 {
			t.Errorf("the log names %s %d times, want once (narrowed):\n%s", name, n, log)
		}
	}
}
