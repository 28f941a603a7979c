package osuser_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/gozie/gozie/internal/osuser"
	"github.com/gozie/gozie/internal/osuser/osusertest"
)

func TestLookupRefuses(t *testing.T) {
	cases := []struct {
		name string
		want error
	}{
		{"", osuser.ErrNoUser},
		{"root", osuser.ErrRoot},
		{"no-such-user-gozie", osuser.ErrUnknown},
	}
	for _, c := range cases {
		if _, err := osuser.Lookup(c.name); !errors.Is(err, c.want) {
			t.Errorf("osuser.Lookup(%q) = %v, want %v", c.name, err, c.want)
		}
	}
}

// Work done through Do gets the user's permission checks, and what it
// creates is the user's; the caller's thread keeps root's rights.
func TestDoActsAsTheUser(t *testing.T) {
	u := osusertest.User(t)
	dir := osusertest.OpenDir(t)
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
			if err := osuser.Do(u, c.fn); !errors.Is(err, c.wantErr) {
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
			_ = osuser.Do(u, func() error { _, err := os.ReadFile(secret); return err })
		}()
	}
	wg.Wait()
	for range 50 {
		if _, err := os.ReadFile(secret); err != nil {
			t.Fatalf("root lost its rights after Do: %v", err)
		}
	}
	if err := osuser.Do(nil, func() error { _, err := os.ReadFile(secret); return err }); err != nil {
		t.Errorf("osuser.Do(nil) = %v, want the caller's rights", err)
	}
}

func TestDoPanicReachesCaller(t *testing.T) {
	u := osusertest.User(t)
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "boom") {
			t.Errorf("recovered %v, want the panic of fn", p)
		}
	}()
	_ = osuser.Do(u, func() error { panic("boom") })
}

func TestDoNeedsRoot(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("checks the refusal of a server that is not root")
	}
	err := osuser.Do(&osuser.User{Name: "someone", UID: 12345, GID: 12345}, func() error { return nil })
	if err == nil || !strings.Contains(err.Error(), "must run as root") {
		t.Fatalf("Do = %v, want the root refusal", err)
	}
}
