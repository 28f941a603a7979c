//go:build linux

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The bundle crash test runs a real `gozie server` process (this test
// binary, as in TestClusterFailover) on SQLite, SIGKILLs it while the
// coordinators of a bundle have actions running, and starts it again on
// the same data directory: the bundle must end SUCCEEDED with each of its
// coordinators submitted once, each coordinator action having launched
// one workflow, and each workflow's step having run once.

// Sizes of TestBundleCrashRecovery.
const (
	bundleCrashCoords  = 2 // coordinators of the bundle
	bundleCrashActions = 4 // actions of each coordinator
)

// bundleCrashApp writes the bundle, its coordinators and their workflow
// under dir: every action's workflow is one shell step that appends
// "<workflow id>" to marks and sleeps two seconds.
func bundleCrashApp(t *testing.T, dir, marks string) {
	t.Helper()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	end := start.Add(bundleCrashActions * 5 * time.Minute)
	var coords strings.Builder
	for i := range bundleCrashCoords {
		fmt.Fprintf(&coords, "  <coordinator name=\"c%d\"><app-path>file://%s/coord</app-path></coordinator>\n", i+1, dir)
	}
	files := map[string]string{
		"bundle/bundle.xml": "<bundle-app name=\"crash-bundle\" xmlns=\"uri:oozie:bundle:0.2\">\n" + coords.String() + "</bundle-app>\n",
		"coord/coordinator.xml": fmt.Sprintf(`<coordinator-app name="crash-coord" frequency="${coord:minutes(5)}" start="%s" end="%s" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <controls><concurrency>2</concurrency></controls>
  <action><workflow><app-path>file://%s/wf</app-path></workflow></action>
</coordinator-app>
`, bundleE2EMinute(start), bundleE2EMinute(end), dir),
		"wf/workflow.xml": `<workflow-app xmlns="uri:oozie:workflow:0.5" name="crash-wf">
  <global><job-tracker>local</job-tracker><name-node>file:///</name-node></global>
  <start to="step"/>
  <action name="step"><shell xmlns="uri:oozie:shell-action:0.3"><exec>sh</exec><argument>-c</argument>` +
			`<argument>echo "${wf:id()}" >> ` + marks + `; sleep 2</argument></shell><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>failed</message></kill>
  <end name="end"/>
</workflow-app>
`,
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// bundleCrashView is what the test reads of the bundle.
type bundleCrashView struct {
	Status string `json:"status"`
	Coords []struct {
		ID     string `json:"coordJobId"`
		Name   string `json:"coordJobName"`
		Status string `json:"status"`
	} `json:"bundleCoordJobs"`
}

// runningActions counts the bundle's coordinator actions that are
// RUNNING, reading each coordinator's info.
func runningActions(base string, b *bundleCrashView) (int, error) {
	n := 0
	for _, c := range b.Coords {
		var info clusterCoordInfo
		if err := clusterGet(base, "/v2/job/"+c.ID+"?show=info&len=1000", &info); err != nil {
			return 0, err
		}
		for _, a := range info.Actions {
			if a.Status == "RUNNING" {
				n++
			}
		}
	}
	return n, nil
}

// pollBundle reads bundle id on the server at base until cond holds,
// failing the test after 45 s (polling a condition, not timing it).
func pollBundle(t *testing.T, base, id, what string, cond func(*bundleCrashView) bool) *bundleCrashView {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		var b bundleCrashView
		if err := clusterGet(base, "/v2/job/"+id+"?show=info", &b); err != nil {
			t.Fatal(err)
		}
		if cond(&b) {
			return &b
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not in time; bundle %+v", what, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestBundleCrashRecovery: SIGKILL of the server just after a bundle's
// submission and again while its coordinator actions run, then a restart
// that finishes the bundle.
func TestBundleCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	work := t.TempDir()
	marks := filepath.Join(work, "marks")
	bundleCrashApp(t, work, marks)
	s := newClusterServer(t, work, "bundle-crash", "")
	clusterCleanup(t, s)
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	id, err := clusterSubmit(s.base, map[string]string{"oozie.bundle.application.path": "file://" + work + "/bundle"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(id, "-B") {
		t.Fatalf("submission answered %s, not a bundle id", id)
	}
	// Killed at once, while the bundle submits its coordinators; each must
	// still be submitted once.
	s.kill()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	// Killed again mid-run: coordinator actions RUNNING and steps under
	// way (their marks written), other actions still to come. Not at the
	// same moment as the first kill: an effect in flight at two deaths is
	// quarantined by design (the crash journal cannot tell a SIGKILL from
	// an effect that kills), and those in flight at the first kill have
	// ended by the time a step runs.
	b := pollBundle(t, s.base, id, "coordinator actions running", func(b *bundleCrashView) bool {
		if b.Status != "RUNNING" || len(b.Coords) != bundleCrashCoords {
			return false
		}
		if data, _ := os.ReadFile(marks); len(data) == 0 {
			return false
		}
		n, err := runningActions(s.base, b)
		if err != nil {
			t.Fatal(err)
		}
		return n > 0
	})
	s.kill()
	data, _ := os.ReadFile(marks)
	started := strings.Count(string(data), "\n")
	t.Logf("killed with %d of %d steps started; coordinators %+v", started, bundleCrashCoords*bundleCrashActions, b.Coords)
	if started >= bundleCrashCoords*bundleCrashActions {
		t.Fatalf("every step had started before the kill; nothing was tested")
	}
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	b = pollBundle(t, s.base, id, "bundle ended", func(b *bundleCrashView) bool {
		return b.Status != "RUNNING" && b.Status != "PREP"
	})
	if b.Status != "SUCCEEDED" {
		t.Fatalf("bundle ended %s: %+v", b.Status, b)
	}
	checkBundleCrashRun(t, s.base, id, marks)
}

// checkBundleCrashRun checks, through REST, that each coordinator of the
// bundle exists once and succeeded, that each of their actions launched
// exactly one workflow, which succeeded, and that each workflow's step
// ran once (its line in marks).
func checkBundleCrashRun(t *testing.T, base, id, marks string) {
	t.Helper()
	var coords struct {
		Jobs []struct {
			ID       string `json:"coordJobId"`
			Name     string `json:"coordJobName"`
			BundleID string `json:"bundleId"`
		} `json:"coordinatorjobs"`
	}
	if err := clusterGet(base, "/v2/jobs?jobtype=coord&len=1000", &coords); err != nil {
		t.Fatal(err)
	}
	perName := map[string]int{}
	var actions []string
	for _, c := range coords.Jobs {
		if c.BundleID != id {
			continue
		}
		perName[c.Name]++
		var info clusterCoordInfo
		if err := clusterGet(base, "/v2/job/"+c.ID+"?show=info&len=1000", &info); err != nil {
			t.Fatal(err)
		}
		if info.Status != "SUCCEEDED" || len(info.Actions) != bundleCrashActions {
			t.Errorf("coordinator %s (%s): %s with %d actions, want SUCCEEDED with %d", c.ID, c.Name, info.Status, len(info.Actions), bundleCrashActions)
		}
		for _, a := range info.Actions {
			actions = append(actions, a.ID)
		}
	}
	for i := range bundleCrashCoords {
		if name := fmt.Sprintf("c%d", i+1); perName[name] != 1 {
			t.Errorf("coordinator %s of the bundle exists %d times, want once", name, perName[name])
		}
	}
	if len(perName) != bundleCrashCoords {
		t.Errorf("the bundle's coordinators: %v", perName)
	}

	var wfs struct {
		Workflows []struct {
			ID       string `json:"id"`
			Status   string `json:"status"`
			ParentID string `json:"parentId"`
		} `json:"workflows"`
	}
	if err := clusterGet(base, "/v2/jobs?jobtype=wf&len=1000", &wfs); err != nil {
		t.Fatal(err)
	}
	perAction := map[string]int{}
	for _, w := range wfs.Workflows {
		perAction[w.ParentID]++
		if w.Status != "SUCCEEDED" {
			t.Errorf("workflow %s of %s ended %s", w.ID, w.ParentID, w.Status)
		}
	}
	for _, a := range actions {
		if perAction[a] != 1 {
			t.Errorf("coordinator action %s launched %d workflows, want 1", a, perAction[a])
		}
	}
	if len(perAction) != len(actions) || len(actions) != bundleCrashCoords*bundleCrashActions {
		t.Errorf("workflows per parent %v for the %d actions %v", perAction, len(actions), actions)
	}

	data, err := os.ReadFile(marks)
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]int{}
	for _, line := range strings.Fields(string(data)) {
		ran[line]++
	}
	for _, w := range wfs.Workflows {
		if ran[w.ID] != 1 {
			t.Errorf("the step of workflow %s ran %d times, want once", w.ID, ran[w.ID])
		}
	}
	if len(ran) != len(wfs.Workflows) {
		t.Errorf("%d workflows left marks, %d exist", len(ran), len(wfs.Workflows))
	}
}
