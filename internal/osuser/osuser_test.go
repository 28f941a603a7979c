package osuser

import (
	"errors"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// testUser is the account these tests create when it is missing (the
// action package's run-as tests use the same one).
const testUser = "gozietest"

func ensureTestUser(t *testing.T) *User {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("acting as another user needs root")
	}
	if _, err := user.Lookup(testUser); err != nil {
		path, err := exec.LookPath("useradd")
		if err != nil {
			t.Skip("useradd is not available to create the test user " + testUser)
		}
		if out, err := exec.Command(path, "-M", "-r", "-s", "/bin/sh", testUser).CombinedOutput(); err != nil {
			t.Skipf("useradd %s: %v: %s", testUser, err, out)
		}
		t.Cleanup(func() {
			if p, err := exec.LookPath("userdel"); err == nil {
				_ = exec.Command(p, testUser).Run()
			}
		})
	}
	u, err := Lookup(testUser)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestLookupRefuses(t *testing.T) {
	cases := []struct {
		name string
		want error
	}{
		{"", ErrNoUser},
		{"root", ErrRoot},
		{"no-such-user-gozie", ErrUnknown},
	}
	for _, c := range cases {
		if _, err := Lookup(c.name); !errors.Is(err, c.want) {
			t.Errorf("Lookup(%q) = %v, want %v", c.name, err, c.want)
		}
	}
}

// Work done through Do gets the user's permission checks, and what it
// creates is the user's; the caller's thread keeps root's rights.
func TestDoActsAsTheUser(t *testing.T) {
	u := ensureTestUser(t)
	dir, err := os.MkdirTemp("", "gozie-osuser-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("root only"), 0o600)
	mine := filepath.Join(dir, "mine")
	os.Mkdir(mine, 0o755)
	os.Chown(mine, int(u.UID), int(u.GID))

	cases := []struct {
		name    string
		fn      func() error
		wantErr error
	}{
		{"read a root-only file", func() error { _, err := os.ReadFile(secret); return err }, os.ErrPermission},
		{"create in a root directory", func() error { return os.WriteFile(filepath.Join(dir, "x"), nil, 0o644) }, os.ErrPermission},
		{"remove a root file", func() error { return os.Remove(secret) }, os.ErrPermission},
		{"chmod a root file", func() error { return os.Chmod(secret, 0o644) }, os.ErrPermission},
		{"create in the user's directory", func() error { return os.WriteFile(filepath.Join(mine, "out"), nil, 0o644) }, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := Do(u, c.fn); !errors.Is(err, c.wantErr) {
				t.Fatalf("Do = %v, want %v", err, c.wantErr)
			}
		})
	}
	fi, err := os.Stat(filepath.Join(mine, "out"))
	if err != nil {
		t.Fatal(err)
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != u.UID || st.Gid != u.GID {
		t.Errorf("created file owned by %d:%d, want %d:%d", st.Uid, st.Gid, u.UID, u.GID)
	}
	// Many at once, then the server's own goroutines still read as root:
	// no thread kept the identity.
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = Do(u, func() error { _, err := os.ReadFile(secret); return err })
		}()
	}
	wg.Wait()
	for range 50 {
		if _, err := os.ReadFile(secret); err != nil {
			t.Fatalf("root lost its rights after Do: %v", err)
		}
	}
	if err := Do(nil, func() error { _, err := os.ReadFile(secret); return err }); err != nil {
		t.Errorf("Do(nil) = %v, want the caller's rights", err)
	}
}

func TestDoPanicReachesCaller(t *testing.T) {
	u := ensureTestUser(t)
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "boom") {
			t.Errorf("recovered %v, want the panic of fn", p)
		}
	}()
	_ = Do(u, func() error { panic("boom") })
}

func TestDoNeedsRoot(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("checks the refusal of a server that is not root")
	}
	err := Do(&User{Name: "someone", UID: 12345, GID: 12345}, func() error { return nil })
	if err == nil || !strings.Contains(err.Error(), "must run as root") {
		t.Fatalf("Do = %v, want the root refusal", err)
	}
}
