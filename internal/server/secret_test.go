//go:build unix

package server

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// authFor builds the authenticator a server with the given environment
// and data directory would use.
func authFor(t *testing.T, dataDir string, env map[string]string) (*authenticator, error) {
	t.Helper()
	c, err := LoadConfig("", func(k string) string {
		if k == "GOZIE_DATA" {
			return dataDir
		}
		return env[k]
	})
	if err != nil {
		return nil, err
	}
	opts, err := AuthFromConfig(c, dataDir)
	if err != nil {
		return nil, err
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	return newAuthenticator(opts, func() time.Time { return now })
}

// writeSecret writes a secret file with exactly mode (whatever the umask).
func writeSecret(t *testing.T, path, content string, mode os.FileMode) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// Issue 23 point 6: gozie.authentication.secret.file names the secret the
// cookie signing key is derived from. It must be a private regular file
// of 32 bytes or more; anything else stops the server with an error
// naming the key and the file.
func TestCookieSecretFile(t *testing.T) {
	dir := t.TempDir()
	good := strings.Repeat("k", 40) + "\n"
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		path string
		want []string // in the error; none: accepted
		root bool     // needs root (chown)
	}{
		{name: "text", path: writeSecret(t, filepath.Join(dir, "text"), good, 0o600)},
		{name: "read-only", path: writeSecret(t, filepath.Join(dir, "ro"), good, 0o400)},
		{name: "binary", path: writeSecret(t, filepath.Join(dir, "bin"), string([]byte{0, 1, 2, 255, 254, 10, 13, 9, 0, 0, 0, 0, 7, 7, 7, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}), 0o600)},
		{name: "group-readable", path: writeSecret(t, filepath.Join(dir, "group"), good, 0o640),
			want: []string{"gozie.authentication.secret.file", filepath.Join(dir, "group"), "0640", "chmod 600"}},
		{name: "other-readable", path: writeSecret(t, filepath.Join(dir, "other"), good, 0o604),
			want: []string{filepath.Join(dir, "other"), "0604", "chmod 600"}},
		{name: "group-writable", path: writeSecret(t, filepath.Join(dir, "gw"), good, 0o620),
			want: []string{filepath.Join(dir, "gw"), "0620"}},
		{name: "short", path: writeSecret(t, filepath.Join(dir, "short"), "0123456789abcdef0123456789abcde\n", 0o600),
			want: []string{filepath.Join(dir, "short"), "31 bytes", "at least 32"}},
		{name: "empty", path: writeSecret(t, filepath.Join(dir, "empty"), "", 0o600),
			want: []string{filepath.Join(dir, "empty"), "at least 32"}},
		{name: "too large", path: writeSecret(t, filepath.Join(dir, "large"), strings.Repeat("k", 70_000), 0o600),
			want: []string{filepath.Join(dir, "large"), "larger than"}},
		{name: "missing", path: filepath.Join(dir, "missing"),
			want: []string{"gozie.authentication.secret.file", filepath.Join(dir, "missing"), "no such file"}},
		{name: "directory", path: dir, want: []string{"gozie.authentication.secret.file", "directory"}},
		{name: "fifo", path: fifo, want: []string{"gozie.authentication.secret.file", "named pipe"}},
		{name: "another user's", path: writeSecret(t, filepath.Join(dir, "foreign"), good, 0o600),
			want: []string{filepath.Join(dir, "foreign"), "uid 4242"}, root: true},
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(filepath.Join(dir, "foreign"), 4242, 4242); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.root && os.Geteuid() != 0 {
				t.Skip("needs root to give the file to another user")
			}
			data := t.TempDir()
			_, err := authFor(t, data, map[string]string{"GOZIE_AUTHENTICATION_SECRET_FILE": c.path})
			if len(c.want) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if _, err := os.Stat(filepath.Join(data, "auth-secret")); !os.IsNotExist(err) {
					t.Errorf("a secret was generated in the data directory beside the configured file (%v)", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted; want an error naming %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// Servers behind one load balancer accept each other's cookies exactly
// when they derive the signing key from the same secret: the same file
// (or a copy), or the same gozie.authentication.secret.
func TestCookiesAcrossServers(t *testing.T) {
	dir := t.TempDir()
	one := writeSecret(t, filepath.Join(dir, "one"), strings.Repeat("1", 64)+"\n", 0o600)
	oneCopy := writeSecret(t, filepath.Join(dir, "one-copy"), strings.Repeat("1", 64)+"\n", 0o600)
	two := writeSecret(t, filepath.Join(dir, "two"), strings.Repeat("2", 64)+"\n", 0o600)
	file := func(p string) map[string]string { return map[string]string{"GOZIE_AUTHENTICATION_SECRET_FILE": p} }
	value := func(v string) map[string]string { return map[string]string{"GOZIE_AUTHENTICATION_SECRET": v} }
	cases := []struct {
		name   string
		a, b   map[string]string
		accept bool
	}{
		{"same secret file", file(one), file(one), true},
		{"copies of one secret file", file(one), file(oneCopy), true},
		{"different secret files", file(one), file(two), false},
		{"same secret value", value("s3cret-shared"), value("s3cret-shared"), true},
		{"different secret values", value("s3cret-a"), value("s3cret-b"), false},
		{"each its generated secret", nil, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := authFor(t, t.TempDir(), c.a)
			if err != nil {
				t.Fatal(err)
			}
			b, err := authFor(t, t.TempDir(), c.b)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range []struct {
				name     string
				from, to *authenticator
			}{{"a to b", a, b}, {"b to a", b, a}} {
				u, ok := d.to.verify(d.from.token("joe", "joe", MethodSimple))
				if ok != c.accept || (ok && u != "joe") {
					t.Errorf("%s: cookie accepted = %v (user %q), want %v", d.name, ok, u, c.accept)
				}
			}
		})
	}
}

// The secret a server generates for itself is private whatever the umask,
// stays the same across restarts, and is refused once others may read it.
func TestGeneratedSecretPrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	data := t.TempDir()
	a, err := authFor(t, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(data, "auth-secret")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("generated %s has mode %#o, want 0600", path, fi.Mode().Perm())
	}
	b, err := authFor(t, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.verify(a.token("joe", "joe", MethodSimple)); !ok {
		t.Error("a cookie from before a restart is refused: the generated secret changed")
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = authFor(t, data, nil)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a readable generated secret: %v; want an error naming %s and the fix", err, path)
	}
}
