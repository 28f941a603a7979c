package shell

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"
)

// Fault point 11: with RunAsUser, the program runs as the job's user (id
// -un seen through capture-output), can write in its working directory,
// and the launcher's records stay root's.
func TestShellRunAsUser(t *testing.T) {
	for _, mode := range launchtest.Modes {
		t.Run(mode.Name, func(t *testing.T) { testShellRunAsUser(t, mode.Opts(t)) })
	}
}

func testShellRunAsUser(t *testing.T, opts launch.Options) {
	u := launchtest.EnsureTestUser(t)
	root := launchtest.OpenDir(t)
	app := filepath.Join(root, "app")
	os.MkdirAll(app, 0o755)
	a, notified := launchtest.ShellAction(t, app,
		`<exec>sh</exec><argument>-c</argument><argument>echo user=$(id -un); echo home=$HOME; touch written</argument><capture-output/>`)
	a.User = launchtest.TestUser
	a.WorkDir = filepath.Join(root, "work", "0")
	opts.RunAsUser = true
	res := launchtest.RunToEnd(t, NewShell(opts), a, notified)
	if res.Status != action.OK || res.Data["user"] != launchtest.TestUser {
		t.Fatalf("result %+v; want OK with user=%s", res, launchtest.TestUser)
	}
	uid, _ := strconv.Atoi(u.Uid)
	owners := map[string]int{"written": uid, ".": uid, launch.StatusFile: 0, launch.PIDFile: 0, launch.StdoutFile: 0}
	if opts.SupervisorDir == "" {
		owners[launch.SpecFile] = 0 // the supervisor gets the spec in its request
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
	if pid, _ := launch.ReadPID(a.WorkDir); pid.Supervised != (opts.SupervisorDir != "") {
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
			a, _ := launchtest.ShellAction(t, t.TempDir(), `<exec>true</exec>`)
			a.User = c.user
			opts := launchtest.Launcher(t)
			opts.RunAsUser = true
			_, err := NewShell(opts).Start(context.Background(), a)
			var ee *action.ExecError
			if !errors.As(err, &ee) || ee.Kind != action.NonTransient || ee.Code != launch.CodeRunAsUser || !strings.Contains(ee.Msg, c.want) {
				t.Fatalf("Start = %v; want non-transient %s %q", err, launch.CodeRunAsUser, c.want)
			}
			if launch.Exists(a.WorkDir) {
				t.Error("the working directory was prepared")
			}
		})
	}
}

// A pid or status file the job's user planted in the working directory it
// owns is not trusted.
func TestReadOwnIgnoresForeignFiles(t *testing.T) {
	u := launchtest.EnsureTestUser(t)
	dir := launchtest.OpenDir(t)
	uid, _ := strconv.Atoi(u.Uid)
	os.WriteFile(filepath.Join(dir, launch.PIDFile), []byte(`{"pid":1,"pgid":1}`), 0o644)
	os.Chown(filepath.Join(dir, launch.PIDFile), uid, -1)
	os.Symlink("/etc/hostname", filepath.Join(dir, launch.StatusFile))
	if p, ok := launch.ReadPID(dir); ok {
		t.Errorf("readPID trusted a file of the job's user: %+v", p)
	}
	if _, ok, err := launch.ReadStatus(dir); ok || err != nil {
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
		f, err := launch.OpenOwn(filepath.Join(dir, c.name), os.O_RDWR|os.O_CREATE, true)
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
