package fs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"

	"github.com/gozie/gozie/internal/conf"
)

func TestFSAction(t *testing.T) {
	tests := []struct {
		name    string
		files   []string
		body    string // $R is the test's root directory
		code    string // expected error code, "" for success
		exist   []string
		missing []string
	}{
		{name: "delete recursive", files: []string{"d/a", "d/s/b"},
			body: `<delete path='$R/d'/>`, missing: []string{"d"}},
		{name: "delete missing is ok", body: `<delete path='$R/none' skip-trash='false'/>`},
		{name: "delete glob", files: []string{"d/a.tmp", "d/b.tmp", "d/c.keep"},
			body: `<delete path='$R/d/*.tmp'/>`, exist: []string{"d/c.keep"}, missing: []string{"d/a.tmp", "d/b.tmp"}},
		{name: "delete file URI", files: []string{"x"}, body: `<delete path='file://$R/x'/>`, missing: []string{"x"}},
		{name: "mkdir creates parents", body: `<mkdir path='$R/a/b/c'/>`, exist: []string{"a/b/c"}},
		{name: "mkdir existing is no-op", files: []string{"a/"}, body: `<mkdir path='$R/a'/>`, exist: []string{"a"}},
		{name: "mkdir over file", files: []string{"f"}, body: `<mkdir path='$R/f'/>`, code: "FS004"},
		{name: "move rename", files: []string{"in"}, body: `<move source='$R/in' target='$R/out'/>`,
			exist: []string{"out"}, missing: []string{"in"}},
		{name: "move into existing dir", files: []string{"in", "arch/"}, body: `<move source='$R/in' target='$R/arch'/>`,
			exist: []string{"arch/in"}},
		{name: "move target without scheme uses source fs", files: []string{"in"},
			body: `<move source='file://$R/in' target='$R/out'/>`, exist: []string{"out"}},
		{name: "move glob into dir", files: []string{"in/a.txt", "in/b.txt", "arch/"},
			body: `<move source='$R/in/*.txt' target='$R/arch'/>`, exist: []string{"arch/a.txt", "arch/b.txt"}},
		{name: "move glob onto file name", files: []string{"in/a.txt", "in/b.txt"},
			body: `<move source='$R/in/*.txt' target='$R/one'/>`, code: "FS012"},
		{name: "move missing source", body: `<move source='$R/in' target='$R/out'/>`, code: "FS006"},
		{name: "move target exists", files: []string{"in", "out"}, body: `<move source='$R/in' target='$R/out'/>`, code: "FS008"},
		{name: "move target parent missing", files: []string{"in"}, body: `<move source='$R/in' target='$R/no/out'/>`, code: "FS008"},
		{name: "move target other fs", files: []string{"in"}, body: `<move source='$R/in' target='hdfs://nn:8020/out'/>`, code: "FS007"},
		{name: "move relative target", files: []string{"in"}, body: `<move source='$R/in' target='out'/>`, code: "FS011"},
		{name: "spec example: mkdir then move into it", files: []string{"input"},
			body:  `<mkdir path='$R/archives/0001'/><move source='$R/input' target='$R/archives/0001/processed-input'/>`,
			exist: []string{"archives/0001/processed-input"}},
		{name: "touchz creates", body: `<touchz path='$R/t'/>`, exist: []string{"t"}},
		{name: "touchz existing file", files: []string{"t"}, body: `<touchz path='$R/t'/>`, exist: []string{"t"}},
		{name: "touchz directory", files: []string{"d/"}, body: `<touchz path='$R/d'/>`, code: "JA009"},
		{name: "chmod missing", body: `<chmod path='$R/none' permissions='755'/>`, code: "FS009"},
		{name: "chmod bad mask", files: []string{"f"}, body: `<chmod path='$R/f' permissions='rwx'/>`, code: "FS010"},
		{name: "chgrp missing", body: `<chgrp path='$R/none' group='root'/>`, code: "FS009"},
		{name: "setrep is a local no-op", files: []string{"f"}, body: `<setrep path='$R/f' replication-factor='2'/>`, exist: []string{"f"}},
		{name: "setrep bad factor", files: []string{"f"}, body: `<setrep path='$R/f' replication-factor='two'/>`, code: "E0701"},
		{name: "relative path", body: `<mkdir path='archives/x'/>`, code: "FS011"},
		{name: "hdfs unsupported", body: `<mkdir path='hdfs://foo:8020/usr/tucu'/>`, code: "E0904"},
		{name: "name-node applies to plain paths", body: `<name-node>hdfs://foo:8020</name-node><mkdir path='/usr/tucu'/>`, code: "E0904"},
		{name: "file name-node", body: `<name-node>file:///</name-node><job-xml>fs-info.xml</job-xml>` +
			`<configuration><property><name>some.property</name><value>v</value></property></configuration><mkdir path='$R/nn'/>`,
			exist: []string{"nn"}},
		{name: "name-node without scheme", body: `<name-node>namenode-host</name-node><mkdir path='/x'/>`, code: "FS001"},
		// Every path's syntax is checked before any command runs: the
		// mkdir must not happen when a later path is invalid.
		{name: "validation before execution: bad path", body: `<mkdir path='$R/first'/><delete path='rel'/>`,
			code: "FS011", missing: []string{"first"}},
		{name: "validation before execution: bad mask", body: `<mkdir path='$R/first'/><chmod path='$R/first' permissions='999x'/>`,
			code: "FS010", missing: []string{"first"}},
		{name: "validation before execution: other fs target", files: []string{"in"},
			body: `<mkdir path='$R/first'/><move source='$R/in' target='hdfs://nn/x'/>`, code: "FS007", missing: []string{"first"}},
		// Existence is checked when a command's turn comes (Oozie's
		// FsActionExecutor): earlier commands have run by then.
		{name: "existence checked in turn: missing source", body: `<mkdir path='$R/first'/><move source='$R/none' target='$R/x'/>`,
			code: "FS006", exist: []string{"first"}},
		{name: "existence checked in turn: chmod missing", body: `<mkdir path='$R/first'/><chmod path='$R/none' permissions='755'/>`,
			code: "FS009", exist: []string{"first"}},
		{name: "mkdir then move into it", files: []string{"x"}, body: `<mkdir path='$R/a'/><move source='$R/x' target='$R/a/'/>`,
			exist: []string{"a/x"}, missing: []string{"x"}},
		{name: "touchz then chmod and chgrp it", body: `<touchz path='$R/t'/><chmod path='$R/t' permissions='600'/><chgrp path='$R/t' group='` + strconv.Itoa(os.Getgid()) + `'/>`,
			exist: []string{"t"}},
		{name: "delete then move onto the freed name", files: []string{"in", "out"},
			body: `<delete path='$R/out'/><move source='$R/in' target='$R/out'/>`, exist: []string{"out"}, missing: []string{"in"}},
		{name: "move onto a file a previous command made", files: []string{"in"},
			body: `<touchz path='$R/out'/><move source='$R/in' target='$R/out'/>`, code: "FS008", exist: []string{"in", "out"}},
		{name: "move into a dir that already holds the name", files: []string{"in", "d/in"},
			body: `<move source='$R/in' target='$R/d'/>`, code: "FS008", exist: []string{"in"}},
		{name: "spec example 3.2.4", files: []string{"usr/tucu/temp-data/x", "usr/tucu/input-data/f", "usr/tucu/archives/"},
			body: `<delete path='$R/usr/tucu/temp-data'/><mkdir path='$R/usr/tucu/temp-data'/>` +
				`<move source='$R/usr/tucu/input-data' target='$R/usr/tucu/archives/0001'/>` +
				`<chmod path='$R/usr/tucu/archives/0001' permissions='-rwxrw-rw-' dir-files='false'/>`,
			exist: []string{"usr/tucu/temp-data", "usr/tucu/archives/0001/f"}, missing: []string{"usr/tucu/temp-data/x", "usr/tucu/input-data"}},
		{name: "commands run in document order", files: []string{"a"},
			body:  `<move source='$R/a' target='$R/b'/><move source='$R/b' target='$R/c'/><touchz path='$R/c2'/><chmod path='$R/c' permissions='600'/>`,
			exist: []string{"c", "c2"}, missing: []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			launchtest.MkTree(t, root, tt.files...)
			body := launchtest.ActionBody(t, "<fs>"+strings.ReplaceAll(tt.body, "$R", root)+"</fs>")
			a := &action.Context{ActionID: "job@a", Name: "a", Type: "fs", Element: body, WorkDir: t.TempDir()}
			res, err := NewFS().Start(context.Background(), a)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("Start: %v", err)
				}
				if !res.Done || res.Status != action.OK || res.ExternalID == "" {
					t.Errorf("result = %+v", res)
				}
			} else {
				var xe *action.ExecError
				if !errors.As(err, &xe) || xe.Code != tt.code {
					t.Fatalf("Start err = %v, want code %s", err, tt.code)
				}
			}
			for _, p := range tt.exist {
				if _, err := os.Stat(filepath.Join(root, p)); err != nil {
					t.Errorf("%s should exist: %v", p, err)
				}
			}
			for _, p := range tt.missing {
				if _, err := os.Stat(filepath.Join(root, p)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s should not exist", p)
				}
			}
		})
	}
}

func TestFSChmod(t *testing.T) {
	tests := []struct {
		name string
		attr string // attributes after path
		rec  bool
		want map[string]fs.FileMode // expected modes; others stay 0o700
	}{
		{name: "dir-files default: dir and first level", attr: `permissions='755'`,
			want: map[string]fs.FileMode{"d": 0o755, "d/f": 0o755, "d/s": 0o755, "d/s/g": 0o700}},
		{name: "dir-files false: dir only", attr: `permissions='-rwxr-x---' dir-files='false'`,
			want: map[string]fs.FileMode{"d": 0o750, "d/f": 0o700, "d/s": 0o700}},
		{name: "recursive", attr: `permissions='rwxr-xr-x' dir-files='true'`, rec: true,
			want: map[string]fs.FileMode{"d": 0o755, "d/f": 0o755, "d/s": 0o755, "d/s/g": 0o755}},
		{name: "spec example", attr: `permissions='-rwxrw-rw-' dir-files='true'`, rec: true,
			want: map[string]fs.FileMode{"d": 0o766, "d/s/g": 0o766}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			launchtest.MkTree(t, root, "d/f", "d/s/g")
			for _, p := range []string{"d", "d/f", "d/s", "d/s/g"} {
				os.Chmod(filepath.Join(root, p), 0o700)
			}
			inner := ""
			if tt.rec {
				inner = "<recursive/>"
			}
			body := launchtest.ActionBody(t, "<fs><chmod path='"+root+"/d' "+tt.attr+">"+inner+"</chmod></fs>")
			if _, err := NewFS().Start(context.Background(), &action.Context{Element: body, WorkDir: t.TempDir()}); err != nil {
				t.Fatal(err)
			}
			for p, want := range tt.want {
				fi, err := os.Stat(filepath.Join(root, p))
				if err != nil || fi.Mode().Perm() != want {
					t.Errorf("%s mode = %v, want %v", p, fi.Mode().Perm(), want)
				}
			}
		})
	}
}

func TestFSChgrpGlob(t *testing.T) {
	root := t.TempDir()
	launchtest.MkTree(t, root, "p/a/x", "p/b/y")
	gid := os.Getgid()
	body := launchtest.ActionBody(t, "<fs><chgrp path='"+root+"/p/*' group='"+strconv.Itoa(gid)+"' dir-files='true'><recursive/></chgrp></fs>")
	if _, err := NewFS().Start(context.Background(), &action.Context{Element: body, WorkDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	body = launchtest.ActionBody(t, "<fs><chgrp path='"+root+"/p/a' group='no-such-group-gozie'/></fs>")
	_, err := NewFS().Start(context.Background(), &action.Context{Element: body, WorkDir: t.TempDir()})
	if err == nil {
		t.Fatal("chgrp to an unknown group succeeded")
	}
}

// A replayed Start (crash after the commands ran) reports the recorded
// outcome instead of running again, and a crash half way through runs the
// rest in recovery mode, where a move whose source is gone already passes.
func TestFSReplay(t *testing.T) {
	root := t.TempDir()
	launchtest.MkTree(t, root, "in")
	work := t.TempDir()
	body := launchtest.ActionBody(t, "<fs><move source='"+root+"/in' target='"+root+"/out'/></fs>")
	a := &action.Context{ActionID: "j@a", Element: body, WorkDir: work}
	if _, err := NewFS().Start(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if _, err := NewFS().Start(context.Background(), a); err != nil {
		t.Errorf("replay after success: %v", err)
	}
	if res, err := NewFS().Check(context.Background(), a, "j@a"); err != nil || !res.Done || res.Status != action.OK {
		t.Errorf("Check = %+v, %v", res, err)
	}
	// Crash after the move but before the outcome was written.
	os.Remove(filepath.Join(work, fsResultFile))
	if _, err := NewFS().Start(context.Background(), a); err != nil {
		t.Errorf("recovery replay: %v", err)
	}
	// A failure is recorded and reported again.
	work2 := t.TempDir()
	bad := &action.Context{Element: launchtest.ActionBody(t, "<fs><move source='"+root+"/none' target='"+root+"/x'/></fs>"), WorkDir: work2}
	for i := 0; i < 2; i++ {
		var xe *action.ExecError
		if _, err := NewFS().Start(context.Background(), bad); !errors.As(err, &xe) || xe.Code != "FS006" || xe.Kind != action.ErrorKindError {
			t.Errorf("run %d: err = %v", i, err)
		}
	}
	if err := NewFS().Kill(context.Background(), a, "j@a"); err != nil {
		t.Errorf("Kill: %v", err)
	}
}

func TestFSGlobMax(t *testing.T) {
	root := t.TempDir()
	launchtest.MkTree(t, root, "g/1", "g/2", "g/3")
	a := &action.Context{Element: launchtest.ActionBody(t, "<fs><delete path='"+root+"/g/*'/></fs>"), WorkDir: t.TempDir()}
	a.Conf = conf.FromMap(map[string]string{"oozie.action.fs.glob.max": "2"})
	var xe *action.ExecError
	if _, err := NewFS().Start(context.Background(), a); !errors.As(err, &xe) || xe.Code != "FS013" {
		t.Errorf("err = %v, want FS013", err)
	}
}

// A run that dies half way is run again in the same WorkDir (a server
// crash) or in the next attempt's (a retry after a transient failure): it
// succeeds, neither redoing what was done (the touched file keeps its
// time, the move does not fail on its vanished source) nor undoing it.
func TestFSCrashResume(t *testing.T) {
	body := `<touchz path='$R/flag'/><mkdir path='$R/a'/><move source='$R/in' target='$R/a/'/>` +
		`<move source='$R/a/in' target='$R/b'/><delete path='$R/old'/><touchz path='$R/last'/>`
	tests := []struct {
		name    string
		crashAt int
		after   bool // crash after the command ran (not yet journaled as done)
		retry   bool // run again as the next attempt instead of the same one
	}{
		{name: "before first move", crashAt: 2},
		{name: "after first move, not journaled", crashAt: 2, after: true},
		{name: "after second move, not journaled", crashAt: 3, after: true},
		{name: "before delete", crashAt: 4},
		{name: "retry after the first move", crashAt: 2, after: true, retry: true},
		{name: "retry before the second move", crashAt: 3, retry: true},
	}
	// The work directory of attempt n: today's layout, and the one of
	// earlier versions (whose directories a restarted server still uses).
	layouts := map[string]func(jobDir string, n int) string{
		"current": func(jobDir string, n int) string { return launch.WorkDir(jobDir, "j@a", n) },
		"legacy":  func(jobDir string, n int) string { return filepath.Join(jobDir, strconv.Itoa(n)) },
	}
	for _, tt := range tests {
		for layout, workDir := range layouts {
			t.Run(tt.name+"/"+layout, func(t *testing.T) { testFSCrashResume(t, body, tt.crashAt, tt.after, tt.retry, workDir) })
		}
	}
}

func testFSCrashResume(t *testing.T, body string, crashAt int, after, retry bool, workDir func(string, int) string) {
	root := t.TempDir()
	launchtest.MkTree(t, root, "in", "old/x")
	jobDir := t.TempDir()
	a := &action.Context{ActionID: "j@a", Element: launchtest.ActionBody(t, "<fs>"+strings.ReplaceAll(body, "$R", root)+"</fs>"),
		WorkDir: workDir(jobDir, 0)}
	fsCrashHook = func(i int, done bool) bool { return i == crashAt && done == after }
	_, err := NewFS().Start(context.Background(), a)
	fsCrashHook = nil
	var xe *action.ExecError
	if !errors.As(err, &xe) || xe.Kind != action.Transient {
		t.Fatalf("crashed run: err = %v, want a transient failure", err)
	}
	// Mark the touched file so that a second touchz would show.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(filepath.Join(root, "flag"), old, old)
	if retry {
		a.Attempt, a.WorkDir = 1, workDir(jobDir, 1)
	}
	res, err := NewFS().Start(context.Background(), a)
	if err != nil || res.Status != action.OK {
		t.Fatalf("resumed run: %+v, %v", res, err)
	}
	if fi, err := os.Stat(filepath.Join(root, "flag")); err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("flag was touched again (or is gone): %v", err)
	}
	for _, p := range []string{"a", "b", "last"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("%s missing: %v", p, err)
		}
	}
	for _, p := range []string{"in", "a/in", "old"} {
		if _, err := os.Stat(filepath.Join(root, p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s should be gone", p)
		}
	}
}

// A re-run of an fs action that had ended (its attempt recorded an
// outcome) starts afresh, as Oozie's new run does: its moves meet their
// vanished sources.
func TestFSRerunAfterEnd(t *testing.T) {
	root, jobDir := t.TempDir(), t.TempDir()
	launchtest.MkTree(t, root, "in")
	a := &action.Context{ActionID: "j@a", Element: launchtest.ActionBody(t, "<fs><move source='"+root+"/in' target='"+root+"/out'/></fs>"),
		WorkDir: filepath.Join(jobDir, "0")}
	if _, err := NewFS().Start(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	a.Attempt, a.WorkDir = 1, filepath.Join(jobDir, "1")
	var xe *action.ExecError
	if _, err := NewFS().Start(context.Background(), a); !errors.As(err, &xe) || xe.Code != "FS006" {
		t.Errorf("re-run: err = %v, want FS006", err)
	}
}

// A journal written for another body (the workflow changed between runs)
// is not applied.
func TestFSJournalOtherBody(t *testing.T) {
	root, work := t.TempDir(), t.TempDir()
	fsCrashHook = func(i int, done bool) bool { return i == 1 && !done }
	a := &action.Context{Element: launchtest.ActionBody(t, "<fs><mkdir path='"+root+"/x'/><mkdir path='"+root+"/y'/></fs>"), WorkDir: work}
	NewFS().Start(context.Background(), a)
	fsCrashHook = nil
	os.Remove(filepath.Join(root, "x"))
	a.Element = launchtest.ActionBody(t, "<fs><mkdir path='"+root+"/x2'/><mkdir path='"+root+"/y'/></fs>")
	if _, err := NewFS().Start(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"x2", "y"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("%s missing: %v", p, err)
		}
	}
}
