//go:build unix

package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// Issue 23 point 6: the store's files (the database, its -wal and -shm)
// are the server's alone, whatever the umask: they hold every job's
// configuration. Files an older version left wider are narrowed at open.
func TestFilesPrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	ctx := context.Background()
	write := func(t *testing.T, s store.Store) {
		t.Helper()
		if err := s.Update(ctx, func(tx store.Tx) error { return tx.PutJob(ctx, &store.Job{ID: "j", Status: store.JobRunning}) }); err != nil {
			t.Fatal(err)
		}
	}
	chmodAll := func(t *testing.T, path string, mode os.FileMode) {
		t.Helper()
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			if err := os.Chmod(p, mode); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		name string
		// before prepares path and returns what to close at the end.
		before func(t *testing.T, path string) func()
		// logged are the files the one log line names (none: no line).
		logged []string
	}{
		{"new database", func(t *testing.T, path string) func() { return func() {} }, nil},
		{"existing database, mode 0644", func(t *testing.T, path string) func() {
			s, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			write(t, s)
			s.Close()
			chmodAll(t, path, 0o644)
			return func() {}
		}, []string{"gozie.db (was 0644)"}},
		{"open elsewhere, all three 0666", func(t *testing.T, path string) func() {
			s, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			write(t, s)
			chmodAll(t, path, 0o666)
			return func() { s.Close() }
		}, []string{"gozie.db (was 0666)", "gozie.db-wal (was 0666)", "gozie.db-shm (was 0666)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "gozie.db")
			defer c.before(t, path)()
			var logged []string
			s, err := OpenWith(ctx, path, Options{Logf: func(f string, args ...any) { logged = append(logged, fmt.Sprintf(f, args...)) }})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if want := min(len(c.logged), 1); len(logged) != want {
				t.Errorf("logged %q; want %d line", logged, want)
			}
			for _, f := range c.logged {
				if len(logged) == 0 || !strings.Contains(logged[0], filepath.Join(filepath.Dir(path), f)) {
					t.Errorf("log %q does not name %s", logged, f)
				}
			}
			write(t, s)
			for _, p := range []string{path, path + "-wal", path + "-shm"} {
				fi, err := os.Stat(p)
				if err != nil {
					t.Errorf("%s: %v", filepath.Base(p), err)
					continue
				}
				if fi.Mode().Perm() != 0o600 {
					t.Errorf("%s has mode %#o, want 0600", filepath.Base(p), fi.Mode().Perm())
				}
			}
		})
	}
}
