package coordengine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/schedule"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// Oozie error codes of the coordinator change, ignore and rerun commands
// (rest-api.md 9.1).
const (
	CodeCoordChange       = "E1015" // an invalid change value
	CodeCoordChangeKilled = "E1016" // a killed (or ignored) job cannot be changed
	CodeCoordChangeDelete = "E1022" // change would delete an action that is not WAITING or READY
	CodeCoordRerun        = "E1018"
	CodeCoordIgnore       = "E1024"
)

// EffectCoordCleanup deletes the output dataset instances of a rerun
// action before the action may run again; its payload is the JSON list of
// the URIs.
const EffectCoordCleanup = "coord-cleanup"

// coordChangeValue is a parsed change value (rest-api.md 7.4).
type coordChangeValue struct {
	hasEnd, hasConcurrency, hasPause, hasStatus bool
	end, pause                                  time.Time
	concurrency                                 int
	status                                      string
}

func changeValueError(value, format string, args ...any) *vocab.Error {
	return errorf(CodeCoordChange, "Invalid coordinator job change value %s, %s", value, fmt.Sprintf(format, args...))
}

// parseCoordChangeValue parses key=value;key=value. Keys may not repeat;
// "pausetime=" (empty) clears the pause time.
func parseCoordChangeValue(value string) (*coordChangeValue, error) {
	v := &coordChangeValue{}
	seen := map[string]bool{}
	for _, part := range strings.Split(value, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key, val, ok := strings.Cut(part, "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok {
			return nil, changeValueError(value, "[%s] is not key=value", part)
		}
		if seen[key] {
			return nil, changeValueError(value, "repeated key [%s]", key)
		}
		seen[key] = true
		switch key {
		case "endtime":
			t, err := schedule.ParseTime(val)
			if err != nil {
				return nil, changeValueError(value, "[endtime] [%s] is not a UTC date (yyyy-MM-ddTHH:mmZ)", val)
			}
			v.hasEnd, v.end = true, t
		case "pausetime":
			v.hasPause = true
			if val != "" {
				t, err := schedule.ParseTime(val)
				if err != nil {
					return nil, changeValueError(value, "[pausetime] [%s] is not a UTC date (yyyy-MM-ddTHH:mmZ)", val)
				}
				v.pause = t
			}
		case "concurrency":
			n, err := strconv.Atoi(val)
			if err != nil || n < -1 || n == 0 {
				return nil, changeValueError(value, "[concurrency] [%s] must be a positive integer, or -1 for no limit", val)
			}
			v.hasConcurrency, v.concurrency = true, n
		case "status":
			s := strings.ToUpper(val)
			if s != store.CoordRunning && s != store.CoordIgnored {
				return nil, changeValueError(value, "[status] [%s] must be RUNNING or IGNORED", val)
			}
			v.hasStatus, v.status = true, s
		default:
			return nil, changeValueError(value, "unknown key [%s], expected endtime, concurrency, pausetime or status", key)
		}
	}
	if len(seen) == 0 {
		return nil, changeValueError(value, "nothing to change")
	}
	return v, nil
}

// CoordChange changes a coordinator job's end time, concurrency, pause
// time or status (rest-api.md 7.4). A pause time takes effect at the job's
// tick: RUNNING becomes PAUSED (RUNNINGWITHERROR PAUSEDWITHERROR, PREP
// PREPPAUSED) when it is reached, and a cleared or later pause time brings
// the job back (spec: coord 6.1.2).
func (e *Engine) CoordChange(ctx context.Context, id, value string) error {
	v, err := parseCoordChangeValue(value)
	if err != nil {
		return err
	}
	unlock := e.coordLock(id)
	defer unlock()
	c, err := e.loadCoordChange(ctx, id)
	if err != nil {
		return err
	}
	j, now := c.job, c.now
	if j.Status == store.CoordKilled || j.Status == store.CoordIgnored {
		// Only the status may change: back to RUNNING, or KILLED to
		// IGNORED.
		if !v.hasStatus || v.hasEnd || v.hasConcurrency || v.hasPause {
			return errorf(CodeCoordChangeKilled, "Cannot change a killed coordinator job, job [%s] status [%s]", id, j.Status)
		}
	}
	if v.hasStatus {
		switch {
		case v.status == store.CoordRunning && !slices.Contains([]string{store.CoordFailed, store.CoordKilled, store.CoordIgnored}, j.Status):
			return changeValueError(value, "only a FAILED, KILLED or IGNORED job can be changed to RUNNING, job status [%s]", j.Status)
		case v.status == store.CoordIgnored && j.Status != store.CoordFailed && j.Status != store.CoordKilled:
			return changeValueError(value, "only a FAILED or KILLED job can be changed to IGNORED, job status [%s]", j.Status)
		}
	}
	if v.hasEnd {
		if v.end.Before(j.StartTime) {
			return changeValueError(value, "[endtime] cannot be before the job's start time [%s]", fmtUTC(j.StartTime))
		}
	}
	// As in Oozie 5, an end or pause time at or before materialized
	// actions is accepted: those actions are deleted, which only WAITING
	// and READY ones can be (E1022 otherwise); a pause time in the past is
	// accepted too.
	var cut time.Time
	if v.hasEnd {
		cut = v.end
	}
	if v.hasPause && !v.pause.IsZero() && (cut.IsZero() || v.pause.Before(cut)) {
		cut = v.pause
	}
	if !cut.IsZero() && j.LastActionNumber > 0 && !cut.After(j.LastActionTime) {
		if err := e.dropCoordActionsFrom(ctx, c, cut); err != nil {
			return err
		}
	}

	if v.hasEnd {
		j.EndTime = v.end
		done := !j.NextMaterializedTime.Before(j.EndTime)
		if done != j.DoneMaterialization {
			j.DoneMaterialization = done
		}
		if !done {
			c.reopen(e)
		}
	}
	if v.hasConcurrency {
		j.Concurrency = v.concurrency
	}
	if v.hasPause {
		j.PauseTime = v.pause
	}
	c.jobDirty = true
	c.log("", "INFO", "coordinator job changed [%s]", value)
	if v.hasStatus {
		if v.status == store.CoordIgnored {
			c.setStatus(e, store.CoordIgnored)
			return e.commitCoord(ctx, c)
		}
		// FAILED and KILLED -> RUNNING are Oozie's change command, outside
		// the specification's table (which has IGNORED -> RUNNING only).
		c.forceStatus(store.CoordRunning)
		// The job is stepped after an input check interval rather than at
		// once: an ended job whose actions all ended would otherwise be
		// closed again before the rerun it was reopened for arrives.
		c.schedule(now.Add(e.opts.InputCheckInterval))
		return e.commitCoord(ctx, c)
	}
	if j.Status != store.CoordPrep && !CoordTerminal(j.Status) {
		// A job in PREP is started (and paused) by its first tick, already
		// due; every other live job is stepped now so that a cleared pause
		// time or a later end time materializes at once.
		if err := e.coordStep(ctx, c); err != nil {
			return err
		}
	}
	return e.commitCoord(ctx, c)
}

// dropCoordActionsFrom deletes the job's actions nominally at or after cut,
// all of which must be WAITING or READY (E1022 names the first that is
// not), and moves the job's last action and next materialization time back
// to the first of them, so that materialization resumes there if the job
// still reaches it.
func (e *Engine) dropCoordActionsFrom(ctx context.Context, c *coordChange, cut time.Time) error {
	j := c.job
	acts, err := e.coordActions(ctx, j.ID, store.CoordActionFilter{NominalFrom: cut})
	if err != nil {
		return err
	}
	if len(acts) == 0 {
		return nil
	}
	first := acts[0]
	for _, a := range acts {
		if a.Status != store.CoordActionWaiting && a.Status != store.CoordActionReady {
			return errorf(CodeCoordChangeDelete, "Cannot delete running/completed coordinator action: [%s]", a.ID)
		}
		if a.Number < first.Number {
			first = a
		}
	}
	for _, a := range acts {
		c.deleted = append(c.deleted, a.ID)
		c.log(a.ID, "INFO", "action deleted: nominal time %s is at or after the new end or pause time %s", fmtUTC(a.NominalTime), fmtUTC(cut))
	}
	j.LastActionNumber = first.Number - 1
	j.NextMaterializedTime = first.NominalTime
	j.LastActionTime = time.Time{}
	if j.LastActionNumber > 0 {
		prev, err := e.coordActions(ctx, j.ID, store.CoordActionFilter{NominalTo: first.NominalTime, Desc: true, Limit: 2})
		if err != nil {
			return err
		}
		for _, p := range prev {
			if p.Number == j.LastActionNumber {
				j.LastActionTime = p.NominalTime
			}
		}
	}
	j.DoneMaterialization = !j.NextMaterializedTime.Before(j.EndTime)
	c.jobDirty = true
	return nil
}

func fmtUTC(t time.Time) string { return t.UTC().Format("2006-01-02T15:04Z") }

// forceStatus sets a job status the command itself vouches for: the
// reopening of ended jobs by change and rerun, which the specification's
// status table does not list.
func (c *coordChange) forceStatus(to string) {
	if c.job.Status == to {
		return
	}
	c.log("", "INFO", "coordinator job status %s -> %s", c.job.Status, to)
	c.job.Status = to
	c.jobDirty = true
}

// reopen brings an ended job that has work again (rerun actions, a later
// end time) back to running: SUCCEEDED -> RUNNING; DONEWITHERROR, KILLED
// and FAILED -> RUNNINGWITHERROR, as Oozie's rerun does
// (RerunTransitionXCommand.transitToNext). A killed job's materialization
// stays over (Oozie's kill marks it done): only the rerun actions run.
func (c *coordChange) reopen(e *Engine) {
	switch c.job.Status {
	case store.CoordSucceeded:
		c.forceStatus(store.CoordRunning)
	case store.CoordDoneWithError, store.CoordFailed:
		c.forceStatus(store.CoordRunningWithError)
	case store.CoordKilled:
		c.job.DoneMaterialization = true
		c.forceStatus(store.CoordRunningWithError)
	}
}

// CoordIgnore sets a coordinator job, or some of its actions, to IGNORED.
// With no scope the job must be FAILED or KILLED (spec: coord 6.1.2);
// with a scope (rangeType "action" or empty, rest-api.md 7.3) the FAILED,
// KILLED and TIMEDOUT actions in it become IGNORED (6.1.3) and are
// returned ([]*rest.CoordAction); actions in other statuses are left alone.
func (e *Engine) CoordIgnore(ctx context.Context, id, rangeType, scope string) ([]*rest.CoordAction, error) {
	if rangeType != "" && rangeType != "action" {
		return nil, errorf(CodeCoordIgnore, "Cannot run ignore command: [type must be action, not %s]", rangeType)
	}
	var sel func(*store.CoordAction) bool
	if strings.TrimSpace(scope) != "" {
		var err error
		if sel, err = parseCoordScope("action", scope); err != nil {
			return nil, err
		}
	}
	unlock := e.coordLock(id)
	defer unlock()
	c, err := e.loadCoordChange(ctx, id)
	if err != nil {
		return nil, err
	}
	if sel == nil {
		if j := c.job; j.Status != store.CoordFailed && j.Status != store.CoordKilled {
			return nil, errorf(CodeCoordIgnore, "Cannot run ignore command: [job %s is %s, only a FAILED or KILLED job can be ignored]", id, j.Status)
		}
		c.setStatus(e, store.CoordIgnored)
		return nil, e.commitCoord(ctx, c)
	}
	all, err := e.coordActions(ctx, id, store.CoordActionFilter{})
	if err != nil {
		return nil, err
	}
	ignored := []*rest.CoordAction{}
	for _, a := range all {
		if !sel(a) || !CoordActionTransitionAllowed(a.Status, store.CoordActionIgnored) {
			continue
		}
		if c.setActionStatus(e, a, store.CoordActionIgnored) {
			ignored = append(ignored, NewCoordActionJSON(a))
		}
	}
	if len(ignored) == 0 {
		return nil, errorf(CodeCoordIgnore, "Cannot run ignore command: [no FAILED, KILLED or TIMEDOUT action of job %s in scope %s]", id, scope)
	}
	if err := c.clearErrorFlag(ctx, e); err != nil {
		return nil, err
	}
	if !CoordTerminal(c.job.Status) {
		c.stepSoon()
	}
	if err := e.commitCoord(ctx, c); err != nil {
		return nil, err
	}
	return ignored, nil
}

// clearErrorFlag moves a RUNNINGWITHERROR job back to RUNNING once the
// command left no FAILED, KILLED or TIMEDOUT action.
func (c *coordChange) clearErrorFlag(ctx context.Context, e *Engine) error {
	if c.job.Status != store.CoordRunningWithError {
		return nil
	}
	var counts map[string]int
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		counts, err = tx.CountCoordActions(ctx, c.job.ID)
		return err
	})
	if err != nil {
		return err
	}
	for _, a := range c.actions {
		if before, ok := c.before[a.ID]; ok && before != "" {
			counts[before]--
			counts[a.Status]++
		}
	}
	if !hasErrors(counts) {
		c.setStatus(e, store.CoordRunning)
	}
	return nil
}

// rerunnable are the action statuses a rerun accepts: every ended one, as
// in Oozie's CoordRerunXCommand (an action not WAITING, READY, SUBMITTED,
// RUNNING or SUSPENDED); the specification's "rerun" names TIMEDOUT,
// SUCCEEDED, KILLED and FAILED, its 6.1.3 IGNORED, Oozie's code SKIPPED too.
var rerunnable = []string{store.CoordActionTimedOut, store.CoordActionSucceeded, store.CoordActionKilled,
	store.CoordActionFailed, store.CoordActionIgnored, store.CoordActionSkipped}

// CoordRerun reruns ended actions of a coordinator job (rest-api.md 4.2
// coord-rerun; rangeType "action" or "date", scope as in 7.3). Each action
// goes back to WAITING and then takes the usual way: input check, READY,
// SUBMITTED and a new workflow (the earlier ones stay listed by
// show=allruns). refresh re-resolves the action's input dependencies;
// unless noCleanup the action's output dataset instances are deleted
// before it may run; failedOnly reruns the failed nodes of the action's
// last workflow instead of a new one. It returns the rerun actions
// ([]*rest.CoordAction).
func (e *Engine) CoordRerun(ctx context.Context, id, rangeType, scope string, refresh, noCleanup, failedOnly bool) ([]*rest.CoordAction, error) {
	if rangeType != "action" && rangeType != "date" {
		return nil, errorf(CodeCoordRerun, "Coord Job Rerun Error: date or action expected.")
	}
	sel, err := parseCoordScope(rangeType, scope)
	if err != nil {
		return nil, err
	}
	unlock := e.coordLock(id)
	defer unlock()
	c, err := e.loadCoordChange(ctx, id)
	if err != nil {
		return nil, err
	}
	// As Oozie's CoordRerunXCommand: a PREP job has no actions yet, an
	// IGNORED one is brought back with -change first; a KILLED or FAILED
	// job's ended actions can be rerun (the job becomes RUNNINGWITHERROR).
	switch c.job.Status {
	case store.CoordPrep:
		return nil, errorf(CodeCoordRerun, "Coord Job Rerun Error: coordinator job [%s] is PREP so no actions are materialized to rerun", id)
	case store.CoordIgnored:
		return nil, errorf(CodeCoordRerun, "Coord Job Rerun Error: coordinator job [%s] is IGNORED, change it to RUNNING (-change %s -value status=RUNNING) before rerunning actions", id, id)
	}
	all, err := e.coordActions(ctx, id, store.CoordActionFilter{})
	if err != nil {
		return nil, err
	}
	var picked []*store.CoordAction
	for _, a := range all {
		if !sel(a) {
			continue
		}
		if !slices.Contains(rerunnable, a.Status) {
			return nil, errorf(CodeCoordRerun, "Coord Job Rerun Error: action [%s] is %s, only ended actions can be rerun", a.ID, a.Status)
		}
		picked = append(picked, a)
	}
	if len(picked) == 0 {
		return nil, errorf(CodeCoordRerun, "Coord Job Rerun Error: no action of job [%s] in scope [%s]", id, scope)
	}
	var app *coord.App
	var props *conf.Config
	if refresh {
		if app, props, err = e.coordApp(c.job); err != nil {
			return nil, err
		}
	}
	out := make([]*rest.CoordAction, 0, len(picked))
	for _, a := range picked {
		if err := e.rerunAction(c, a, app, props, noCleanup, failedOnly); err != nil {
			return nil, err
		}
		out = append(out, NewCoordActionJSON(a))
	}
	c.reopen(e)
	if err := c.clearErrorFlag(ctx, e); err != nil {
		return nil, err
	}
	c.checkSoon()
	if err := e.commitCoord(ctx, c); err != nil {
		return nil, err
	}
	return out, nil
}

// rerunAction puts one ended action back to WAITING. app is set for a
// refresh (the action is planned again from the definition).
func (e *Engine) rerunAction(c *coordChange, a *store.CoordAction, app *coord.App, props *conf.Config, noCleanup, failedOnly bool) error {
	var p *coord.ActionPlan
	if app != nil {
		var err error
		if p, err = replanAction(app, props, a); err != nil {
			return errorf(CodeCoordRerun, "Coord Job Rerun Error: cannot refresh action [%s]: %v", a.ID, err)
		}
		b, err := json.Marshal(p)
		if err != nil {
			return err
		}
		a.Plan, a.CreatedConf, a.ActionXML = string(b), p.CreatedConf, p.ActionXML
	} else {
		var err error
		if p, err = decodePlan(a); err != nil {
			return err
		}
		if p.Logic != nil {
			// What the input logic found is found again by the rerun's
			// checks: its instances may have changed since.
			p.Logic = nil
			if b, err := json.Marshal(p); err == nil {
				a.Plan = string(b)
			}
		}
	}
	prev, from := a.ExternalID, a.Status
	a.Status = store.CoordActionWaiting
	a.LastModTime = c.now
	c.touch(a, from)
	c.step(a.ID, from, store.CoordActionWaiting, ", rerun (refresh=%t, nocleanup=%t, failed=%t, previous workflow [%s])",
		app != nil, noCleanup, failedOnly, prev)
	a.ExternalID, a.ExternalStatus, a.ErrorCode, a.ErrorMessage, a.RunConf = "", "", "", "", ""
	a.TrackerURI, a.ConsoleURL = "", ""
	a.MissingDependencies = strings.Join(p.Dependencies, "#")
	if failedOnly && prev != "" {
		if c.extra.FailedReruns == nil {
			c.extra.FailedReruns = map[string]string{}
		}
		c.extra.FailedReruns[a.ID] = prev
	} else {
		delete(c.extra.FailedReruns, a.ID)
	}
	if !noCleanup {
		if uris := outputURIs(p); len(uris) > 0 {
			b, _ := json.Marshal(uris)
			c.addEffect(&store.Effect{Kind: EffectCoordCleanup, ActionID: a.ID, Payload: string(b)})
			if !slices.Contains(c.extra.Cleaning, a.ID) {
				c.extra.Cleaning = append(c.extra.Cleaning, a.ID)
			}
		}
	}
	c.jobDirty = true
	return nil
}

// replanAction materializes one action again from the definition: a
// one-action window at its nominal time.
func replanAction(app *coord.App, props *conf.Config, a *store.CoordAction) (*coord.ActionPlan, error) {
	plan, err := app.Materialize(coord.PlanState{LastActionNumber: a.Number - 1, NextMaterializedTime: a.NominalTime},
		coord.PlanOptions{Now: a.NominalTime, Window: time.Nanosecond, BatchSize: 1, Lookahead: time.Minute}, props)
	if err != nil {
		return nil, err
	}
	for _, p := range plan.Actions {
		if p.Number == a.Number && p.NominalTime.Equal(a.NominalTime) {
			p.ID, p.CreatedTime = a.ID, a.CreatedTime
			return p, nil
		}
	}
	return nil, fmt.Errorf("action %d at %s is not in the schedule", a.Number, fmtUTC(a.NominalTime))
}

// outputURIs lists a plan's output instance URIs, by event name.
func outputURIs(p *coord.ActionPlan) []string {
	names := make([]string, 0, len(p.OutputURIs))
	for n := range p.OutputURIs {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		out = append(out, p.OutputURIs[n]...)
	}
	return out
}

// performCoordCleanup deletes the outputs of a rerun action, then lets
// the action's input check go on. Deleting is idempotent, so a crash
// before the commit only deletes again (the action is held until then and
// has not run).
func (e *Engine) performCoordCleanup(ctx context.Context, ef *store.Effect) error {
	var uris []string
	if err := json.Unmarshal([]byte(ef.Payload), &uris); err != nil {
		e.logf("gozie: effect %d: bad payload: %v", ef.ID, err)
	}
	var deleted, skipped []string
	for _, u := range uris {
		err := fsys.Delete(ctx, u)
		switch {
		case err == nil:
			deleted = append(deleted, u)
		case errors.Is(err, fsys.ErrUnsupported):
			skipped = append(skipped, u)
		default:
			return err
		}
	}
	unlock := e.coordLock(ef.JobID)
	defer unlock()
	c, err := e.loadCoordChange(ctx, ef.JobID)
	if err != nil {
		return err
	}
	if len(deleted) > 0 {
		c.log(ef.ActionID, "INFO", "rerun cleanup deleted %v", deleted)
	}
	if len(skipped) > 0 {
		c.log(ef.ActionID, "WARN", "rerun cleanup skipped %v: unsupported file system", skipped)
	}
	if i := slices.Index(c.extra.Cleaning, ef.ActionID); i >= 0 {
		c.extra.Cleaning = slices.Delete(c.extra.Cleaning, i, i+1)
		c.jobDirty = true
	}
	c.done = append(c.done, ef.ID)
	c.checkSoon()
	return e.commitCoord(ctx, c)
}

// rerunFailedNodes reruns the failed nodes of the last workflow of an
// action rerun with failed=true, and returns that workflow's id ("" when
// the action gets a new workflow after all).
func (e *Engine) rerunFailedNodes(ctx context.Context, c *coordChange, a *store.CoordAction) string {
	wfID, ok := c.extra.FailedReruns[a.ID]
	if !ok {
		return ""
	}
	delete(c.extra.FailedReruns, a.ID)
	c.jobDirty = true
	props := conf.New()
	props.Set(vocab.PropRerunFailNodes, "true")
	err := e.wf.Rerun(ctx, wfID, props)
	switch vocab.CodeOf(err) {
	case "", vocab.CodeRerunNotEnded:
		// Not ended: a replay of this effect after the rerun began.
		c.log(a.ID, "INFO", "workflow [%s] rerun from its failed nodes", wfID)
		return wfID
	}
	c.log(a.ID, "WARN", "workflow [%s] cannot be rerun (%v): a new workflow runs", wfID, err)
	return ""
}
