package coordengine

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/store"
)

// TestCoordChangeValidation: every rule of the change value (rest-api
// 7.4) with its code, then the accepted changes on the job.
func TestCoordChangeValidation(t *testing.T) {
	ctx := context.Background()
	h := newCoordHarness(t, policyNow, Options{InputCheckInterval: time.Minute})
	id, err := h.e.Run(ctx, h.coordProps(holdWorkflow, "start", "2026-03-02T08:00Z", "end", "2026-03-02T20:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	last := h.coordJob(id).LastActionTime
	if last.IsZero() {
		t.Fatal("nothing materialized")
	}
	cases := []struct{ value, code string }{
		{"", CodeCoordChange},
		{";", CodeCoordChange},
		{"foo=1", CodeCoordChange},
		{"concurrency", CodeCoordChange},
		{"endtime=2026-03-02T22:00Z;endtime=2026-03-02T23:00Z", CodeCoordChange},
		{"endtime=tomorrow", CodeCoordChange},
		{"endtime=", CodeCoordChange},
		{"endtime=2026-03-01T00:00Z", CodeCoordChange}, // before the start
		{"concurrency=two", CodeCoordChange},           // not an integer
		{"concurrency=-2", CodeCoordChange},            // below -1
		{"concurrency=0", CodeCoordChange},             // nothing could ever run
		{"pausetime=03/02/2026", CodeCoordChange},      // not ISO
		{"status=SUCCEEDED", CodeCoordChange},          // RUNNING or IGNORED only
		{"status=RUNNING", CodeCoordChange},            // the job is not FAILED/KILLED/IGNORED
		{"status=IGNORED", CodeCoordChange},            // the job is not FAILED/KILLED
		{"concurrency=2;color=red", CodeCoordChange},   // one bad key spoils all
		{"endtime=2026-03-02T22:00Z;concurrency=3;pausetime=2026-03-02T15:00Z", ""},
		{"pausetime=", ""},
		{"concurrency=-1", ""},
	}
	for _, c := range cases {
		err := h.e.CoordChange(ctx, id, c.value)
		if engine.ErrorCode(err) != c.code {
			t.Errorf("change %q: %v, want code %q", c.value, err, c.code)
		}
	}
	j := h.coordJob(id)
	if !j.EndTime.Equal(time.Date(2026, 3, 2, 22, 0, 0, 0, time.UTC)) || j.Concurrency != -1 || !j.PauseTime.IsZero() {
		t.Errorf("after the changes: end %v concurrency %d pause %v", j.EndTime, j.Concurrency, j.PauseTime)
	}
	if err := h.e.CoordChange(ctx, "0000099-260302000000000-oozie-test-C", "concurrency=2"); engine.ErrorCode(err) != engine.CodeJobNotFound {
		t.Errorf("unknown job: %v", err)
	}

	// A killed job: only the status may change.
	if err := h.e.Kill(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.settle()
	killed := []struct{ value, code, status string }{
		{"concurrency=2", CodeCoordChangeKilled, store.CoordKilled},
		{"status=IGNORED;pausetime=", CodeCoordChangeKilled, store.CoordKilled},
		{"status=IGNORED", "", store.CoordIgnored},
		{"pausetime=2026-03-02T15:00Z", CodeCoordChangeKilled, store.CoordIgnored},
		{"status=IGNORED", CodeCoordChange, store.CoordIgnored},
		{"status=running", "", store.CoordRunning},
	}
	for _, c := range killed {
		err := h.e.CoordChange(ctx, id, c.value)
		if engine.ErrorCode(err) != c.code {
			t.Errorf("killed job, change %q: %v, want code %q", c.value, err, c.code)
		}
		if s := h.coordJob(id).Status; s != c.status {
			t.Errorf("killed job, after %q: %s, want %s", c.value, s, c.status)
		}
	}
}

// TestCoordChangePauseTime: a pause time set by the change command pauses
// the job when the clock reaches it, nothing is materialized at or after
// it, and clearing it resumes (RUNNING -> PAUSED -> RUNNING, and the
// WITHERROR twins).
func TestCoordChangePauseTime(t *testing.T) {
	ctx := context.Background()
	h := newCoordHarness(t, policyNow, Options{InputCheckInterval: 15 * time.Minute})
	for n := 0; n < 10; n++ {
		if n != 7 { // action 8 (17:00) waits for its input, to be killed
			h.publish(policyNow.Add(time.Duration(n) * time.Hour))
		}
	}
	id, err := h.e.Run(ctx, h.coordProps(fsWorkflow, "start", "2026-03-02T10:00Z", "end", "2026-03-02T16:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	pause := policyNow.Add(2 * time.Hour)
	if err := h.e.CoordChange(ctx, id, "pausetime="+fmtUTC(pause)); err != nil {
		t.Fatal(err)
	}
	if s := h.coordJob(id).Status; s != store.CoordRunning {
		t.Fatalf("before the pause time: %s", s)
	}
	h.advance(4*time.Hour, 15*time.Minute, nil)
	j := h.coordJob(id)
	if j.Status != store.CoordPaused {
		t.Fatalf("past the pause time: %s, want PAUSED", j.Status)
	}
	for _, a := range h.actions(id) {
		if !a.NominalTime.Before(pause) {
			t.Errorf("action %d materialized at %s, not before the pause time", a.Number, fmtUTC(a.NominalTime))
		}
	}
	if j.LastActionNumber != 2 {
		t.Errorf("%d actions before the pause time, want 2", j.LastActionNumber)
	}
	// A pause time already reached is accepted, as in Oozie 5 (nothing
	// at or after it to delete); clearing it resumes at once (no tick
	// needed).
	if err := h.e.CoordChange(ctx, id, "pausetime="+fmtUTC(pause)); err != nil {
		t.Errorf("past pause time: %v", err)
	}
	if s := h.coordJob(id).Status; s != store.CoordPaused {
		t.Errorf("past pause time set again: %s, want PAUSED", s)
	}
	if err := h.e.CoordChange(ctx, id, "pausetime="); err != nil {
		t.Fatal(err)
	}
	if j := h.coordJob(id); j.Status != store.CoordRunning || j.LastActionNumber <= 2 {
		t.Errorf("right after clearing: %s with %d actions, want RUNNING and materializing", j.Status, j.LastActionNumber)
	}
	h.advance(2*time.Hour, 15*time.Minute, nil)
	if j := h.coordJob(id); j.Status != store.CoordSucceeded || j.LastActionNumber != 6 {
		t.Errorf("after clearing the pause time: %s with %d actions, want SUCCEEDED with 6", j.Status, j.LastActionNumber)
	}

	// The WITHERROR twins, and an end time extended after success.
	if err := h.e.CoordChange(ctx, id, "endtime=2026-03-02T20:00Z"); err != nil {
		t.Fatal(err)
	}
	if j := h.coordJob(id); j.Status != store.CoordRunning || j.DoneMaterialization {
		t.Fatalf("later end time on a SUCCEEDED job: %s done=%v, want RUNNING", j.Status, j.DoneMaterialization)
	}
	h.advance(65*time.Minute, 5*time.Minute, nil)
	if a := h.actionByNumber(id, 8); a.Status != store.CoordActionWaiting {
		t.Fatalf("action 8 without input: %s", a.Status)
	}
	if _, err := h.e.CoordKillActions(ctx, id, "action", "8"); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if s := h.coordJob(id).Status; s != store.CoordRunningWithError {
		t.Fatalf("after a killed action: %s", s)
	}
	if err := h.e.CoordChange(ctx, id, "pausetime="+fmtUTC(h.clock.Now().Add(30*time.Minute))); err != nil {
		t.Fatal(err)
	}
	h.advance(time.Hour, 15*time.Minute, nil)
	if s := h.coordJob(id).Status; s != store.CoordPausedWithError {
		t.Fatalf("RUNNINGWITHERROR past the pause time: %s", s)
	}
	if err := h.e.CoordChange(ctx, id, "pausetime="); err != nil {
		t.Fatal(err)
	}
	if s := h.coordJob(id).Status; s != store.CoordRunningWithError {
		t.Fatalf("PAUSEDWITHERROR with the pause time cleared: %s", s)
	}
	h.advance(6*time.Hour, 30*time.Minute, nil)
	if j := h.coordJob(id); j.Status != store.CoordDoneWithError || j.LastActionNumber != 10 {
		t.Errorf("end: %s with %d actions, want DONEWITHERROR with 10", j.Status, j.LastActionNumber)
	}
}

// TestCoordChangePrepPaused: PREP -> PREPPAUSED when the pause time is
// reached before the job starts, PREPPAUSED -> PREP -> RUNNING when it is
// cleared (spec: coord 6.1.2). The job is submitted and changed while no engine
// runs, so its first tick comes after the pause time.
func TestCoordChangePrepPaused(t *testing.T) {
	ctx := context.Background()
	h := newCoordHarness(t, policyNow, Options{InputCheckInterval: time.Minute})
	h.e.Close()
	id, err := h.e.Submit(ctx, h.coordProps(fsWorkflow, "start", "2026-03-02T10:00Z", "end", "2026-03-02T12:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.e.CoordChange(ctx, id, "pausetime=2026-03-02T10:01Z"); err != nil {
		t.Fatal(err)
	}
	if s := h.coordJob(id).Status; s != store.CoordPrep {
		t.Fatalf("changed in PREP: %s", s)
	}
	h.clock.Advance(2 * time.Minute)
	h.startEngine()
	h.settle()
	if j := h.coordJob(id); j.Status != store.CoordPrepPaused || j.LastActionNumber != 0 {
		t.Fatalf("pause time reached in PREP: %s with %d actions, want PREPPAUSED with none", j.Status, j.LastActionNumber)
	}
	if err := h.e.CoordChange(ctx, id, "pausetime="); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if j := h.coordJob(id); j.Status != store.CoordRunning || j.LastActionNumber == 0 {
		t.Errorf("pause time cleared: %s with %d actions, want RUNNING and materializing", j.Status, j.LastActionNumber)
	}
	logs := h.jobLog(id)
	for _, want := range []string{"coordinator job status PREP -> PREPPAUSED", "coordinator job status PREPPAUSED -> PREP",
		"coordinator job status PREP -> RUNNING", "coordinator job changed [pausetime=]"} {
		if !logs[want] {
			t.Errorf("job log lacks %q", want)
		}
	}
}

func (h *coordHarness) jobLog(id string) map[string]bool {
	h.t.Helper()
	var logs []*store.LogEntry
	ctx := context.Background()
	if err := h.store.View(ctx, func(tx store.Tx) (err error) { logs, err = tx.Logs(ctx, id, 0, 0); return err }); err != nil {
		h.t.Fatal(err)
	}
	out := map[string]bool{}
	for _, l := range logs {
		out[l.Message] = true
	}
	return out
}

// TestCoordChangeConcurrency: a higher concurrency lets more workflows run
// at once.
func TestCoordChangeConcurrency(t *testing.T) {
	ctx := context.Background()
	h := newCoordHarness(t, policyNow, Options{InputCheckInterval: time.Minute})
	for n := 0; n < 6; n++ {
		h.publish(policyNow.Add(time.Duration(n-3) * time.Hour))
	}
	id, err := h.e.Run(ctx, h.coordProps(holdWorkflow, "start", "2026-03-02T07:00Z", "end", "2026-03-02T11:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	h.advance(2*time.Minute, time.Minute, nil)
	if n := len(h.runningWorkflows(id)); n != 1 {
		t.Fatalf("%d running with concurrency 1", n)
	}
	if err := h.e.CoordChange(ctx, id, "concurrency=3"); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if n := len(h.runningWorkflows(id)); n != 3 {
		t.Errorf("%d running after concurrency=3, want 3", n)
	}
}

// TestCoordIgnore: the job (FAILED or KILLED only) and its FAILED, KILLED
// and TIMEDOUT actions can be ignored (spec: coord 6.1.2, 6.1.3); the rest is
// refused with E1024.
func TestCoordIgnore(t *testing.T) {
	ctx := context.Background()
	h := newCoordHarness(t, policyNow, Options{InputCheckInterval: time.Minute})
	id, err := h.e.Run(ctx, h.coordProps(holdWorkflow, "start", "2026-03-02T00:00Z", "end", "2026-03-02T04:00Z", "throttle", "10"))
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	if _, err := h.e.CoordKillActions(ctx, id, "action", "1-2"); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if s := h.coordJob(id).Status; s != store.CoordRunningWithError {
		t.Fatalf("with killed actions: %s", s)
	}
	refused := []struct {
		name, typ, scope, code string
	}{
		{"running job", "action", "", CodeCoordIgnore},
		{"date type", "date", "2026-03-02T00:00Z", CodeCoordIgnore},
		{"only WAITING in scope", "action", "3-4", CodeCoordIgnore},
		{"bad scope", "action", "x", CodeInvalidParam},
		{"unknown job", "action", "1", engine.CodeJobNotFound},
	}
	for _, c := range refused {
		jid := id
		if c.name == "unknown job" {
			jid = "0000099-260302000000000-oozie-test-C"
		}
		if _, err := h.e.CoordIgnore(ctx, jid, c.typ, c.scope); engine.ErrorCode(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
	out, err := h.e.CoordIgnore(ctx, id, "action", "1-3")
	if err != nil {
		t.Fatal(err)
	}
	got := out
	if len(got) != 2 || got[0].ActionNumber != 1 || got[1].ActionNumber != 2 || got[1].Status != store.CoordActionIgnored {
		t.Errorf("ignored %v, want actions 1 and 2 IGNORED", got)
	}
	counts := h.countByStatus(id)
	if counts[store.CoordActionIgnored] != 2 || counts[store.CoordActionWaiting] != 2 {
		t.Errorf("after ignore: %v", counts)
	}
	if s := h.coordJob(id).Status; s != store.CoordRunning {
		t.Errorf("no error left after ignore: %s, want RUNNING", s)
	}
	if err := h.e.Kill(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.CoordIgnore(ctx, id, "", ""); err != nil {
		t.Fatal(err)
	}
	if s := h.coordJob(id).Status; s != store.CoordIgnored {
		t.Errorf("ignored job: %s", s)
	}
	if _, err := h.e.CoordIgnore(ctx, id, "action", ""); engine.ErrorCode(err) != CodeCoordIgnore {
		t.Errorf("ignore an IGNORED job: %v", err)
	}
	h.advance(2*time.Hour, 30*time.Minute, nil)
	if s := h.coordJob(id).Status; s != store.CoordIgnored {
		t.Errorf("an IGNORED job stays so: %s", s)
	}
}

// outCoord is a coordinator with an input and an output dataset; its
// workflow creates the output instance directory.
const outCoord = `<coordinator-app name="out" frequency="${coord:hours(1)}" start="${start}" end="${end}"
    timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <controls><concurrency>2</concurrency></controls>
  <datasets>
    <dataset name="logs" frequency="${coord:hours(1)}" initial-instance="2026-01-01T00:00Z" timezone="UTC">
      <uri-template>file://${dataRoot}/${YEAR}${MONTH}${DAY}${HOUR}</uri-template>
      <done-flag>_SUCCESS</done-flag>
    </dataset>
    <dataset name="results" frequency="${coord:hours(1)}" initial-instance="2026-01-01T00:00Z" timezone="UTC">
      <uri-template>file://${outRoot}/${YEAR}${MONTH}${DAY}${HOUR}</uri-template>
    </dataset>
  </datasets>
  <input-events>
    <data-in name="in" dataset="logs"><instance>${coord:current(0)}</instance></data-in>
  </input-events>
  <output-events>
    <data-out name="out" dataset="results"><instance>${coord:current(0)}</instance></data-out>
  </output-events>
  <action>
    <workflow>
      <app-path>${wfApp}</app-path>
      <configuration>
        <property><name>outDir</name><value>${coord:dataOut('out')}</value></property>
      </configuration>
    </workflow>
  </action>
</coordinator-app>`

// TestCoordRerun: ended actions go back to WAITING and run a new
// workflow (both runs listed by parent), the output instances are deleted
// first unless nocleanup, refresh re-plans the inputs, failed reruns the
// failed nodes of the same workflow, and the refusals carry E1018. The
// cleanup survives a restart between the commit and the effect.
func TestCoordRerun(t *testing.T) { testCoordRerun(t, newCoordHarness) }

// TestCoordRerunPostgres runs the rerun on PostgreSQL.
func TestCoordRerunPostgres(t *testing.T) { testCoordRerun(t, newPostgresCoordHarness) }

func testCoordRerun(t *testing.T, newH harnessFactory) {
	ctx := context.Background()
	h := newH(t, policyNow, Options{InputCheckInterval: time.Minute})
	outRoot := filepath.Join(h.dir, "out")
	p := h.coordProps(fsWorkflow, "start", "2026-03-02T07:00Z", "end", "2026-03-02T10:00Z", "outRoot", outRoot)
	writeFiles(t, filepath.Join(h.dir, "apps"), map[string]string{"coord/coordinator.xml": outCoord})
	nominal := func(n int) time.Time { return time.Date(2026, 3, 2, 6+n, 0, 0, 0, time.UTC) }
	outDir := func(n int) string { return filepath.Join(outRoot, nominal(n).Format("2006010215")) }
	for n := 1; n <= 3; n++ {
		h.publish(nominal(n))
	}
	id, err := h.e.Run(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	if j := h.coordJob(id); j.Status != store.CoordSucceeded {
		t.Fatalf("job %s, want SUCCEEDED", j.Status)
	}
	marker := func(n int) string { return filepath.Join(outDir(n), "marker") }
	for n := 1; n <= 3; n++ {
		writeFiles(t, outDir(n), map[string]string{"marker": "old output"})
	}

	refused := []struct {
		name, typ, scope, code string
	}{
		{"no type", "", "1", CodeCoordRerun},
		{"bad type", "week", "1", CodeCoordRerun},
		{"empty scope", "action", "", CodeInvalidParam},
		{"bad date", "date", "soon", CodeInvalidDate},
		{"nothing in scope", "action", "9", CodeCoordRerun},
		{"unknown job", "action", "1", engine.CodeJobNotFound},
	}
	for _, c := range refused {
		jid := id
		if c.name == "unknown job" {
			jid = "0000099-260302000000000-oozie-test-C"
		}
		if _, err := h.e.CoordRerun(ctx, jid, c.typ, c.scope, false, false, false); engine.ErrorCode(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}

	// Action 1 with cleanup; the engine restarts between the commit and
	// the cleanup.
	firstRun := h.actionByNumber(id, 1).ExternalID
	h.e.Close()
	out, err := h.e.CoordRerun(ctx, id, "action", "1", false, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := out; len(got) != 1 || got[0].Status != store.CoordActionWaiting || got[0].ExternalID != "" {
		t.Errorf("rerun answer %+v", got)
	}
	if j := h.coordJob(id); j.Status != store.CoordRunning {
		t.Errorf("job after rerun: %s, want RUNNING", j.Status)
	}
	if _, err := os.Stat(marker(1)); err != nil {
		t.Fatalf("output deleted before the effect ran: %v", err)
	}
	h.startEngine()
	h.settle()
	if _, err := os.Stat(marker(1)); !os.IsNotExist(err) {
		t.Errorf("rerun did not delete the old output of action 1: %v", err)
	}
	if ok, _ := statDir(outDir(1)); !ok {
		t.Errorf("the rerun workflow did not create %s again", outDir(1))
	}
	runs := h.workflowsByParent()
	if n := len(runs[id+"@1"]); n != 2 {
		t.Errorf("action 1 has %d workflow runs, want 2", n)
	}
	a1 := h.actionByNumber(id, 1)
	if a1.Status != store.CoordActionSucceeded || a1.ExternalID == "" || a1.ExternalID == firstRun {
		t.Errorf("action 1 after rerun: %s workflow %q (first run %s), want SUCCEEDED in a new workflow", a1.Status, a1.ExternalID, firstRun)
	}
	for _, w := range runs[id+"@1"] {
		if w.ID != a1.ExternalID && w.ID != firstRun {
			t.Errorf("action 1 has an unexpected run %s", w.ID)
		}
	}
	if j := h.coordJob(id); j.Status != store.CoordSucceeded {
		t.Errorf("job after the rerun ended: %s", j.Status)
	}
	hist := h.histories(id)[1]
	if strings.Join(hist, ",") != "WAITING,READY,SUBMITTED,RUNNING,SUCCEEDED,WAITING,READY,SUBMITTED,RUNNING,SUCCEEDED" {
		t.Errorf("action 1 history %v", hist)
	}

	// Action 2 by date, nocleanup, refresh: its input is gone, so it
	// waits, and runs once the input is back; the old output stays.
	if err := os.Remove(filepath.Join(h.dataDir(nominal(2)), "_SUCCESS")); err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.CoordRerun(ctx, id, "date", "2026-03-02T08:00Z", true, true, false); err != nil {
		t.Fatal(err)
	}
	h.advance(2*time.Minute, time.Minute, nil)
	a2 := h.actionByNumber(id, 2)
	if a2.Status != store.CoordActionWaiting || !strings.Contains(a2.MissingDependencies, h.dataDir(nominal(2))) {
		t.Errorf("rerun with its input gone: %s missing %q", a2.Status, a2.MissingDependencies)
	}
	if _, err := h.e.CoordRerun(ctx, id, "action", "2", false, false, false); engine.ErrorCode(err) != CodeCoordRerun {
		t.Errorf("rerun of a WAITING action: %v", err)
	}
	h.publish(nominal(2))
	h.advance(2*time.Minute, time.Minute, nil)
	if a2 := h.actionByNumber(id, 2); a2.Status != store.CoordActionSucceeded {
		t.Errorf("action 2 after its input came back: %s", a2.Status)
	}
	if _, err := os.Stat(marker(2)); err != nil {
		t.Errorf("nocleanup deleted the output: %v", err)
	}

	// failed=true reruns the same workflow (from its failed nodes).
	before := len(h.workflowsByParent()[id+"@3"])
	if _, err := h.e.CoordRerun(ctx, id, "action", "3", false, true, true); err != nil {
		t.Fatal(err)
	}
	h.advance(2*time.Minute, time.Minute, nil)
	wfs := h.workflowsByParent()[id+"@3"]
	if len(wfs) != before || wfs[0].Run != 1 {
		t.Errorf("failed rerun: %d workflows (was %d), run %d, want the same workflow rerun once", len(wfs), before, wfs[0].Run)
	}
	if a3 := h.actionByNumber(id, 3); a3.Status != store.CoordActionSucceeded || a3.ExternalID != wfs[0].ID {
		t.Errorf("action 3 after a failed rerun: %s %s", a3.Status, a3.ExternalID)
	}
}

// TestCoordRerunKilledJob (issue 26 point 9b): as in Oozie's
// CoordRerunXCommand, the actions of a coordinator killed while they
// waited for data can be rerun: the job becomes RUNNINGWITHERROR (RUNNING
// once no killed action is left), the rerun actions wait for their data
// and run, nothing more is materialized, and the job ends by its actions.
// Only PREP and IGNORED jobs and actions that have not ended are refused.
func TestCoordRerunKilledJob(t *testing.T) {
	ctx := context.Background()
	h := newCoordHarness(t, policyNow, Options{InputCheckInterval: time.Minute})
	id, err := h.e.Run(ctx, h.coordProps(fsWorkflow, "start", "2026-03-02T07:00Z", "end", "2026-03-02T16:00Z", "concurrency", "2"))
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	before := len(h.actions(id))
	if before < 2 {
		t.Fatalf("%d actions materialized, want at least 2", before)
	}
	if _, err := h.e.CoordRerun(ctx, id, "action", "1", false, false, false); engine.ErrorCode(err) != CodeCoordRerun ||
		!strings.Contains(err.Error(), "WAITING") {
		t.Errorf("rerun of a WAITING action: %v, want E1018", err)
	}
	if err := h.e.Kill(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if c := h.countByStatus(id); c[store.CoordActionKilled] != before {
		t.Fatalf("after kill: %v", c)
	}

	out, err := h.e.CoordRerun(ctx, id, "action", "1", false, true, false)
	if err != nil {
		t.Fatalf("rerun in a KILLED job: %v", err)
	}
	if len(out) != 1 || out[0].Status != store.CoordActionWaiting {
		t.Errorf("rerun answer %+v", out)
	}
	if j := h.coordJob(id); j.Status != store.CoordRunningWithError {
		t.Errorf("job after rerun with killed actions left: %s, want RUNNINGWITHERROR", j.Status)
	}
	h.advance(2*time.Minute, time.Minute, nil)
	if a := h.actionByNumber(id, 1); a.Status != store.CoordActionWaiting {
		t.Errorf("rerun action without its data: %s, want WAITING", a.Status)
	}
	h.publish(time.Date(2026, 3, 2, 7, 0, 0, 0, time.UTC))
	h.advance(3*time.Hour, 10*time.Minute, nil)
	if a := h.actionByNumber(id, 1); a.Status != store.CoordActionSucceeded {
		t.Errorf("rerun action once its data came: %s, want SUCCEEDED", a.Status)
	}
	if n := len(h.actions(id)); n != before {
		t.Errorf("the killed job materialized again: %d actions, had %d", n, before)
	}
	if j := h.coordJob(id); j.Status != store.CoordDoneWithError {
		t.Errorf("job after its rerun action ended: %s, want DONEWITHERROR (one SUCCEEDED, the rest KILLED)", j.Status)
	}

	// Every killed action rerun: no error left, the job is RUNNING.
	if _, err := h.e.CoordRerun(ctx, id, "action", "2-"+strconv.Itoa(before), false, true, false); err != nil {
		t.Fatal(err)
	}
	if j := h.coordJob(id); j.Status != store.CoordRunning {
		t.Errorf("job with no killed action left: %s, want RUNNING", j.Status)
	}

	// IGNORED and PREP jobs are refused, as in Oozie.
	if err := h.e.Kill(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.CoordIgnore(ctx, id, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.CoordRerun(ctx, id, "action", "1", false, true, false); engine.ErrorCode(err) != CodeCoordRerun ||
		!strings.Contains(err.Error(), "IGNORED") {
		t.Errorf("rerun in an IGNORED job: %v, want E1018", err)
	}
	// A submitted job is PREP only until its first tick, which runs at
	// once: the PREP job is written as it is, without one, so the check
	// does not race the tick.
	prepJob := *h.coordJob(id)
	prepJob.ID, prepJob.Status, prepJob.State = "0000999"+id[len("0000999"):], store.CoordPrep, ""
	if err := h.store.Update(ctx, func(tx store.Tx) error { return tx.PutCoordJob(ctx, &prepJob) }); err != nil {
		t.Fatal(err)
	}
	prep := prepJob.ID
	if _, err := h.e.CoordRerun(ctx, prep, "action", "1", false, true, false); engine.ErrorCode(err) != CodeCoordRerun ||
		!strings.Contains(err.Error(), "PREP") {
		t.Errorf("rerun in a PREP job: %v, want E1018", err)
	}
}

func (h *coordHarness) actionByNumber(id string, n int) *store.CoordAction {
	h.t.Helper()
	for _, a := range h.actions(id) {
		if a.Number == n {
			return a
		}
	}
	h.t.Fatalf("no action %d", n)
	return nil
}

// TestCoordRerunCleanupSchemes: the cleanup deletes file:// and plain
// paths and skips other file systems with a WARN line in the job log; a
// pending cleanup effect is performed by the next engine start.
func TestCoordRerunCleanupSchemes(t *testing.T) {
	ctx := context.Background()
	h := newCoordHarness(t, policyNow, Options{InputCheckInterval: time.Minute})
	id, err := h.e.Run(ctx, h.coordProps(fsWorkflow, "start", "2026-03-02T08:00Z", "end", "2026-03-02T09:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	plain, uri := filepath.Join(h.dir, "o1"), filepath.Join(h.dir, "o2")
	writeFiles(t, h.dir, map[string]string{"o1/part": "x", "o2/part": "y"})
	err = h.store.Update(ctx, func(tx store.Tx) error {
		return tx.AddEffect(ctx, &store.Effect{JobID: id, ActionID: id + "@1", Kind: EffectCoordCleanup,
			Payload: `["` + plain + `","file://` + uri + `","hdfs://nn:8020/out/1"]`, CreatedTime: h.clock.Now()})
	})
	if err != nil {
		t.Fatal(err)
	}
	// Committed behind the running engine's back: the next start finds it.
	h.e.Close()
	h.startEngine()
	h.settle()
	for _, p := range []string{plain, uri} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s not deleted: %v", p, err)
		}
	}
	logs := h.jobLog(id)
	if want := "rerun cleanup skipped [hdfs://nn:8020/out/1]: unsupported file system"; !logs[want] {
		t.Errorf("job log lacks %q", want)
	}
}

// TestCoordRerunAfterPendingKill: an action killed, rerun before the kill
// reached its workflow (the engine was down), then the kill effect runs:
// it kills the old workflow only, never the rerun's.
func TestCoordRerunAfterPendingKill(t *testing.T) {
	ctx := context.Background()
	h := newCoordHarness(t, policyNow, Options{InputCheckInterval: time.Minute})
	h.publish(policyNow.Add(-time.Hour))
	// Action 2 (10:00) has no input and keeps the job from ending.
	id, err := h.e.Run(ctx, h.coordProps(holdWorkflow, "start", "2026-03-02T09:00Z", "end", "2026-03-02T11:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	old := h.runningWorkflows(id)
	if len(old) != 1 {
		t.Fatalf("%d running workflows, want 1", len(old))
	}
	h.e.Close()
	killedAt := h.clock.Now()
	if _, err := h.e.CoordKillActions(ctx, id, "action", "1"); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(time.Minute)
	if _, err := h.e.CoordRerun(ctx, id, "action", "1", false, true, false); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(time.Minute)
	h.startEngine()
	h.settle()
	h.advance(2*time.Minute, time.Minute, nil)
	a := h.actionByNumber(id, 1)
	if a.Status != store.CoordActionRunning || a.ExternalID == old[0] {
		t.Fatalf("rerun action: %s in %s (old %s), want RUNNING in a new workflow", a.Status, a.ExternalID, old[0])
	}
	if s := h.wfStatus(old[0]); s != store.JobKilled {
		t.Errorf("old workflow %s, want KILLED", s)
	}
	if s := h.wfStatus(a.ExternalID); s != store.JobRunning {
		t.Errorf("rerun workflow %s, want RUNNING", s)
	}
	// The kill effect delivered (again) only now, after the rerun's
	// workflow started: that workflow is not its business.
	late := &store.Effect{JobID: id, ActionID: a.ID, Kind: EffectCoordKill, CreatedTime: killedAt}
	if err := h.store.Update(ctx, func(tx store.Tx) error { return tx.AddEffect(ctx, late) }); err != nil {
		t.Fatal(err)
	}
	if err := h.e.performCoordCascade(ctx, late); err != nil {
		t.Fatal(err)
	}
	if s := h.wfStatus(a.ExternalID); s != store.JobRunning {
		t.Errorf("rerun workflow %s after a late kill of the old run, want RUNNING", s)
	}
}

// TestCoordChangeBeforeMaterialized (issue 13 point 11): as in Oozie 5, an
// end time at or before materialized actions and a pause time in the past
// are accepted; the WAITING/READY actions nominally at or after the new
// time are deleted and materialization rewinds to the first of them. An
// action past that point that already started makes the change fail with
// E1022 and changes nothing.
func TestCoordChangeBeforeMaterialized(t *testing.T) {
	ctx := context.Background()
	at := func(h int) time.Time { return time.Date(2026, 3, 2, h, 0, 0, 0, time.UTC) }
	rows := []struct {
		name       string
		value      string
		code       string
		wantLast   int    // LastActionNumber after
		wantStatus string // job status after a step
	}{
		{"end before a running action", "endtime=" + fmtUTC(at(8)), CodeCoordChangeDelete, -1, store.CoordRunning},
		{"end at the second action", "endtime=" + fmtUTC(at(9)), "", 1, store.CoordRunning},
		{"end between actions", "endtime=2026-03-02T09:30Z", "", 2, store.CoordRunning},
		{"pause time in the past", "pausetime=2026-03-02T08:30Z", "", 1, store.CoordPaused},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			h := newCoordHarness(t, policyNow, Options{InputCheckInterval: time.Minute})
			h.publish(at(8)) // action 1 runs (and holds); the others wait
			id, err := h.e.Run(ctx, h.coordProps(holdWorkflow, "start", "2026-03-02T08:00Z", "end", "2026-03-02T20:00Z"))
			if err != nil {
				t.Fatal(err)
			}
			h.advance(2*time.Hour, 15*time.Minute, nil)
			if a := h.actionByNumber(id, 1); a.Status != store.CoordActionRunning {
				t.Fatalf("action 1: %s, want RUNNING", a.Status)
			}
			before := h.coordJob(id).LastActionNumber
			if before < 3 {
				t.Fatalf("only %d actions materialized", before)
			}
			err = h.e.CoordChange(ctx, id, r.value)
			if engine.ErrorCode(err) != r.code {
				t.Fatalf("change %q: %v, want code %q", r.value, err, r.code)
			}
			h.settle()
			j := h.coordJob(id)
			want := r.wantLast
			if want < 0 {
				want = before
			}
			if j.LastActionNumber != want || len(h.actions(id)) != want {
				t.Errorf("after %q: last action %d, %d actions; want %d", r.value, j.LastActionNumber, len(h.actions(id)), want)
			}
			if r.code == "" && !j.NextMaterializedTime.Equal(at(8+want)) {
				t.Errorf("after %q: next materialization %s, want %s", r.value, fmtUTC(j.NextMaterializedTime), fmtUTC(at(8+want)))
			}
			if j.Status != r.wantStatus {
				t.Errorf("after %q: status %s, want %s", r.value, j.Status, r.wantStatus)
			}
		})
	}
}
