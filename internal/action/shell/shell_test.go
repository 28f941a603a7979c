package shell

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"

	"github.com/gozie/gozie/internal/conf"
)

func TestShellAction(t *testing.T) {
	app := t.TempDir()
	launchtest.MkTree(t, app, "data.txt", "lib/dep.txt")
	os.WriteFile(filepath.Join(app, "script.sh"), []byte("#!/bin/sh\necho script=ran\necho args=\"$*\"\n"), 0o644) // not executable
	os.WriteFile(filepath.Join(app, "data.txt"), []byte("from=data\n"), 0o644)
	launchtest.WriteTgz(t, filepath.Join(app, "bundle.tgz"), map[string]string{"inner/x.txt": "inner=yes\n"})
	out := t.TempDir()
	launchtest.MkTree(t, out, "old/f")

	tests := []shellCase{
		{name: "exit 0", body: `<exec>true</exec>`, status: action.OK},
		{name: "exit 1", body: `<exec>sh</exec><argument>-c</argument><argument>exit 1</argument>`,
			status: action.Error, code: "JA018", msg: "Main class [org.apache.oozie.action.hadoop.ShellMain], exit code [1]"},
		{name: "exit 42", body: `<exec>sh</exec><argument>-c</argument><argument>exit 42</argument>`,
			status: action.Error, code: "JA018", msg: "exit code [42]"},
		{name: "killed by a signal", body: `<exec>sh</exec><argument>-c</argument><argument>kill -9 $$</argument>`,
			status: action.Error, code: "JA018", msg: "killed by signal"},
		{name: "exec not found", body: `<exec>no-such-program-gozie</exec>`,
			status: action.Error, code: "JA018", msg: "no-such-program-gozie"},
		{name: "arguments keep spaces", body: `<exec>printf</exec><argument>x=%s\n</argument><argument>hello  world</argument><capture-output/>`,
			status: action.OK, data: map[string]string{"x": "hello  world"}},
		{name: "capture output", body: `<exec>sh</exec><argument>-c</argument><argument>echo a=1; echo 'b : two'; echo '# comment'</argument><capture-output/>`,
			status: action.OK, data: map[string]string{"a": "1", "b": "two"}},
		{name: "output not captured", body: `<exec>sh</exec><argument>-c</argument><argument>echo a=1</argument>`, status: action.OK},
		{name: "capture too big", body: `<exec>sh</exec><argument>-c</argument><argument>i=0; while [ $i -lt 300 ]; do echo k$i=0123456789; i=$((i+1)); done</argument><capture-output/>`,
			status: action.Error, code: "JA018", msg: "Output data exceeds its limit [2048]"},
		{name: "capture not properties", body: `<exec>printf</exec><argument>k=\\uZZZZ</argument><capture-output/>`,
			status: action.Error, code: "JA018", msg: "not Java properties"},
		{name: "env vars", body: `<exec>sh</exec><argument>-c</argument><argument>echo foo=$FOO; echo eq=$EQ</argument><env-var>FOO=bar</env-var><env-var>EQ=a=b</env-var><capture-output/>`,
			status: action.OK, data: map[string]string{"foo": "bar", "eq": "a=b"}},
		{name: "file with rename", body: `<exec>cat</exec><argument>renamed.txt</argument><file>data.txt#renamed.txt</file><capture-output/>`,
			status: action.OK, data: map[string]string{"from": "data"}},
		{name: "file absolute and by base name", body: `<exec>cat</exec><argument>dep.txt</argument><file>` + app + `/lib/dep.txt</file><capture-output/>`,
			status: action.OK, data: map[string]string{"lib/dep.txt": ""}},
		{name: "exec is a file of the action", body: `<exec>script.sh</exec><argument>one</argument><argument>two</argument><file>script.sh</file><capture-output/>`,
			status: action.OK, data: map[string]string{"script": "ran", "args": "one two"},
			check: func(t *testing.T, a *action.Context) {
				if fi, _ := os.Stat(filepath.Join(app, "script.sh")); fi.Mode()&0o100 != 0 {
					t.Error("the application's script was made executable")
				}
			}},
		{name: "archive unpacked", body: `<exec>cat</exec><argument>lib/inner/x.txt</argument><archive>bundle.tgz#lib</archive><capture-output/>`,
			status: action.OK, data: map[string]string{"inner": "yes"}},
		{name: "action configuration", body: `<exec>sh</exec><argument>-c</argument><argument>echo conf=$OOZIE_ACTION_CONF_XML</argument><capture-output/>`,
			status: action.OK,
			check: func(t *testing.T, a *action.Context) {
				c, err := conf.LoadFile(filepath.Join(a.WorkDir, launch.ConfFile))
				if err != nil {
					t.Fatal(err)
				}
				if v, _ := c.Get("my.prop"); v != "a&b" {
					t.Errorf("my.prop = %q", v)
				}
			}},
		{name: "prepare", body: `<prepare><delete path='` + out + `/old'/><mkdir path='` + out + `/new/x'/></prepare><exec>true</exec>`,
			status: action.OK,
			check: func(t *testing.T, a *action.Context) {
				if launch.Exists(filepath.Join(out, "old")) || !launch.Exists(filepath.Join(out, "new/x")) {
					t.Error("prepare did not run")
				}
			}},
	}
	for _, mode := range launchtest.Modes {
		t.Run(mode.Name, func(t *testing.T) {
			// One executor, as in a server: the supervisor's steps run
			// concurrently.
			e := NewShell(mode.Opts(t))
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					tt.run(t, e, app)
				})
			}
		})
	}
}

// shellCase is one row of TestShellAction.
type shellCase struct {
	name   string
	body   string
	status action.Status
	code   string
	msg    string            // substring of the error message
	data   map[string]string // expected captured output
	check  func(t *testing.T, a *action.Context)
}

func (tt shellCase) run(t *testing.T, e action.Executor, app string) {
	a, notified := launchtest.ShellAction(t, app, tt.body)
	res := launchtest.RunToEnd(t, e, a, notified)
	if res.Status != tt.status || res.ErrorCode != tt.code || !strings.Contains(res.ErrorMessage, tt.msg) {
		t.Errorf("result = %+v; want %s %s %q", res, tt.status, tt.code, tt.msg)
	}
	for k, v := range tt.data {
		if got, ok := res.Data[k]; !ok || got != v {
			t.Errorf("Data[%q] = %q (%v), want %q; data %v", k, got, ok, v, res.Data)
		}
	}
	if tt.name == "action configuration" && res.Data["conf"] != filepath.Join(a.WorkDir, launch.ConfFile) {
		t.Errorf("%s = %q", launch.ConfEnvVar, res.Data["conf"])
	}
	if tt.check != nil {
		tt.check(t, a)
	}
}

func TestShellStartErrors(t *testing.T) {
	app := t.TempDir()
	tests := []struct {
		name, body, code string
	}{
		{"missing file", `<exec>true</exec><file>nothere.txt</file>`, "JA008"},
		{"hdfs file", `<exec>true</exec><file>hdfs://nn:8020/x.sh</file>`, "E0904"},
		{"relative prepare path", `<prepare><delete path='rel'/></prepare><exec>true</exec>`, "FS011"},
		{"bad env-var", `<exec>true</exec><env-var>NOVALUE</env-var>`, "E0701"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _ := launchtest.ShellAction(t, app, tt.body)
			_, err := NewShell(launchtest.Launcher(t)).Start(context.Background(), a)
			if xe, ok := err.(*action.ExecError); !ok || xe.Code != tt.code {
				t.Errorf("err = %v, want %s", err, tt.code)
			}
		})
	}
}

// A restarted server (a new executor) re-attaches to the launcher of the
// first: Start does not run the program again, Check finds the result.
//
// With the supervisor, the new executor asks the same supervisor (which
// outlives servers) to tell it when the program ends.
func TestShellReattach(t *testing.T) {
	for _, mode := range launchtest.Modes {
		t.Run(mode.Name, func(t *testing.T) { testShellReattach(t, mode.Opts(t)) })
	}
}

func testShellReattach(t *testing.T, opts launch.Options) {
	app := t.TempDir()
	a, notified := launchtest.ShellAction(t, app,
		`<exec>sh</exec><argument>-c</argument><argument>echo run >> count; while [ ! -e go ]; do sleep 0.01; done; echo done=1</argument><capture-output/>`)
	first := NewShell(opts)
	res, err := first.Start(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	launchtest.WaitFor(t, "the program to start", func() bool { return launch.Exists(filepath.Join(a.WorkDir, "count")) })

	second := NewShell(opts) // the server after a restart
	res2, err := second.Start(context.Background(), a)
	if err != nil || res2.Done || res2.ExternalID != res.ExternalID {
		t.Fatalf("replayed Start = %+v, %v", res2, err)
	}
	if r, _ := second.Check(context.Background(), a, res.ExternalID); r.Done {
		t.Fatalf("Check while running = %+v", r)
	}
	os.WriteFile(filepath.Join(a.WorkDir, "go"), nil, 0o644)
	select {
	case <-notified:
	case <-time.After(launchtest.Deadline):
		t.Fatal("no notification")
	}
	third := NewShell(opts)
	for _, e := range []action.Executor{second, third} {
		r, err := e.Check(context.Background(), a, res.ExternalID)
		if err != nil || !r.Done || r.Status != action.OK || r.Data["done"] != "1" {
			t.Errorf("Check after the end = %+v, %v", r, err)
		}
	}
	if r, err := third.Start(context.Background(), a); err != nil || !r.Done || r.Status != action.OK {
		t.Errorf("Start after the end = %+v, %v", r, err)
	}
	b, _ := os.ReadFile(filepath.Join(a.WorkDir, "count"))
	if n := strings.Count(string(b), "run"); n != 1 {
		t.Errorf("program ran %d times", n)
	}
}

// A launcher that vanished without recording an outcome is reported, not
// waited for forever.
func TestShellLauncherDied(t *testing.T) {
	a, _ := launchtest.ShellAction(t, t.TempDir(), `<exec>true</exec>`)
	os.MkdirAll(a.WorkDir, 0o755)
	dead := launchtest.StartAndReap(t)
	os.WriteFile(filepath.Join(a.WorkDir, launch.PIDFile), []byte(`{"pid":`+strconv.Itoa(dead)+`,"pgid":`+strconv.Itoa(dead)+`}`), 0o644)
	r, err := NewShell(launchtest.Launcher(t)).Check(context.Background(), a, a.WorkDir)
	if err != nil || !r.Done || r.Status != action.Error || r.ErrorCode != launch.CodeLauncherGone {
		t.Errorf("Check = %+v, %v", r, err)
	}
	if err := NewShell(launchtest.Launcher(t)).Kill(context.Background(), a, a.WorkDir); err != nil {
		t.Errorf("Kill of a dead launcher: %v", err)
	}
}

// Kill ends the whole process group: the program and what it started in
// the background, also from an executor that did not start it.
func TestShellKill(t *testing.T) {
	for _, mode := range launchtest.Modes {
		for _, restarted := range []bool{false, true} {
			t.Run(mode.Name+"/restarted="+strconv.FormatBool(restarted), func(t *testing.T) {
				testShellKill(t, mode.Opts(t), restarted)
			})
		}
	}
}

func testShellKill(t *testing.T, opts launch.Options, restarted bool) {
	a, notified := launchtest.ShellAction(t, t.TempDir(),
		`<exec>sh</exec><argument>-c</argument><argument>sleep 100 &amp; echo $! > bg.pid; sleep 100</argument>`)
	e := NewShell(opts)
	res, err := e.Start(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	bgFile := filepath.Join(a.WorkDir, "bg.pid")
	launchtest.WaitFor(t, "the background process", func() bool {
		b, _ := os.ReadFile(bgFile)
		return strings.HasSuffix(string(b), "\n")
	})
	b, _ := os.ReadFile(bgFile)
	bg, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	pid, ok := launch.ReadPID(a.WorkDir)
	if !ok {
		t.Fatal("no pid file")
	}
	killer := e
	if restarted {
		killer = NewShell(opts)
	}
	if err := killer.Kill(context.Background(), a, res.ExternalID); err != nil {
		t.Fatal(err)
	}
	if launch.GroupAlive(pid.PGID) {
		t.Error("process group still alive after Kill")
	}
	if syscall.Kill(bg, 0) == nil && !launch.IsZombie(bg) {
		t.Errorf("background process %d survived", bg)
	}
	select {
	case <-notified:
	case <-time.After(launchtest.Deadline):
		t.Fatal("no notification after Kill")
	}
	r, err := e.Check(context.Background(), a, res.ExternalID)
	if err != nil || !r.Done || r.Status != action.Error {
		t.Errorf("Check after Kill = %+v, %v", r, err)
	}
	if err := killer.Kill(context.Background(), a, res.ExternalID); err != nil {
		t.Errorf("second Kill: %v", err)
	}
}

// BenchmarkShellTrue is one shell step running `true`, start to outcome,
// in both launch modes: the executor's own cost beyond the program's.
func BenchmarkShellTrue(b *testing.B) {
	for _, mode := range launchtest.Modes {
		b.Run(mode.Name, func(b *testing.B) {
			e := NewShell(mode.Opts(b))
			root := b.TempDir()
			body := launchtest.ActionBody(b, "<shell "+launchtest.ShellNS+"><exec>true</exec></shell>")
			notified := make(chan struct{}, 1)
			for i := 0; b.Loop(); i++ {
				a := &action.Context{ActionID: "b@" + strconv.Itoa(i), Element: body, WorkDir: filepath.Join(root, strconv.Itoa(i)),
					Notify: func() { notified <- struct{}{} }}
				res, err := e.Start(context.Background(), a)
				if err != nil {
					b.Fatal(err)
				}
				<-notified
				if res, err = e.Check(context.Background(), a, res.ExternalID); err != nil || !res.Done || res.Status != action.OK {
					b.Fatalf("%+v %v", res, err)
				}
			}
		})
	}
}

func TestLauncherPIDFile(t *testing.T) {
	a, notified := launchtest.ShellAction(t, t.TempDir(), `<exec>true</exec>`)
	res := launchtest.RunToEnd(t, NewShell(launchtest.Launcher(t)), a, notified)
	if res.Status != action.OK {
		t.Fatalf("result %+v", res)
	}
	pid, ok := launch.ReadPID(a.WorkDir)
	if !ok || pid.PGID != pid.PID || pid.ChildPID <= 0 {
		t.Errorf("pid file = %+v, %v; want the launcher leading its own group", pid, ok)
	}
	for _, f := range []string{launch.SpecFile, launch.StatusFile, launch.StdoutFile, launch.StderrFile, launch.ConfFile} {
		if !launch.Exists(filepath.Join(a.WorkDir, f)) {
			t.Errorf("%s missing", f)
		}
	}
}

func TestUnpackArchive(t *testing.T) {
	app := t.TempDir()
	launchtest.ZipFile(t, filepath.Join(app, "ok.zip"), map[string]string{"d/a.txt": "A"})
	launchtest.ZipFile(t, filepath.Join(app, "evil.zip"), map[string]string{"../../escape.txt": "x"})
	launchtest.WriteTgz(t, filepath.Join(app, "evil.tgz"), map[string]string{"../escape.txt": "x"})
	launchtest.MkTree(t, app, "plain.bin")
	work := t.TempDir()
	if err := launch.UnpackArchive(context.Background(), work, app, "ok.zip"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(work, "ok.zip", "d", "a.txt")); string(b) != "A" {
		t.Errorf("zip content = %q", b)
	}
	if err := launch.UnpackArchive(context.Background(), work, app, "plain.bin#p"); err != nil || !launch.Exists(filepath.Join(work, "p")) {
		t.Errorf("plain archive: %v", err)
	}
	for _, evil := range []string{"evil.zip", "evil.tgz"} {
		if err := launch.UnpackArchive(context.Background(), work, app, evil); err == nil {
			t.Errorf("%s unpacked outside its directory", evil)
		}
	}
	if launch.Exists(filepath.Join(work, "escape.txt")) || launch.Exists(filepath.Join(filepath.Dir(work), "escape.txt")) {
		t.Error("an entry escaped")
	}
}

// oozie.action.max.output.data raises (or lowers) the capture limit from
// the server's configuration and from the action's own configuration, the
// action's winning, as in Oozie; 2048 bytes when neither sets it.
func TestShellMaxOutputData(t *testing.T) {
	app := t.TempDir()
	// About 3.9 KB of properties.
	body := `<exec>sh</exec><argument>-c</argument><argument>i=0; while [ $i -lt 300 ]; do echo k$i=0123456789; i=$((i+1)); done</argument><capture-output/>`
	tests := []struct {
		name, site, action string
		code, msg          string
	}{
		{name: "default", code: "JA018", msg: "Output data exceeds its limit [2048]"},
		{name: "server raises it", site: "8192"},
		{name: "action raises it", action: "8192"},
		{name: "action lowers the server's", site: "8192", action: "1000", code: "JA018", msg: "Output data exceeds its limit [1000]"},
		{name: "action not a number", site: "8192", action: "big"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := launchtest.Launcher(t)
			opts.Site = map[string]string{launch.MaxOutputKey: tt.site}
			a, notified := launchtest.ShellAction(t, app, body)
			if tt.action != "" {
				a.Conf.Set(launch.MaxOutputKey, tt.action)
			}
			res := launchtest.RunToEnd(t, NewShell(opts), a, notified)
			if tt.code == "" {
				if res.Status != action.OK || res.Data["k299"] != "0123456789" {
					t.Errorf("result = %s %s %q, %d properties; want OK with all 300", res.Status, res.ErrorCode, res.ErrorMessage, len(res.Data))
				}
				return
			}
			if res.Status != action.Error || res.ErrorCode != tt.code || !strings.Contains(res.ErrorMessage, tt.msg) {
				t.Errorf("result = %s %s %q; want ERROR %s %q", res.Status, res.ErrorCode, res.ErrorMessage, tt.code, tt.msg)
			}
		})
	}
}
