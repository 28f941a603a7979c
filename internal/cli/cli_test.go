package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// run executes the command line and returns its exit status and streams.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Main(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// exampleWorkflows lists every workflow.xml under examples/apps, so a new
// example is checked without editing this test.
func exampleWorkflows(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir("../../examples/apps", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == "workflow.xml" {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("found %d example workflows, want at least 5: %v", len(files), files)
	}
	return files
}

func TestValidateExamples(t *testing.T) {
	for _, f := range exampleWorkflows(t) {
		t.Run(f, func(t *testing.T) {
			code, out, errOut := run(t, "validate", f)
			if code != 0 || out != "Valid workflow-app\n" {
				t.Fatalf("validate %s: exit %d, stdout %q, stderr %q", f, code, out, errOut)
			}
		})
	}
}

func TestValidateSeveralFilesPrefixesNames(t *testing.T) {
	files := exampleWorkflows(t)
	code, out, errOut := run(t, append([]string{"validate"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(files) {
		t.Fatalf("got %d lines for %d files:\n%s", len(lines), len(files), out)
	}
	for i, f := range files {
		if want := f + ": Valid workflow-app"; lines[i] != want {
			t.Errorf("line %d = %q, want %q", i, lines[i], want)
		}
	}
}

func TestValidateDirectory(t *testing.T) {
	code, out, errOut := run(t, "validate", "../../examples/apps/fork-join")
	if code != 0 || out != "Valid workflow-app\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// The invalid definitions the workflow specification names: a cycle, a fork
// without its join, a decision without default, a transition to nowhere.
func TestValidateInvalid(t *testing.T) {
	tests := []struct {
		file string
		args []string
		want []string // substrings of stderr
	}{
		{"cycle.xml", nil, []string{"E0707", "Loop detected at parsing", "node [a]"}},
		{"fork-without-join.xml", nil, []string{"E0730", "Fork/Join not in pair"}},
		{"missing-default.xml", nil, []string{"E0701", "default"}},
		{"transition-to-nowhere.xml", nil, []string{"E0708", "Invalid transition, node [a] transition [nowhere]"}},
		{"malformed.xml", nil, []string{"E0701", "line"}},
		{"undefined-cred.xml", nil, []string{"JA021", "Could not load credentials with name [hs2] for action [a]"}},
		{"unknown-cred-type.xml", nil, []string{"JA020", "type [vault]", "gozie.credentials.executable.vault"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			code, out, errOut := run(t, append(append([]string{"validate"}, tt.args...), path)...)
			if code != exitFail {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, exitFail, out, errOut)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing for an invalid file", out)
			}
			if !strings.HasPrefix(errOut, "Error: "+path+": ") {
				t.Errorf("stderr %q does not start with the file name", errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q does not contain %q", errOut, w)
				}
			}
		})
	}
}

// The job property oozie.wf.validate.ForkJoin=false accepts a fork that never
// joins, whether it comes from -config, -D or the joined -Dname=value form.
// A custom credential type configured with the properties (-D, as a
// -site or -config would give it) passes offline validation.
func TestValidateCustomCredentialType(t *testing.T) {
	code, out, errOut := run(t, "validate", "-D", "gozie.credentials.executable.vault=/opt/vault-cred", filepath.Join("testdata", "unknown-cred-type.xml"))
	if code != 0 || out != "Valid workflow-app\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestValidateForkJoinSwitch(t *testing.T) {
	path := filepath.Join("testdata", "fork-without-join.xml")
	for _, args := range [][]string{
		{"-config", "testdata/job-noforkjoin.properties", path},
		{"-D", "oozie.wf.validate.ForkJoin=false", path},
		{path, "-Doozie.wf.validate.ForkJoin=false"},
		{"-D", "oozie.validate.ForkJoin=false", path},
	} {
		code, out, errOut := run(t, append([]string{"validate"}, args...)...)
		if code != 0 || out != "Valid workflow-app\n" {
			t.Errorf("validate %v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	// A later -D wins over the -config file.
	code, _, errOut := run(t, "validate", "-config", "testdata/job-noforkjoin.properties",
		"-D", "oozie.wf.validate.ForkJoin=true", path)
	if code != exitFail || !strings.Contains(errOut, "E0730") {
		t.Errorf("-D true after -config false: exit %d, stderr %q; want E0730", code, errOut)
	}
}

func TestValidateUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no files", []string{"validate"}, exitUsage, "at least one file"},
		{"missing file", []string{"validate", "testdata/none.xml"}, exitFail, "file does not exist"},
		{"empty dir", []string{"validate", "testdata"}, exitFail, "holds none of"},
		{"bad flag", []string{"validate", "-nope", "x.xml"}, exitUsage, "flag provided but not defined"},
		{"bad define", []string{"validate", "-D", "novalue", "x.xml"}, exitUsage, ""},
		{"missing config", []string{"validate", "-config", "testdata/none.properties", "x.xml"}, exitUsage, "none.properties"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := run(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tt.code, errOut)
			}
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr %q does not contain %q", errOut, tt.want)
			}
		})
	}
}

func TestValidateNonWorkflowRoots(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, body, want string }{
		{"coordinator.xml", `<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="c"/>`, "E0701"},
		{"other.xml", `<configuration/>`, "E0701"},
		{"empty.xml", ``, "E0701"},
		{"garbage.xml", "\x00\x01<<<", "E0701"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := run(t, "validate", path)
			if code != exitFail || out != "" || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d stdout %q stderr %q; want exit 1 and %q", code, out, errOut, tt.want)
			}
		})
	}
}

func TestEval(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		out  string // exact stdout for success
		err  string // stderr substring for failure
	}{
		{"arithmetic", []string{"${1 + 2} and ${10 / 4}"}, 0, "3 and 2.5\n", ""},
		{"define", []string{"-D", "a=10", "${a / 4}"}, 0, "2.5\n", ""},
		{"joined define", []string{"-Da=10", "${a * 2}"}, 0, "20\n", ""},
		{"define after text", []string{"${a}", "-D", "a=x"}, 0, "x\n", ""},
		{"config file", []string{"-config", "../../examples/apps/decision-filesize/job.properties", "${threshold * KB}"}, 0, "1024\n", ""},
		{"hadoop expansion", []string{"-D", "base=/data", "-D", "out=${base}/out", "${out}"}, 0, "/data/out\n", ""},
		{"wf:conf dotted name", []string{"-D", "mapred.job.queue.name=etl", "${wf:conf('mapred.job.queue.name')}"}, 0, "etl\n", ""},
		{"wf:conf missing", []string{"[${wf:conf('nope')}]"}, 0, "[]\n", ""},
		{"dotted name is no variable", []string{"-D", "a.b=1", "${a.b}"}, exitFail, "", "variable [a] cannot be resolved"},
		{"basic function", []string{"-D", "day=2026-11-22", "${replaceAll(day, '-', '/')}"}, 0, "2026/11/22\n", ""},
		{"undefined variable", []string{"${missing}"}, exitFail, "", "variable [missing] cannot be resolved"},
		{"syntax error", []string{"${1 +}"}, exitFail, "", "E"},
		{"no text", nil, exitUsage, "", "exactly one EL text"},
		{"two texts", []string{"a", "b"}, exitUsage, "", "exactly one EL text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(t, append([]string{"eval"}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d (stdout %q stderr %q)", code, tt.code, out, errOut)
			}
			if tt.code == 0 && out != tt.out {
				t.Errorf("stdout %q, want %q", out, tt.out)
			}
			if tt.code != 0 && !strings.Contains(errOut, tt.err) {
				t.Errorf("stderr %q does not contain %q", errOut, tt.err)
			}
		})
	}
}

func TestMainDispatch(t *testing.T) {
	tests := []struct {
		args []string
		code int
		out  string
		err  string
	}{
		{nil, exitUsage, "", "Usage: gozie"},
		{[]string{"help"}, 0, "validate", ""},
		{[]string{"-help"}, 0, "Usage: gozie", ""},
		{[]string{"bogus"}, exitUsage, "", `unknown command "bogus"`},
		{[]string{"version"}, 0, "gozie ", ""},
		{[]string{"version", "x"}, exitUsage, "", "no arguments"},
		{[]string{"validate", "-help"}, 0, "", "Usage: gozie validate"},
		// issue 14 point 10: every way of asking for help works.
		{[]string{"-h"}, 0, "Usage: gozie", ""},
		{[]string{"help", "validate"}, 0, "Usage: gozie validate", ""},
		{[]string{"help", "job"}, 0, "Operations (exactly one):", ""},
		{[]string{"job", "-h"}, 0, "Options:", ""},
		{[]string{"run", "-h"}, 0, "", "Usage: gozie run"},
		{[]string{"version", "-h"}, 0, "Usage: gozie version", ""},
		{[]string{"launch", "-h"}, 0, "Usage: gozie launch", ""},
		{[]string{"help", "-h"}, 0, "Usage: gozie", ""},
		{[]string{"help", "bogus"}, exitUsage, "", `unknown command "bogus"`},
		{[]string{"sla"}, exitRemote, "", "-filter is required"},
		{[]string{"pig", "-file", "x.pig"}, exitUsage, "", "<pig> action"},
		{[]string{"mapreduce"}, exitUsage, "", "not supported by gozie: write a workflow with a <map-reduce> action"},
		{[]string{"help", "sla"}, 0, "Usage: gozie sla", ""},
		{[]string{"job", "-runjar", "x.jar"}, exitRemote, "", "-runjar is not supported by gozie"},
	}
	for _, tt := range tests {
		code, out, errOut := run(t, tt.args...)
		if code != tt.code || !strings.Contains(out, tt.out) || !strings.Contains(errOut, tt.err) {
			t.Errorf("%v: exit %d stdout %q stderr %q; want exit %d, stdout ~%q, stderr ~%q",
				tt.args, code, out, errOut, tt.code, tt.out, tt.err)
		}
	}
}

// TestMinutesFlag is issue 14 point 9: a -timeout or -interval takes
// minutes as a bare number everywhere, or a duration with a unit.
func TestMinutesFlag(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{"30", 30 * time.Minute, false},
		{"0", 0, false},
		{"90s", 90 * time.Second, false},
		{"1h30m", 90 * time.Minute, false},
		{"ten", 0, true},
		{"999999999999999", 0, true},
	}
	for _, tt := range tests {
		var m minutes
		err := m.Set(tt.in)
		if (err != nil) != tt.bad || (!tt.bad && m.d != tt.want) {
			t.Errorf("Set(%q) = %v, %v; want %v, error %v", tt.in, m.d, err, tt.want, tt.bad)
		}
	}
}

func TestSplitDefines(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"-Da=b"}, []string{"-D", "a=b"}},
		{[]string{"--Da=b"}, []string{"-D", "a=b"}},
		{[]string{"-D", "a=b"}, []string{"-D", "a=b"}},
		{[]string{"-D=x"}, []string{"-D=x"}},
		{[]string{"--", "-Da=b"}, []string{"--", "-Da=b"}},
		{[]string{"file", "-Dx.y=1=2"}, []string{"file", "-D", "x.y=1=2"}},
	}
	for _, tt := range tests {
		got := splitDefines(tt.in)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("splitDefines(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
