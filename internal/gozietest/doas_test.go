package gozietest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/gozietest"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"
)

// TestDoAsRunsAsProxiedUser is issue 30: hue, a proxy user, submits with
// -doas for the run-as test account; in run-as mode the job is that
// user's and its shell step runs with that user's uid (id -un inside the
// step), not hue's nor the server's.
func TestDoAsRunsAsProxiedUser(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run-as test: runs without -short")
	}
	launchtest.EnsureTestUser(t)
	root := launchtest.OpenDir(t)
	app := filepath.Join(root, "app")
	os.MkdirAll(app, 0o755)
	wf := `<workflow-app xmlns="uri:oozie:workflow:0.5" name="doas">
  <start to="who"/>
  <action name="who"><shell xmlns="uri:oozie:shell-action:0.3"><job-tracker>local</job-tracker><name-node>file:///</name-node>
    <exec>sh</exec><argument>-c</argument><argument>echo user=$(id -un)</argument><capture-output/></shell>
    <ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>failed</message></kill>
  <end name="end"/>
</workflow-app>`
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := action.NewRegistry()
	opts := launchtest.Launcher(t)
	opts.RunAsUser = true
	launch.RegisterBuiltins(reg, opts)
	srv := gozietest.NewServer(t, gozietest.Options{Registry: reg, Config: map[string]string{
		"gozie.launch.as.user":                                "true",
		"oozie.service.ProxyUserService.proxyuser.hue.hosts":  "localhost,127.0.0.1,::1",
		"oozie.service.ProxyUserService.proxyuser.hue.groups": "*",
	}})
	// The steps' work directories are under the data directory: the
	// test user must be able to traverse it, as on a real run-as server.
	for d := srv.DataDir; d != filepath.Dir(d) && strings.HasPrefix(d, os.TempDir()+"/"); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := client.New(srv.URL, client.Options{User: "hue", DoAs: launchtest.TestUser})
	cf := conf.New()
	cf.Set("user.name", launchtest.TestUser)
	cf.Set("oozie.wf.application.path", app)
	id, _, err := c.Submit(ctx, cf, true)
	if err != nil {
		t.Fatal(err)
	}
	for {
		st, err := c.JobStatus(ctx, id)
		if err == nil && st != "RUNNING" && st != "PREP" {
			if st != "SUCCEEDED" {
				a, _, _ := c.WorkflowActionInfo(ctx, id+"@who")
				t.Fatalf("job %s: action %+v", st, a)
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("job %s: %v", st, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	job, _, err := c.WorkflowInfo(ctx, id, client.InfoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if string(job.User) != launchtest.TestUser {
		t.Errorf("job user %q, want %s", job.User, launchtest.TestUser)
	}
	act, _, err := c.WorkflowActionInfo(ctx, id+"@who")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(act.Data), "user="+launchtest.TestUser) {
		t.Errorf("step data %q, want user=%s", act.Data, launchtest.TestUser)
	}
	// Another user that is no proxy user is refused.
	other := client.New(srv.URL, client.Options{User: "mallory", DoAs: launchtest.TestUser})
	if _, _, err := other.Submit(ctx, cf, true); err == nil || !strings.Contains(err.Error(), "E1400") {
		t.Errorf("submission by mallory as %s: %v", launchtest.TestUser, err)
	}
}
