package coordengine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/store"
)

func (h *coordHarness) wfStatus(id string) string {
	h.t.Helper()
	j, _, err := h.e.Job(context.Background(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	return j.Status
}

// TestCoordSuspendResumeKillCascade: suspending a coordinator suspends its
// running workflows, resuming resumes them and materializes what came due
// meanwhile, killing kills the job, its actions and their workflows; an
// engine restart in between loses nothing and launches nothing twice.
func TestCoordSuspendResumeKillCascade(t *testing.T) {
	testCoordCascade(t, newCoordHarness)
}

// TestCoordPostgres runs the catch-up and the cascade on PostgreSQL, the
// store several servers share.
func TestCoordPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	t.Run("CatchUpThrottleConcurrency", func(t *testing.T) { testCoordCatchUp(t, newPostgresCoordHarness) })
	t.Run("SuspendResumeKillCascade", func(t *testing.T) { testCoordCascade(t, newPostgresCoordHarness) })
}

func testCoordCascade(t *testing.T, newH harnessFactory) {
	ctx := context.Background()
	h := newH(t, policyNow, Options{InputCheckInterval: time.Minute})
	for n := 0; n < 24; n++ {
		h.publish(policyNow.Add(time.Duration(n-2) * time.Hour))
	}
	id, err := h.e.Run(ctx, h.coordProps(holdWorkflow,
		"start", "2026-03-02T08:00Z", "end", "2026-03-02T20:00Z", "concurrency", "2"))
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	h.advance(2*time.Minute, time.Minute, nil)
	wfs := h.runningWorkflows(id)
	if len(wfs) != 2 {
		t.Fatalf("%d running workflows, want 2 (concurrency)", len(wfs))
	}

	if err := h.e.Suspend(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if s := h.coordJob(id).Status; s != store.CoordSuspended {
		t.Fatalf("after suspend: %s", s)
	}
	for _, w := range wfs {
		if s := h.wfStatus(w); s != store.JobSuspended {
			t.Errorf("workflow %s %s after coordinator suspend, want SUSPENDED", w, s)
		}
	}
	if err := h.e.Suspend(ctx, id); engine.ErrorCode(err) != engine.CodeCannotSuspend {
		t.Errorf("second suspend: %v, want %s", err, engine.CodeCannotSuspend)
	}
	last := h.coordJob(id).LastActionNumber
	// Three hours pass while suspended: nothing is materialized...
	h.advance(3*time.Hour, 15*time.Minute, nil)
	if n := h.coordJob(id).LastActionNumber; n != last {
		t.Errorf("materialized %d -> %d while suspended", last, n)
	}
	h.restart()
	// ...and after the resume the missed actions come (delayed, not lost).
	if err := h.e.Resume(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.settle()
	j := h.coordJob(id)
	if j.Status != store.CoordRunning || j.LastActionNumber <= last {
		t.Fatalf("after resume: %s, last action %d (was %d)", j.Status, j.LastActionNumber, last)
	}
	for _, w := range wfs {
		if s := h.wfStatus(w); s != store.JobRunning {
			t.Errorf("workflow %s %s after coordinator resume, want RUNNING", w, s)
		}
	}
	if err := h.e.Resume(ctx, id); engine.ErrorCode(err) != engine.CodeNotSuspended {
		t.Errorf("second resume: %v, want %s", err, engine.CodeNotSuspended)
	}

	h.finish(wfs[0])
	h.settle()
	h.advance(time.Minute, time.Minute, nil)
	running := h.runningWorkflows(id)
	if len(running) != 2 {
		t.Fatalf("%d running after one finished, want 2", len(running))
	}
	h.restart()
	if err := h.e.Kill(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if s := h.coordJob(id).Status; s != store.CoordKilled {
		t.Fatalf("after kill: %s", s)
	}
	for _, w := range running {
		if s := h.wfStatus(w); s != store.JobKilled {
			t.Errorf("workflow %s %s after coordinator kill, want KILLED", w, s)
		}
	}
	for _, a := range h.actions(id) {
		switch a.Number {
		case 1:
			if a.Status != store.CoordActionSucceeded {
				t.Errorf("finished action 1: %s", a.Status)
			}
		default:
			if a.Status != store.CoordActionKilled {
				t.Errorf("action %d: %s after kill, want KILLED", a.Number, a.Status)
			}
		}
	}
	for parent, jobs := range h.workflowsByParent() {
		if len(jobs) != 1 {
			t.Errorf("action %s launched %d workflows", parent, len(jobs))
		}
	}
	if err := h.e.Kill(ctx, id); engine.ErrorCode(err) != engine.CodeCannotKill {
		t.Errorf("second kill: %v, want %s", err, engine.CodeCannotKill)
	}
	// A killed job does nothing more, whatever the clock says.
	n := len(h.actions(id))
	h.advance(2*time.Hour, 30*time.Minute, nil)
	if m := len(h.actions(id)); m != n {
		t.Errorf("killed job materialized %d more actions", m-n)
	}
}

// TestCoordSuspendInPrep: PREP -> PREPSUSPENDED -> PREP -> RUNNING (spec
// 6.1.2). The job is submitted and suspended while no engine runs, so its
// first tick cannot start it first; the tick then finds it suspended.
func TestCoordSuspendInPrep(t *testing.T) {
	ctx := context.Background()
	h := newCoordHarness(t, policyNow, Options{InputCheckInterval: time.Minute})
	h.e.Close()
	id, err := h.e.Submit(ctx, h.coordProps(fsWorkflow, "start", "2026-03-02T10:00Z", "end", "2026-03-02T12:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	if s := h.coordJob(id).Status; s != store.CoordPrep {
		t.Fatalf("submitted job %s, want PREP", s)
	}
	if err := h.e.Suspend(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.startEngine()
	h.settle()
	h.advance(time.Hour, 15*time.Minute, nil)
	if j := h.coordJob(id); j.Status != store.CoordPrepSuspended || j.LastActionNumber != 0 {
		t.Fatalf("suspended in PREP: %s with %d actions, want PREPSUSPENDED with none", j.Status, j.LastActionNumber)
	}
	if err := h.e.Resume(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.settle()
	hist := map[string]bool{}
	var logs []*store.LogEntry
	_ = h.store.View(ctx, func(tx store.Tx) (err error) { logs, err = tx.Logs(ctx, id, 0, 0); return err })
	for _, l := range logs {
		hist[l.Message] = true
	}
	for _, want := range []string{"coordinator job status PREP -> PREPSUSPENDED",
		"coordinator job status PREPSUSPENDED -> PREP", "coordinator job status PREP -> RUNNING"} {
		if !hist[want] {
			t.Errorf("job log lacks %q", want)
		}
	}
	if j := h.coordJob(id); j.Status != store.CoordRunning || j.LastActionNumber == 0 {
		t.Errorf("after resume: %s with %d actions, want RUNNING and materializing", j.Status, j.LastActionNumber)
	}
}

// TestCoordPauseTime: a pause time stops materialization and pauses the
// job when reached; clearing it resumes (spec: coord 6.1.2).
func TestCoordPauseTime(t *testing.T) {
	ctx := context.Background()
	h := newCoordHarness(t, policyNow, Options{InputCheckInterval: 15 * time.Minute})
	for n := 0; n < 6; n++ {
		h.publish(policyNow.Add(time.Duration(n) * time.Hour))
	}
	id, err := h.e.Run(ctx, h.coordProps(fsWorkflow, "start", "2026-03-02T10:00Z", "end", "2026-03-02T16:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	setPause := func(at time.Time) {
		unlock := h.e.coordLock(id)
		defer unlock()
		c, err := h.e.loadCoordChange(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		c.job.PauseTime = at
		c.jobDirty = true
		if err := h.e.coordStep(ctx, c); err != nil {
			t.Fatal(err)
		}
		if err := h.e.commitCoord(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	setPause(policyNow.Add(2 * time.Hour))
	h.advance(4*time.Hour, 15*time.Minute, nil)
	j := h.coordJob(id)
	if j.Status != store.CoordPaused {
		t.Fatalf("past the pause time: %s, want PAUSED", j.Status)
	}
	if j.LastActionNumber != 2 {
		t.Errorf("materialized %d actions before the pause time, want 2", j.LastActionNumber)
	}
	setPause(time.Time{})
	h.advance(3*time.Hour, 15*time.Minute, nil)
	if j := h.coordJob(id); j.Status != store.CoordSucceeded || j.LastActionNumber != 6 {
		t.Errorf("after clearing the pause time: %s with %d actions, want SUCCEEDED with 6", j.Status, j.LastActionNumber)
	}
}

// TestCoordInfoAndKillRange covers the REST-facing methods: the job and
// action objects with the keys of rest-api §5.3/§5.4, paging, status
// filters, the owner and definition, listing, range kills and errors.
func TestCoordInfoAndKillRange(t *testing.T) {
	ctx := context.Background()
	h := newCoordHarness(t, policyNow, Options{InputCheckInterval: time.Minute})
	id, err := h.e.Run(ctx, h.coordProps(holdWorkflow,
		"start", "2026-03-02T00:00Z", "end", "2026-03-02T06:00Z", "throttle", "10", "oozie.job.acl", "ann"))
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	// Six WAITING actions: no input exists.
	info, err := h.e.CoordJobInfo(ctx, id, 2, 3, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	b, _ := json.Marshal(info)
	if err := json.Unmarshal(b, &obj); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"coordJobId", "coordJobName", "coordJobPath", "coordExternalId", "bundleId", "conf",
		"status", "executionPolicy", "frequency", "timeUnit", "timeZone", "concurrency", "timeOut", "lastAction",
		"nextMaterializedTime", "createdTime", "startTime", "endTime", "pauseTime", "user", "group", "acl",
		"consoleUrl", "mat_throttling", "actions", "total", "toString"} {
		if _, ok := obj[k]; !ok {
			t.Errorf("job object lacks %q", k)
		}
	}
	if len(obj) != 27 {
		t.Errorf("job object has %d keys, want 27", len(obj))
	}
	checks := map[string]any{"coordJobId": id, "coordJobName": "hourly", "status": "RUNNING", "frequency": "60",
		"timeUnit": "MINUTE", "timeZone": "UTC", "executionPolicy": "FIFO", "concurrency": 1.0, "timeOut": -1.0,
		"mat_throttling": 10.0, "total": 6.0, "user": "tester", "acl": "ann", "bundleId": nil, "pauseTime": nil,
		"startTime": "Mon, 02 Mar 2026 00:00:00 GMT", "endTime": "Mon, 02 Mar 2026 06:00:00 GMT",
		"toString": "Coordinator application id[" + id + "] status[RUNNING]"}
	for k, want := range checks {
		if obj[k] != want {
			t.Errorf("%s = %#v, want %#v", k, obj[k], want)
		}
	}
	acts := obj["actions"].([]any)
	if len(acts) != 3 {
		t.Fatalf("offset 2 len 3 gave %d actions", len(acts))
	}
	first := acts[0].(map[string]any)
	if first["actionNumber"] != 2.0 || first["id"] != id+"@2" || first["status"] != "WAITING" {
		t.Errorf("first action of the page: %v", first)
	}
	for _, k := range []string{"id", "coordJobId", "type", "actionNumber", "createdConf", "createdTime", "nominalTime",
		"lastModifiedTime", "externalId", "status", "runConf", "missingDependencies", "pushMissingDependencies",
		"externalStatus", "trackerUri", "consoleUrl", "errorCode", "errorMessage", "toString"} {
		if _, ok := first[k]; !ok {
			t.Errorf("action object lacks %q", k)
		}
	}
	if len(first) != 19 {
		t.Errorf("action object has %d keys, want 19", len(first))
	}
	if want := "file://" + h.dataDir(policyNow.Add(-9*time.Hour)) + "/_SUCCESS"; first["missingDependencies"] != want {
		t.Errorf("missingDependencies %v, want %s", first["missingDependencies"], want)
	}
	if first["nominalTime"] != "Mon, 02 Mar 2026 01:00:00 GMT" || first["externalId"] != nil {
		t.Errorf("action 2: nominal %v externalId %v", first["nominalTime"], first["externalId"])
	}
	desc, _ := h.e.CoordJobInfo(ctx, id, 1, 0, true, nil)
	if a := desc.Actions; len(a) != 6 || a[0].ActionNumber != 6 {
		t.Errorf("desc listing: %d actions, first %d", len(a), a[0].ActionNumber)
	}

	killed, err := h.e.CoordKillActions(ctx, id, "action", "1-2,5")
	if err != nil {
		t.Fatal(err)
	}
	if k := killed; len(k) != 3 || k[2].ActionNumber != 5 || k[2].Status != "KILLED" {
		t.Errorf("killed %v", k)
	}
	killed, err = h.e.CoordKillActions(ctx, id, "date", "2026-03-02T03:00Z::2026-03-02T03:30Z")
	if err != nil {
		t.Fatal(err)
	}
	if k := killed; len(k) != 1 || k[0].ActionNumber != 4 {
		t.Errorf("date kill: %v", k)
	}
	h.settle()
	filtered, _ := h.e.CoordJobInfo(ctx, id, 1, 0, false, []string{"KILLED"})
	if f := filtered; f.Total != 4 || len(f.Actions) != 4 {
		t.Errorf("status=KILLED: total %d, %d actions", f.Total, len(f.Actions))
	}
	notKilled, _ := h.e.CoordJobInfo(ctx, id, 1, 0, false, []string{"!KILLED"})
	if f := notKilled; f.Total != 2 || f.Actions[0].ActionNumber != 3 {
		t.Errorf("status!=KILLED: total %d", f.Total)
	}
	if s := h.coordJob(id).Status; s != store.CoordRunningWithError {
		t.Errorf("job with killed actions: %s, want RUNNINGWITHERROR", s)
	}
	one, err := h.e.CoordActionInfo(ctx, id+"@3")
	if err != nil || one.Status != "WAITING" {
		t.Errorf("action 3: %v %v", one, err)
	}

	user, group, acl, err := h.e.CoordOwner(ctx, id)
	if err != nil || user != "tester" || acl != "ann" {
		t.Errorf("owner %q %q %q %v", user, group, acl, err)
	}
	def, err := h.e.CoordDefinition(ctx, id)
	if err != nil || !strings.Contains(def, "coordinator-app") {
		t.Errorf("definition %q %v", def, err)
	}
	list, total, err := h.e.CoordJobList(ctx, store.JobFilter{Limit: 50})
	if err != nil || total != 1 || len(list) != 1 || list[0].Conf != "" {
		t.Errorf("list: %d of %d, %v", len(list), total, err)
	}

	errCases := []struct {
		name string
		call func() error
		code string
	}{
		{"unknown job", func() error {
			_, err := h.e.CoordJobInfo(ctx, "0000099-260302000000000-oozie-test-C", 1, 0, false, nil)
			return err
		}, engine.CodeJobNotFound},
		{"unknown action", func() error { _, err := h.e.CoordActionInfo(ctx, id+"@99"); return err }, engine.CodeActionNotFound},
		{"unknown owner", func() error { _, _, _, err := h.e.CoordOwner(ctx, "x-C"); return err }, engine.CodeJobNotFound},
		{"bad action range", func() error { _, err := h.e.CoordKillActions(ctx, id, "action", "3-1"); return err }, CodeInvalidParam},
		{"bad number", func() error { _, err := h.e.CoordKillActions(ctx, id, "action", "a"); return err }, CodeInvalidParam},
		{"bad date", func() error { _, err := h.e.CoordKillActions(ctx, id, "date", "yesterday"); return err }, CodeInvalidDate},
		{"bad type", func() error { _, err := h.e.CoordKillActions(ctx, id, "week", "1"); return err }, CodeInvalidParam},
		{"suspend unknown", func() error { return h.e.Suspend(ctx, "x-C") }, engine.CodeJobNotFound},
		{"start running", func() error { return h.e.StartJob(ctx, id) }, engine.CodeAlreadyStarted},
	}
	for _, c := range errCases {
		if err := c.call(); engine.ErrorCode(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
}

// TestCoordDryrun returns the definition and the materialized actions
// without creating a job.
func TestCoordDryrun(t *testing.T) {
	ctx := context.Background()
	h := newCoordHarness(t, policyNow, Options{})
	text, err := h.e.CoordDryrun(ctx, h.coordProps(fsWorkflow, "start", "2026-03-02T00:00Z", "end", "2026-03-02T03:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text, "action for new instance"); n != 3 || !strings.Contains(text, "***actions for instance***") {
		t.Errorf("dry run lists %d actions:\n%s", n, text)
	}
	if _, total, _ := h.e.CoordJobList(ctx, store.JobFilter{}); total != 0 {
		t.Errorf("dry run created %d jobs", total)
	}
	_, err = h.e.CoordDryrun(ctx, h.coordProps(fsWorkflow, "start", "2026-03-02T00:00Z", "end", "2026-03-02T03:00Z", "throttle", "x"))
	if engine.ErrorCode(err) == "" {
		t.Errorf("bad throttle: %v, want an Oozie error code", err)
	}
}

// TestCoordSubmitErrors: bad submissions are refused with Oozie codes and
// create nothing.
func TestCoordSubmitErrors(t *testing.T) {
	ctx := context.Background()
	h := newCoordHarness(t, policyNow, Options{})
	p := h.coordProps(fsWorkflow, "start", "2026-03-02T00:00Z", "end", "2026-03-02T03:00Z")
	p.Set(engine.PropCoordAppPath, "file://"+h.dir+"/nowhere")
	if _, err := h.e.Submit(ctx, p); engine.ErrorCode(err) == "" {
		t.Errorf("missing app: %v", err)
	}
	if _, total, _ := h.e.CoordJobList(ctx, store.JobFilter{}); total != 0 {
		t.Errorf("refused submissions created %d jobs", total)
	}
}

// TestCoordCascadeAfterReversal: the suspend and the resume a coordinator
// passes on to its workflows are effects performed in any order, so each
// applies only while the coordinator is still in the state its command
// left it. Each case brings the coordinator to a status, sets the
// workflow's own, then performs one cascade effect as a late one would be.
func TestCoordCascadeAfterReversal(t *testing.T) {
	tests := []struct {
		name     string
		commands []string // coordinator commands, each settled
		wfCmd    string   // then a command on the workflow itself
		kind     string   // the cascade effect performed last
		want     string   // the workflow's status
	}{
		{"suspend performed after the resume", []string{"suspend", "resume"}, "", EffectCoordSuspend, store.JobRunning},
		{"resume performed after a new suspend", []string{"suspend", "resume", "suspend"}, "", EffectCoordResume, store.JobSuspended},
		{"suspend of a suspended coordinator", []string{"suspend"}, "resume", EffectCoordSuspend, store.JobSuspended},
		{"resume of a running coordinator", []string{}, "suspend", EffectCoordResume, store.JobRunning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			h := newCoordHarness(t, policyNow, Options{InputCheckInterval: time.Minute})
			for n := 0; n < 4; n++ {
				h.publish(policyNow.Add(time.Duration(n-2) * time.Hour))
			}
			id, err := h.e.Run(ctx, h.coordProps(holdWorkflow,
				"start", "2026-03-02T08:00Z", "end", "2026-03-02T09:00Z", "concurrency", "1"))
			if err != nil {
				t.Fatal(err)
			}
			h.settle()
			h.advance(2*time.Minute, time.Minute, nil)
			wfs := h.runningWorkflows(id)
			if len(wfs) != 1 {
				t.Fatalf("%d running workflows, want 1", len(wfs))
			}
			do := func(cmd, job string) {
				t.Helper()
				f := map[string]func(context.Context, string) error{"suspend": h.e.Suspend, "resume": h.e.Resume}[cmd]
				if err := f(ctx, job); err != nil {
					t.Fatalf("%s %s: %v", cmd, job, err)
				}
				h.settle()
			}
			for _, cmd := range tt.commands {
				do(cmd, id)
			}
			if tt.wfCmd != "" {
				do(tt.wfCmd, wfs[0])
			}
			var action string
			for _, a := range h.actions(id) {
				if a.ExternalID == wfs[0] {
					action = a.ID
				}
			}
			// Not committed (id 0): performed as the runtime would, once.
			ef := &store.Effect{Kind: tt.kind, JobID: id, ActionID: action, CreatedTime: h.clock.Now()}
			if err := h.e.PerformEffect(ctx, ef); err != nil {
				t.Fatal(err)
			}
			if s := h.wfStatus(wfs[0]); s != tt.want {
				t.Errorf("workflow %s after %v, workflow %q and %s: %s, want %s", wfs[0], tt.commands, tt.wfCmd, tt.kind, s, tt.want)
			}
		})
	}
}
