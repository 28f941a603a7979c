package action

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Fault point 11: with RunAsUser, the program runs as the job's user (id
// -un seen through capture-output), can write in its working directory,
// and the launcher's records stay root's.
func TestShellRunAsUser(t *testing.T) {
	for _, mode := range launchModes {
		t.Run(mode.name, func(t *testing.T) { testShellRunAsUser(t, mode.opts(t)) })
	}
}

func testShellRunAsUser(t *testing.T, opts Options) {
	u := ensureTestUser(t)
	root := openDir(t)
	app := filepath.Join(root, "app")
	os.MkdirAll(app, 0o755)
	a, notified := shellAction(t, app,
		`<exec>sh</exec><argument>-c</argument><argument>echo user=$(id -un); echo home=$HOME; touch written</argument><capture-output/>`)
	a.User = testUser
	a.WorkDir = filepath.Join(root, "work", "0")
	opts.RunAsUser = true
	res := runToEnd(t, NewShell(opts), a, notified)
	if res.Status != OK || res.Data["user"] != testUser {
		t.Fatalf("result %+v; want OK with user=%s", res, testUser)
	}
	uid, _ := strconv.Atoi(u.Uid)
	owners := map[string]int{"written": uid, ".": uid, StatusFile: 0, PIDFile: 0, StdoutFile: 0}
	if opts.SupervisorDir == "" {
		owners[SpecFile] = 0 // the supervisor gets the spec in its request
	}
	for name, wantUID := range owners {
		fi, err := os.Stat(filepath.Join(a.WorkDir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := int(fi.Sys().(*syscall.Stat_t).Uid); got != wantUID {
			t.Errorf("%s owned by uid %d, want %d", name, got, wantUID)
		}
	}
	if pid, _ := readPID(a.WorkDir); pid.Supervised != (opts.SupervisorDir != "") {
		t.Errorf("pid file %+v: supervised %v, want %v", pid, pid.Supervised, opts.SupervisorDir != "")
	}
}

// A job user the host does not know, or root, is a non-transient JA002
// before anything is prepared or run.
func TestShellRunAsUserRefused(t *testing.T) {
	cases := []struct {
		user, want string
	}{
		{"no-such-user-gozie", "no such user on this host"},
		{"root", "never run as root"},
		{"", "the job has no user"},
	}
	for _, c := range cases {
		t.Run(c.user, func(t *testing.T) {
			a, _ := shellAction(t, t.TempDir(), `<exec>true</exec>`)
			a.User = c.user
			opts := testLauncher(t)
			opts.RunAsUser = true
			_, err := NewShell(opts).Start(context.Background(), a)
			var ee *ExecError
			if !errors.As(err, &ee) || ee.Kind != NonTransient || ee.Code != CodeRunAsUser || !strings.Contains(ee.Msg, c.want) {
				t.Fatalf("Start = %v; want non-transient %s %q", err, CodeRunAsUser, c.want)
			}
			if exists(a.WorkDir) {
				t.Error("the working directory was prepared")
			}
		})
	}
}

// A pid or status file the job's user planted in the working directory it
// owns is not trusted.
func TestReadOwnIgnoresForeignFiles(t *testing.T) {
	u := ensureTestUser(t)
	dir := openDir(t)
	uid, _ := strconv.Atoi(u.Uid)
	os.WriteFile(filepath.Join(dir, PIDFile), []byte(`{"pid":1,"pgid":1}`), 0o644)
	os.Chown(filepath.Join(dir, PIDFile), uid, -1)
	os.Symlink("/etc/hostname", filepath.Join(dir, StatusFile))
	if p, ok := readPID(dir); ok {
		t.Errorf("readPID trusted a file of the job's user: %+v", p)
	}
	if _, ok, err := readStatus(dir); ok || err != nil {
		t.Errorf("readStatus followed a link: %v %v", ok, err)
	}
}

// The launcher's own files are opened only when they are what the
// launcher made: not through a symbolic or hard link a job's user planted.
func TestOpenOwn(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	os.WriteFile(filepath.Join(dir, "plain"), []byte("old"), 0o644)
	os.Symlink(victim, filepath.Join(dir, "symlink"))
	os.Link(victim, filepath.Join(dir, "hardlink"))
	cases := []struct {
		name string
		ok   bool
	}{
		{"plain", true},
		{"new", true},
		{"symlink", false},
		{"hardlink", false},
	}
	for _, c := range cases {
		f, err := openOwn(filepath.Join(dir, c.name), os.O_RDWR|os.O_CREATE, true)
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v, want ok %v", c.name, err, c.ok)
		}
		if f != nil {
			f.Close()
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("victim truncated through a link: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "plain")); len(b) != 0 {
		t.Errorf("plain not truncated: %q", b)
	}
}
