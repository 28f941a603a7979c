package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/gozietest"
	"github.com/gozie/gozie/internal/server"
)

// These tests drive gozie's real server (engine on a temporary SQLite
// store, in-process HTTP) through the client, as the oozie command and Hue
// would: submit, run, poll, list, authorization, system mode.

// fsWorkflow is a one-action workflow that creates a directory: it needs no
// process launcher, so it runs anywhere the tests run.
const fsWorkflow = `<workflow-app xmlns="uri:oozie:workflow:0.5" name="mk">
  <start to="mk"/>
  <action name="mk"><fs><mkdir path="${dir}"/></fs><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>failed</message></kill>
  <end name="end"/>
</workflow-app>`

type site struct {
	url string
	dir string
	app string
}

func startSite(t *testing.T) *site {
	t.Helper()
	srv := gozietest.NewServer(t, gozietest.Options{SystemID: "oozie-test", PollInterval: 20 * time.Millisecond,
		BaseURL: "http://placeholder/oozie", Auth: &server.AuthOptions{Secret: []byte("client-test"), AnonymousReads: true,
			Authorization: true, AdminUsers: []string{"root"}}})
	dir := srv.DataDir
	app := filepath.Join(dir, "app")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(fsWorkflow), 0o644); err != nil {
		t.Fatal(err)
	}
	return &site{url: srv.URL, dir: dir, app: app}
}

func (s *site) client(user string) *client.Client {
	return client.New(s.url, client.Options{User: user})
}

// jobConf is the configuration of one run of the fs workflow.
func (s *site) jobConf(user, out string, extra ...string) *conf.Config {
	c := conf.New()
	c.Set("user.name", user)
	c.Set("oozie.wf.application.path", s.app)
	c.Set("dir", filepath.Join(s.dir, "out", out))
	for i := 0; i+1 < len(extra); i += 2 {
		c.Set(extra[i], extra[i+1])
	}
	return c
}

// waitStatus polls a workflow until it reaches want or a terminal status.
func waitStatus(t *testing.T, c *client.Client, id, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := c.JobStatus(context.Background(), id)
		if err != nil {
			t.Fatalf("status of %s: %v", id, err)
		}
		if st == want {
			return
		}
		if st == "SUCCEEDED" || st == "FAILED" || st == "KILLED" || time.Now().After(deadline) {
			t.Fatalf("%s ended %s, want %s", id, st, want)
		}
		time.Sleep(10 * time.Millisecond) // polling a condition, not timing a result
	}
}

// keysOf returns the sorted keys of a JSON object.
func keysOf(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %v: %s", err, raw)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sorted(s ...string) []string { sort.Strings(s); return s }

// The key sets of rest-api.md 5.1 and 5.2, every row (rows naming several
// keys expanded).
var (
	workflowJobKeys = sorted("id", "appName", "appPath", "externalId", "parentId", "conf", "status",
		"lastModTime", "createdTime", "startTime", "endTime", "user", "group", "acl", "run", "consoleUrl",
		"actions", "toString")
	workflowActionKeys = sorted("id", "name", "cred", "type", "conf", "status", "retries", "startTime",
		"endTime", "transition", "data", "stats", "externalChildIDs", "externalId", "externalStatus",
		"trackerUri", "consoleUrl", "errorCode", "errorMessage", "userRetryInterval", "userRetryCount",
		"userRetryMax", "toString")
)

func TestRunThroughClient(t *testing.T) {
	s := startSite(t)
	ctx := context.Background()
	c := s.client("joe")
	id, _, err := c.Submit(ctx, s.jobConf("joe", "a"), true)
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, id, "SUCCEEDED")
	if _, err := os.Stat(filepath.Join(s.dir, "out", "a")); err != nil {
		t.Errorf("the workflow's mkdir did not happen: %v", err)
	}
	job, raw, err := c.WorkflowInfo(ctx, id, client.InfoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := keysOf(t, raw); !slices.Equal(got, workflowJobKeys) {
		t.Errorf("workflow job keys\n got %v\nwant %v", got, workflowJobKeys)
	}
	if job.Status != "SUCCEEDED" || job.User != "joe" || job.AppName != "mk" {
		t.Errorf("job = %s %s %s", job.Status, job.User, job.AppName)
	}
	var withActions struct {
		Actions []json.RawMessage `json:"actions"`
	}
	if err := json.Unmarshal(raw, &withActions); err != nil || len(withActions.Actions) == 0 {
		t.Fatalf("no actions: %v %s", err, raw)
	}
	for _, a := range withActions.Actions {
		if got := keysOf(t, a); !slices.Equal(got, workflowActionKeys) {
			t.Errorf("workflow action keys\n got %v\nwant %v", got, workflowActionKeys)
		}
	}
	if _, raw, err := c.WorkflowActionInfo(ctx, id+"@mk"); err != nil {
		t.Errorf("action info: %v", err)
	} else if got := keysOf(t, raw); !slices.Equal(got, workflowActionKeys) {
		t.Errorf("action info keys %v", got)
	}
	list, _, err := c.Jobs(ctx, client.ListOptions{Filter: "user=joe"})
	if err != nil {
		t.Fatal(err)
	}
	if list.Total != 1 || len(list.Workflows) != 1 || list.Workflows[0].ID != id {
		t.Errorf("jobs list = %+v", list)
	}
	log, err := c.JobLog(ctx, id, "log", client.LogOptions{})
	if err != nil || len(log) == 0 {
		t.Errorf("job log: %v %q", err, log)
	}
	svg, err := c.JobGraph(ctx, id, "svg", false, "")
	if err != nil || !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), ">mk<") {
		t.Errorf("graph: %v\n%.300s", err, svg)
	}
}

func TestErrorsThroughClient(t *testing.T) {
	s := startSite(t)
	ctx := context.Background()
	c := s.client("joe")
	cases := []struct {
		name   string
		call   func() error
		status int
		code   string
	}{
		{"unknown job", func() error {
			_, _, err := c.WorkflowInfo(ctx, "0000042-260101000000000-oozie-test-W", client.InfoOptions{})
			return err
		}, 400, "E0604"},
		{"unknown action", func() error {
			_, _, err := c.WorkflowActionInfo(ctx, "0000042-260101000000000-oozie-test-W@x")
			return err
		}, 400, "E0605"},
		{"missing app directory", func() error {
			cf := s.jobConf("joe", "x")
			cf.Set("oozie.wf.application.path", filepath.Join(s.dir, "nope"))
			_, _, err := c.Submit(ctx, cf, true)
			return err
		}, 400, "E0504"},
		{"system mode by a non-admin", func() error { return c.SetSystemMode(ctx, "SAFEMODE") }, 401, "E0503"},
	}
	for _, tc := range cases {
		err := tc.call()
		var ce *client.CallError
		if !errors.As(err, &ce) {
			t.Errorf("%s: error %v is not a *client.CallError", tc.name, err)
			continue
		}
		if ce.Status != tc.status || ce.Code != tc.code {
			t.Errorf("%s: got %d %s (%s), want %d %s", tc.name, ce.Status, ce.Code, ce.Message, tc.status, tc.code)
		}
	}
	// A configuration naming someone else is submitted as the
	// authenticated user, as Oozie does (the server's strict mode, not
	// set here, refuses it).
	id, _, err := c.Submit(ctx, s.jobConf("bob", "x"), false)
	if err != nil {
		t.Fatalf("submitting with user.name bob as joe: %v", err)
	}
	if j, _, err := c.WorkflowInfo(ctx, id, client.InfoOptions{}); err != nil || j.User != "joe" {
		t.Errorf("owner of a job submitted as joe naming bob: %+v %v", j, err)
	}
}

func TestAuthorizationThroughClient(t *testing.T) {
	s := startSite(t)
	ctx := context.Background()
	joe, bob, root := s.client("joe"), s.client("bob"), s.client("root")
	private, _, err := joe.Submit(ctx, s.jobConf("joe", "p"), false)
	if err != nil {
		t.Fatal(err)
	}
	shared, _, err := joe.Submit(ctx, s.jobConf("joe", "s", "oozie.job.acl", "bob"), false)
	if err != nil {
		t.Fatal(err)
	}
	var ce *client.CallError
	if err := bob.Kill(ctx, private); !errors.As(err, &ce) || ce.Code != "E0508" || ce.Status != 401 {
		t.Errorf("bob killing joe's job: %v, want 401 E0508", err)
	}
	if err := bob.Kill(ctx, shared); err != nil {
		t.Errorf("bob is in the job's ACL: %v", err)
	}
	if err := root.Kill(ctx, private); err != nil {
		t.Errorf("an admin may kill any job: %v", err)
	}
	for _, id := range []string{private, shared} {
		if st, err := joe.JobStatus(ctx, id); err != nil || st != "KILLED" {
			t.Errorf("%s: %s %v, want KILLED", id, st, err)
		}
	}
}

func TestSystemModeThroughClient(t *testing.T) {
	s := startSite(t)
	ctx := context.Background()
	root, joe := s.client("root"), s.client("joe")
	for _, tc := range []struct {
		mode      string
		submitErr string // oozie-error-code of a submission, "" when it is accepted
	}{
		{"SAFEMODE", "E0002"},
		{"NOWEBSERVICE", "E0002"},
		{"NORMAL", ""},
	} {
		if err := root.SetSystemMode(ctx, tc.mode); err != nil {
			t.Fatalf("%s: %v", tc.mode, err)
		}
		if got, _, err := joe.Status(ctx); err != nil || got != tc.mode {
			t.Errorf("status = %q %v, want %s", got, err, tc.mode)
		}
		_, _, err := joe.Submit(ctx, s.jobConf("joe", tc.mode), false)
		var ce *client.CallError
		switch {
		case tc.submitErr == "" && err != nil:
			t.Errorf("%s: submission refused: %v", tc.mode, err)
		case tc.submitErr != "" && (!errors.As(err, &ce) || ce.Code != tc.submitErr || ce.Status != 503):
			t.Errorf("%s: submission answered %v, want 503 %s", tc.mode, err, tc.submitErr)
		}
		// Reads keep working in every mode.
		if _, _, err := joe.Jobs(ctx, client.ListOptions{}); err != nil {
			t.Errorf("%s: jobs list: %v", tc.mode, err)
		}
	}
}

func TestConcurrentSubmissionsThroughClient(t *testing.T) {
	s := startSite(t)
	ctx := context.Background()
	const n = 20
	ids := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.client(fmt.Sprintf("user%d", i%3))
			ids[i], _, errs[i] = c.Submit(ctx, s.jobConf(fmt.Sprintf("user%d", i%3), fmt.Sprint(i)), true)
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	c := s.client("user0")
	for i, id := range ids {
		if errs[i] != nil {
			t.Fatalf("submission %d: %v", i, errs[i])
		}
		if seen[id] {
			t.Fatalf("id %s given twice", id)
		}
		seen[id] = true
		waitStatus(t, c, id, "SUCCEEDED")
	}
	list, _, err := c.Jobs(ctx, client.ListOptions{Len: 100})
	if err != nil || list.Total != n {
		t.Errorf("jobs total = %v %v, want %d", list, err, n)
	}
}

// The key sets of rest-api.md 5.3 and 5.4.
var (
	coordJobKeys = sorted("coordJobId", "coordJobName", "coordJobPath", "coordExternalId", "bundleId", "conf",
		"status", "executionPolicy", "frequency", "timeUnit", "timeZone", "concurrency", "timeOut", "lastAction",
		"nextMaterializedTime", "createdTime", "startTime", "endTime", "pauseTime", "user", "group", "acl",
		"consoleUrl", "mat_throttling", "actions", "total", "toString")
	coordActionKeys = sorted("id", "coordJobId", "type", "actionNumber", "createdConf", "createdTime",
		"nominalTime", "lastModifiedTime", "externalId", "status", "runConf", "missingDependencies",
		"pushMissingDependencies", "externalStatus", "trackerUri", "consoleUrl", "errorCode", "errorMessage",
		"toString")
)

// TestCoordinatorThroughClient runs an hourly coordinator of three actions
// in the past (no input events) to SUCCEEDED and checks the REST shapes.
func TestCoordinatorThroughClient(t *testing.T) {
	s := startSite(t)
	ctx := context.Background()
	coordApp := filepath.Join(s.dir, "coord")
	if err := os.MkdirAll(coordApp, 0o755); err != nil {
		t.Fatal(err)
	}
	def := `<coordinator-app name="hourly" frequency="${coord:hours(1)}" start="2026-01-01T00:00Z" end="2026-01-01T03:00Z"
    timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <controls><concurrency>3</concurrency></controls>
  <action><workflow><app-path>` + s.app + `</app-path>
    <configuration><property><name>dir</name>
      <value>` + filepath.Join(s.dir, "out") + `/${coord:formatTime(coord:nominalTime(), 'HH')}</value></property></configuration>
  </workflow></action>
</coordinator-app>`
	if err := os.WriteFile(filepath.Join(coordApp, "coordinator.xml"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	c := s.client("joe")
	cf := conf.New()
	cf.Set("user.name", "joe")
	cf.Set("oozie.coord.application.path", coordApp)
	id, _, err := c.Submit(ctx, cf, true)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	var job *client.CoordJob
	var raw json.RawMessage
	for {
		job, raw, err = c.CoordInfo(ctx, id, client.InfoOptions{Len: 10})
		if err != nil {
			t.Fatal(err)
		}
		if job.Status == "SUCCEEDED" || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // polling a condition
	}
	if job.Status != "SUCCEEDED" {
		t.Fatalf("coordinator %s ended %s: %s", id, job.Status, raw)
	}
	if got := keysOf(t, raw); !slices.Equal(got, coordJobKeys) {
		t.Errorf("coordinator job keys\n got %v\nwant %v", got, coordJobKeys)
	}
	var withActions struct {
		Actions []json.RawMessage `json:"actions"`
	}
	if err := json.Unmarshal(raw, &withActions); err != nil || len(withActions.Actions) != 3 {
		t.Fatalf("want 3 actions: %v %s", err, raw)
	}
	for _, a := range withActions.Actions {
		if got := keysOf(t, a); !slices.Equal(got, coordActionKeys) {
			t.Errorf("coordinator action keys\n got %v\nwant %v", got, coordActionKeys)
		}
	}
	for i, h := range []string{"00", "01", "02"} {
		a, _, err := c.CoordActionInfo(ctx, fmt.Sprintf("%s@%d", id, i+1))
		if err != nil {
			t.Fatal(err)
		}
		if a.Status != "SUCCEEDED" || a.ExternalID == "" {
			t.Errorf("action %d: %s, workflow %q", i+1, a.Status, a.ExternalID)
		}
		if _, err := os.Stat(filepath.Join(s.dir, "out", h)); err != nil {
			t.Errorf("hour %s: the action's workflow did not run: %v", h, err)
		}
	}
	list, _, err := c.Jobs(ctx, client.ListOptions{JobType: "coordinator"})
	if err != nil || list.Total != 1 || len(list.CoordinatorJobs) != 1 || list.CoordinatorJobs[0].CoordJobID != id {
		t.Errorf("coordinator list = %+v, %v", list, err)
	}
}
