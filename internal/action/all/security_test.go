package all

import (
	"archive/tar"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/action/hadoop"
	"github.com/gozie/gozie/internal/action/shell"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"
)

// The run-as probes of the second security round: a job's user must not
// make the server (root) change, read or wait on files for it. Each test
// reproduces one finding of the outside probe.

// rootFiles lays out, in a directory everyone may traverse, a directory
// and a file only root may change or read, and a directory the job's user
// owns.
type rootFiles struct {
	dir, secret, locked, userDir string
}

func newRootFiles(t *testing.T, uid, gid int) rootFiles {
	t.Helper()
	root := launchtest.OpenDir(t)
	r := rootFiles{dir: root, secret: filepath.Join(root, "secret"), locked: filepath.Join(root, "locked"), userDir: filepath.Join(root, "user")}
	if err := os.WriteFile(r.secret, []byte("root only\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(r.locked, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(r.locked, "keep"), []byte("x"), 0o644)
	if err := os.Mkdir(r.userDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(r.userDir, uid, gid); err != nil {
		t.Fatal(err)
	}
	return r
}

func uidGid(t *testing.T) (int, int) {
	u := launchtest.EnsureTestUser(t)
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return uid, gid
}

func modeOf(t *testing.T, p string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

// Finding 1: with RunAsUser, the fs action's commands run with the job
// user's rights: on root's paths they fail (FS014) and change nothing; in
// the user's own directory they work and what they create is the user's.
func TestRunAsFSAction(t *testing.T) {
	uid, gid := uidGid(t)
	r := newRootFiles(t, uid, gid)
	cases := []struct {
		name, body string
		code       string
		check      func(t *testing.T)
	}{
		{"chmod root's file", `<chmod path="` + r.secret + `" permissions="777"/>`, launch.CodeFSAccess,
			func(t *testing.T) {
				if m := modeOf(t, r.secret).Perm(); m != 0o600 {
					t.Errorf("mode %v, want 0600", m)
				}
			}},
		{"delete root's file", `<delete path="` + r.secret + `"/>`, launch.CodeFSAccess,
			func(t *testing.T) {
				if !launch.Exists(r.secret) {
					t.Error("root's file was deleted")
				}
			}},
		{"delete in root's directory", `<delete path="` + filepath.Join(r.locked, "keep") + `"/>`, launch.CodeFSAccess,
			func(t *testing.T) {
				if !launch.Exists(filepath.Join(r.locked, "keep")) {
					t.Error("root's file was deleted")
				}
			}},
		{"mkdir in root's directory", `<mkdir path="` + filepath.Join(r.locked, "new") + `"/>`, launch.CodeFSAccess,
			func(t *testing.T) {
				if launch.Exists(filepath.Join(r.locked, "new")) {
					t.Error("directory created in root's directory")
				}
			}},
		{"touchz in root's directory", `<touchz path="` + filepath.Join(r.locked, "t") + `"/>`, launch.CodeFSAccess,
			func(t *testing.T) {
				if launch.Exists(filepath.Join(r.locked, "t")) {
					t.Error("file created in root's directory")
				}
			}},
		{"move root's file away", `<move source="` + r.secret + `" target="` + filepath.Join(r.userDir, "stolen") + `"/>`, launch.CodeFSAccess,
			func(t *testing.T) {
				if !launch.Exists(r.secret) || launch.Exists(filepath.Join(r.userDir, "stolen")) {
					t.Error("root's file was moved")
				}
			}},
		{"chgrp root's file", `<chgrp path="` + r.secret + `" group="` + strconv.Itoa(gid) + `"/>`, launch.CodeFSAccess,
			func(t *testing.T) {
				if st, _ := os.Stat(r.secret); st.Sys().(*syscall.Stat_t).Gid != 0 {
					t.Error("root's file changed group")
				}
			}},
		{"mkdir and touchz in the user's directory", `<mkdir path="` + filepath.Join(r.userDir, "a/b") + `"/><touchz path="` + filepath.Join(r.userDir, "a/b/f") + `"/>`, "",
			func(t *testing.T) {
				for _, p := range []string{filepath.Join(r.userDir, "a/b"), filepath.Join(r.userDir, "a/b/f")} {
					fi, err := os.Stat(p)
					if err != nil {
						t.Fatal(err)
					}
					if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != uid {
						t.Errorf("%s owned by %d, want the user's %d", p, st.Uid, uid)
					}
				}
			}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := launchtest.Registered(t, "fs", launch.Options{RunAsUser: true})
			a := &action.Context{JobID: "j", ActionID: "j@fs", Name: "fs", Type: "fs", User: launchtest.TestUser,
				WorkDir: filepath.Join(t.TempDir(), "w"+strconv.Itoa(i)), Element: launchtest.ActionBody(t, "<fs>"+c.body+"</fs>")}
			_, err := e.Start(context.Background(), a)
			var xe *action.ExecError
			switch {
			case c.code == "" && err != nil:
				t.Fatalf("Start = %v, want success", err)
			case c.code != "" && (!errors.As(err, &xe) || xe.Code != c.code):
				t.Fatalf("Start = %v, want %s", err, c.code)
			}
			c.check(t)
		})
	}
}

// Finding 1, <prepare>: every action type's prepare block runs with the
// job user's rights.
func TestRunAsPrepare(t *testing.T) {
	uid, gid := uidGid(t)
	for _, typ := range []struct{ name, open, inner, close string }{
		{"shell", `<shell ` + launchtest.ShellNS + `>`, `<exec>true</exec>`, `</shell>`},
		{"java", `<java>`, `<main-class>Main</main-class>`, `</java>`},
		{"distcp", `<distcp xmlns="uri:oozie:distcp-action:0.2">`, `<arg>/a</arg><arg>/b</arg>`, `</distcp>`},
		{"map-reduce", `<map-reduce>`, `<streaming><mapper>cat</mapper><reducer>cat</reducer></streaming>`, `</map-reduce>`},
	} {
		t.Run(typ.name, func(t *testing.T) {
			r := newRootFiles(t, uid, gid)
			prep := `<prepare><delete path="` + r.secret + `"/><mkdir path="` + filepath.Join(r.locked, "made") + `"/></prepare>`
			body := typ.open + prep + typ.inner + typ.close
			if typ.name == "shell" || typ.name == "distcp" {
				body = typ.open + `<name-node>file:///</name-node>` + prep + typ.inner + typ.close
			}
			a := &action.Context{JobID: "j", ActionID: "j@a", Name: "a", Type: typ.name, User: launchtest.TestUser,
				AppPath: r.userDir, WorkDir: filepath.Join(r.dir, "work"), Element: launchtest.ActionBody(t, body)}
			_, err := launchtest.Registered(t, typ.name, launch.Options{RunAsUser: true}).Start(context.Background(), a)
			var xe *action.ExecError
			if !errors.As(err, &xe) || xe.Code != launch.CodeFSAccess {
				t.Errorf("Start = %v, want %s", err, launch.CodeFSAccess)
			}
			if !launch.Exists(r.secret) || launch.Exists(filepath.Join(r.locked, "made")) {
				t.Error("the prepare block changed root's files")
			}
		})
	}
}

// Finding 3: files a job names are opened with the job user's permission
// check: a root-only <file> copied as the <exec>, a root-only <archive>,
// and a root-only git <key-path> never reach the user's directory.
func TestRunAsNamedFiles(t *testing.T) {
	uid, gid := uidGid(t)
	r := newRootFiles(t, uid, gid)
	tarball := filepath.Join(r.dir, "secret.tar")
	writeTar(t, tarball, map[string]string{"inside": "root only\n"})
	os.Chmod(tarball, 0o600)
	cases := []struct {
		name, typ, body string
	}{
		{"exec copy of a root-only file", "shell", `<shell ` + launchtest.ShellNS + `><exec>secret</exec><file>` + r.secret + `</file></shell>`},
		{"root-only archive", "shell", `<shell ` + launchtest.ShellNS + `><exec>true</exec><archive>` + tarball + `#arch</archive></shell>`},
		{"root-only git key", "git", launchtest.GitBody(`<git-uri>file:///nonexistent.git</git-uri><destination-uri>` + filepath.Join(r.userDir, "clone") + `</destination-uri><key-path>` + r.secret + `</key-path>`)},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.typ == "git" {
				if _, err := findGit(); err != nil {
					t.Skip(err)
				}
			}
			a := &action.Context{JobID: "j", ActionID: "j@a", Name: "a", Type: c.typ, User: launchtest.TestUser,
				AppPath: r.userDir, WorkDir: filepath.Join(r.dir, "work"+strconv.Itoa(i)), Element: launchtest.ActionBody(t, c.body)}
			_, err := launchtest.Registered(t, c.typ, launch.Options{RunAsUser: true}).Start(context.Background(), a)
			if err == nil || !strings.Contains(err.Error(), "permission denied") {
				t.Errorf("Start = %v, want a permission error", err)
			}
			filepath.WalkDir(a.WorkDir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					if b, _ := os.ReadFile(p); strings.Contains(string(b), "root only") {
						t.Errorf("root's secret was copied to %s", p)
					}
				}
				return nil
			})
		})
	}
}

// findGit is how the git tests find git.
func findGit() (string, error) {
	return (launch.Options{}).FindTool("git", hadoop.GitHome)
}

// Finding 4: a file a job names is read with a regular-file check and a
// size bound, whatever the mode: /dev/zero as a git key, a FIFO, a huge
// sparse <exec> copy. Each fails at once with a clear error and the server
// allocates nothing like the file's size.
func TestNamedFilesBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "big")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(40 << 30); err != nil {
		t.Skipf("cannot make a 40 GB sparse file here: %v", err)
	}
	f.Close()
	cases := []struct {
		name, typ, body, want string
	}{
		{"git key /dev/zero", "git", launchtest.GitBody(`<git-uri>file:///nonexistent.git</git-uri><destination-uri>` + filepath.Join(dir, "c1") + `</destination-uri><key-path>/dev/zero</key-path>`), "not a regular file"},
		{"git key FIFO", "git", launchtest.GitBody(`<git-uri>file:///nonexistent.git</git-uri><destination-uri>` + filepath.Join(dir, "c2") + `</destination-uri><key-path>` + fifo + `</key-path>`), "FIFO"},
		{"exec copy of a 40 GB sparse file", "shell", `<shell ` + launchtest.ShellNS + `><exec>big</exec><file>` + sparse + `</file></shell>`, "larger than the limit"},
		{"exec copy of a FIFO", "shell", `<shell ` + launchtest.ShellNS + `><exec>fifo</exec><file>` + fifo + `</file></shell>`, "FIFO"},
		{"archive FIFO", "shell", `<shell ` + launchtest.ShellNS + `><exec>true</exec><archive>` + fifo + `.tar</archive></shell>`, "FIFO"},
	}
	os.Symlink(fifo, fifo+".tar")
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.typ == "git" {
				if _, err := findGit(); err != nil {
					t.Skip(err)
				}
			}
			a := &action.Context{JobID: "j", ActionID: "j@a", Name: "a", Type: c.typ, User: "u",
				AppPath: dir, WorkDir: filepath.Join(t.TempDir(), "w"+strconv.Itoa(i)), Element: launchtest.ActionBody(t, c.body)}
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			err := launchtest.Within(t, 10*time.Second, func() error {
				_, err := launchtest.Registered(t, c.typ, launch.Options{}).Start(context.Background(), a)
				return err
			})
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Start = %v, want an error saying %q", err, c.want)
			}
			if grown := int64(after.TotalAlloc) - int64(before.TotalAlloc); grown > 64<<20 {
				t.Errorf("Start allocated %d MB", grown>>20)
			}
		})
	}
}

// Finding 7: a step that turns the launcher's files into FIFOs (or links
// to root's files) in its directory blocks nothing: Check and Kill answer,
// and OpenOutput refuses the FIFO and the link at once.
func TestLauncherFilesReplaced(t *testing.T) {
	for _, mode := range launchtest.Modes {
		t.Run(mode.Name, func(t *testing.T) {
			secret := filepath.Join(t.TempDir(), "secret")
			os.WriteFile(secret, []byte("root only\n"), 0o600)
			a, notified := launchtest.ShellAction(t, t.TempDir(),
				`<exec>sh</exec><argument>-c</argument><argument>rm -f stdout stderr launcher.pid status.json; mkfifo stdout launcher.pid status.json; ln -s `+secret+` stderr; sleep 30</argument>`)
			e := shell.NewShell(mode.Opts(t))
			res, err := e.Start(context.Background(), a)
			if err != nil {
				t.Fatal(err)
			}
			launchtest.WaitFor(t, "the FIFOs", func() bool {
				fi, err := os.Lstat(filepath.Join(a.WorkDir, launch.StdoutFile))
				return err == nil && fi.Mode()&os.ModeNamedPipe != 0 && launch.Exists(filepath.Join(a.WorkDir, launch.StatusFile))
			})
			launchtest.Within(t, 10*time.Second, func() error { _, err := e.Check(context.Background(), a, res.ExternalID); return err })
			for _, name := range []string{launch.StdoutFile, launch.StderrFile} {
				err := launchtest.Within(t, 5*time.Second, func() error {
					f, err := launch.OpenOutput(filepath.Join(a.WorkDir, name))
					if err == nil {
						f.Close()
					}
					return err
				})
				if err == nil {
					t.Errorf("OpenOutput(%s) opened a FIFO or a link", name)
				}
			}
			launchtest.Within(t, 15*time.Second, func() error { return e.Kill(context.Background(), a, res.ExternalID) })
			// Killed for real: the outcome is recorded with the signal,
			// not 30 seconds later.
			launchtest.WaitFor(t, "the killed step's outcome", func() bool { return launch.OwnExists(filepath.Join(a.WorkDir, launch.StatusFile)) })
			st, ok, err := launch.ReadStatus(a.WorkDir)
			if !ok || err != nil || st.Signal == "" {
				t.Errorf("status %+v, %v, %v; want the program killed by a signal", st, ok, err)
			}
			select {
			case <-notified:
			case <-time.After(launchtest.Deadline):
				t.Error("no notification of the end")
			}
		})
	}
}

// Finding 2: a step never sees the server's secrets in its environment:
// no GOZIE_* variable, no secret-named one, no value carrying a password,
// unless gozie.launch.env.keep names it.
func TestStepEnvironment(t *testing.T) {
	set := map[string]string{
		"GOZIE_AUTHENTICATION_SECRET": "s3cret",
		"GOZIE_AUTHENTICATION_TOKENS": "tok=admin",
		"PGPASSWORD":                  "pw",
		"MY_API_TOKEN":                "t",
		"AWS_SECRET_ACCESS_KEY":       "k",
		"AWS_ACCESS_KEY_ID":           "id",
		"SIGNING_KEY":                 "k",
		"STORE_DSN":                   "host=db",
		"DATABASE_URL":                "postgres://gozie:pw@db/gozie",
		"GOZIE_TEST_PLAIN":            "x",
		"PLAIN_SETTING":               "visible",
	}
	for k, v := range set {
		t.Setenv(k, v)
	}
	want := map[string]bool{"PLAIN_SETTING": true, "AWS_ACCESS_KEY_ID": true}
	for _, mode := range launchtest.Modes {
		t.Run(mode.Name, func(t *testing.T) {
			a, notified := launchtest.ShellAction(t, t.TempDir(), `<exec>sh</exec><argument>-c</argument><argument>env > env.txt</argument>`)
			opts := mode.Opts(t)
			opts.Site = map[string]string{launch.LaunchEnvKeep: "AWS_ACCESS_KEY_ID"}
			if res := launchtest.RunToEnd(t, shell.NewShell(opts), a, notified); res.Status != action.OK {
				t.Fatalf("result %+v", res)
			}
			b, err := os.ReadFile(filepath.Join(a.WorkDir, "env.txt"))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, line := range strings.Split(string(b), "\n") {
				name, _, _ := strings.Cut(line, "=")
				got[name] = true
			}
			for k := range set {
				if got[k] != want[k] {
					t.Errorf("%s passed to the step: %v, want %v", k, got[k], want[k])
				}
			}
			if !got["PATH"] {
				t.Error("PATH was not passed")
			}
		})
	}
}

func TestStepEnvRules(t *testing.T) {
	cases := []struct {
		kv, keep string
		passed   bool
	}{
		{"PATH=/usr/bin", "", true},
		{"GOZIE_LAUNCH_AS_USER=true", "", false},
		{"gozie_lower=1", "", false},
		{"GOZIE_X=1", "GOZIE_X", false}, // never, even when kept
		{"PGPASSWORD=x", "", false},
		{"db_password=x", "", false},
		{"HTTP_PROXY=http://u:pw@proxy:3128", "", false},
		{"HTTP_PROXY=http://proxy:3128", "", true},
		{"OPTS=--password=x", "", false},
		{"KRB5_KEYTAB=/etc/k", "", false},
		{"AWS_SECRET_ACCESS_KEY=x", "AWS_SECRET_ACCESS_KEY", true},
		{"JAVA_HOME=/usr/lib/jvm", "", true},
	}
	for _, c := range cases {
		got := len(launch.StepEnv([]string{c.kv}, c.keep)) == 1
		if got != c.passed {
			t.Errorf("stepEnv(%q, keep %q) passed %v, want %v", c.kv, c.keep, got, c.passed)
		}
	}
}

// writeTar writes a tar file of the given files.
func writeTar(t *testing.T, path string, files map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tw := tar.NewWriter(f)
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
}

// The launcher's files are reserved in a directory the job's user may
// already own (a start tried again for the same attempt): links the user
// planted under their names are replaced, never written through, so root
// never creates or truncates a file elsewhere.
func TestReserveReplacesPlantedLinks(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	absent := filepath.Join(t.TempDir(), "created-by-root")
	links := map[string]string{launch.StdoutFile: absent, launch.StderrFile: victim, launch.LauncherLog: victim, launch.PidReserveFile: victim, launch.StatusReserveFile: victim}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := launch.ReserveLauncherFiles(dir, launch.DefaultMaxOutput, false); err != nil {
		t.Fatalf("reserve: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the link's target was written: %d bytes, %q...", len(b), b[:min(len(b), 16)])
	}
	if _, err := os.Lstat(absent); err == nil {
		t.Error("a file was created where a link pointed")
	}
	for name := range links {
		if fi, err := os.Lstat(filepath.Join(dir, name)); err != nil || !launch.PrivateRegular(fi) {
			t.Errorf("%s: %v, want a private regular file", name, err)
		}
	}
}
