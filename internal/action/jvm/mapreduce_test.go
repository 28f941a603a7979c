package jvm

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/action/jvm/mrtool"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/streaming"
)

// mrAction builds a Context for a map-reduce body with the given action
// configuration.
func mrAction(t testing.TB, appDir, body string, props map[string]string) (*action.Context, chan struct{}) {
	t.Helper()
	notified := make(chan struct{}, 16)
	a := &action.Context{
		JobID: "0000002-gozie-W", ActionID: "0000002-gozie-W@mr", Name: "mr", Type: "map-reduce",
		AppPath: appDir, WorkDir: filepath.Join(t.TempDir(), "work"),
		Element: launchtest.ActionBody(t, "<map-reduce>"+body+"</map-reduce>"),
		Conf:    conf.FromMap(props),
		Notify:  func() { notified <- struct{}{} },
	}
	return a, notified
}

// mrExecutor is the map-reduce executor as RegisterBuiltins makes it.
func mrExecutor(opts launch.Options) action.Executor {
	return launch.Builtin("map-reduce")(launch.NewRuntime(opts))
}

// partLines returns the sorted lines of the part files of out.
func partLines(t *testing.T, out string) []string {
	t.Helper()
	parts, _ := filepath.Glob(filepath.Join(out, "part-*"))
	var lines []string
	for _, p := range parts {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
	}
	sort.Strings(lines)
	return lines
}

const (
	mrMapper  = "#!/bin/sh\ntr -s ' ' '\\n' | grep -v '^$' | sed 's/$/\t1/'\n"
	mrReducer = "#!/bin/sh\nawk -F '\\t' 'NR>1 && $1!=w {print w \"\\t\" n; n=0} {w=$1; n+=$2} END {if (NR>0) print w \"\\t\" n}'\n"
)

func TestMapReduceStreaming(t *testing.T) {
	app := t.TempDir()
	launchtest.MkTree(t, app, "input/")
	os.WriteFile(filepath.Join(app, "mapper.sh"), []byte(mrMapper), 0o644) // not executable: staging makes it so
	os.WriteFile(filepath.Join(app, "reducer.sh"), []byte(mrReducer), 0o755)
	os.WriteFile(filepath.Join(app, "input", "a.txt"), []byte("b a c\na b\n"), 0o644)
	os.WriteFile(filepath.Join(app, "input", "b.txt"), []byte("a c\n"), 0o644)
	wc := []string{"a\t3", "b\t2", "c\t2"}
	stream := `<name-node>file:///</name-node><streaming><mapper>mapper.sh</mapper><reducer>reducer.sh</reducer></streaming>` +
		`<file>mapper.sh</file><file>reducer.sh#reducer.sh</file>`

	tests := []struct {
		name  string
		body  string
		props map[string]string
		want  []string
		parts int
		// counters of the Hadoop 2 task group
		counters map[string]int64
		code     string
		msg      []string
	}{
		{name: "one reducer", body: stream, props: map[string]string{"mapred.reduce.tasks": "1"},
			want: wc, parts: 1, counters: map[string]int64{"MAP_INPUT_RECORDS": 3, "MAP_OUTPUT_RECORDS": 7, "REDUCE_OUTPUT_RECORDS": 3}},
		{name: "three reducers, Hadoop 2 keys", body: stream, props: map[string]string{"mapreduce.job.reduces": "3"},
			want: wc, parts: 3, counters: map[string]int64{"REDUCE_INPUT_RECORDS": 7, "REDUCE_INPUT_GROUPS": 3}},
		{name: "map only", body: stream, props: map[string]string{"mapred.reduce.tasks": "0"},
			want: []string{"a\t1", "a\t1", "a\t1", "b\t1", "b\t1", "c\t1", "c\t1"}, parts: 2},
		{name: "URL-encoded command and env", body: `<streaming><mapper>sh -c 'echo+$GREETING%25;+cat+>/dev/null'</mapper>` +
			`<reducer>cat</reducer><env>GREETING=hi</env></streaming>`,
			want: []string{"hi%\t", "hi%\t"}, parts: 1}, // a line from each of the two mappers
		{name: "configuration exported to tasks", body: `<streaming><mapper>sh -c 'echo $my_setting_x; cat >/dev/null'</mapper></streaming>`,
			props: map[string]string{"my.setting-x": "v1", "mapred.reduce.tasks": "0"}, want: []string{"v1\t", "v1\t"}, parts: 2},
		{name: "output exists", body: stream, props: map[string]string{"mapred.output.dir": app},
			code: "JA018", msg: []string{"FileAlreadyExistsException", "Output directory " + app + " already exists"}},
		{name: "failing mapper", body: `<streaming><mapper>sh -c 'echo bad input >&amp;2; exit 4'</mapper><reducer>cat</reducer></streaming>`,
			code: "JA018", msg: []string{"attempt_local_0001_m_00000", "exit code [4]", "bad input"}},
		{name: "missing input", body: stream, props: map[string]string{"mapred.input.dir": "nothere"},
			code: "JA018", msg: []string{"InvalidInputException", "Input path does not exist: file:" + filepath.Join(app, "nothere")}},
	}
	for _, mode := range launchtest.Modes {
		t.Run(mode.Name, func(t *testing.T) {
			e := mrExecutor(mode.Opts(t))
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					out := filepath.Join(t.TempDir(), "out")
					props := map[string]string{"mapred.input.dir": "input", "mapred.output.dir": out}
					for k, v := range tt.props {
						props[k] = v
					}
					a, notified := mrAction(t, app, tt.body, props)
					res := launchtest.RunToEnd(t, e, a, notified)
					if tt.code != "" {
						if res.Status != action.Error || res.ErrorCode != tt.code {
							t.Fatalf("result %+v, want %s", res, tt.code)
						}
						for _, m := range tt.msg {
							if !strings.Contains(res.ErrorMessage, m) {
								t.Errorf("message %q lacks %q", res.ErrorMessage, m)
							}
						}
						return
					}
					if res.Status != action.OK {
						t.Fatalf("result %+v\nstderr: %s", res, launch.Tail(filepath.Join(a.WorkDir, launch.StderrFile)))
					}
					if got := partLines(t, out); !reflect.DeepEqual(got, tt.want) {
						t.Errorf("output %q, want %q", got, tt.want)
					}
					if parts, _ := filepath.Glob(filepath.Join(out, "part-*")); len(parts) != tt.parts {
						t.Errorf("%d part files, want %d", len(parts), tt.parts)
					}
					for k, v := range tt.counters {
						if got := res.Stats[streaming.GroupTask2][k]; got != v {
							t.Errorf("counter %s = %d, want %d (stats %v)", k, got, v, res.Stats)
						}
						if got := res.Stats[streaming.GroupTask1][k]; got != v {
							t.Errorf("Hadoop 1 counter %s = %d, want %d", k, got, v)
						}
					}
					if res.Stats[streaming.GroupJob1]["TOTAL_LAUNCHED_MAPS"] != 2 {
						t.Errorf("launched maps: %v", res.Stats[streaming.GroupJob1])
					}
				})
			}
		})
	}
}

// fakeHadoop writes a Hadoop home whose bin/mapred records its calls (one
// argument a line after "---") in home/calls and answers like Hadoop: a
// job id on submission, the state in home/state (SUCCEEDED when absent)
// with counters on -status, a job id and counters from pipes.
func fakeHadoop(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	launchtest.MkTree(t, home, "bin/", "share/hadoop/tools/lib/")
	os.WriteFile(filepath.Join(home, "share/hadoop/tools/lib/hadoop-streaming-3.3.6.jar"), []byte("jar"), 0o644)
	script := `#!/bin/sh
home=$(cd "$(dirname "$0")/.." && pwd)
{ echo ---; for a in "$@"; do echo "$a"; done; } >> "$home/calls"
case "$1 $2" in
"job -submit") echo "INFO mapreduce.JobSubmitter: number of splits:2"; echo "Created job job_1700000000000_0042" ;;
"job -status") state=$(cat "$home/state" 2>/dev/null || echo SUCCEEDED)
  printf 'Job: %s\nJob state: %s\nretired: false\nreason for failure: task failed\nCounters: 3\n\tJob Counters \n\t\tLaunched map tasks=2\n\tMap-Reduce Framework\n\t\tMap input records=12\n\t\tReduce output records=5\n\tFile System Counters\n\t\tHDFS: Number of bytes read=100\n' "$3" "$state" ;;
"job -kill") echo "Killed job $3" ;;
fs*) ;;
pipes*) echo "INFO mapreduce.Job: Running job: job_1700000000000_0007" >&2
  printf 'INFO mapreduce.Job: Counters: 1\n\tMap-Reduce Framework\n\t\tMap input records=3\n' >&2 ;;
*) echo "unknown command" >&2; exit 2 ;;
esac
`
	for _, tool := range []string{"mapred", "hadoop"} {
		if err := os.WriteFile(filepath.Join(home, "bin", tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

func TestMapReduceHadoop(t *testing.T) {
	app := t.TempDir()
	launchtest.MkTree(t, app, "lib/b.jar", "lib/a.jar", "lib/notes.txt", "dict.txt", "wc", "extra/c.jar", "extra/a.jar")
	tests := []struct {
		name  string
		body  string
		state string
		props map[string]string // the action configuration
		// argv of the calls, "DIR" standing for the work directory
		calls    [][]string
		conf     map[string]string // in job.xml
		childIDs []string
		counters map[string]map[string]int64
		code     string
		msg      string
	}{
		{name: "java map-reduce",
			body: `<job-tracker>rm:8032</job-tracker><name-node>hdfs://nn:8020</name-node>` +
				`<prepare><delete path="/out"/><mkdir path="hdfs://nn2:8020/tmp/x"/></prepare>` +
				`<file>dict.txt#words</file><archive>hdfs://nn:8020/a.tgz</archive>`,
			props: map[string]string{"mapred.mapper.class": "org.example.M"},
			calls: [][]string{{"fs", "-rm", "-r", "-f", "-skipTrash", "hdfs://nn:8020/out"}, {"fs", "-mkdir", "-p", "hdfs://nn2:8020/tmp/x"},
				{"job", "-submit", "DIR/job.xml"}, {"job", "-status", "job_1700000000000_0042"}},
			conf: map[string]string{"mapred.mapper.class": "org.example.M", "fs.defaultFS": "hdfs://nn:8020",
				"yarn.resourcemanager.address": "rm:8032",
				"tmpjars":                      "file://APP/lib/a.jar,file://APP/lib/b.jar", "tmpfiles": "file://APP/dict.txt#words",
				"tmparchives": "hdfs://nn:8020/a.tgz"},
			childIDs: []string{"job_1700000000000_0042"},
			counters: map[string]map[string]int64{
				streaming.GroupTask2: {"MAP_INPUT_RECORDS": 12, "REDUCE_OUTPUT_RECORDS": 5},
				streaming.GroupTask1: {"MAP_INPUT_RECORDS": 12, "REDUCE_OUTPUT_RECORDS": 5},
				streaming.GroupJob1:  {"TOTAL_LAUNCHED_MAPS": 2},
				streaming.GroupFS1:   {"HDFS_BYTES_READ": 100},
			}},
		{name: "library path jars join the job's", body: `<name-node>hdfs://nn:8020</name-node>`,
			// The JVM launcher path's class path: lib/ first; a jar of a
			// name already there (extra/a.jar) is left out.
			props: map[string]string{"oozie.launcher.oozie.libpath": app + "/extra"},
			calls: [][]string{{"job", "-submit", "DIR/job.xml"}, {"job", "-status", "job_1700000000000_0042"}},
			conf: map[string]string{"fs.defaultFS": "hdfs://nn:8020",
				"tmpjars": "file://APP/lib/a.jar,file://APP/lib/b.jar,file://APP/extra/c.jar"},
			childIDs: []string{"job_1700000000000_0042"}},
		{name: "failed job", state: "FAILED", body: `<name-node>hdfs://nn:8020</name-node>`,
			calls:    [][]string{{"job", "-submit", "DIR/job.xml"}, {"job", "-status", "job_1700000000000_0042"}},
			childIDs: []string{"job_1700000000000_0042"},
			code:     "JA018", msg: "MapReduce job [job_1700000000000_0042] ended [FAILED]: task failed"},
		{name: "streaming over hdfs",
			body:  `<name-node>hdfs://nn:8020</name-node><streaming><mapper>cat</mapper><reducer>wc -l</reducer><env>A=1</env></streaming>`,
			calls: [][]string{{"job", "-submit", "DIR/job.xml"}, {"job", "-status", "job_1700000000000_0042"}},
			conf: map[string]string{"stream.map.streamprocessor": "cat", "stream.reduce.streamprocessor": "wc -l",
				"stream.addenvironment": "A=1", "mapred.mapper.class": "org.apache.hadoop.streaming.PipeMapper",
				"mapreduce.job.jar": "file://HOME/share/hadoop/tools/lib/hadoop-streaming-3.3.6.jar",
				"tmpjars":           "file://APP/lib/a.jar,file://APP/lib/b.jar,file://HOME/share/hadoop/tools/lib/hadoop-streaming-3.3.6.jar"},
			childIDs: []string{"job_1700000000000_0042"}},
		{name: "streaming with a Java mapper", body: `<streaming><mapper>cat</mapper></streaming>`,
			props:    map[string]string{"mapred.mapper.class": "org.example.M"},
			calls:    [][]string{{"job", "-submit", "DIR/job.xml"}, {"job", "-status", "job_1700000000000_0042"}},
			childIDs: []string{"job_1700000000000_0042"}},
		{name: "pipes",
			body: `<name-node>hdfs://nn:8020</name-node><pipes><map>M</map><reduce>R</reduce><inputformat>I</inputformat>` +
				`<partitioner>P</partitioner><writer>W</writer><program>wc#wc</program></pipes><file>dict.txt</file>`,
			calls: [][]string{{"pipes", "-conf", "DIR/job.xml", "-libjars", "file://APP/lib/a.jar,file://APP/lib/b.jar",
				"-files", "file://APP/dict.txt", "-map", "M", "-reduce", "R", "-inputformat", "I", "-partitioner", "P",
				"-writer", "W", "-program", "file://APP/wc#wc"}},
			childIDs: []string{"job_1700000000000_0007"},
			counters: map[string]map[string]int64{streaming.GroupTask1: {"MAP_INPUT_RECORDS": 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := fakeHadoop(t)
			if tt.state != "" {
				os.WriteFile(filepath.Join(home, "state"), []byte(tt.state), 0o644)
			}
			opts := launchtest.Launcher(t)
			opts.Site = map[string]string{launch.HadoopHome: home}
			props := map[string]string{"mapred.input.dir": "/in", "mapred.output.dir": "/out"}
			for k, v := range tt.props {
				props[k] = v
			}
			a, notified := mrAction(t, app, tt.body, props)
			res := launchtest.RunToEnd(t, mrExecutor(opts), a, notified)
			fix := strings.NewReplacer("DIR", a.WorkDir, "APP", app, "HOME", home)
			b, _ := os.ReadFile(filepath.Join(home, "calls"))
			var calls [][]string
			for _, c := range strings.Split(strings.TrimSpace(string(b)), "---\n")[1:] {
				calls = append(calls, strings.Split(strings.TrimSuffix(c, "\n"), "\n"))
			}
			var want [][]string
			for _, c := range tt.calls {
				var w []string
				for _, s := range c {
					w = append(w, fix.Replace(s))
				}
				want = append(want, w)
			}
			if !reflect.DeepEqual(calls, want) {
				t.Errorf("calls\n%q\nwant\n%q", calls, want)
			}
			if !reflect.DeepEqual(res.ChildIDs, tt.childIDs) {
				t.Errorf("child ids %v, want %v", res.ChildIDs, tt.childIDs)
			}
			if tt.code != "" {
				if res.Status != action.Error || res.ErrorCode != tt.code || !strings.Contains(res.ErrorMessage, tt.msg) {
					t.Errorf("result %+v, want %s %q", res, tt.code, tt.msg)
				}
				return
			}
			if res.Status != action.OK {
				t.Fatalf("result %+v\n%s", res, launch.Tail(filepath.Join(a.WorkDir, launch.StderrFile)))
			}
			job, err := conf.LoadFile(filepath.Join(a.WorkDir, mrtool.MrJobXML))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.conf {
				if got, _ := job.Get(k); got != fix.Replace(v) {
					t.Errorf("job.xml %s = %q, want %q", k, got, fix.Replace(v))
				}
			}
			for g, cs := range tt.counters {
				for k, v := range cs {
					if res.Stats[g][k] != v {
						t.Errorf("counter %s %s = %d, want %d (stats %v)", g, k, res.Stats[g][k], v, res.Stats)
					}
				}
			}
		})
	}
}

// TestMapReduceNoHadoop: work that needs Hadoop fails at once, naming the
// server key, when Hadoop is not where the server looks.
func TestMapReduceNoHadoop(t *testing.T) {
	bodies := map[string]string{
		"java":                    `<name-node>hdfs://nn:8020</name-node>`,
		"pipes":                   `<pipes><program>x</program></pipes>`,
		"streaming hdfs":          `<name-node>hdfs://nn:8020</name-node><streaming><mapper>cat</mapper></streaming>`,
		"streaming reader":        `<streaming><mapper>cat</mapper><record-reader>org.example.R</record-reader></streaming>`,
		"streaming comparator":    `<streaming><mapper>cat</mapper></streaming>`,
		"streaming output format": `<streaming><mapper>cat</mapper></streaming>`,
	}
	props := map[string]map[string]string{
		"streaming comparator":    {"mapreduce.job.output.key.comparator.class": "org.apache.hadoop.mapred.lib.KeyFieldBasedComparator"},
		"streaming output format": {"mapred.output.format.class": "org.apache.hadoop.mapred.SequenceFileOutputFormat"},
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			opts := launchtest.Launcher(t)
			opts.Site = map[string]string{launch.HadoopHome: t.TempDir()} // no bin/mapred there
			c := map[string]string{"mapred.input.dir": "/in", "mapred.output.dir": "/out"}
			for k, v := range props[name] {
				c[k] = v
			}
			a, _ := mrAction(t, t.TempDir(), body, c)
			_, err := mrExecutor(opts).Start(context.Background(), a)
			xe, ok := err.(*action.ExecError)
			if !ok || xe.Code != launch.CodeToolMissing || !strings.Contains(xe.Msg, launch.HadoopHome) || !strings.Contains(xe.Msg, "needs Hadoop") {
				t.Fatalf("Start error %v; want %s naming %s", err, launch.CodeToolMissing, launch.HadoopHome)
			}
			if launch.Exists(filepath.Join(a.WorkDir, launch.SpecFile)) {
				t.Error("a launch spec was written for work that cannot run")
			}
		})
	}
	t.Run("prepare not run", func(t *testing.T) {
		keep := t.TempDir()
		opts := launchtest.Launcher(t)
		opts.Site = map[string]string{launch.HadoopHome: t.TempDir()}
		a, _ := mrAction(t, t.TempDir(), `<name-node>file:///</name-node><prepare><delete path="`+keep+`"/></prepare>`, nil)
		if _, err := mrExecutor(opts).Start(context.Background(), a); err == nil {
			t.Fatal("started without Hadoop")
		}
		if !launch.Exists(keep) {
			t.Error("the prepare block ran for a job that cannot run")
		}
	})
	t.Run("not on PATH", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		a, _ := mrAction(t, t.TempDir(), `<name-node>hdfs://nn:8020</name-node>`, nil)
		_, err := mrExecutor(launchtest.Launcher(t)).Start(context.Background(), a)
		if xe, ok := err.(*action.ExecError); !ok || xe.Code != launch.CodeToolMissing || !strings.Contains(xe.Msg, "PATH") || !strings.Contains(xe.Msg, launch.HadoopHome) {
			t.Fatalf("Start error %v", err)
		}
	})
	t.Run("on PATH", func(t *testing.T) {
		home := fakeHadoop(t)
		t.Setenv("PATH", filepath.Join(home, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
		a, notified := mrAction(t, t.TempDir(), `<name-node>hdfs://nn:8020</name-node>`, nil)
		res := launchtest.RunToEnd(t, mrExecutor(launchtest.Launcher(t)), a, notified)
		if res.Status != action.OK || len(res.ChildIDs) != 1 {
			t.Fatalf("result %+v", res)
		}
	})
}

// TestMapReduceStreamingKill: killing the action kills its mappers (the
// action's process group) and leaves no output.
func TestMapReduceStreamingKill(t *testing.T) {
	for _, mode := range launchtest.Modes {
		t.Run(mode.Name, func(t *testing.T) {
			app := t.TempDir()
			launchtest.MkTree(t, app, "in/a", "in/b")
			out := filepath.Join(t.TempDir(), "out")
			a, notified := mrAction(t, app,
				`<streaming><mapper>sh -c 'echo $$ > pid.$mapreduce_task_attempt_id; sleep 100'</mapper><reducer>cat</reducer></streaming>`,
				map[string]string{"mapred.input.dir": "in", "mapred.output.dir": out, "mapred.reduce.tasks": "2"})
			e := mrExecutor(mode.Opts(t))
			res, err := e.Start(context.Background(), a)
			if err != nil {
				t.Fatal(err)
			}
			var pids []int
			launchtest.WaitFor(t, "both mappers", func() bool {
				ms, _ := filepath.Glob(filepath.Join(a.WorkDir, "pid.*"))
				pids = pids[:0]
				for _, m := range ms {
					b, _ := os.ReadFile(m)
					if p, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
						pids = append(pids, p)
					}
				}
				return len(pids) == 2
			})
			if err := e.Kill(context.Background(), a, res.ExternalID); err != nil {
				t.Fatal(err)
			}
			for _, p := range pids {
				if syscall.Kill(p, 0) == nil && !launch.IsZombie(p) {
					t.Errorf("mapper %d survived the kill", p)
				}
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
			if launch.Exists(out) {
				t.Error("a killed job left its output directory")
			}
		})
	}
}

func TestParseCounters(t *testing.T) {
	text := "2024-01-01 INFO mapreduce.Job: Job job_1_0001 completed successfully\n" +
		"2024-01-01 INFO mapreduce.Job: Counters: 4\n" +
		"\tFile System Counters\n\t\tFILE: Number of bytes read=10\n\t\tHDFS: Number of read operations=3\n" +
		"\tMap-Reduce Framework\n\t\tMap input records=7\n\t\tSpilled Records=2\n" +
		"\tShuffle Errors\n\t\tBAD_ID=0\n" +
		"2024-01-01 INFO streaming.StreamJob: Output directory: /out\n"
	got := mrtool.ParseCounters(text)
	want := streaming.Counters{
		streaming.GroupFS2:   {"FILE_BYTES_READ": 10, "HDFS_READ_OPS": 3},
		streaming.GroupFS1:   {"FILE_BYTES_READ": 10, "HDFS_READ_OPS": 3},
		streaming.GroupTask2: {"MAP_INPUT_RECORDS": 7, "SPILLED_RECORDS": 2},
		streaming.GroupTask1: {"MAP_INPUT_RECORDS": 7, "SPILLED_RECORDS": 2},
		"Shuffle Errors":     {"BAD_ID": 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseCounters\n%v\nwant\n%v", got, want)
	}
}

func TestSplitInputPaths(t *testing.T) {
	got := splitInputPaths(" /a, /b/{x,y}/*,file:///c ,")
	want := []string{"/a", "/b/{x,y}/*", "file:///c"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestMapReduceHadoopPollAndKill: the tool polls a running job until it
// ends, and killing the action kills the Hadoop job.
func TestMapReduceHadoopPollAndKill(t *testing.T) {
	countStatus := func(home string) int {
		b, _ := os.ReadFile(filepath.Join(home, "calls"))
		return strings.Count(string(b), "---\njob\n-status\n")
	}
	t.Run("poll", func(t *testing.T) {
		home := fakeHadoop(t)
		os.WriteFile(filepath.Join(home, "state"), []byte("RUNNING"), 0o644)
		opts := launchtest.Launcher(t)
		opts.Site = map[string]string{launch.HadoopHome: home, mrStatusInterval: "10ms"}
		a, notified := mrAction(t, t.TempDir(), `<name-node>hdfs://nn:8020</name-node>`, nil)
		e := mrExecutor(opts)
		res, err := e.Start(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		launchtest.WaitFor(t, "three polls", func() bool { return countStatus(home) >= 3 })
		if r, _ := e.Check(context.Background(), a, res.ExternalID); r.Done {
			t.Fatalf("done while the job runs: %+v", r)
		}
		os.WriteFile(filepath.Join(home, "state"), []byte("SUCCEEDED"), 0o644)
		select {
		case <-notified:
		case <-time.After(launchtest.Deadline):
			t.Fatal("no notification")
		}
		if r, _ := e.Check(context.Background(), a, res.ExternalID); r.Status != action.OK || r.Stats[streaming.GroupTask1]["MAP_INPUT_RECORDS"] != 12 {
			t.Errorf("result %+v", r)
		}
	})
	t.Run("kill", func(t *testing.T) {
		home := fakeHadoop(t)
		os.WriteFile(filepath.Join(home, "state"), []byte("RUNNING"), 0o644)
		opts := launchtest.Launcher(t)
		opts.Site = map[string]string{launch.HadoopHome: home, mrStatusInterval: "10ms"}
		a, notified := mrAction(t, t.TempDir(), `<name-node>hdfs://nn:8020</name-node>`, nil)
		e := mrExecutor(opts)
		res, err := e.Start(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		launchtest.WaitFor(t, "a poll", func() bool { return countStatus(home) >= 1 })
		if err := e.Kill(context.Background(), a, res.ExternalID); err != nil {
			t.Fatal(err)
		}
		select {
		case <-notified:
		case <-time.After(launchtest.Deadline):
			t.Fatal("no notification after Kill")
		}
		b, _ := os.ReadFile(filepath.Join(home, "calls"))
		if !strings.Contains(string(b), "---\njob\n-kill\njob_1700000000000_0042\n") {
			t.Errorf("the Hadoop job was not killed; calls: %q\nstderr: %s", b, launch.Tail(filepath.Join(a.WorkDir, launch.StderrFile)))
		}
		r, _ := e.Check(context.Background(), a, res.ExternalID)
		if !r.Done || r.Status != action.Error || len(r.ChildIDs) != 1 {
			t.Errorf("result after Kill %+v", r)
		}
	})
}

// TestMapReduceStreamingRunAsUser: with RunAsUser the job runs as the
// job's user, and its counters (in a file of that user) still reach the
// result.
func TestMapReduceStreamingRunAsUser(t *testing.T) {
	u := launchtest.EnsureTestUser(t)
	root := launchtest.OpenDir(t)
	app := filepath.Join(root, "app")
	launchtest.MkTree(t, app, "in/")
	os.WriteFile(filepath.Join(app, "in", "a"), []byte("x y\n"), 0o644)
	opts := launchtest.Launcher(t)
	// The tool runs as the user: the binary must be reachable by it (go
	// test builds into a directory private to root).
	self, err := os.ReadFile(opts.Launcher[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "gozie.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	opts.Launcher = []string{bin}
	opts.RunAsUser = true
	outs := filepath.Join(root, "outs") // the user's, as an output directory's parent must be
	os.Mkdir(outs, 0o755)
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(outs, uid, gid); err != nil {
		t.Fatal(err)
	}
	a, notified := mrAction(t, app, `<streaming><mapper>sh -c 'id -un; cat'</mapper><reducer>cat</reducer></streaming>`,
		map[string]string{"mapred.input.dir": "in", "mapred.output.dir": filepath.Join(outs, "out")})
	a.User = u.Username
	a.WorkDir = filepath.Join(root, "work", "0")
	res := launchtest.RunToEnd(t, mrExecutor(opts), a, notified)
	if res.Status != action.OK || res.Stats[streaming.GroupTask1]["MAP_INPUT_RECORDS"] != 1 {
		t.Fatalf("result %+v\n%s", res, launch.Tail(filepath.Join(a.WorkDir, launch.StderrFile)))
	}
	if got := partLines(t, filepath.Join(outs, "out")); !reflect.DeepEqual(got, []string{u.Username + "\t", "x y\t"}) {
		t.Errorf("output %q", got)
	}
}
