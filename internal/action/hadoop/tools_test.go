package hadoop

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"

	"github.com/gozie/gozie/internal/conf"
)

// This machine has no pig, hive, beeline, sqoop or spark-submit: the tests
// install a recording stand-in under a fake home directory (the server key
// gozie.<tool>.home) that writes its argv, NUL-separated, to argv.rec in
// its working directory, prints ids in the forms the real tools print, and
// exits 3 when one of its arguments is FAIL. What is checked is the exact
// command line each action builds, not the tools themselves.
const fakeToolScript = `#!/bin/sh
for a in "$@"; do printf '%s\0' "$a"; done > argv.rec
printf '%s' "$OOZIE_ACTION_CONF_XML" > conf.rec
printf '%s' "$HADOOP_CLASSPATH" > hcp.rec
printf '%s' "$PIG_CLASSPATH" > pcp.rec
echo "INFO impl.YarnClientImpl: Submitted application application_1700000000000_0042"
echo "HadoopJobId: job_1700000000000_0008"
echo "INFO mapreduce.ImportJobBase: Job complete: job_1700000000000_0009"
echo "INFO Connected to Spark cluster with app ID app-20260101000000-0001"
echo "Ended Job = job_1700000000000_0007" >&2
for a in "$@"; do [ "$a" = FAIL ] && exit 3; done
exit 0
`

// fakeHome makes a home directory holding bin/<exe> as the recording
// stand-in and returns it.
func fakeHome(t testing.TB, exe string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "bin", exe), []byte(fakeToolScript), 0o755); err != nil {
		t.Fatal(err)
	}
	return home
}

// toolExecutors registers the built-in types with the fake tools' homes.
func toolExecutors(t testing.TB, opts launch.Options) *action.Registry {
	t.Helper()
	opts.Site = map[string]string{}
	for key, exe := range map[string]string{pigHome: "pig", hiveHome: "hive", beelineHome: "beeline", sqoopHome: "sqoop", sparkHome: "spark-submit"} {
		opts.Site[key] = fakeHome(t, exe)
	}
	r := action.NewRegistry()
	launch.RegisterBuiltins(r, opts)
	return r
}

// recordedArgs reads the argv the stand-in recorded.
func recordedArgs(t testing.TB, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "argv.rec"))
	if err != nil {
		t.Fatalf("the tool did not run: %v", err)
	}
	if len(b) == 0 {
		return []string{}
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// toolCase is one row of TestToolActions. In args, APP stands for the
// application directory.
type toolCase struct {
	name, typ, body string
	props           map[string]string
	args            []string
	status          action.Status
	code, msg       string
	ids             []string
	check           func(t *testing.T, a *action.Context)
}

const (
	hiveNS  = `xmlns="uri:oozie:hive-action:0.6"`
	hive2NS = `xmlns="uri:oozie:hive2-action:1.0"`
	sqoopNS = `xmlns="uri:oozie:sqoop-action:1.0"`
	sparkNS = `xmlns="uri:oozie:spark-action:1.0"`
)

// The child ids each tool's output patterns find in the stand-in's output.
var (
	pigIDs   = []string{"application_1700000000000_0042", "job_1700000000000_0008"}
	hiveIDs  = []string{"application_1700000000000_0042", "job_1700000000000_0007"}
	sqoopIDs = []string{"application_1700000000000_0042", "job_1700000000000_0009"}
	sparkIDs = []string{"application_1700000000000_0042", "app-20260101000000-0001"}
)

func TestToolActions(t *testing.T) {
	app := t.TempDir()
	launchtest.MkTree(t, app, "scripts/id.pig", "q.hql", "lib/app.jar", "data.txt", "extra.txt", "pi.py")
	appJar := filepath.Join(app, "lib", "app.jar")
	t.Setenv("HADOOP_CLASSPATH", "")
	t.Setenv("PIG_CLASSPATH", "")
	os.WriteFile(filepath.Join(app, "scripts/id.pig"), []byte("A = load '$INPUT';\n"), 0o644)
	launchtest.WriteTgz(t, filepath.Join(app, "bundle.tgz"), map[string]string{"inner.txt": "x"})

	tests := []toolCase{
		{name: "pig local mode", typ: "pig",
			body: `<pig><job-tracker>local</job-tracker><name-node>file:///</name-node><script>scripts/id.pig</script>` +
				`<param>INPUT=/in</param><param>OUTPUT=/out dir</param><argument>-verbose</argument></pig>`,
			args:   []string{"-x", "local", "-propertyFile", "pig.properties", "-file", "id.pig", "-param", "INPUT=/in", "-param", "OUTPUT=/out dir", "-verbose"},
			status: action.OK, ids: pigIDs,
			check: func(t *testing.T, a *action.Context) {
				p, err := conf.LoadFile(filepath.Join(a.WorkDir, "pig.properties"))
				if err != nil {
					t.Fatal(err)
				}
				if v, _ := p.Get("my.prop"); v != "a&b" {
					t.Errorf("pig.properties my.prop = %q", v)
				}
				if b, _ := os.ReadFile(filepath.Join(a.WorkDir, "id.pig")); !strings.Contains(string(b), "$INPUT") {
					t.Errorf("script not staged: %q", b)
				}
			}},
		{name: "pig without name-node is local", typ: "pig",
			body: `<pig><script>scripts/id.pig</script></pig>`,
			args: []string{"-x", "local", "-propertyFile", "pig.properties", "-file", "id.pig"}, status: action.OK, ids: pigIDs},
		{name: "pig on a cluster", typ: "pig",
			body: `<pig><job-tracker>rm:8032</job-tracker><name-node>hdfs://nn:8020</name-node><script>scripts/id.pig</script><argument>-useHCatalog</argument></pig>`,
			args: []string{"-propertyFile", "pig.properties", "-file", "id.pig", "-useHCatalog"}, status: action.OK, ids: pigIDs},
		{name: "pig exec type chosen by an argument", typ: "pig",
			body: `<pig><name-node>file:///</name-node><script>scripts/id.pig</script><argument>-x</argument><argument>tez_local</argument></pig>`,
			args: []string{"-propertyFile", "pig.properties", "-file", "id.pig", "-x", "tez_local"}, status: action.OK, ids: pigIDs},
		{name: "pig script renamed by a file", typ: "pig",
			body: `<pig><script>s.pig</script><file>scripts/id.pig#s.pig</file></pig>`,
			args: []string{"-x", "local", "-propertyFile", "pig.properties", "-file", "s.pig"}, status: action.OK, ids: pigIDs},
		{name: "pig fails", typ: "pig",
			body:   `<pig><script>scripts/id.pig</script><argument>FAIL</argument></pig>`,
			args:   []string{"-x", "local", "-propertyFile", "pig.properties", "-file", "id.pig", "FAIL"},
			status: action.Error, code: "JA018", msg: "Main class [org.apache.oozie.action.hadoop.PigMain], exit code [3]", ids: pigIDs},

		{name: "hive script", typ: "hive",
			body: `<hive ` + hiveNS + `><job-tracker>local</job-tracker><name-node>file:///</name-node><script>q.hql</script>` +
				`<param>DAY=2026-01-01</param><param>WHERE=a = b</param><argument>--verbose</argument></hive>`,
			args: []string{"--hiveconf", "mapred.job.queue.name=default", "--hiveconf", "my.prop=a&b",
				"-f", "q.hql", "--hivevar", "DAY=2026-01-01", "--hivevar", "WHERE=a = b", "--verbose"},
			status: action.OK, ids: hiveIDs},
		{name: "hive inline query", typ: "hive", props: map[string]string{},
			body: `<hive ` + hiveNS + `><query>SELECT 1;
SELECT '&lt;2&gt;';</query></hive>`,
			args: []string{"-f", "oozie-hive-query.hql"}, status: action.OK, ids: hiveIDs,
			check: func(t *testing.T, a *action.Context) {
				b, _ := os.ReadFile(filepath.Join(a.WorkDir, "oozie-hive-query.hql"))
				if string(b) != "SELECT 1;\nSELECT '<2>';" {
					t.Errorf("query file = %q", b)
				}
			}},
		{name: "hive fails", typ: "hive", props: map[string]string{},
			body:   `<hive ` + hiveNS + `><script>q.hql</script><argument>FAIL</argument></hive>`,
			args:   []string{"-f", "q.hql", "FAIL"},
			status: action.Error, code: "JA018", msg: "Main class [org.apache.oozie.action.hadoop.HiveMain], exit code [3]", ids: hiveIDs},

		{name: "hive2 script", typ: "hive2",
			props: map[string]string{"oozie.launcher.mapreduce.map.memory.mb": "512", "oozie.hive2.x": "1", "oozie.custom": "c", "hive.other": "o"},
			body: `<hive2 ` + hive2NS + `><jdbc-url>jdbc:hive2://hs2:10000/default</jdbc-url><script>q.hql</script>` +
				`<param>DAY=1</param><argument>--showHeader=false</argument></hive2>`,
			args: []string{"-u", "jdbc:hive2://hs2:10000/default", "-n", "alice", "-p", "DUMMY", "-d", "org.apache.hive.jdbc.HiveDriver",
				"-f", "q.hql", "--hivevar", "DAY=1", "--showHeader=false", "--hiveconf", "oozie.custom=c"},
			status: action.OK, ids: hiveIDs},
		// A hive2 credential handed HiveServer2's principal (issue 30):
		// beeline's URL gets it and the job's user as the proxy user.
		{name: "hive2 with a hive2 credential", typ: "hive2",
			props: map[string]string{"hive2.server.principal": "hive/hs2@GOZIE.TEST", "hive2.jdbc.url": "jdbc:hive2://hs2:10000/default"},
			body:  `<hive2 ` + hive2NS + `><jdbc-url>jdbc:hive2://hs2:10000/default</jdbc-url><script>q.hql</script></hive2>`,
			args: []string{"-u", "jdbc:hive2://hs2:10000/default;principal=hive/hs2@GOZIE.TEST;hive.server2.proxy.user=alice", "-n", "alice", "-p", "DUMMY",
				"-d", "org.apache.hive.jdbc.HiveDriver", "-f", "q.hql"},
			status: action.OK, ids: hiveIDs},
		{name: "hive2 credential, principal already in the URL", typ: "hive2",
			props: map[string]string{"hive2.server.principal": "hive/hs2@GOZIE.TEST"},
			body:  `<hive2 ` + hive2NS + `><jdbc-url>jdbc:hive2://hs2:10000/;principal=hive/other@R</jdbc-url><script>q.hql</script></hive2>`,
			args: []string{"-u", "jdbc:hive2://hs2:10000/;principal=hive/other@R;hive.server2.proxy.user=alice", "-n", "alice", "-p", "DUMMY",
				"-d", "org.apache.hive.jdbc.HiveDriver", "-f", "q.hql"},
			status: action.OK, ids: hiveIDs},
		{name: "hive2 query with password", typ: "hive2", props: map[string]string{},
			body: `<hive2 ` + hive2NS + `><jdbc-url>jdbc:hive2://hs2:10000/</jdbc-url><password>s3cret</password><query>SHOW TABLES</query></hive2>`,
			args: []string{"-u", "jdbc:hive2://hs2:10000/", "-n", "alice", "-p", "s3cret", "-d", "org.apache.hive.jdbc.HiveDriver",
				"-f", "oozie-hive2-query.hql"},
			status: action.OK, ids: hiveIDs},

		{name: "sqoop command split at spaces", typ: "sqoop",
			body: `<sqoop ` + sqoopNS + `><job-tracker>local</job-tracker><name-node>file:///</name-node>` +
				`<command>import  --connect jdbc:mysql://db/shop --table orders --target-dir /data/orders -m 1</command></sqoop>`,
			args: []string{"import", "-D", "mapred.job.queue.name=default", "-D", "my.prop=a&b",
				"--connect", "jdbc:mysql://db/shop", "--table", "orders", "--target-dir", "/data/orders", "-m", "1"},
			status: action.OK, ids: sqoopIDs},
		{name: "sqoop command keeps quotes", typ: "sqoop", props: map[string]string{},
			body: `<sqoop ` + sqoopNS + `><command>eval --query "SELECT 1"</command></sqoop>`,
			args: []string{"eval", "--query", `"SELECT`, `1"`}, status: action.OK, ids: sqoopIDs},
		{name: "sqoop args", typ: "sqoop", props: map[string]string{"k": "v w"},
			body:   `<sqoop ` + sqoopNS + `><arg>import</arg><arg>--query</arg><arg>SELECT * FROM t WHERE $CONDITIONS</arg><arg>--split-by</arg><arg>id</arg></sqoop>`,
			args:   []string{"import", "-D", "k=v w", "--query", "SELECT * FROM t WHERE $CONDITIONS", "--split-by", "id"},
			status: action.OK, ids: sqoopIDs},
		{name: "sqoop fails", typ: "sqoop", props: map[string]string{},
			body:   `<sqoop ` + sqoopNS + `><command>export FAIL</command></sqoop>`,
			args:   []string{"export", "FAIL"},
			status: action.Error, code: "JA018", msg: "Main class [org.apache.oozie.action.hadoop.SqoopMain], exit code [3]", ids: sqoopIDs},

		{name: "spark on yarn", typ: "spark", props: map[string]string{"oozie.custom": "1", "oozie.launcher.x": "2", "oozie.spark.y": "3", "spark.not.oozie": "4"},
			body: `<spark ` + sparkNS + `><job-tracker>rm:8032</job-tracker><name-node>hdfs://nn:8020</name-node>` +
				`<master>yarn</master><mode>cluster</mode><name>My App</name><class>org.example.Main</class><jar>app.jar</jar>` +
				`<spark-opts>--executor-memory 2G --conf spark.executor.extraJavaOptions="-XX:+UseG1GC -Dx=1"  --files extra.txt --verbose</spark-opts>` +
				`<arg>a</arg><arg>b c</arg><file>data.txt#d.txt</file><archive>bundle.tgz</archive></spark>`,
			args: []string{"--master", "yarn", "--deploy-mode", "cluster", "--name", "My App", "--class", "org.example.Main",
				"--conf", "spark.oozie.custom=1", "--executor-memory", "2G", "--conf", "spark.executor.extraJavaOptions=-XX:+UseG1GC -Dx=1", "--verbose",
				"--files", "extra.txt,APP/data.txt#d.txt", "--archives", "APP/bundle.tgz", "APP/lib/app.jar", "a", "b c"},
			status: action.OK, ids: sparkIDs},
		{name: "pyspark local", typ: "spark", props: map[string]string{},
			body: `<spark ` + sparkNS + `><master>local[2]</master><name>pi</name><jar>pi.py</jar>` +
				`<spark-opts>--conf spark.a=1 --py-files=deps.zip</spark-opts><arg>10</arg><file>pi.py</file><file>data.txt</file></spark>`,
			args:   []string{"--master", "local[2]", "--name", "pi", "--conf", "spark.a=1", "--py-files", "deps.zip", "pi.py", "10"},
			status: action.OK, ids: sparkIDs},
		{name: "spark fails", typ: "spark", props: map[string]string{},
			body:   `<spark ` + sparkNS + `><master>local</master><name>n</name><jar>/opt/app.jar</jar><arg>FAIL</arg></spark>`,
			args:   []string{"--master", "local", "--name", "n", "/opt/app.jar", "FAIL"},
			status: action.Error, code: "JA018", msg: "Main class [org.apache.oozie.action.hadoop.SparkMain], exit code [3]", ids: sparkIDs},
	}
	for _, mode := range launchtest.Modes {
		t.Run(mode.Name, func(t *testing.T) {
			r := toolExecutors(t, mode.Opts(t))
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					e, ok := r.Lookup(tt.typ)
					if !ok {
						t.Fatalf("no executor for %s", tt.typ)
					}
					a, notified := launchtest.ToolAction(t, tt.typ, app, tt.body, tt.props)
					res := launchtest.RunToEnd(t, e, a, notified)
					if res.Status != tt.status || res.ErrorCode != tt.code || !strings.Contains(res.ErrorMessage, tt.msg) {
						t.Errorf("result = %+v; want %s %s %q", res, tt.status, tt.code, tt.msg)
					}
					want := make([]string, len(tt.args))
					for i, s := range tt.args {
						want[i] = strings.ReplaceAll(s, "APP", app)
					}
					if got := recordedArgs(t, a.WorkDir); !reflect.DeepEqual(got, want) {
						t.Errorf("command line\n got  %q\n want %q", got, want)
					}
					if !reflect.DeepEqual(res.ChildIDs, tt.ids) {
						t.Errorf("child ids = %q, want %q", res.ChildIDs, tt.ids)
					}
					if b, _ := os.ReadFile(filepath.Join(a.WorkDir, "conf.rec")); string(b) != filepath.Join(a.WorkDir, launch.ConfFile) {
						t.Errorf("%s = %q", launch.ConfEnvVar, b)
					}
					// The app's own jars reach the tools that take a class
					// path from the environment; spark gets them as --jars.
					wantCP := map[string]string{}
					switch tt.typ {
					case "pig":
						wantCP["hcp.rec"], wantCP["pcp.rec"] = appJar, appJar
					case "hive", "sqoop":
						wantCP["hcp.rec"], wantCP["pcp.rec"] = appJar, ""
					default:
						wantCP["hcp.rec"], wantCP["pcp.rec"] = "", ""
					}
					for f, want := range wantCP {
						if b, err := os.ReadFile(filepath.Join(a.WorkDir, f)); err == nil && string(b) != want {
							t.Errorf("%s class path = %q, want %q", f, b, want)
						}
					}
					if tt.check != nil {
						tt.check(t, a)
					}
				})
			}
		})
	}
}

// Actions the tool actions refuse before anything runs.
func TestToolStartErrors(t *testing.T) {
	app := t.TempDir()
	launchtest.MkTree(t, app, "q.hql", "scripts/id.pig")
	r := toolExecutors(t, launchtest.Launcher(t))
	tests := []struct {
		name, typ, body, code, msg string
	}{
		{"sqoop command and args", "sqoop", `<sqoop ` + sqoopNS + `><command>import</command><arg>--table</arg></sqoop>`, "E0701", "both <command> and <arg>"},
		{"sqoop neither", "sqoop", `<sqoop ` + sqoopNS + `><name-node>file:///</name-node></sqoop>`, "E0701", "neither <command> nor <arg>"},
		{"pig refused argument", "pig", `<pig><script>scripts/id.pig</script><argument>-logfile</argument></pig>`, "JA018", "Pig argument [-logfile] is not supported"},
		{"pig script missing", "pig", `<pig><script>nothere.pig</script></pig>`, "JA008", "nothere.pig"},
		{"hive refused argument", "hive", `<hive ` + hiveNS + `><script>q.hql</script><argument>--hiveconf</argument></hive>`, "JA018", "not supported"},
		{"hive param without value", "hive", `<hive ` + hiveNS + `><script>q.hql</script><param>NOVALUE</param></hive>`, "JA018", "must contain an assignment: NOVALUE"},
		{"hive param without name", "hive", `<hive ` + hiveNS + `><script>q.hql</script><param>=x</param></hive>`, "JA018", "Parameter value not specified"},
		{"hive2 refused argument", "hive2", `<hive2 ` + hive2NS + `><jdbc-url>jdbc:hive2://h/</jdbc-url><script>q.hql</script><argument>-u</argument></hive2>`, "JA018", "Beeline argument [-u]"},
		{"spark file missing", "spark", `<spark ` + sparkNS + `><master>yarn</master><name>n</name><jar>x.jar</jar><file>nothere.txt</file></spark>`, "JA008", "nothere.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := r.Lookup(tt.typ)
			a, _ := launchtest.ToolAction(t, tt.typ, app, tt.body, nil)
			_, err := e.Start(context.Background(), a)
			xe, ok := err.(*action.ExecError)
			if !ok || xe.Code != tt.code || !strings.Contains(xe.Msg, tt.msg) {
				t.Fatalf("err = %v, want %s %q", err, tt.code, tt.msg)
			}
			if launch.Exists(filepath.Join(a.WorkDir, "argv.rec")) {
				t.Error("the tool ran")
			}
		})
	}
}

// A tool that is not installed fails the action with JA008 naming the
// tool and its server key: through the home key, and on PATH.
func TestToolMissing(t *testing.T) {
	app := t.TempDir()
	launchtest.MkTree(t, app, "q.hql", "scripts/id.pig")
	bodies := map[string]string{
		"pig":   `<pig><script>scripts/id.pig</script></pig>`,
		"hive":  `<hive ` + hiveNS + `><script>q.hql</script></hive>`,
		"hive2": `<hive2 ` + hive2NS + `><jdbc-url>jdbc:hive2://h/</jdbc-url><script>q.hql</script></hive2>`,
		"sqoop": `<sqoop ` + sqoopNS + `><command>import</command></sqoop>`,
		"spark": `<spark ` + sparkNS + `><master>local</master><name>n</name><jar>x.jar</jar></spark>`,
		"git":   `<git xmlns="uri:oozie:git-action:1.0"><name-node>file:///</name-node><git-uri>file:///nothere</git-uri><destination-uri>/tmp/x</destination-uri></git>`,
	}
	keys := map[string][2]string{
		"pig": {"pig", pigHome}, "hive": {"hive", hiveHome}, "hive2": {"beeline", beelineHome},
		"sqoop": {"sqoop", sqoopHome}, "spark": {"spark-submit", sparkHome}, "git": {"git", GitHome},
	}
	emptyHome := t.TempDir()
	t.Run("home key", func(t *testing.T) {
		opts := launchtest.Launcher(t)
		opts.Site = map[string]string{}
		for _, k := range keys {
			opts.Site[k[1]] = emptyHome
		}
		r := action.NewRegistry()
		launch.RegisterBuiltins(r, opts)
		for typ, body := range bodies {
			e, _ := r.Lookup(typ)
			a, _ := launchtest.ToolAction(t, typ, app, body, nil)
			_, err := e.Start(context.Background(), a)
			xe, ok := err.(*action.ExecError)
			if !ok || xe.Code != "JA008" || !strings.Contains(xe.Msg, keys[typ][0]) || !strings.Contains(xe.Msg, keys[typ][1]+" is set to ["+emptyHome+"]") {
				t.Errorf("%s: err = %v", typ, err)
			}
		}
	})
	t.Run("PATH", func(t *testing.T) {
		t.Setenv("PATH", emptyHome)
		r := action.NewRegistry()
		launch.RegisterBuiltins(r, launchtest.Launcher(t))
		for typ, body := range bodies {
			e, _ := r.Lookup(typ)
			a, _ := launchtest.ToolAction(t, typ, app, body, nil)
			_, err := e.Start(context.Background(), a)
			xe, ok := err.(*action.ExecError)
			if !ok || xe.Code != "JA008" || !strings.Contains(xe.Msg, keys[typ][0]+" not found on PATH;") || !strings.Contains(xe.Msg, keys[typ][1]) {
				t.Errorf("%s: err = %v", typ, err)
			}
		}
	})
}

// The tool is found on PATH when its home key is not set.
func TestToolOnPath(t *testing.T) {
	home := fakeHome(t, "sqoop")
	t.Setenv("PATH", filepath.Join(home, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	r := action.NewRegistry()
	launch.RegisterBuiltins(r, launchtest.Launcher(t))
	e, _ := r.Lookup("sqoop")
	a, notified := launchtest.ToolAction(t, "sqoop", t.TempDir(), `<sqoop `+sqoopNS+`><command>list-databases --connect jdbc:x</command></sqoop>`, map[string]string{})
	res := launchtest.RunToEnd(t, e, a, notified)
	if res.Status != action.OK {
		t.Fatalf("result = %+v", res)
	}
	if got := recordedArgs(t, a.WorkDir); !reflect.DeepEqual(got, []string{"list-databases", "--connect", "jdbc:x"}) {
		t.Errorf("args = %q", got)
	}
}

// Oozie's SparkOptionsSplitter cases: values run to the next --option,
// entirely quoted key=value values lose their quotes, others keep them.
func TestSplitSparkOpts(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"--driver-memory 1g", []string{"--driver-memory", "1g"}},
		{"--verbose  --master  yarn", []string{"--verbose", "--master", "yarn"}},
		{"--conf key=value", []string{"--conf", "key=value"}},
		{"--conf=key=value", []string{"--conf", "key=value"}},
		{`--conf spark.executor.extraJavaOptions="-XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath=/tmp"`,
			[]string{"--conf", "spark.executor.extraJavaOptions=-XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath=/tmp"}},
		{`--conf spark.executor.extraJavaOptions=-XX:+HeapDumpOnOutOfMemoryError -Dlog4j.configuration="/some path/spark-log4j.properties"`,
			[]string{"--conf", `spark.executor.extraJavaOptions=-XX:+HeapDumpOnOutOfMemoryError -Dlog4j.configuration="/some path/spark-log4j.properties"`}},
		// Oozie's comment says this one keeps its quotes, but its regular
		// expression for "quotes in between" does not match it: the code
		// removes them, and so does gozie.
		{`--conf key="value1 value2" "value3 value4"`, []string{"--conf", `key=value1 value2 value3 value4`}},
		{`--conf key=value1 "value2 x" y`, []string{"--conf", `key=value1 "value2 x" y`}},
		{`--driver-java-options "-Xmx1g -Da=b"`, []string{"--driver-java-options", `"-Xmx1g -Da=b"`}},
		{"--executor-cores 2 --conf spark.a=1 --conf spark.b=2", []string{"--executor-cores", "2", "--conf", "spark.a=1", "--conf", "spark.b=2"}},
	}
	for _, tt := range tests {
		if got := splitSparkOpts(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitSparkOpts(%q)\n got  %q\n want %q", tt.in, got, tt.want)
		}
	}
}

// Ids are picked out of both streams, each once, in order.
func TestChildIDs(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, launch.StdoutFile), []byte("x Submitted application application_1_0001\nHadoopJobId: job_1_0002\nSubmitted application application_1_0001\n"), 0o644)
	// A line of megabytes, with an id across the first cut of the search
	// and one at its end.
	long := bytes.Repeat([]byte("y"), 2<<20)
	copy(long[launch.ScanChunk-10:], "HadoopJobId: job_1_0004 ")
	os.WriteFile(filepath.Join(dir, launch.StderrFile), append(long, []byte(" Running job: job_1_0003\n")...), 0o644)
	got := childIDs(dir, childIDPatterns["pig"])
	if want := []string{"application_1_0001", "job_1_0002", "job_1_0004", "job_1_0003"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ids = %q, want %q", got, want)
	}
}
