package hadoop

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"
)

// gitRun runs git in dir with a fixed identity and no user configuration.
func gitRun(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// bareRepo creates a bare repository with a main branch (README) and a
// feature branch (README, feature.txt) and returns its file:// URI.
func bareRepo(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	bare := filepath.Join(root, "origin.git")
	gitRun(t, root, "init", "-q", "--bare", "-b", "main", bare)
	src := filepath.Join(root, "src")
	gitRun(t, root, "init", "-q", "-b", "main", src)
	os.WriteFile(filepath.Join(src, "README"), []byte("hello\n"), 0o644)
	gitRun(t, src, "add", "README")
	gitRun(t, src, "commit", "-q", "-m", "first")
	gitRun(t, src, "remote", "add", "origin", bare)
	gitRun(t, src, "push", "-q", "origin", "main")
	gitRun(t, src, "checkout", "-q", "-b", "feature")
	os.WriteFile(filepath.Join(src, "feature.txt"), []byte("feature\n"), 0o644)
	gitRun(t, src, "add", "feature.txt")
	gitRun(t, src, "commit", "-q", "-m", "feature")
	gitRun(t, src, "push", "-q", "origin", "feature")
	return "file://" + bare
}

func TestGitAction(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	uri := bareRepo(t)
	out := t.TempDir()
	launchtest.MkTree(t, out, "full/stale.txt", "empty/")
	key := filepath.Join(t.TempDir(), "id_test")
	os.WriteFile(key, []byte("not a real key\n"), 0o644)

	tests := []struct {
		name, body string
		status     action.Status
		code, msg  string
		check      func(t *testing.T, a *action.Context)
	}{
		{name: "branch", body: launchtest.GitBody(`<git-uri>` + uri + `</git-uri><branch>feature</branch><destination-uri>file://` + out + `/feature</destination-uri>`),
			status: action.OK, check: func(t *testing.T, a *action.Context) {
				dest := filepath.Join(out, "feature")
				if !launch.Exists(filepath.Join(dest, "feature.txt")) || !launch.Exists(filepath.Join(dest, "README")) {
					t.Error("feature branch not checked out")
				}
				if b := gitRun(t, dest, "rev-parse", "--abbrev-ref", "HEAD"); b != "feature" {
					t.Errorf("HEAD = %s", b)
				}
				if r := gitRun(t, dest, "branch", "-r"); strings.Contains(r, "main") {
					t.Errorf("not a single-branch clone: %s", r)
				}
				if got := recordedSpec(t, a).Args; strings.Join(got, " ") != "clone --branch feature --single-branch -- "+uri+" "+dest {
					t.Errorf("args = %q", got)
				}
			}},
		{name: "default branch into an empty directory", body: launchtest.GitBody(`<git-uri>` + uri + `</git-uri><destination-uri>` + out + `/empty</destination-uri>`),
			status: action.OK, check: func(t *testing.T, a *action.Context) {
				if !launch.Exists(filepath.Join(out, "empty/README")) || launch.Exists(filepath.Join(out, "empty/feature.txt")) {
					t.Error("main branch not checked out")
				}
			}},
		{name: "prepare empties the destination", body: launchtest.GitBody(`<prepare><delete path="` + out + `/full"/></prepare><git-uri>` + uri + `</git-uri><destination-uri>` + out + `/full</destination-uri>`),
			status: action.OK, check: func(t *testing.T, a *action.Context) {
				if launch.Exists(filepath.Join(out, "full/stale.txt")) || !launch.Exists(filepath.Join(out, "full/README")) {
					t.Error("prepare did not run before the clone")
				}
			}},
		{name: "no such repository", body: launchtest.GitBody(`<git-uri>file://` + out + `/nothere.git</git-uri><destination-uri>` + out + `/x</destination-uri>`),
			status: action.Error, code: "JA018", msg: "Main class [org.apache.oozie.action.hadoop.GitMain], exit code [128]"},
		{name: "key for ssh", body: launchtest.GitBody(`<git-uri>` + uri + `</git-uri><key-path>` + key + `</key-path><destination-uri>` + out + `/withkey</destination-uri>`),
			status: action.OK, check: func(t *testing.T, a *action.Context) {
				k := filepath.Join(a.WorkDir, gitKeyFile)
				if fi, err := os.Stat(k); err != nil || fi.Mode().Perm() != 0o600 {
					t.Errorf("key copy: %v %v", fi, err)
				}
				want := "GIT_SSH_COMMAND=ssh -i '" + k + "' -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=accept-new"
				if env := strings.Join(recordedSpec(t, a).Env, "\n"); !strings.Contains(env, want) || !strings.Contains(env, "GIT_TERMINAL_PROMPT=0") {
					t.Errorf("env = %s", env)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := action.NewRegistry()
			launch.RegisterBuiltins(r, launchtest.Launcher(t))
			e, _ := r.Lookup("git")
			a, notified := launchtest.ToolAction(t, "git", t.TempDir(), tt.body, nil)
			res := launchtest.RunToEnd(t, e, a, notified)
			if res.Status != tt.status || res.ErrorCode != tt.code || !strings.Contains(res.ErrorMessage, tt.msg) {
				t.Errorf("result = %+v; want %s %s %q", res, tt.status, tt.code, tt.msg)
			}
			if tt.check != nil {
				tt.check(t, a)
			}
		})
	}
}

func TestGitStartErrors(t *testing.T) {
	uri := bareRepo(t)
	out := t.TempDir()
	launchtest.MkTree(t, out, "full/stale.txt")
	tests := []struct{ name, body, code, msg string }{
		{"destination not empty", launchtest.GitBody(`<git-uri>` + uri + `</git-uri><destination-uri>file://` + out + `/full</destination-uri>`), "JA018", "already exists and is not empty"},
		{"destination on hdfs", launchtest.GitBody(`<git-uri>` + uri + `</git-uri><destination-uri>hdfs://nn:8020/x</destination-uri>`), "E0904", "hdfs"},
		{"relative destination", launchtest.GitBody(`<git-uri>` + uri + `</git-uri><destination-uri>rel/x</destination-uri>`), "FS011", "not an absolute path"},
		{"no git-uri", launchtest.GitBody(`<destination-uri>` + out + `/y</destination-uri>`), "GIT010", "git-uri"},
		{"missing key", launchtest.GitBody(`<git-uri>` + uri + `</git-uri><key-path>` + out + `/nokey</key-path><destination-uri>` + out + `/z</destination-uri>`), "JA008", "nokey"},
	}
	r := action.NewRegistry()
	launch.RegisterBuiltins(r, launchtest.Launcher(t))
	e, _ := r.Lookup("git")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _ := launchtest.ToolAction(t, "git", t.TempDir(), tt.body, nil)
			_, err := e.Start(context.Background(), a)
			xe, ok := err.(*action.ExecError)
			if !ok || xe.Code != tt.code || !strings.Contains(xe.Msg, tt.msg) {
				t.Fatalf("err = %v, want %s %q", err, tt.code, tt.msg)
			}
		})
	}
	if !launch.Exists(filepath.Join(out, "full/stale.txt")) || launch.Exists(filepath.Join(out, "full/README")) {
		t.Error("the existing destination was changed")
	}
}

// recordedSpec reads the launch spec the executor wrote.
func recordedSpec(t testing.TB, a *action.Context) launch.LaunchSpec {
	t.Helper()
	var spec launch.LaunchSpec
	b, err := os.ReadFile(filepath.Join(a.WorkDir, launch.SpecFile))
	if err == nil {
		err = json.Unmarshal(b, &spec)
	}
	if err != nil {
		t.Fatal(err)
	}
	return spec
}
