package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/jobs"
	"github.com/gozie/gozie/internal/server"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// startServer runs gozie's real server in-process on a temporary SQLite
// store and returns its /oozie URL.
func startServer(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, err := sqlite.Open(ctx, filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	reg := action.NewRegistry()
	action.RegisterBuiltins(reg, action.Options{})
	e, err := engine.New(engine.Options{Store: st, Actions: reg, DataDir: dir, DefaultUser: "tester",
		PollInterval: 50 * time.Millisecond, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	coords := coordengine.New(e, e.Runtime(), coordengine.Options{})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	var srvURL string
	s, err := server.New(server.Options{Engine: jobs.New(e, coords), Coordinators: coords, DataDir: dir, Logf: t.Logf,
		Auth:    server.AuthOptions{Secret: []byte("e2e-secret"), AnonymousReads: true},
		BaseURL: "http://placeholder/oozie"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	srvURL = hs.URL + "/oozie"
	return srvURL
}

// TestEndToEnd runs a tiny fs-only workflow through the real server with
// the CLI: -run prints the job id, -info is polled until SUCCEEDED, and the
// workflow's mkdir really happened.
func TestEndToEnd(t *testing.T) {
	pinEnv(t)
	url := startServer(t)
	app := t.TempDir()
	made := filepath.Join(app, "made")
	wf := `<workflow-app xmlns="uri:oozie:workflow:0.5" name="e2e-fs">
    <start to="mk"/>
    <action name="mk">
        <fs><mkdir path="${outDir}"/></fs>
        <ok to="end"/>
        <error to="fail"/>
    </action>
    <kill name="fail"><message>mkdir failed</message></kill>
    <end name="end"/>
</workflow-app>
`
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	props := filepath.Join(app, "job.properties")
	text := "oozie.wf.application.path=file://" + app + "\noutDir=file://" + made + "\n"
	if err := os.WriteFile(props, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}

	var stdout, stderr bytes.Buffer
	if code := Main([]string{"job", "-oozie", url, "-config", props, "-run"}, &stdout, &stderr); code != 0 {
		t.Fatalf("job -run: exit %d: %s", code, stderr.String())
	}
	m := regexp.MustCompile(`^job: (\S+-W)\n$`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("job -run printed %q", stdout.String())
	}
	id := m[1]

	deadline := time.Now().Add(30 * time.Second)
	var info string
	for {
		stdout.Reset()
		stderr.Reset()
		if code := Main([]string{"job", "-oozie", url, "-info", id}, &stdout, &stderr); code != 0 {
			t.Fatalf("job -info: exit %d: %s", code, stderr.String())
		}
		info = stdout.String()
		if strings.Contains(info, "Status        : SUCCEEDED") {
			break
		}
		if strings.Contains(info, "Status        : KILLED") || strings.Contains(info, "Status        : FAILED") {
			t.Fatalf("job ended badly:\n%s", info)
		}
		if time.Now().After(deadline) {
			t.Fatalf("job did not succeed in time:\n%s", info)
		}
		time.Sleep(50 * time.Millisecond) // polling a condition, not timing it
	}
	for _, want := range []string{"Job ID : " + id, "Workflow Name : e2e-fs", "User          : tester",
		id + "@mk", "Actions"} {
		if !strings.Contains(info, want) {
			t.Errorf("-info lacks %q:\n%s", want, info)
		}
	}
	if _, err := os.Stat(made); err != nil {
		t.Errorf("the workflow's mkdir did not happen: %v", err)
	}

	// Other read commands against the real server: each exits 0 and
	// prints what identifies its answer.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"admin", "-status"}, "System mode: NORMAL\n"},
		{[]string{"admin", "-version"}, "Oozie server build version: {"},
		{[]string{"job", "-definition", id}, `name="e2e-fs"`},
		{[]string{"job", "-info", id + "@mk"}, "Status            : OK\n"},
		{[]string{"job", "-info", id, "-json"}, `"appName":"e2e-fs"`},
		{[]string{"jobs", "-verbose", "-filter", "status=SUCCEEDED"}, id + "\te2e-fs\t"},
		{[]string{"job", "-log", id}, ""},
	} {
		stdout.Reset()
		stderr.Reset()
		code := Main(append(tc.args, "-oozie", url), &stdout, &stderr)
		t.Logf("%v:\n%s", tc.args, stdout.String())
		if code != 0 || !strings.Contains(stdout.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q, stdout lacks %q:\n%s", tc.args, code, stderr.String(), tc.want, stdout.String())
		}
	}

	// -submit leaves the job in PREP; -kill ends it KILLED.
	stdout.Reset()
	if code := Main([]string{"job", "-oozie", url, "-config", props, "-submit", "-debug"}, &stdout, &stderr); code != 0 {
		t.Fatalf("job -submit: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "POST "+url+"/v2/jobs?user=tester") {
		t.Errorf("-debug did not print the request:\n%s", stderr.String())
	}
	prep := strings.TrimPrefix(strings.TrimSpace(stdout.String()), "job: ")
	if got := e2eStatus(t, url, prep); got != "PREP" {
		t.Errorf("submitted job is %s, want PREP", got)
	}
	if code := Main([]string{"job", "-oozie", url, "-kill", prep}, &stdout, &stderr); code != 0 {
		t.Fatalf("job -kill: exit %d: %s", code, stderr.String())
	}
	if got := e2eStatus(t, url, prep); got != "KILLED" {
		t.Errorf("killed job is %s", got)
	}

	// In safe mode the server refuses changes: the CLI reports E0002, 255.
	for _, mode := range []string{"safemode", "normal"} {
		stdout.Reset()
		if code := Main([]string{"admin", "-oozie", url, "-systemmode", mode}, &stdout, &stderr); code != 0 {
			t.Fatalf("admin -systemmode %s: exit %d: %s", mode, code, stderr.String())
		}
		if mode != "safemode" {
			continue
		}
		stderr.Reset()
		code := Main([]string{"job", "-oozie", url, "-config", props, "-run"}, &stdout, &stderr)
		if code != 255 || !strings.HasPrefix(stderr.String(), "Error: E0002 : ") {
			t.Errorf("-run in safe mode: exit %d, stderr %q", code, stderr.String())
		}
	}

	// The job is listed, and an unknown id is E0604 with exit 255.
	stdout.Reset()
	if code := Main([]string{"jobs", "-oozie", url}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), id) {
		t.Errorf("jobs: exit %d, output:\n%s%s", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	missing := "0000999-260101000000000-oozie-root-W"
	code := Main([]string{"job", "-oozie", url, "-info", missing}, &stdout, &stderr)
	if code != 255 || !strings.HasPrefix(stderr.String(), "Error: E0604 : E0604: Job does not exist [") {
		t.Errorf("unknown id: exit %d, stderr %q", code, stderr.String())
	}
}

// e2eStatus reads a job's status through `gozie job -info -json`.
func e2eStatus(t *testing.T, url, id string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"job", "-oozie", url, "-info", id, "-json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("job -info %s: exit %d: %s", id, code, stderr.String())
	}
	var v struct{ Status string }
	if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
		t.Fatalf("job -info -json: %v: %s", err, stdout.String())
	}
	return v.Status
}

// BenchmarkJobInfo measures one `gozie job -info` against the real
// in-process server: client set-up, version negotiation, the SIMPLE
// handshake, the request and the formatting.
func BenchmarkJobInfo(b *testing.B) {
	url := startServer(b)
	app := b.TempDir()
	wf := `<workflow-app xmlns="uri:oozie:workflow:0.5" name="bench"><start to="end"/><end name="end"/></workflow-app>`
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(wf), 0o644); err != nil {
		b.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"job", "-oozie", url, "-D", "oozie.wf.application.path=file://" + app, "-run"}, &stdout, &stderr); code != 0 {
		b.Fatalf("exit %d: %s", code, stderr.String())
	}
	id := strings.TrimSpace(strings.TrimPrefix(stdout.String(), "job: "))
	for b.Loop() {
		stdout.Reset()
		if code := Main([]string{"job", "-oozie", url, "-info", id}, &stdout, &stderr); code != 0 {
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
}
