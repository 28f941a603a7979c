package rolling

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/bench/benchserver"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store/postgres"
)

// The two builds the servers move between. Only the link-time version
// differs, which is what a user sees in `gozie version` and
// admin/build-version: enough to prove which binary answers.
const (
	oldVersion = "0.0.1-rolling-old"
	newVersion = "0.0.2-rolling-new"
)

// periods is the number of coordinator periods (one minute each, all in
// the past so the test does not wait for the clock); their input appears
// a few at a time while the servers are restarted.
const periods = 12

// TestRollingUpgrade: three servers of one build share a PostgreSQL
// database; workflows and a data-triggered coordinator run; each server in
// turn is stopped and started again, under the same id, data directory and
// port, on a second build. Every workflow must end SUCCEEDED, every step
// must run once, and every coordinator period must have exactly one action
// (none lost, none doubled), SUCCEEDED.
func TestRollingUpgrade(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test (two builds, three server processes): runs without -short, e.g. in .ci/run")
	}
	dsn := postgres.TestDSN(t) // skips with a message without PostgreSQL
	work, err := os.MkdirTemp("", "gozie-rolling-")
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: a launch supervisor may still be writing in a data
	// directory for a moment after its server stopped, which must not fail
	// the test; each supervisor exits once its socket is removed.
	t.Cleanup(func() { _ = os.RemoveAll(work) })
	oldBin := build(t, work, oldVersion)
	newBin := build(t, work, newVersion)

	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	r := &rig{t: t, ctx: ctx, work: work, dsn: dsn, hc: &http.Client{Timeout: 30 * time.Second}}
	r.writeApps()
	for i := range 3 {
		r.start(i, oldBin, oldVersion)
	}
	t.Cleanup(r.stopAll)

	// t0 is a whole minute, periods minutes ago: the coordinator's periods
	// are [t0, t0+periods min), every one due at once, each waiting for its
	// input instance, which the test creates a few at a time.
	t0 := time.Now().UTC().Truncate(time.Minute).Add(-periods * time.Minute)
	coordID := r.submitCoord(t0)
	var wfIDs []string
	for i := range 6 {
		wfIDs = append(wfIDs, r.submitWF(i%3))
	}
	released := r.release(t0, 0, 3)

	for i := range 3 {
		// Let work be in flight on the server about to go.
		running := r.waitRunningSteps(i)
		r.servers[i].Stop()
		t.Logf("s%d stopped with %d workflows RUNNING; starting it on %s", i, running, newVersion)
		r.start(i, newBin, newVersion)
		released = r.release(t0, released, released+3)
		wfIDs = append(wfIDs, r.submitWF(i), r.submitWF((i+1)%3))
	}
	r.release(t0, released, periods)

	r.waitDone(coordID)
	r.checkWorkflows(wfIDs)
	r.checkCoord(coordID, t0)
	r.checkMarks()
	t.Logf("%d workflows submitted, %d coordinator periods; servers that took their earlier instance's jobs back: %d; take-overs by another server: %d", len(wfIDs), periods, r.countLogLines("took back the jobs of"), r.countLogLines("its jobs are this server's now"))
	for i := range 3 {
		if v := r.version(i); v != newVersion {
			t.Errorf("server s%d answers build-version %q after the upgrade, want %q", i, v, newVersion)
		}
	}
}

// build links gozie with version set at link time.
func build(t *testing.T, dir, version string) string {
	t.Helper()
	bin := filepath.Join(dir, "gozie-"+version)
	cmd := exec.Command("go", "build", "-o", bin,
		"-ldflags", "-X github.com/gozie/gozie/internal/cli.version="+version, "github.com/gozie/gozie/cmd/gozie")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build (%s): %v\n%s", version, err, out)
	}
	return bin
}

// rig is the three servers and the applications they run.
type rig struct {
	t        *testing.T
	ctx      context.Context
	work     string
	dsn      string
	hc       *http.Client
	servers  [3]*benchserver.Server
	ports    [3]int
	marks    string
	wfApp    string
	coordApp string
	input    string
}

// step runs for a while and records that it ran: the job id, the step,
// and the coordinator period ("-" for a workflow submitted directly).
const step = `echo "${wf:id()} %s ${period}" >> ${marks}; sleep 0.4`

func (r *rig) writeApps() {
	r.marks = filepath.Join(r.work, "marks")
	r.wfApp = filepath.Join(r.work, "apps", "wf")
	r.coordApp = filepath.Join(r.work, "apps", "coord")
	r.input = filepath.Join(r.work, "input")
	var wf strings.Builder
	wf.WriteString(`<workflow-app xmlns="uri:oozie:workflow:1.0" name="rolling"><start to="s1"/>`)
	const steps = 4
	for i := 1; i <= steps; i++ {
		next := fmt.Sprintf("s%d", i+1)
		if i == steps {
			next = "end"
		}
		fmt.Fprintf(&wf, `<action name="s%d"><shell xmlns="uri:oozie:shell-action:1.0"><resource-manager>local</resource-manager>`+
			`<name-node>file:///</name-node><exec>sh</exec><argument>-c</argument><argument>%s</argument></shell>`+
			`<ok to="%s"/><error to="fail"/></action>`, i, fmt.Sprintf(step, fmt.Sprintf("s%d", i)), next)
	}
	wf.WriteString(`<kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>`)
	coord := `<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="rolling-coord" frequency="${coord:minutes(1)}"
  start="${start}" end="${end}" timezone="UTC">
  <controls><concurrency>2</concurrency><execution>FIFO</execution><throttle>2</throttle></controls>
  <datasets>
    <dataset name="in" frequency="${coord:minutes(1)}" initial-instance="${start}" timezone="UTC">
      <uri-template>file://${input}/${YEAR}${MONTH}${DAY}${HOUR}${MINUTE}</uri-template>
    </dataset>
  </datasets>
  <input-events><data-in name="in" dataset="in"><instance>${coord:current(0)}</instance></data-in></input-events>
  <action><workflow><app-path>file://${wfApp}</app-path><configuration>
    <property><name>marks</name><value>${marks}</value></property>
    <property><name>period</name><value>${coord:formatTime(coord:nominalTime(), 'yyyyMMddHHmm')}</value></property>
  </configuration></workflow></action>
</coordinator-app>`
	for dir, body := range map[string]string{r.wfApp: wf.String(), r.coordApp: coord} {
		name := "workflow.xml"
		if dir == r.coordApp {
			name = "coordinator.xml"
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// start starts server i (id s<i>, its own data directory, a port kept
// across restarts so its base URL stays the same) on bin, and checks that
// it answers with version.
func (r *rig) start(i int, bin, version string) {
	r.t.Helper()
	env := []string{
		fmt.Sprintf("GOZIE_SERVER_ID=s%d", i),
		"GOZIE_SERVER_LEASE_S=5", "GOZIE_SERVER_HEARTBEAT_S=1",
		"GOZIE_COORD_MIN_FREQUENCY_MINUTES=-1", "GOZIE_COORD_INPUT_CHECK_INTERVAL_S=1",
		"GOZIE_POLL_INTERVAL_MS=200",
	}
	dir := filepath.Join(r.work, fmt.Sprintf("srv%d", i))
	s, err := benchserver.StartWith(r.ctx, bin, dir, benchserver.Options{Env: env, Port: r.ports[i]}, "-db", r.dsn)
	if err != nil {
		r.t.Fatalf("start s%d (%s): %v", i, version, err)
	}
	r.servers[i] = s
	if r.ports[i] == 0 {
		u, err := url.Parse(s.Base)
		if err != nil {
			r.t.Fatal(err)
		}
		fmt.Sscan(u.Port(), &r.ports[i])
	}
	if v := r.version(i); v != version {
		r.t.Fatalf("s%d answers build-version %q, want %q", i, v, version)
	}
}

func (r *rig) stopAll() {
	for i, s := range r.servers {
		if s == nil {
			continue
		}
		s.Stop()
		if r.t.Failed() {
			if log, err := os.ReadFile(s.LogPath); err == nil {
				if len(log) > 4000 {
					log = log[len(log)-4000:]
				}
				r.t.Logf("log of s%d (end):\n%s", i, log)
			}
		}
	}
}

func (r *rig) get(i int, path string, v any) error {
	data, err := benchserver.Call(r.ctx, r.hc, http.MethodGet, r.servers[i].Base+path, "", "", http.StatusOK)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

func (r *rig) version(i int) string {
	var out struct {
		BuildVersion string `json:"buildVersion"`
	}
	if err := r.get(i, "/v2/admin/build-version", &out); err != nil {
		r.t.Fatal(err)
	}
	return out.BuildVersion
}

func (r *rig) submit(i int, props map[string]string) string {
	r.t.Helper()
	var sb strings.Builder
	sb.WriteString("<configuration>")
	for k, v := range props {
		fmt.Fprintf(&sb, "<property><name>%s</name><value>%s</value></property>", k, v)
	}
	sb.WriteString("</configuration>")
	data, err := benchserver.Call(r.ctx, r.hc, http.MethodPost, r.servers[i].Base+"/v2/jobs?action=start&user.name=rolling",
		benchserver.XML, sb.String(), http.StatusCreated)
	if err != nil {
		r.t.Fatalf("submit to s%d: %v", i, err)
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(data, &out); err != nil || out.ID == "" {
		r.t.Fatalf("submit to s%d: no job id in %.200s", i, data)
	}
	return out.ID
}

func (r *rig) submitWF(i int) string {
	return r.submit(i, map[string]string{"oozie.wf.application.path": "file://" + r.wfApp, "marks": r.marks, "period": "-"})
}

func (r *rig) submitCoord(t0 time.Time) string {
	return r.submit(0, map[string]string{
		"oozie.coord.application.path": "file://" + r.coordApp,
		"start":                        t0.Format("2006-01-02T15:04Z"),
		"end":                          t0.Add(periods * time.Minute).Format("2006-01-02T15:04Z"),
		"input":                        r.input, "wfApp": r.wfApp, "marks": r.marks,
	})
}

// release creates the input instances of periods [from, to) and returns to.
func (r *rig) release(t0 time.Time, from, to int) int {
	for p := from; p < min(to, periods); p++ {
		dir := filepath.Join(r.input, t0.Add(time.Duration(p)*time.Minute).Format("200601021504"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "_SUCCESS"), nil, 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	return min(to, periods)
}

// waitRunningSteps waits until some workflow action is RUNNING, so that
// the server stopped next leaves steps in flight (pacing, not correctness:
// the checks at the end decide).
func (r *rig) waitRunningSteps(i int) int {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var out struct {
			Total int `json:"total"`
		}
		err := r.get(i, "/v2/jobs?jobtype=wf&len=1&filter="+url.QueryEscape("status=RUNNING"), &out)
		if err == nil && out.Total > 0 {
			time.Sleep(300 * time.Millisecond)
			return out.Total
		}
		time.Sleep(100 * time.Millisecond)
	}
	return 0
}

// waitDone polls until the coordinator has ended and no workflow is PREP
// or RUNNING.
func (r *rig) waitDone(coordID string) {
	r.t.Helper()
	var last string
	for {
		var coord struct {
			Status string `json:"status"`
		}
		var wfs struct {
			Total int `json:"total"`
		}
		err := r.get(0, "/v2/job/"+coordID+"?show=info&len=1", &coord)
		if err == nil {
			err = r.get(1, "/v2/jobs?jobtype=wf&len=1&filter="+url.QueryEscape("status=PREP;status=RUNNING"), &wfs)
		}
		if err == nil && wfs.Total == 0 && (coord.Status == "SUCCEEDED" || coord.Status == "DONEWITHERROR" || coord.Status == "KILLED" || coord.Status == "FAILED") {
			return
		}
		last = fmt.Sprintf("coordinator %s, %d workflows unfinished, err %v", coord.Status, wfs.Total, err)
		select {
		case <-r.ctx.Done():
			r.t.Fatalf("jobs did not end: %s", last)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// checkWorkflows: every workflow, submitted or the coordinator's, SUCCEEDED.
func (r *rig) checkWorkflows(submitted []string) {
	var list struct {
		Total     int `json:"total"`
		Workflows []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"workflows"`
	}
	if err := r.get(2, "/v2/jobs?jobtype=wf&len=1000", &list); err != nil {
		r.t.Fatal(err)
	}
	if want := len(submitted) + periods; len(list.Workflows) != want {
		r.t.Errorf("%d workflows on the servers, want %d (%d submitted, %d of the coordinator)", len(list.Workflows), want, len(submitted), periods)
	}
	seen := map[string]bool{}
	for _, w := range list.Workflows {
		seen[w.ID] = true
		if w.Status != "SUCCEEDED" {
			r.t.Errorf("workflow %s ended %s, want SUCCEEDED", w.ID, w.Status)
		}
	}
	for _, id := range submitted {
		if !seen[id] {
			r.t.Errorf("submitted workflow %s is not listed", id)
		}
	}
}

// checkCoord: one action per period, each SUCCEEDED with a workflow of its
// own, and the coordinator SUCCEEDED.
func (r *rig) checkCoord(coordID string, t0 time.Time) {
	var coord struct {
		Status  string `json:"status"`
		Actions []struct {
			Number      int       `json:"actionNumber"`
			NominalTime rest.Time `json:"nominalTime"`
			Status      string    `json:"status"`
			ExternalID  string    `json:"externalId"`
		} `json:"actions"`
	}
	if err := r.get(0, "/v2/job/"+coordID+"?show=info&len=1000", &coord); err != nil {
		r.t.Fatal(err)
	}
	if coord.Status != "SUCCEEDED" {
		r.t.Errorf("coordinator ended %s, want SUCCEEDED", coord.Status)
	}
	want := map[int64]bool{}
	for p := range periods {
		want[t0.Add(time.Duration(p)*time.Minute).Unix()] = true
	}
	nominal := map[int64]int{}
	external := map[string]int{}
	for _, a := range coord.Actions {
		nominal[a.NominalTime.Unix()]++
		external[a.ExternalID]++
		if a.Status != "SUCCEEDED" {
			r.t.Errorf("coordinator action %d (%s) ended %s, want SUCCEEDED", a.Number, a.NominalTime, a.Status)
		}
		if !want[a.NominalTime.Unix()] {
			r.t.Errorf("coordinator action %d has nominal time %v, outside the %d periods", a.Number, a.NominalTime, periods)
		}
	}
	for n := range want {
		if nominal[n] != 1 {
			r.t.Errorf("period %s has %d coordinator actions, want 1", time.Unix(n, 0).UTC().Format(time.RFC3339), nominal[n])
		}
	}
	for id, n := range external {
		if id == "" || n != 1 {
			r.t.Errorf("workflow %q launched by %d coordinator actions, want one each", id, n)
		}
	}
}

// checkMarks: every step of every workflow ran exactly once, and each
// period's workflow ran its steps once (no period ran twice under two
// workflows).
func (r *rig) checkMarks() {
	data, err := os.ReadFile(r.marks)
	if err != nil {
		r.t.Fatal(err)
	}
	steps := map[string]int{}
	perPeriod := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			r.t.Errorf("marks: malformed line %q", line)
			continue
		}
		steps[f[0]+" "+f[1]]++
		if f[2] != "-" {
			perPeriod[f[2]]++
		}
	}
	var twice []string
	for k, n := range steps {
		if n != 1 {
			twice = append(twice, fmt.Sprintf("%s ran %d times", k, n))
		}
	}
	sort.Strings(twice)
	for _, s := range twice {
		r.t.Errorf("step %s, want once", s)
	}
	if len(perPeriod) != periods {
		r.t.Errorf("steps ran for %d periods, want %d", len(perPeriod), periods)
	}
	for p, n := range perPeriod {
		if n != 4 {
			r.t.Errorf("period %s ran %d steps, want 4 (one workflow of 4 steps)", p, n)
		}
	}
}

// countLogLines counts the lines of the servers' logs containing substr.
func (r *rig) countLogLines(substr string) int {
	n := 0
	for _, s := range r.servers {
		data, _ := os.ReadFile(s.LogPath)
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, substr) {
				n++
			}
		}
	}
	return n
}
