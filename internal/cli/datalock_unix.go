//go:build unix

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockDataDir takes an exclusive lock on <dir>/server.lock for as long as
// the server runs (the kernel drops it when the process dies, however it
// dies). A data directory holds one server's action work directories and,
// on SQLite, its whole database: a second server on it would run the same
// steps again. The returned function releases the lock.
func lockDataDir(dir string) (func(), error) {
	path := filepath.Join(dir, "server.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		who := ""
		if pid := strings.TrimSpace(string(holder)); pid != "" {
			who = " (pid " + pid + ")"
		}
		return nil, fmt.Errorf("data directory %s is in use by another gozie server%s: one server per data directory; to run several servers, give each its own -data and share a PostgreSQL store (-db postgres://...)", dir, who)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() { f.Close() }, nil
}
