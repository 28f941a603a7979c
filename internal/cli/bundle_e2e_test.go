package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/gozietest"
	"github.com/gozie/gozie/internal/server"
)

// bundleE2EMinute formats a time as the CLI and the definitions take it.
func bundleE2EMinute(t time.Time) string { return t.UTC().Format("2006-01-02T15:04Z") }

// bundleE2EApp writes the bundle application of TestBundleEndToEnd under
// dir: a clock-driven coordinator, a data-driven one waiting for done-flags
// under dir/data, and a disabled one, each running a workflow that makes a
// directory under dir/out. m is the minute boundary the test pauses at.
func bundleE2EApp(t *testing.T, dir string, m time.Time) string {
	t.Helper()
	start := m.Add(-3 * time.Minute)
	files := map[string]string{
		"bundle/bundle.xml": `<bundle-app name="e2e-bundle" xmlns="uri:oozie:bundle:0.2">
  <parameters>
    <property><name>appDir</name></property>
    <property><name>start</name></property>
  </parameters>
  <coordinator name="clock">
    <app-path>${appDir}/clock</app-path>
    <configuration>
      <property><name>coordStart</name><value>${start}</value></property>
      <property><name>coordEnd</name><value>` + bundleE2EMinute(m.Add(24*time.Hour)) + `</value></property>
    </configuration>
  </coordinator>
  <coordinator name="data" critical="true">
    <app-path>${appDir}/data</app-path>
    <configuration>
      <property><name>coordStart</name><value>` + bundleE2EMinute(m.Add(-2*time.Minute)) + `</value></property>
      <property><name>coordEnd</name><value>` + bundleE2EMinute(m) + `</value></property>
    </configuration>
  </coordinator>
  <coordinator name="off" enabled="false">
    <app-path>${appDir}/clock</app-path>
  </coordinator>
</bundle-app>`,
		"clock/coordinator.xml": `<coordinator-app name="e2e-clock" frequency="${coord:minutes(1)}" start="${coordStart}" end="${coordEnd}"
    timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <action><workflow><app-path>${appDir}/wf</app-path><configuration>
    <property><name>mark</name><value>${appDir}/out/clock-${coord:formatTime(coord:nominalTime(), 'HHmm')}</value></property>
  </configuration></workflow></action>
</coordinator-app>`,
		"data/coordinator.xml": `<coordinator-app name="e2e-data" frequency="${coord:minutes(1)}" start="${coordStart}" end="${coordEnd}"
    timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <datasets>
    <dataset name="in" frequency="${coord:minutes(1)}" initial-instance="${start}" timezone="UTC">
      <uri-template>${appDir}/data/${HOUR}${MINUTE}</uri-template>
      <done-flag>_DONE</done-flag>
    </dataset>
  </datasets>
  <input-events><data-in name="in" dataset="in"><instance>${coord:current(0)}</instance></data-in></input-events>
  <action><workflow><app-path>${appDir}/wf</app-path><configuration>
    <property><name>mark</name><value>${appDir}/out/data-${coord:formatTime(coord:nominalTime(), 'HHmm')}</value></property>
  </configuration></workflow></action>
</coordinator-app>`,
		"wf/workflow.xml": `<workflow-app xmlns="uri:oozie:workflow:0.5" name="e2e-bundle-wf">
  <start to="mk"/>
  <action name="mk"><fs><delete path="${mark}"/><mkdir path="${mark}"/></fs><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>mkdir failed</message></kill>
  <end name="end"/>
</workflow-app>`,
		"job.properties": "oozie.bundle.application.path=file://" + dir + "/bundle\nappDir=file://" + dir +
			"\nstart=" + bundleE2EMinute(start) + "\n",
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
	return filepath.Join(dir, "job.properties")
}

// bundleE2E is TestBundleEndToEnd's view of its server: the CLI, the
// REST client and polling with a deadline.
type bundleE2E struct {
	t   *testing.T
	url string
	c   *client.Client
	id  string
	// m is the minute boundary the bundle is paused at, on clock.
	m     time.Time
	clock interface{ Now() time.Time }
	// dir holds the application; clockID and dataID are the ids of the
	// coordinators; want counts the workflows each action should have
	// launched.
	dir             string
	clockID, dataID string
	want            map[string]int
}

// cli runs `gozie ARGS -oozie URL`.
func (e *bundleE2E) cli(args ...string) (int, string, string) {
	return run(e.t, append(args, "-oozie", e.url)...)
}

// ok runs the CLI and fails the test unless it exits 0.
func (e *bundleE2E) ok(args ...string) string {
	e.t.Helper()
	code, out, errOut := e.cli(args...)
	if code != 0 {
		e.t.Fatalf("gozie %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// info is GET job/<bundle>?show=info.
func (e *bundleE2E) info() *client.BundleJob {
	e.t.Helper()
	b, _, err := e.c.BundleInfo(e.t.Context(), e.id)
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

// coordsByName maps the bundle's coordinator names to their jobs.
func coordsByName(b *client.BundleJob) map[string]*client.CoordJob {
	m := map[string]*client.CoordJob{}
	for _, c := range b.BundleCoordJobs {
		m[string(c.CoordJobName)] = c
	}
	return m
}

// describeBundle is a bundle and its coordinators, for failures.
func describeBundle(b *client.BundleJob) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s %s pause=%v end=%v\n", b.BundleJobID, b.Status, b.PauseTime, b.EndTime)
	for _, c := range b.BundleCoordJobs {
		fmt.Fprintf(&s, "  %s %s %s pause=%v end=%v\n", c.CoordJobName, c.CoordJobID, c.Status, c.PauseTime, c.EndTime)
	}
	return s.String()
}

// wait polls the bundle until it has status and its coordinators the
// statuses of want (by name), then checks cond on it, failing the test
// after 30 s (polling a condition, not timing it).
func (e *bundleE2E) wait(status string, want map[string]string, cond func(*client.BundleJob) bool) *client.BundleJob {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b := e.info()
		done := b.Status == status && len(b.BundleCoordJobs) == len(want) && (cond == nil || cond(b))
		for name, c := range coordsByName(b) {
			done = done && want[name] == c.Status
		}
		if done {
			return b
		}
		if time.Now().After(deadline) {
			_, log, _ := e.cli("job", "-log", e.id)
			e.t.Fatalf("bundle not %s with coordinators %v in time:\n%s\nlog:\n%s", status, want, describeBundle(b), log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkInfo checks `gozie job -info <bundle>`: the bundle's status and a
// row per coordinator with its id and status.
func (e *bundleE2E) checkInfo(b *client.BundleJob) {
	e.t.Helper()
	out := e.ok("job", "-info", e.id)
	wants := []string{"Job ID : " + e.id, "Job Name : e2e-bundle", "Status   : " + b.Status}
	for _, c := range b.BundleCoordJobs {
		wants = append(wants, c.CoordJobID+" "+c.Status)
	}
	// Columns are padded: compare with runs of blanks as one.
	flat := strings.Join(strings.Fields(out), " ")
	for _, w := range wants {
		if !strings.Contains(flat, strings.Join(strings.Fields(w), " ")) {
			e.t.Errorf("-info lacks %q:\n%s", w, out)
		}
	}
}

// workflowsPerAction counts the workflows the coordinators' actions
// launched, by parent id (<coordId>@<n>).
func (e *bundleE2E) workflowsPerAction() map[string]int {
	e.t.Helper()
	l, _, err := e.c.Jobs(e.t.Context(), client.ListOptions{JobType: "wf", Len: 1000})
	if err != nil {
		e.t.Fatal(err)
	}
	n := map[string]int{}
	for _, w := range l.Workflows {
		n[string(w.ParentID)]++
	}
	return n
}

// actionOf is the id of a coordinator's action of nominal time at.
func (e *bundleE2E) actionOf(coordID string, at time.Time) string {
	e.t.Helper()
	j, _, err := e.c.CoordInfo(e.t.Context(), coordID, client.InfoOptions{Len: 1000})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, a := range j.Actions {
		if a.NominalTime.Equal(at) {
			return a.ID
		}
	}
	e.t.Fatalf("coordinator %s has no action at %s", coordID, bundleE2EMinute(at))
	return ""
}

// TestBundleEndToEnd runs a bundle of three coordinators (one waits for
// done-flags, one is disabled) on a real server through the CLI: -run,
// -info, pause and unpause with -change pausetime, -change endtime,
// -suspend, -resume, -rerun by coordinator and by date, -kill, `jobs
// -jobtype bundle` and -log, each step checked through REST and the CLI.
func TestBundleEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	pinEnv(t)
	// The server's clock stands 9 s before a minute boundary m when it
	// starts (pause times are whole minutes): the bundle is paused at m.
	m := time.Now().Truncate(time.Minute).Add(2 * time.Minute)
	clock := gozietest.ClockFrom(m.Add(-9 * time.Second))
	srv := gozietest.NewServer(t, gozietest.Options{DefaultUser: "tester", PollInterval: 50 * time.Millisecond, Clock: clock,
		Auth:   &server.AuthOptions{Secret: []byte("e2e-secret"), AnonymousReads: true},
		Config: map[string]string{"gozie.coord.min.frequency.minutes": "-1", "gozie.coord.input.check.interval.s": "1", "gozie.coord.materialization.window.s": "300"}})
	e := &bundleE2E{t: t, url: srv.URL, c: client.New(srv.URL, client.Options{User: "tester"}), m: m, clock: clock, dir: t.TempDir()}
	props := bundleE2EApp(t, e.dir, m)

	out := e.ok("job", "-config", props, "-run")
	mm := regexp.MustCompile(`^job: (\S+-B)\n$`).FindStringSubmatch(out)
	if mm == nil {
		t.Fatalf("job -run printed %q", out)
	}
	e.id = mm[1]
	b := e.wait("RUNNING", map[string]string{"clock": "RUNNING", "data": "RUNNING"}, nil)
	e.checkInfo(b)
	byName := coordsByName(b)
	e.clockID, e.dataID = byName["clock"].CoordJobID, byName["data"].CoordJobID
	for name, c := range byName {
		if string(c.BundleID) != e.id {
			t.Errorf("coordinator %s names bundle %q, want %s", name, c.BundleID, e.id)
		}
	}
	if byName["off"] != nil {
		t.Errorf("the disabled coordinator was submitted: %s", describeBundle(b))
	}

	e.pauseAndUnpause()
	end := e.endSuspendResume()
	e.reruns()
	e.killAndList()
	out = e.ok("job", "-log", e.id)
	for _, w := range []string{"coordinator [off] is not enabled", "coordinator [clock] submitted as [" + e.clockID + "]",
		"coordinator [data] submitted as [" + e.dataID + "]", "pause time changed to [" + bundleE2EMinute(m) + "]",
		"bundle job status RUNNING -> PAUSED", "pause time changed to []", "bundle job status PAUSED -> RUNNING", "end time changed to [" + bundleE2EMinute(end) + "]",
		"bundle job status RUNNING -> SUSPENDED", "rerun of [1] coordinators, coordinators [clock]",
		"rerun of [2] coordinators", "bundle job status RUNNING -> KILLED"} {
		if !strings.Contains(out, w) {
			t.Errorf("-log lacks %q:\n%s", w, out)
		}
	}
}

// pauseAndUnpause: -change pausetime=m pauses the bundle and its
// coordinators when the server's clock reaches m; an empty pause time
// unpauses them.
func (e *bundleE2E) pauseAndUnpause() {
	t, m := e.t, e.m
	if got := e.clock.Now(); !got.Before(m.Add(-2 * time.Second)) {
		t.Fatalf("the server's clock reached %s before the pause was set; the pause time would be past", got)
	}
	e.ok("job", "-change", e.id, "-value", "pausetime="+bundleE2EMinute(m))
	b := e.wait("PAUSED", map[string]string{"clock": "PAUSED", "data": "PAUSED"}, func(b *client.BundleJob) bool { return b.PauseTime.Equal(m) })
	if now := e.clock.Now(); now.Before(m) {
		t.Errorf("paused at %s, before the pause time %s", now, m)
	}
	// The jobs list behind bundleCoordJobs leaves pauseTime out (rest-api
	// 5.6): each coordinator's own info shows it.
	for _, c := range b.BundleCoordJobs {
		if j, _, err := e.c.CoordInfo(t.Context(), c.CoordJobID, client.InfoOptions{}); err != nil || !j.PauseTime.Equal(m) {
			t.Errorf("coordinator %s pause time %v (%v), want %s", c.CoordJobName, j.PauseTime, err, m)
		}
	}
	e.checkInfo(b)

	e.ok("job", "-change", e.id, "-value", "pausetime=")
	b = e.wait("RUNNING", map[string]string{"clock": "RUNNING", "data": "RUNNING"}, func(b *client.BundleJob) bool { return b.PauseTime.IsZero() })
	for _, c := range b.BundleCoordJobs {
		if j, _, err := e.c.CoordInfo(t.Context(), c.CoordJobID, client.InfoOptions{}); err != nil || !j.PauseTime.IsZero() {
			t.Errorf("coordinator %s pause time %v (%v) after the unpause", c.CoordJobName, j.PauseTime, err)
		}
	}
	e.checkInfo(b)
}

// endSuspendResume: a new end time reaches every coordinator (the
// clock-driven one ends with its action of m, the data-driven one gets an
// action at m too); -suspend and -resume; then the data arrives and the
// bundle succeeds, each action having launched one workflow. It returns
// the end time.
func (e *bundleE2E) endSuspendResume() time.Time {
	t, m := e.t, e.m
	end := m.Add(time.Minute)
	e.ok("job", "-change", e.id, "-value", "endtime="+bundleE2EMinute(end))
	b := e.wait("RUNNING", map[string]string{"clock": "SUCCEEDED", "data": "RUNNING"}, func(b *client.BundleJob) bool {
		for _, c := range b.BundleCoordJobs {
			if !c.EndTime.Equal(end) {
				return false
			}
		}
		return true
	})
	e.checkInfo(b)

	e.ok("job", "-suspend", e.id)
	b = e.wait("SUSPENDED", map[string]string{"clock": "SUCCEEDED", "data": "SUSPENDED"}, nil)
	e.checkInfo(b)
	e.ok("job", "-resume", e.id)
	e.wait("RUNNING", map[string]string{"clock": "SUCCEEDED", "data": "RUNNING"}, nil)

	for _, at := range []time.Time{m.Add(-2 * time.Minute), m.Add(-time.Minute), m} {
		flag := filepath.Join(e.dir, "data", at.UTC().Format("1504"), "_DONE")
		if err := os.MkdirAll(filepath.Dir(flag), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(flag, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b = e.wait("SUCCEEDED", map[string]string{"clock": "SUCCEEDED", "data": "SUCCEEDED"}, nil)
	e.checkInfo(b)
	e.want = map[string]int{}
	for i := -3; i <= 0; i++ {
		e.want[e.actionOf(e.clockID, m.Add(time.Duration(i)*time.Minute))] = 1
	}
	for i := -2; i <= 0; i++ {
		e.want[e.actionOf(e.dataID, m.Add(time.Duration(i)*time.Minute))] = 1
	}
	e.checkWorkflows("before the reruns")
	return end
}

// checkWorkflows polls until each coordinator action has launched as
// many workflows as e.want says.
func (e *bundleE2E) checkWorkflows(step string) {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := e.workflowsPerAction()
		same := len(got) == len(e.want)
		for a, n := range e.want {
			same = same && got[a] == n
		}
		if same {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s: workflows per coordinator action %v, want %v", step, got, e.want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// reruns: a rerun of one coordinator by name runs each of its actions
// again; a rerun by date, the action of that minute of every coordinator.
func (e *bundleE2E) reruns() {
	t, m := e.t, e.m
	succeeded := map[string]string{"clock": "SUCCEEDED", "data": "SUCCEEDED"}
	out := e.ok("job", "-rerun", e.id, "-coordinator", "clock")
	if !strings.Contains(out, "Coordinators [clock] of bundle "+e.id) {
		t.Errorf("-rerun -coordinator printed %q", out)
	}
	for i := -3; i <= 0; i++ {
		e.want[e.actionOf(e.clockID, m.Add(time.Duration(i)*time.Minute))]++
	}
	e.checkWorkflows("after -rerun -coordinator clock")
	e.wait("SUCCEEDED", succeeded, nil)

	minute := m.Add(-time.Minute)
	out = e.ok("job", "-rerun", e.id, "-date", bundleE2EMinute(minute)+"::"+bundleE2EMinute(minute))
	if !strings.Contains(out, "All coordinators of bundle "+e.id) {
		t.Errorf("-rerun -date printed %q", out)
	}
	e.want[e.actionOf(e.clockID, minute)]++
	e.want[e.actionOf(e.dataID, minute)]++
	e.checkWorkflows("after -rerun -date")
	e.wait("SUCCEEDED", succeeded, nil)
}

// killAndList: a later end time reopens the ended bundle and its
// coordinators; -kill ends them all, a second -kill is refused, and `jobs
// -jobtype bundle` lists the bundle KILLED.
func (e *bundleE2E) killAndList() {
	t := e.t
	e.ok("job", "-change", e.id, "-value", "endtime="+bundleE2EMinute(e.m.Add(time.Hour)))
	e.wait("RUNNING", map[string]string{"clock": "RUNNING", "data": "RUNNING"}, nil)
	e.ok("job", "-kill", e.id)
	b := e.wait("KILLED", map[string]string{"clock": "KILLED", "data": "KILLED"}, nil)
	e.checkInfo(b)
	if code, _, errOut := e.cli("job", "-kill", e.id); code == 0 || !strings.Contains(errOut, "E1020") {
		t.Errorf("-kill of a killed bundle: exit %d %q", code, errOut)
	}
	out := e.ok("jobs", "-jobtype", "bundle")
	if !regexp.MustCompile(regexp.QuoteMeta(e.id) + `\s+e2e-bundle\s+.*KILLED`).MatchString(out) {
		t.Errorf("jobs -jobtype bundle lacks the bundle:\n%s", out)
	}
}
