package distcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/action/distcp/distcptool"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"

	"github.com/gozie/gozie/internal/conf"
)

const distcpNS = `xmlns="uri:oozie:distcp-action:1.0"`

// distcpTree makes the source tree of the tests under root/src: nested
// directories, an empty one, several files and a 3 MB file of random
// bytes. It returns the tree as treeOf reads it.
func distcpTree(t testing.TB, root string) map[string]string {
	t.Helper()
	launchtest.MkTree(t, root, "src/a.txt", "src/sub/b.txt", "src/sub/deep/c.txt", "src/empty/", "other.txt")
	big := make([]byte, 3<<20)
	rand.Read(big)
	if err := os.WriteFile(filepath.Join(root, "src/big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	return treeOf(t, filepath.Join(root, "src"))
}

// treeOf reads a tree: relative path -> contents, "/" for a directory.
func treeOf(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			out[rel] = "/"
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// under returns tree with every path put under dir (as treeOf of the
// parent would show it).
func under(dir string, tree map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range tree {
		out[filepath.Join(dir, k)] = v
	}
	return out
}

func sameTree(t *testing.T, got, want map[string]string) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	var diff []string
	for k, v := range want {
		if g, ok := got[k]; !ok {
			diff = append(diff, "missing "+k)
		} else if g != v {
			diff = append(diff, "differs "+k)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			diff = append(diff, "extra "+k)
		}
	}
	sort.Strings(diff)
	t.Errorf("trees differ: %s", strings.Join(diff, ", "))
}

// runDistcpIn runs the local tool in this process, $R replaced by root.
func runDistcpIn(t *testing.T, root string, args ...string) (int, distcptool.DistcpReport, string) {
	t.Helper()
	counters := filepath.Join(t.TempDir(), "c.json")
	argv := []string{"-gozie-counters", counters, "-gozie-default-fs", "", "--"}
	for _, a := range args {
		argv = append(argv, strings.ReplaceAll(a, "$R", root))
	}
	var out, errb bytes.Buffer
	code := distcptool.RunDistcpTool(argv, &out, &errb)
	var rep distcptool.DistcpReport
	b, err := os.ReadFile(counters)
	if err != nil {
		t.Fatalf("no counters file: %v", err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return code, rep, errb.String()
}

// The layout rules of DistCp's copy listing, each with the tree the
// target must end up as.
func TestDistcpLayout(t *testing.T) {
	tests := []struct {
		name   string
		pre    []string // made under $R before the copy
		args   []string
		target string // tree compared: $R/<target>
		want   func(src map[string]string) map[string]string
	}{
		{name: "dir to missing target: target is the copy", args: []string{"$R/src", "$R/dst"}, target: "dst",
			want: func(s map[string]string) map[string]string { return s }},
		{name: "dir to existing dir: copied into it", pre: []string{"dst/"}, args: []string{"$R/src", "$R/dst"}, target: "dst",
			want: func(s map[string]string) map[string]string {
				return merge(map[string]string{".": "/"}, under("src", s))
			}},
		{name: "-update: contents into existing dir", pre: []string{"dst/"}, args: []string{"-update", "$R/src", "$R/dst"}, target: "dst",
			want: func(s map[string]string) map[string]string { return s }},
		{name: "-overwrite: contents into existing dir", pre: []string{"dst/"}, args: []string{"-overwrite", "$R/src", "file://$R/dst"}, target: "dst",
			want: func(s map[string]string) map[string]string { return s }},
		{name: "-update: contents into missing dir", args: []string{"-update", "$R/src", "$R/dst"}, target: "dst",
			want: func(s map[string]string) map[string]string { return s }},
		{name: "two sources to missing target: both inside", args: []string{"$R/src", "$R/other.txt", "$R/dst"}, target: "dst",
			want: func(s map[string]string) map[string]string {
				return merge(map[string]string{".": "/", "other.txt": "other.txt"}, under("src", s))
			}},
		{name: "file to missing target: target is the file", args: []string{"file://$R/other.txt", "$R/dst/copy.txt"}, target: "dst",
			want: func(map[string]string) map[string]string { return map[string]string{".": "/", "copy.txt": "other.txt"} }},
		{name: "file to existing dir: inside", pre: []string{"dst/"}, args: []string{"$R/other.txt", "$R/dst"}, target: "dst",
			want: func(map[string]string) map[string]string {
				return map[string]string{".": "/", "other.txt": "other.txt"}
			}},
		{name: "file onto existing file: overwritten", pre: []string{"dst/f"}, args: []string{"$R/other.txt", "$R/dst/f"}, target: "dst",
			want: func(map[string]string) map[string]string { return map[string]string{".": "/", "f": "other.txt"} }},
		{name: "glob of children into existing dir", pre: []string{"dst/"}, args: []string{"-m", "2", "$R/src/*", "$R/dst"}, target: "dst",
			want: func(s map[string]string) map[string]string { return s }},
		{name: "without -update existing files are kept", pre: []string{"dst/src/a.txt"}, args: []string{"$R/src", "$R/dst"}, target: "dst",
			want: func(s map[string]string) map[string]string {
				w := merge(map[string]string{".": "/"}, under("src", s))
				w["src/a.txt"] = "dst/src/a.txt"
				return w
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			src := distcpTree(t, root)
			launchtest.MkTree(t, root, tt.pre...)
			code, rep, stderr := runDistcpIn(t, root, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			sameTree(t, treeOf(t, filepath.Join(root, tt.target)), tt.want(src))
			if rep.Counters["COPY"]+rep.Counters["SKIP"] == 0 {
				t.Errorf("counters = %v", rep.Counters)
			}
		})
	}
}

func merge(a, b map[string]string) map[string]string {
	for k, v := range b {
		a[k] = v
	}
	return a
}

// -update copies what changed (another length, or the same length and
// other bytes) and skips the rest; -overwrite copies everything; -delete
// removes what the source no longer has.
func TestDistcpUpdateOverwriteDelete(t *testing.T) {
	root := t.TempDir()
	distcpTree(t, root)
	if code, rep, e := runDistcpIn(t, root, "$R/src", "$R/dst"); code != 0 || rep.Counters["COPY"] != 4 || rep.Counters["DIR_COPY"] != 4 ||
		rep.Counters["BYTESCOPIED"] != 3<<20+int64(len("src/a.txt")+len("src/sub/b.txt")+len("src/sub/deep/c.txt")) {
		t.Fatalf("first copy: exit %d, %v, %s", code, rep.Counters, e)
	}
	os.WriteFile(filepath.Join(root, "src/a.txt"), []byte("SRC/A.TXT"), 0o644)      // same length, other bytes
	os.WriteFile(filepath.Join(root, "src/sub/b.txt"), []byte("longer now"), 0o644) // other length
	launchtest.MkTree(t, root, "src/new.txt", "dst/stale.txt", "dst/stale-dir/x")
	code, rep, e := runDistcpIn(t, root, "-update", "-delete", "$R/src", "$R/dst")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	if rep.Counters["COPY"] != 3 || rep.Counters["SKIP"] != 2 || rep.Counters["BYTESSKIPPED"] != 3<<20+int64(len("src/sub/deep/c.txt")) {
		t.Errorf("-update counters = %v", rep.Counters)
	}
	sameTree(t, treeOf(t, filepath.Join(root, "dst")), treeOf(t, filepath.Join(root, "src")))
	code, rep, e = runDistcpIn(t, root, "-overwrite", "$R/src", "$R/dst")
	if code != 0 || rep.Counters["COPY"] != 5 || rep.Counters["SKIP"] != 0 {
		t.Errorf("-overwrite: exit %d, %v, %s", code, rep.Counters, e)
	}
	// -skipcrccheck: same length counts as unchanged.
	os.WriteFile(filepath.Join(root, "src/a.txt"), []byte("src/a.txt"), 0o644)
	_, rep, _ = runDistcpIn(t, root, "-update", "-skipcrccheck", "$R/src", "$R/dst")
	if rep.Counters["COPY"] != 0 {
		t.Errorf("-skipcrccheck copied %v", rep.Counters)
	}
	// -append: a target that is the start of the source gets the rest
	// (not when the target itself is a file: DistCp overwrites that).
	os.WriteFile(filepath.Join(root, "src/a.txt"), []byte("src/a.txt+tail"), 0o644)
	os.WriteFile(filepath.Join(root, "dst/a.txt"), []byte("src/a.txt"), 0o644)
	_, rep, _ = runDistcpIn(t, root, "-update", "-append", "$R/src", "$R/dst")
	if b, _ := os.ReadFile(filepath.Join(root, "dst/a.txt")); string(b) != "src/a.txt+tail" || rep.Counters["BYTESCOPIED"] != 5 {
		t.Errorf("-append: %q, %v", b, rep.Counters)
	}
}

// -p keeps permissions and times; copies without it get the default mode.
func TestDistcpPreserve(t *testing.T) {
	root := t.TempDir()
	launchtest.MkTree(t, root, "src/f", "src/d/g")
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	os.Chmod(filepath.Join(root, "src/f"), 0o600)
	os.Chtimes(filepath.Join(root, "src/f"), old, old)
	os.Chtimes(filepath.Join(root, "src/d"), old, old)
	if code, _, e := runDistcpIn(t, root, "-pug", "$R/src", "$R/plain"); code != 0 {
		t.Fatal(e)
	}
	if fi, _ := os.Stat(filepath.Join(root, "plain/f")); fi.Mode().Perm() == 0o600 || fi.ModTime().Equal(old) {
		t.Errorf("copy without -ppt kept mode %v / time %v", fi.Mode(), fi.ModTime())
	}
	if code, _, e := runDistcpIn(t, root, "-ppt", "$R/src", "$R/kept"); code != 0 {
		t.Fatal(e)
	}
	for _, p := range []string{"kept/f", "kept/d"} {
		fi, _ := os.Stat(filepath.Join(root, p))
		if !fi.ModTime().Equal(old) {
			t.Errorf("%s time = %v", p, fi.ModTime())
		}
	}
	if fi, _ := os.Stat(filepath.Join(root, "kept/f")); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v", fi.Mode())
	}
}

// Command lines DistCp refuses, and options a local copy cannot honour,
// fail with a message that says why.
func TestDistcpBadArgs(t *testing.T) {
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-update", "-overwrite", "$R/src", "$R/d"}, 255, "cannot be used together"},
		{[]string{"-delete", "$R/src", "$R/d"}, 255, "-delete needs -update or -overwrite"},
		{[]string{"-skipcrccheck", "$R/src", "$R/d"}, 255, "only with -update"},
		{[]string{"-atomic", "$R/src", "$R/d"}, 255, "-atomic has no meaning"},
		{[]string{"-diff", "s1", "s2", "-update", "$R/src", "$R/d"}, 255, "-diff has no meaning"},
		{[]string{"-pa", "$R/src", "$R/d"}, 253, "ACLs"},
		{[]string{"-px", "$R/src", "$R/d"}, 252, "extended attributes"},
		{[]string{"-bogus", "$R/src", "$R/d"}, 255, "unrecognized option [-bogus]"},
		{[]string{"$R/d"}, 255, "source paths not specified"},
		{[]string{"-m"}, 255, "needs a value"},
		{[]string{"$R/none", "$R/d"}, 255, "does not exist"},
		{[]string{"$R/src/*.none", "$R/d"}, 255, "matches no path"},
		{[]string{"$R/src", "$R/other.txt", "$R/file"}, 255, "several sources"},
		{[]string{"-update", "$R/src", "$R/src2", "$R/d"}, 254, "would both be copied"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			root := t.TempDir()
			launchtest.MkTree(t, root, "src/a", "src2/a", "other.txt", "file")
			code, _, stderr := runDistcpIn(t, root, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.msg)
			}
		})
	}
}

// distcpAction builds the Context of a distcp action.
func distcpAction(t testing.TB, body string) (*action.Context, chan struct{}) {
	t.Helper()
	notified := make(chan struct{}, 16)
	a := &action.Context{
		JobID: "0000001-gozie-W", ActionID: "0000001-gozie-W@cp", Name: "cp", Type: "distcp",
		WorkDir: filepath.Join(t.TempDir(), "work"),
		Element: launchtest.ActionBody(t, "<distcp "+distcpNS+">"+body+"</distcp>"),
		Conf:    conf.FromMap(map[string]string{"my.prop": "a b"}),
		Notify:  func() { notified <- struct{}{} },
	}
	return a, notified
}

// The action copies locally through the launcher: prepare runs first,
// the counters reach Result.Stats, and failures are JA018 with DistCp's
// reason.
func TestDistcpAction(t *testing.T) {
	for _, m := range launchtest.Modes {
		t.Run(m.Name, func(t *testing.T) {
			root := t.TempDir()
			src := distcpTree(t, root)
			launchtest.MkTree(t, root, "dst/old")
			e := NewDistcp(m.Opts(t))
			a, n := distcpAction(t, `<name-node>file:///</name-node><prepare><delete path='`+root+`/dst'/></prepare>`+
				`<configuration><property><name>k</name><value>v</value></property></configuration>`+
				`<java-opts>-Xmx1g</java-opts><arg>-update</arg><arg>`+root+`/src</arg><arg>`+root+`/dst</arg>`)
			res := launchtest.RunToEnd(t, e, a, n)
			if res.Status != action.OK {
				t.Fatalf("result = %+v", res)
			}
			sameTree(t, treeOf(t, filepath.Join(root, "dst")), src)
			c := res.Stats[DistcpCounterGroup]
			if c["COPY"] != 4 || c["BYTESCOPIED"] != 3<<20+int64(len("src/a.txt")+len("src/sub/b.txt")+len("src/sub/deep/c.txt")) || c["DIR_COPY"] != 4 {
				t.Errorf("stats = %v", res.Stats)
			}

			bad, n2 := distcpAction(t, `<arg>-update</arg><arg>-overwrite</arg><arg>`+root+`/src</arg><arg>`+root+`/x</arg>`)
			res = launchtest.RunToEnd(t, e, bad, n2)
			if res.Status != action.Error || res.ErrorCode != "JA018" || !strings.Contains(res.ErrorMessage, distcpMain) ||
				!strings.Contains(res.ErrorMessage, "cannot be used together") {
				t.Errorf("bad args: %+v", res)
			}
		})
	}
}

// Killing the action while a file is being copied stops the copy and
// leaves no partial file: not under the target's name, not as a temporary.
func TestDistcpKill(t *testing.T) {
	root := t.TempDir()
	big := make([]byte, 8<<20)
	rand.Read(big)
	launchtest.MkTree(t, root, "src/small")
	os.WriteFile(filepath.Join(root, "src/big"), big, 0o644)
	e := NewDistcp(launchtest.Launcher(t))
	// 1 MB/s per map: the big file takes 8 s, the kill comes within it.
	a, _ := distcpAction(t, `<arg>-bandwidth</arg><arg>1</arg><arg>-m</arg><arg>1</arg><arg>`+root+`/src</arg><arg>`+root+`/dst</arg>`)
	res, err := e.Start(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	launchtest.WaitFor(t, "the copy of the big file to be under way", func() bool {
		m, _ := filepath.Glob(filepath.Join(root, "dst", distcptool.DistcpTmpPrefix+"big.*"))
		if len(m) == 0 {
			return false
		}
		fi, err := os.Stat(m[0])
		return err == nil && fi.Size() > 0
	})
	if err := e.Kill(context.Background(), a, res.ExternalID); err != nil {
		t.Fatal(err)
	}
	launchtest.WaitFor(t, "the action to end", func() bool {
		r, _ := e.Check(context.Background(), a, res.ExternalID)
		return r.Done
	})
	got := treeOf(t, filepath.Join(root, "dst"))
	for p, v := range got {
		if strings.HasPrefix(filepath.Base(p), distcptool.DistcpTmpPrefix) {
			t.Errorf("temporary file left: %s", p)
		}
		if p == "big" && v != string(big) {
			t.Errorf("partial big file left (%d bytes)", len(v))
		}
	}
	if _, ok := got["big"]; ok {
		t.Error("the big file was copied before the kill")
	}
}

// writeFakeHadoop writes an executable bin/hadoop under home that records
// its arguments and HADOOP_CLIENT_OPTS in home/argv and prints a job id.
func writeFakeHadoop(t *testing.T, home string) {
	t.Helper()
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > '" + home + "/argv'\necho \"opts=$HADOOP_CLIENT_OPTS\" >> '" + home + "/argv'\n" +
		"echo 'INFO mapreduce.Job: Running job: job_1700000000000_0042' >&2\n"
	os.MkdirAll(filepath.Join(home, "bin"), 0o755)
	if err := os.WriteFile(filepath.Join(home, "bin/hadoop"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// Copies that leave the local file system run `hadoop distcp` with the
// configuration as -D options (the name-node as fs.defaultFS) before the
// action's arguments; without hadoop the action fails with JA008.
func TestDistcpHadoop(t *testing.T) {
	body := `<resource-manager>rm:8032</resource-manager><name-node>hdfs://nn:8020</name-node><java-opts>-Xmx2g</java-opts>` +
		`<arg>-update</arg><arg>/user/tucu/in</arg><arg>hdfs://nn2:8020/user/tucu/out</arg>`
	want := []string{"distcp", "-Dfs.defaultFS=hdfs://nn:8020", "-Dmy.prop=a b", "-update", "/user/tucu/in", "hdfs://nn2:8020/user/tucu/out", "opts=-Xmx2g"}

	t.Run("on PATH", func(t *testing.T) {
		home := t.TempDir()
		writeFakeHadoop(t, home)
		t.Setenv("PATH", filepath.Join(home, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
		a, n := distcpAction(t, body)
		res := launchtest.RunToEnd(t, NewDistcp(launchtest.Launcher(t)), a, n)
		if res.Status != action.OK || !reflect.DeepEqual(res.ChildIDs, []string{"job_1700000000000_0042"}) {
			t.Errorf("result = %+v", res)
		}
		b, _ := os.ReadFile(filepath.Join(home, "argv"))
		if got := strings.Split(strings.TrimSpace(string(b)), "\n"); !reflect.DeepEqual(got, want) {
			t.Errorf("argv = %q\nwant   %q", got, want)
		}
	})
	t.Run("gozie.hadoop.home, local source to hdfs", func(t *testing.T) {
		home := t.TempDir()
		writeFakeHadoop(t, home)
		opts := launchtest.Launcher(t)
		opts.Site = map[string]string{launch.HadoopHome: home}
		a, n := distcpAction(t, `<arg>file:///tmp/x</arg><arg>hdfs://nn:8020/y</arg>`)
		if res := launchtest.RunToEnd(t, NewDistcp(opts), a, n); res.Status != action.OK {
			t.Errorf("result = %+v", res)
		}
		b, _ := os.ReadFile(filepath.Join(home, "argv"))
		if !strings.Contains(string(b), "distcp\n-Dmy.prop=a b\nfile:///tmp/x\nhdfs://nn:8020/y\n") {
			t.Errorf("argv = %q", b)
		}
	})
	t.Run("hadoop fails", func(t *testing.T) {
		home := t.TempDir()
		os.MkdirAll(filepath.Join(home, "bin"), 0o755)
		os.WriteFile(filepath.Join(home, "bin/hadoop"), []byte("#!/bin/sh\necho 'ERROR tools.DistCp: Invalid arguments: no such bucket' >&2\nexit 255\n"), 0o755)
		opts := launchtest.Launcher(t)
		opts.Site = map[string]string{launch.HadoopHome: home}
		a, n := distcpAction(t, body)
		res := launchtest.RunToEnd(t, NewDistcp(opts), a, n)
		if res.Status != action.Error || res.ErrorCode != "JA018" || !strings.Contains(res.ErrorMessage, "exit code [255]") ||
			!strings.Contains(res.ErrorMessage, "no such bucket") {
			t.Errorf("result = %+v", res)
		}
	})
	t.Run("missing", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		for _, site := range []map[string]string{nil, {launch.HadoopHome: t.TempDir()}} {
			opts := launchtest.Launcher(t)
			opts.Site = site
			a, _ := distcpAction(t, body)
			_, err := NewDistcp(opts).Start(context.Background(), a)
			var xe *action.ExecError
			if !errors.As(err, &xe) || xe.Code != "JA008" || !strings.Contains(xe.Msg, "hadoop") {
				t.Errorf("site %v: err = %v, want JA008 naming hadoop", site, err)
			}
		}
	})
}

// -f lists the sources in a file; -filters drops paths that match one of
// its expressions in full.
func TestDistcpSourceListAndFilters(t *testing.T) {
	root := t.TempDir()
	launchtest.MkTree(t, root, "a/keep.txt", "a/skip.tmp", "a/_SUCCESS", "b/x.txt", "dst/")
	os.WriteFile(filepath.Join(root, "list"), []byte(root+"/a\n\nfile://"+root+"/b\n"), 0o644)
	os.WriteFile(filepath.Join(root, "filters"), []byte(`.*\.tmp`+"\n"+`.*/_SUCCESS`+"\n"), 0o644)
	code, rep, e := runDistcpIn(t, root, "-f", "$R/list", "-filters", "$R/filters", "$R/dst")
	if code != 0 {
		t.Fatal(e)
	}
	sameTree(t, treeOf(t, filepath.Join(root, "dst")), map[string]string{".": "/", "a": "/", "a/keep.txt": "a/keep.txt", "b": "/", "b/x.txt": "b/x.txt"})
	if rep.Counters["COPY"] != 2 {
		t.Errorf("counters = %v", rep.Counters)
	}
}

// Which copies gozie makes itself: all paths local, after the name-node
// and the generic -fs.
func TestDistcpIsLocal(t *testing.T) {
	tests := []struct {
		nn    string
		args  []string
		local bool
	}{
		{"", []string{"/a", "/b"}, true},
		{"file:///", []string{"-update", "/a", "file:///b"}, true},
		{"hdfs://nn:8020", []string{"/a", "/b"}, false},
		{"hdfs://nn:8020", []string{"file:///a", "file:///b"}, true},
		{"", []string{"/a", "hdfs://nn/b"}, false},
		{"", []string{"s3a://bucket/a", "/b"}, false},
		{"", []string{"-fs", "hdfs://nn", "/a", "/b"}, false},
		{"", []string{"-m", "3", "-bandwidth", "10", "/a", "/b"}, true},
		{"", []string{"-bogus", "/a", "hdfs://nn/b"}, false},
		{"", []string{"-bogus", "/a", "/b"}, true},
	}
	for _, tt := range tests {
		if got := distcpIsLocal(tt.args, tt.nn, t.TempDir()); got != tt.local {
			t.Errorf("nn %q args %q: local = %v, want %v", tt.nn, tt.args, got, tt.local)
		}
	}
}
