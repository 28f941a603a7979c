package cli

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildExample copies an example application that ships sources and a
// build.sh (examples/apps/java-main) into a temporary directory, runs
// build.sh there and returns the copy's path, so that no built jar is
// needed in, or left in, the repository. The test is skipped without a
// JDK.
func buildExample(t *testing.T, app string) string {
	t.Helper()
	for _, tool := range []string{"javac", "jar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: %s builds a jar with the JDK", tool, app)
		}
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(app))
	err := filepath.WalkDir(app, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(app, p)
		if d.IsDir() && (rel == "lib" || rel == "build") {
			return filepath.SkipDir // a local build of the repository's copy
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(filepath.Join(dst, "build.sh")).CombinedOutput(); err != nil {
		t.Fatalf("%s/build.sh: %v\n%s", app, err, out)
	}
	return dst
}

// TestRunJavaMain runs the java-main example through `gozie run`: the java
// action runs the main class of the jar in lib/, and its captured output
// reaches the workflow (the decision checks the counts).
func TestRunJavaMain(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	repoRoot(t)
	app := buildExample(t, "examples/apps/java-main")
	runJavaMain(t, app, "greeting=hello")
}

// TestRunJavaMainLauncher: the <launcher> element of schema 1.0 reaches
// the JVM (its java-opts become oozie.launcher.javaopts), used when the
// action has no <java-opts> of its own.
func TestRunJavaMainLauncher(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	repoRoot(t)
	app := buildExample(t, "examples/apps/java-main")
	wf := filepath.Join(app, "workflow.xml")
	b, err := os.ReadFile(wf)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "<java-opts>-Dstats.greeting=hello</java-opts>", "", 1)
	s = strings.Replace(s, "<configuration>", "<launcher><java-opts>-Dstats.greeting=from-launcher</java-opts></launcher>\n            <configuration>", 1)
	if s == string(b) || !strings.Contains(s, "<launcher>") {
		t.Fatal("example workflow changed: cannot add <launcher>")
	}
	if err := os.WriteFile(wf, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	runJavaMain(t, app, "greeting=from-launcher")
}

// runJavaMain runs the java-main example from app and checks the captured
// output of its java action.
func runJavaMain(t *testing.T, app, greeting string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := runRun([]string{"-config", "examples/apps/java-main/job.properties", "-D", "oozie.wf.application.path=" + app,
		"-data", t.TempDir(), "-json"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	var job struct {
		Status  string `json:"status"`
		Actions []struct {
			Name, Type, Status, Data string
		} `json:"actions"`
	}
	if err := json.Unmarshal(out.Bytes(), &job); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if job.Status != "SUCCEEDED" {
		t.Fatalf("status %s\n%s", job.Status, out.String())
	}
	for _, a := range job.Actions {
		if a.Name == "stats" {
			if a.Type != "java" || a.Status != "OK" {
				t.Errorf("stats: type %s status %s", a.Type, a.Status)
			}
			for _, kv := range []string{"lines=3", "words=9", "label=example", greeting} {
				if !strings.Contains(a.Data, kv) {
					t.Errorf("stats data %q lacks %s", a.Data, kv)
				}
			}
			return
		}
	}
	t.Fatalf("no stats action in %s", out.String())
}

// TestRunJavaMainFails: a java action whose main class is not on the
// class path fails the job with JA018 naming the class and the stderr
// file.
func TestRunJavaMainFails(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	repoRoot(t)
	app := buildExample(t, "examples/apps/java-main")
	if err := os.RemoveAll(filepath.Join(app, "lib")); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := runRun([]string{"-config", "examples/apps/java-main/job.properties", "-D", "oozie.wf.application.path=" + app,
		"-data", t.TempDir()}, &out, &errOut)
	if code == 0 {
		t.Fatalf("job succeeded without its jar:\n%s", out.String())
	}
	for _, want := range []string{"JA018", "ClassNotFoundException: Class org.gozie.examples.LineStats not found", "/stderr"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}
