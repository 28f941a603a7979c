package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/smtptest"
)

// runLauncherEnv makes this test binary act as `gozie launch` when the
// shell executor starts it as the launcher (os.Executable() "launch" DIR).
const runLauncherEnv = "GZTEST_CLI_AS_LAUNCHER" // not GOZIE_*: built-in tools run as steps, which never get those

func TestMain(m *testing.M) {
	if os.Getenv(runLauncherEnv) == "1" {
		args := os.Args[1:]
		if len(args) > 0 && args[0] == "launch" {
			args = args[1:]
		}
		os.Exit(runLaunch(args, os.Stdout, os.Stderr))
	}
	os.Setenv(runLauncherEnv, "1")
	// A `gozie run` that fails keeps its temporary data directory for
	// the user to read; the tests' failing runs keep theirs here, removed
	// at the end, not in the machine's /tmp.
	tmp, err := os.MkdirTemp("", "gozie-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", tmp)
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// repoRoot makes the test run from the repository root, where the example
// job.properties files expect to be started.
func repoRoot(t *testing.T) {
	t.Helper()
	t.Chdir(filepath.Join("..", ".."))
}

func TestRunExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	repoRoot(t)
	apps, err := filepath.Glob("examples/apps/*/job.properties")
	if err != nil || len(apps) == 0 {
		t.Fatalf("no example apps: %v", err)
	}
	for _, p := range apps {
		app := filepath.Dir(p)
		t.Run(filepath.Base(app), func(t *testing.T) {
			args := []string{"-config", p, "-data", t.TempDir()}
			if _, err := os.Stat(filepath.Join(app, "coordinator.xml")); err == nil {
				// Coordinators are refused with a pointer to dryrun and the
				// server; TestDryrun* and the server tests run them.
				var out, errOut bytes.Buffer
				if code := runRun(args, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "gozie dryrun") {
					t.Fatalf("coordinator app: exit %d, stderr %q; want %d and a pointer to gozie dryrun", code, errOut.String(), exitUsage)
				}
				return
			}
			// A shell action runs in its own work directory, so a relative
			// input path that fs:* functions resolve from the current
			// directory must be made absolute for cp to find it.
			// An app that ships sources runs from a built copy.
			if _, err := os.Stat(filepath.Join(app, "build.sh")); err == nil {
				args = append(args, "-D", "oozie.wf.application.path="+buildExample(t, app))
			}
			// The email example needs a mail server: one of the test's own.
			if filepath.Base(app) == "email" {
				_, site := emailExampleSite(t, smtptest.Options{})
				args = append(args, "-site", site)
			}
			if data := filepath.Join(app, "data"); filepath.Base(app) == "decision-filesize" {
				abs, _ := filepath.Abs(data)
				args = append(args, "-D", "inputDir="+abs)
			}
			if filepath.Base(app) == "ssh" {
				localSSHD(t, app)
			}
			var out, errOut bytes.Buffer
			code := runRun(args, &out, &errOut)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
			}
			if !strings.Contains(out.String(), "Status : SUCCEEDED") {
				t.Fatalf("summary:\n%s", out.String())
			}
		})
	}
}

// localSSHD starts the private sshd of the ssh example (its
// local-sshd.sh) for one test and points gozie.ssh.config.file at it; the
// test skips where OpenSSH's server is not installed.
func localSSHD(t *testing.T, app string) {
	t.Helper()
	if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
		t.Skip("sshd is not installed: apt-get install -y openssh-server to run the ssh example")
	}
	script := filepath.Join(app, "local-sshd.sh")
	t.Setenv("GOZIE_SSH_EXAMPLE_DIR", t.TempDir())
	out, err := exec.Command(script, "start").Output()
	if err != nil {
		t.Fatalf("%s start: %v", script, err)
	}
	t.Cleanup(func() { _ = exec.Command(script, "stop").Run() })
	m := regexp.MustCompile(`export GOZIE_SSH_CONFIG_FILE='([^']+)'`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("%s start printed %q", script, out)
	}
	t.Setenv("GOZIE_SSH_CONFIG_FILE", string(m[1]))
}

func TestRunJSON(t *testing.T) {
	repoRoot(t)
	var out, errOut bytes.Buffer
	code := runRun([]string{"-config", "examples/apps/shell-capture/job.properties", "-json"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var job map[string]any
	if err := json.Unmarshal(out.Bytes(), &job); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	for _, k := range []string{"id", "appName", "appPath", "externalId", "parentId", "conf", "status", "lastModTime",
		"createdTime", "startTime", "endTime", "user", "group", "acl", "run", "consoleUrl", "actions", "toString"} {
		if _, ok := job[k]; !ok {
			t.Errorf("job object lacks key %q", k)
		}
	}
	if job["status"] != "SUCCEEDED" || job["run"] != float64(0) {
		t.Errorf("status %v run %v", job["status"], job["run"])
	}
	gmt := regexp.MustCompile(`^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$`)
	for _, k := range []string{"createdTime", "startTime", "endTime", "lastModTime"} {
		if s, _ := job[k].(string); !gmt.MatchString(s) {
			t.Errorf("%s = %v, want EEE, dd MMM yyyy HH:mm:ss GMT", k, job[k])
		}
	}
	if !regexp.MustCompile(`^\d{7}-\d{15}-.{1,10}-W$`).MatchString(job["id"].(string)) {
		t.Errorf("id %v is not in Oozie's format", job["id"])
	}
	acts, _ := job["actions"].([]any)
	types := map[string]string{}
	for _, a := range acts {
		m := a.(map[string]any)
		for _, k := range []string{"id", "name", "cred", "type", "conf", "status", "retries", "startTime", "endTime",
			"transition", "data", "stats", "externalChildIDs", "externalId", "externalStatus", "trackerUri",
			"consoleUrl", "errorCode", "errorMessage", "userRetryInterval", "userRetryCount", "userRetryMax", "toString"} {
			if _, ok := m[k]; !ok {
				t.Errorf("action object lacks key %q", k)
			}
		}
		// Issue 14 point 11: a shell step's external id is short, as a
		// server shows it.
		if m["type"] == "shell" && !regexp.MustCompile(`^local:\d+$`).MatchString(fmt.Sprint(m["externalId"])) {
			t.Errorf("shell step %v: externalId %v, want local:<pid>", m["name"], m["externalId"])
		}
		types[m["name"].(string)] = m["type"].(string)
	}
	want := map[string]string{":start:": ":START:", "probe": "shell", "check": "switch", "report": "shell", "end": ":END:"}
	for n, ty := range want {
		if types[n] != ty {
			t.Errorf("node %s type %q, want %q (all: %v)", n, types[n], ty, types)
		}
	}
}

func TestRunFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	shellWF := func(exec string) string {
		return `<workflow-app xmlns="uri:oozie:workflow:1.0" name="w"><start to="a"/>
			<action name="a"><shell xmlns="uri:oozie:shell-action:1.0"><resource-manager>local</resource-manager>
			<name-node>file:///</name-node><exec>` + exec + `</exec></shell><ok to="end"/><error to="fail"/></action>
			<kill name="fail"><message>[${wf:errorCode('a')}] ${wf:errorMessage('a')}</message></kill><end name="end"/></workflow-app>`
	}
	write("missing-exec/workflow.xml", shellWF("no-such-program-gozie"))
	write("slow/workflow.xml", strings.Replace(shellWF("sleep"), "</exec>", "</exec><argument>30</argument>", 1))
	write("missing-prop/workflow.xml", shellWF("${undefinedProperty}"))
	write("bad-xml/workflow.xml", "<workflow-app")
	cases := []struct {
		name    string
		args    []string
		code    int
		outText string // in stdout or stderr
	}{
		{"exec not found", []string{"-D", "oozie.wf.application.path=" + filepath.Join(dir, "missing-exec")}, 1, "KILLED"},
		{"missing property", []string{"-D", "oozie.wf.application.path=" + filepath.Join(dir, "missing-prop")}, 1, "variable [undefinedProperty] cannot be resolved"},
		{"invalid workflow.xml", []string{"-D", "oozie.wf.application.path=" + filepath.Join(dir, "bad-xml")}, 1, "E0701"},
		{"unreadable app path", []string{"-D", "oozie.wf.application.path=" + filepath.Join(dir, "nothing-here")}, 1, "E0504"},
		{"timeout kills the job", []string{"-timeout", "300ms", "-D", "oozie.wf.application.path=" + filepath.Join(dir, "slow")}, 1, "Status : KILLED"},
		// Issue 14 point 9: plain words, not "context deadline exceeded".
		{"timeout says so", []string{"-timeout", "300ms", "-D", "oozie.wf.application.path=" + filepath.Join(dir, "slow")}, 1, "has not ended within -timeout 300ms; killing it"},
		{"no properties", nil, 2, "-config"},
		{"missing config file", []string{"-config", filepath.Join(dir, "none.properties")}, 2, "none.properties"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runRun(c.args, &out, &errOut)
			all := out.String() + errOut.String()
			if code != c.code || !strings.Contains(all, c.outText) {
				t.Fatalf("exit %d, want %d with %q in:\n%s", code, c.code, c.outText, all)
			}
		})
	}
}
