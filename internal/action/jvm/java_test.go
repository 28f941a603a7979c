package jvm

import (
	"archive/zip"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"

	"github.com/gozie/gozie/internal/conf"
)

// javaTestApp compiles the test programs of testdata/java with javac and
// lays out an application directory and a share library:
//
//	app/lib/probe.jar       gz.Probe (the main class of every case)
//	app/lib/helper.jar      gz.lib.Helper
//	app/lib/lib-data.txt    a non-jar file of lib/
//	app/input.txt           a <file> read under a link name
//	app/filejar.jar         gz.filejar.FromFile, a <file> jar
//	share/extra/shared.jar  gz.share.Shared, share library "extra"
//	share/oozie/            the common share library (empty)
func javaTestApp(t *testing.T) (app, share string) {
	t.Helper()
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Skip("javac not installed: the java action tests compile real Java programs")
	}
	src, err := filepath.Abs("testdata/java")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".java") {
			files = append(files, p)
		}
		return nil
	})
	root := t.TempDir()
	classes := filepath.Join(root, "classes")
	if out, err := exec.Command(javac, append([]string{"-d", classes}, files...)...).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	app, share = filepath.Join(root, "app"), filepath.Join(root, "share")
	launchtest.MkTree(t, root, "app/lib/", "share/extra/", "share/oozie/")
	writeJar(t, filepath.Join(app, "lib/probe.jar"), classes, "gz/Probe")
	writeJar(t, filepath.Join(app, "lib/helper.jar"), classes, "gz/lib/")
	writeJar(t, filepath.Join(app, "filejar.jar"), classes, "gz/filejar/")
	writeJar(t, filepath.Join(share, "extra/shared.jar"), classes, "gz/share/")
	os.WriteFile(filepath.Join(app, "lib/lib-data.txt"), []byte("from lib dir\n"), 0o644)
	os.WriteFile(filepath.Join(app, "input.txt"), []byte("first line\nsecond\n"), 0o644)
	return app, share
}

// writeJar writes the classes under root whose slash path starts with
// prefix into a jar (a zip file; no manifest is needed on a class path).
func writeJar(t *testing.T, jar, root, prefix string) {
	t.Helper()
	f, err := os.Create(jar)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	n := 0
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if !strings.HasPrefix(rel, prefix) {
			return nil
		}
		w, err := zw.Create(rel)
		if err != nil {
			return err
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		n++
		_, err = io.Copy(w, in)
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	if err != nil || n == 0 {
		t.Fatalf("jar %s: %v (%d classes)", jar, err, n)
	}
}

// fastJVM keeps the tests' JVMs small and quick to start; it also goes
// through the launcher's java opts (oozie.launcher.mapred.child.java.opts).
const fastJVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k"

// javaAction builds a Context for a java body with conf added to the
// action configuration and job to the job properties.
func javaAction(t testing.TB, appDir, body string, cfg, job map[string]string) (*action.Context, chan struct{}) {
	t.Helper()
	notified := make(chan struct{}, 16)
	c := map[string]string{"my.prop": "a&b", "oozie.launcher.mapred.child.java.opts": fastJVM}
	for k, v := range cfg {
		c[k] = v
	}
	a := &action.Context{
		JobID: "0000001-gozie-W", ActionID: "0000001-gozie-W@j", Name: "j", Type: "java", User: "tester",
		AppPath: appDir, WorkDir: filepath.Join(t.TempDir(), "work"),
		Element: launchtest.ActionBody(t, "<java>"+body+"</java>"),
		Conf:    conf.FromMap(c), JobConf: conf.FromMap(job),
		Notify: func() { notified <- struct{}{} },
	}
	return a, notified
}

const probe = `<job-tracker>local</job-tracker><name-node>file:///</name-node><main-class>gz.Probe</main-class>`

func TestJavaAction(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	app, share := javaTestApp(t)
	tests := []struct {
		name   string
		body   string
		conf   map[string]string // action configuration
		job    map[string]string // job properties
		status action.Status
		code   string
		msg    []string          // substrings of the error message
		data   map[string]string // expected captured output
		noData bool
		check  func(t *testing.T, a *action.Context, res action.Result)
	}{
		{name: "exit 0", body: probe, status: action.OK, noData: true},
		{name: "System.exit(3)", body: probe + `<arg>exit:3</arg>`, status: action.Error, code: "3",
			msg: []string{"Main Class [org.apache.oozie.action.hadoop.JavaMain], exit code [3]", "stderr: "}},
		{name: "System.exit(-1)", body: probe + `<arg>exit:-1</arg>`, status: action.Error, code: "JA019",
			msg: []string{"exit code [255]"}},
		{name: "uncaught exception", body: probe + `<arg>throw:boom went the program</arg>`, status: action.Error, code: "JA018",
			msg: []string{"main() threw exception, java.lang.IllegalStateException: boom went the program", "stderr: "}},
		{name: "main class not found", body: strings.Replace(probe, "gz.Probe", "gz.NoSuchMain", 1), status: action.Error, code: "JA018",
			msg: []string{"java.lang.ClassNotFoundException", "gz.NoSuchMain"}},
		{name: "capture output", body: probe + `<arg>prop:a=1</arg><arg>prop:b=two words</arg><capture-output/>`,
			status: action.OK, data: map[string]string{"a": "1", "b": "two words"}},
		{name: "output not captured", body: probe + `<arg>prop:a=1</arg>`, status: action.OK, noData: true},
		{name: "capture too large", body: probe + `<arg>big</arg><capture-output/>`, status: action.Error, code: "JA018",
			msg: []string{"Output data exceeds its limit [2048]"}},
		{name: "action configuration", body: probe + `<arg>conf:my.prop</arg><capture-output/>`,
			status: action.OK, data: map[string]string{"conf.my.prop": "a&b"}},
		{name: "system properties", body: probe + `<arg>sys:oozie.action.id</arg><arg>sys:oozie.job.id</arg><capture-output/>`,
			status: action.OK, data: map[string]string{"sys.oozie.action.id": "0000001-gozie-W@j", "sys.oozie.job.id": "0000001-gozie-W"}},
		{name: "conf env var", body: probe + `<arg>env:OOZIE_ACTION_CONF_XML</arg><capture-output/>`, status: action.OK,
			check: func(t *testing.T, a *action.Context, res action.Result) {
				if want := filepath.Join(a.WorkDir, launch.ConfFile); res.Data["env.OOZIE_ACTION_CONF_XML"] != want {
					t.Errorf("OOZIE_ACTION_CONF_XML = %q, want %q", res.Data["env.OOZIE_ACTION_CONF_XML"], want)
				}
			}},
		{name: "class from lib jar", body: probe + `<arg>class:gz.lib.Helper</arg><capture-output/>`,
			status: action.OK, data: map[string]string{"class.gz.lib.Helper": "from-lib"}},
		{name: "non-jar file of lib", body: probe + `<arg>file:lib-data.txt</arg><capture-output/>`,
			status: action.OK, data: map[string]string{"file.lib-data.txt": "from lib dir"}},
		{name: "file with link name", body: probe + `<arg>file:renamed.txt</arg><file>input.txt#renamed.txt</file><capture-output/>`,
			status: action.OK, data: map[string]string{"file.renamed.txt": "first line"}},
		{name: "file jar on the class path", body: probe + `<arg>class:gz.filejar.FromFile</arg><file>filejar.jar#linked.jar</file><capture-output/>`,
			status: action.OK, data: map[string]string{"class.gz.filejar.FromFile": "from-file-jar"}},
		{name: "java-opts", body: probe + `<java-opts>-Dx=y "-Dspaced=a b" -Dq='it''s'</java-opts><arg>sys:x</arg><arg>sys:spaced</arg><arg>sys:q</arg><capture-output/>`,
			status: action.OK, data: map[string]string{"sys.x": "y", "sys.spaced": "a b", "sys.q": "its"}},
		{name: "java-opt elements", body: probe + `<java-opt>-Dx=1</java-opt><java-opt>-Dx=2</java-opt><arg>sys:x</arg><capture-output/>`,
			status: action.OK, data: map[string]string{"sys.x": "2"}},
		{name: "java-opts win over launcher opts", body: probe + `<java-opts>-Dx=own</java-opts><arg>sys:x</arg><arg>sys:y</arg><capture-output/>`,
			conf:   map[string]string{"oozie.launcher.mapreduce.map.java.opts": fastJVM + " -Dx=launcher -Dy=launcher", "oozie.launcher.javaopts": "-Dy=ignored"},
			status: action.OK, data: map[string]string{"sys.x": "own", "sys.y": "launcher"},
			check: func(t *testing.T, a *action.Context, res action.Result) {
				if log, _ := os.ReadFile(filepath.Join(a.WorkDir, launch.LauncherLog)); !strings.Contains(string(log), "oozie.launcher.javaopts ignored") {
					t.Errorf("launcher log does not say oozie.launcher.javaopts was ignored:\n%s", log)
				}
			}},
		{name: "launcher javaopts", body: probe + `<arg>sys:y</arg><capture-output/>`,
			conf:   map[string]string{"oozie.launcher.javaopts": "-Dy=launcher5"},
			status: action.OK, data: map[string]string{"sys.y": "launcher5"}},
		{name: "launcher env", body: probe + `<arg>env:FOO</arg><arg>env:BAR</arg><capture-output/>`,
			conf:   map[string]string{"oozie.launcher.env": "FOO=foo:BAR=new", "oozie.launcher.mapreduce.map.env": "BAR=old"},
			status: action.OK, data: map[string]string{"env.FOO": "foo", "env.BAR": "new"}},
		{name: "scheduling hints ignored", body: probe, conf: map[string]string{"oozie.launcher.mapred.job.queue.name": "q", "oozie.launcher.memory.mb": "2048"},
			status: action.OK, check: func(t *testing.T, a *action.Context, res action.Result) {
				log, _ := os.ReadFile(filepath.Join(a.WorkDir, launch.LauncherLog))
				if !strings.Contains(string(log), "ignored launcher settings") || !strings.Contains(string(log), "oozie.launcher.memory.mb") {
					t.Errorf("launcher log does not list the ignored settings:\n%s", log)
				}
			}},
		{name: "oozie.libpath", body: probe + `<arg>class:gz.share.Shared</arg><capture-output/>`,
			job:    map[string]string{"oozie.libpath": share + "/extra"},
			status: action.OK, data: map[string]string{"class.gz.share.Shared": "from-share"}},
		{name: "share library for java", body: probe + `<arg>class:gz.share.Shared</arg><capture-output/>`,
			job:    map[string]string{"oozie.use.system.libpath": "true", "oozie.action.sharelib.for.java": "extra"},
			status: action.OK, data: map[string]string{"class.gz.share.Shared": "from-share"}},
		{name: "default share library absent", body: probe + `<capture-output/>`,
			job:    map[string]string{"oozie.use.system.libpath": "true"}, // no java/ under the root: nothing added
			status: action.OK},
		{name: "share library off in the action", body: probe + `<arg>class:gz.share.Shared</arg>`,
			conf:   map[string]string{"oozie.use.system.libpath": "false"},
			job:    map[string]string{"oozie.use.system.libpath": "true", "oozie.action.sharelib.for.java": "extra"},
			status: action.Error, code: "JA018", msg: []string{"ClassNotFoundException: gz.share.Shared"}},
		{name: "external child ids", body: probe + `<arg>childids:job_1,job_2</arg>`, status: action.OK,
			check: func(t *testing.T, a *action.Context, res action.Result) {
				if strings.Join(res.ChildIDs, " ") != "job_1 job_2" {
					t.Errorf("ChildIDs = %v", res.ChildIDs)
				}
			}},
	}
	for _, mode := range launchtest.Modes {
		t.Run(mode.Name, func(t *testing.T) {
			opts := mode.Opts(t)
			opts.Site = map[string]string{"gozie.sharelib.dir": share}
			e := NewJava(opts)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					a, notified := javaAction(t, app, tt.body, tt.conf, tt.job)
					res := launchtest.RunToEnd(t, e, a, notified)
					errOut, _ := os.ReadFile(filepath.Join(a.WorkDir, launch.StderrFile))
					if res.Status != tt.status || res.ErrorCode != tt.code {
						t.Fatalf("result = %+v; want %s %q\nstderr:\n%s", res, tt.status, tt.code, errOut)
					}
					for _, m := range tt.msg {
						if !strings.Contains(res.ErrorMessage, m) {
							t.Errorf("error message %q lacks %q", res.ErrorMessage, m)
						}
					}
					if tt.status == action.Error && !strings.Contains(res.ErrorMessage, "stderr: "+filepath.Join(a.WorkDir, launch.StderrFile)) || strings.Contains(res.ErrorMessage, "\n") {
						t.Errorf("error message %q does not name the stderr file on one line", res.ErrorMessage)
					}
					for k, v := range tt.data {
						if got, ok := res.Data[k]; !ok || got != v {
							t.Errorf("Data[%q] = %q (%v), want %q; data %v\nstderr:\n%s", k, got, ok, v, res.Data, errOut)
						}
					}
					if tt.noData && res.Data != nil {
						t.Errorf("Data = %v, want none", res.Data)
					}
					if tt.check != nil {
						tt.check(t, a, res)
					}
				})
			}
		})
	}
}

// TestJavaStartErrors: what is wrong before the JVM starts fails Start
// with a clear error and Oozie's code.
func TestJavaStartErrors(t *testing.T) {
	app := t.TempDir()
	share := t.TempDir()
	tests := []struct {
		name string
		body string
		conf map[string]string
		job  map[string]string
		site map[string]string
		code string
		msg  string
	}{
		{"java home points nowhere", probe, nil, nil, map[string]string{"gozie.java.home": "/nonexistent/jdk"},
			"JA008", "gozie.java.home is set to [/nonexistent/jdk]"},
		{"missing share library", probe, nil, map[string]string{"oozie.use.system.libpath": "true", "oozie.action.sharelib.for.java": "nothere"},
			map[string]string{"gozie.sharelib.dir": share}, "JA008", "share library [nothere]"},
		{"missing libpath", probe, nil, map[string]string{"oozie.libpath": "/nonexistent/libs"}, nil, "JA008", "/nonexistent/libs"},
		{"config class", probe, map[string]string{"oozie.action.config.class": "x.Cfg"}, nil, nil, "E0701", "OozieActionConfigurator"},
		{"bad launcher env", probe, map[string]string{"oozie.launcher.env": "NOVALUE"}, nil, nil, "E0701", "oozie.launcher.env"},
		{"unterminated quote", probe + `<java-opts>-Dx="y</java-opts>`, nil, nil, nil, "E0701", "unterminated"},
		{"missing file", probe + `<file>nothere.txt</file>`, nil, nil, nil, "JA008", "nothere.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := launchtest.Launcher(t)
			opts.Site = tt.site
			a, _ := javaAction(t, app, tt.body, tt.conf, tt.job)
			_, err := NewJava(opts).Start(context.Background(), a)
			xe, ok := err.(*action.ExecError)
			if !ok || xe.Code != tt.code || !strings.Contains(xe.Msg, tt.msg) {
				t.Fatalf("Start error = %v; want %s containing %q", err, tt.code, tt.msg)
			}
		})
	}
}

func TestSplitJavaOpts(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  -Xmx1g   -Dx=y ", []string{"-Xmx1g", "-Dx=y"}},
		{`-Da="b c" -Dd='e f'`, []string{"-Da=b c", "-Dd=e f"}},
		{`-Da=b\ c "-Dq=\"x\""`, []string{"-Da=b c", `-Dq="x"`}},
		{"-Da=1\n\t-Db=2", []string{"-Da=1", "-Db=2"}},
	}
	for _, tt := range tests {
		got, err := launch.SplitJavaOpts(tt.in)
		if err != nil || strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("splitJavaOpts(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestUncaughtException(t *testing.T) {
	tests := []struct{ stderr, want string }{
		{"Exception in thread \"main\" java.lang.IllegalStateException: boom\n\tat gz.Probe.main(Probe.java:3)\n", "java.lang.IllegalStateException: boom"},
		{"Exception in thread \"main\" java.lang.RuntimeException: outer\n\tat a.B.c(B.java:1)\nCaused by: java.io.IOException: inner\n\t... 1 more\n", "java.lang.RuntimeException: outer"},
		{"Exception in thread \"main\" x.Y: printed by the program\nthen it went on\n", ""},
		{"Error: Could not find or load main class a.B\nCaused by: java.lang.ClassNotFoundException: a.B\n", "java.lang.ClassNotFoundException: Class a.B not found"},
		{"Error: Main method not found in class a.B, please define the main method as:\n   public static void main(String[] args)\n", "java.lang.NoSuchMethodException: a.B.main([Ljava.lang.String;)"},
		{"Exception in thread \"main\" java.lang.StackOverflowError\n" + strings.Repeat("\tat gz.Probe.recurse(Probe.java:99)\n", 10000), "java.lang.StackOverflowError"},
		{"some error\n", ""},
		{"", ""},
	}
	for _, tt := range tests {
		p := filepath.Join(t.TempDir(), "stderr")
		os.WriteFile(p, []byte(tt.stderr), 0o644)
		if got := uncaughtException(p); got != tt.want {
			t.Errorf("uncaughtException(%q) = %q, want %q", tt.stderr, got, tt.want)
		}
	}
}

// TestClassPathWithoutShareLibRoot: oozie.use.system.libpath=true on a
// server without gozie.sharelib.dir leaves the share library out instead
// of failing: applications set it once for all their actions.
func TestClassPathWithoutShareLibRoot(t *testing.T) {
	dir := t.TempDir()
	job := conf.New()
	job.Set("oozie.use.system.libpath", "true")
	a := &action.Context{Type: "java", JobConf: job, Conf: conf.New(), AppPath: t.TempDir()}
	cp, err := launch.BuildClassPath(dir, a, "java", "java", launch.Options{})
	if err != nil {
		t.Fatalf("buildClassPath: %v", err)
	}
	if len(cp) != 1 || cp[0] != dir {
		t.Errorf("class path = %v, want only the working directory", cp)
	}
}
