// Package osusertest gives tests an operating-system account other than
// root to act as (gozie.launch.as.user), creating it when it is missing.
package osusertest

import (
	"os"
	"os/exec"
	"os/user"
	"testing"

	"github.com/gozie/gozie/internal/osuser"
)

// Name is the account the tests use, created with useradd when missing
// (and removed again by the test that created it).
const Name = "gozietest"

// User returns the test account, creating it when it does not exist. It
// skips the test when the process is not root or cannot create users.
func User(t testing.TB) *osuser.User {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("acting as another user needs root")
	}
	if _, err := user.Lookup(Name); err != nil {
		path, err := exec.LookPath("useradd")
		if err != nil {
			t.Skip("useradd is not available to create the test user " + Name)
		}
		if out, err := exec.Command(path, "-M", "-r", "-s", "/bin/sh", Name).CombinedOutput(); err != nil {
			t.Skipf("useradd %s: %v: %s", Name, err, out)
		}
		t.Cleanup(func() {
			if p, err := exec.LookPath("userdel"); err == nil {
				_ = exec.Command(p, Name).Run()
			}
		})
	}
	u, err := osuser.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// OpenDir returns a new temporary directory every user may traverse
// (t.TempDir is private to root), removed after the test.
func OpenDir(t testing.TB) string {
	t.Helper()
	d, err := os.MkdirTemp("", "gozie-runas-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}
