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

// Name is the account the tests use, created with useradd when missing.
// It is left in place afterwards: test binaries of several packages run at
// once, and one removing the account would pull it from under another. It
// is a system account without a home directory or password.
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
			// Another test binary may have created it a moment ago.
			if _, lerr := user.Lookup(Name); lerr != nil {
				t.Skipf("useradd %s: %v: %s", Name, err, out)
			}
		}
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
