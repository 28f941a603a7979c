package coordengine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// coordChange is one transition of a coordinator job in the making: the
// job, the actions it changed, the effects it calls for and the log lines
// describing it, all committed together by commitCoord.
type coordChange struct {
	job      *store.CoordJob
	extra    coordExtra
	jobDirty bool
	actions  []*store.CoordAction
	deleted  []string // ids of actions to delete
	touched  map[string]bool
	// before holds the stored status of each changed action, so counts
	// read from the store can be corrected without reading again.
	before  map[string]string
	effects []*store.Effect
	done    []int64
	logs    []*store.LogEntry
	// steps are the action status changes of this change in order, one per
	// step of a path (WAITING -> READY -> SUBMITTED is two), for the
	// notifications each step sends.
	steps []actionStep
	// tick is a new tick to add; oldTick one to retire.
	tick    *store.Effect
	oldTick int64
	// launch is a workflow written in the change's transaction.
	launch *stagedLaunch
	now    time.Time
	// loaded is the job's status as read from the store: a coordinator of
	// a bundle whose status changes tells its bundle (notifyBundle).
	loaded string
	// slas are the SLA records of the actions this change creates.
	slas []*store.SLA
	// reported is the job's status the runtime's Observer last heard of;
	// lags are how late the actions this change materialized came
	// (reported once the change is committed).
	reported string
	lags     []time.Duration
}

// actionStep is one status change of a coordinator action.
type actionStep struct{ actionID, from, to string }

// step records an action status change and its log line.
func (c *coordChange) step(actionID, from, to, format string, args ...any) {
	c.steps = append(c.steps, actionStep{actionID, from, to})
	c.log(actionID, "INFO", "status %s -> %s"+format, append([]any{from, to}, args...)...)
}

func (e *Engine) loadCoordChange(ctx context.Context, id string) (*coordChange, error) {
	j, err := e.coordJob(ctx, id)
	if err != nil {
		return nil, err
	}
	return &coordChange{job: j, extra: decodeCoordExtra(j.State), touched: map[string]bool{},
		before: map[string]string{}, now: e.now(), loaded: j.Status, reported: j.Status}, nil
}

func (c *coordChange) log(actionID, level, format string, args ...any) {
	c.logs = append(c.logs, &store.LogEntry{JobID: c.job.ID, ActionID: actionID, Time: c.now, Level: level,
		Message: fmt.Sprintf(format, args...)})
}

func (c *coordChange) setStatus(e *Engine, to string) bool {
	from := c.job.Status
	if err := setCoordStatus(c.job, to); err != nil {
		e.logf("gozie: %v", err)
		return false
	}
	if from != to {
		c.jobDirty = true
		c.log("", "INFO", "coordinator job status %s -> %s", from, to)
	}
	return true
}

// touchedAction returns the action with the given id among those the
// change wrote, nil if none.
func (c *coordChange) touchedAction(id string) *store.CoordAction {
	for _, a := range c.actions {
		if a.ID == id {
			return a
		}
	}
	return nil
}

// touch marks an action changed, remembering the status it had in the
// store.
func (c *coordChange) touch(a *store.CoordAction, storedStatus string) {
	if c.touched[a.ID] {
		return
	}
	c.touched[a.ID] = true
	c.before[a.ID] = storedStatus
	c.actions = append(c.actions, a)
}

// setActionStatus moves an action along path, logging each step.
func (c *coordChange) setActionStatus(e *Engine, a *store.CoordAction, path ...string) bool {
	stored := a.Status
	for _, to := range path {
		from := a.Status
		if from == to {
			continue
		}
		if err := setCoordActionStatus(a, to); err != nil {
			e.logf("gozie: %v", err)
			return false
		}
		c.step(a.ID, from, to, "")
	}
	a.LastModTime = c.now
	c.touch(a, stored)
	return true
}

func (c *coordChange) addEffect(ef *store.Effect) {
	ef.JobID = c.job.ID
	ef.CreatedTime = c.now
	c.effects = append(c.effects, ef)
}

// killAction kills an action that has not ended; a launched (or maybe
// launched) workflow is killed by an effect.
func (c *coordChange) killAction(e *Engine, a *store.CoordAction) {
	launched := a.Status == store.CoordActionSubmitted || a.Status == store.CoordActionRunning
	if !c.setActionStatus(e, a, store.CoordActionKilled) {
		return
	}
	if launched {
		c.addEffect(&store.Effect{Kind: EffectCoordKill, ActionID: a.ID})
	}
}

// cancelTick retires the job's live tick: an ended job needs no timer.
func (c *coordChange) cancelTick() {
	if c.extra.TickID != 0 {
		c.oldTick = c.extra.TickID
		c.extra.TickID, c.extra.TickAt = 0, time.Time{}
		c.jobDirty = true
	}
	c.tick = nil
}

// schedule makes sure the job's tick fires no later than at.
func (c *coordChange) schedule(at time.Time) {
	if c.extra.TickID != 0 && !c.extra.TickAt.After(at) {
		return
	}
	if c.extra.TickID != 0 {
		c.oldTick = c.extra.TickID
		c.extra.TickID = 0
	}
	c.tick = &store.Effect{JobID: c.job.ID, Kind: EffectCoordTick, NotBefore: at, CreatedTime: c.now}
	c.extra.TickAt = at
	c.jobDirty = true
}

// checkSoon asks for a tick now that checks the inputs of every WAITING
// action: actions were made WAITING (a rerun), or may be checked now (a
// rerun's cleanup is done).
func (c *coordChange) checkSoon() {
	c.extra.CheckedAt = time.Time{}
	c.jobDirty = true
	c.stepSoon()
}

// stepSoon asks for a tick now: an action ended, so a concurrency slot is
// free and the job's status may change. Workflows that end together share
// one tick, instead of a step (which reads every active action) each.
func (c *coordChange) stepSoon() {
	if !CoordTerminal(c.job.Status) {
		c.schedule(c.now)
	}
}

// commitCoord writes a change in one transaction, then performs its
// effects.
func (e *Engine) commitCoord(ctx context.Context, c *coordChange) error {
	if c.jobDirty || len(c.actions) > 0 || len(c.deleted) > 0 {
		c.job.LastModTime = c.now
		c.jobDirty = true
	}
	e.queueCoordNotifications(c)
	c.notifyBundle()
	e.announce(c)
	err := e.store.Update(ctx, func(tx store.Tx) error {
		if c.launch != nil {
			// First: the action written below names the workflow.
			if err := c.launch.write(ctx, tx); err != nil {
				return err
			}
		}
		if c.tick != nil {
			if err := tx.AddEffect(ctx, c.tick); err != nil {
				return err
			}
			c.extra.TickID = c.tick.ID
		}
		if c.oldTick != 0 {
			if err := tx.DoneEffect(ctx, c.oldTick); err != nil {
				return err
			}
		}
		if c.jobDirty {
			c.job.State = c.extra.encode()
			if err := tx.PutCoordJob(ctx, c.job); err != nil {
				return err
			}
		}
		for _, a := range c.actions {
			if err := tx.PutCoordAction(ctx, a); err != nil {
				return err
			}
		}
		for _, id := range c.deleted {
			if err := tx.DeleteCoordAction(ctx, id); err != nil {
				return err
			}
		}
		for _, ef := range c.effects {
			if err := tx.AddEffect(ctx, ef); err != nil {
				return err
			}
		}
		for _, id := range c.done {
			if err := tx.DoneEffect(ctx, id); err != nil {
				return err
			}
		}
		for _, l := range c.logs {
			if err := tx.AppendLog(ctx, l); err != nil {
				return err
			}
		}
		for _, s := range c.slas {
			if err := tx.PutSLA(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if CoordTerminal(c.job.Status) {
		// An ended job is not stepped again: drop its parsed app.
		e.mu.Lock()
		delete(e.apps, c.job.ID)
		e.mu.Unlock()
	}
	if c.launch != nil {
		c.launch.job.Committed()
	}
	c.report(e.rt.Observer())
	effects := c.effects
	if c.tick != nil {
		effects = append(effects, c.tick)
	}
	e.rt.Dispatch(effects)
	return nil
}

// report tells the runtime's observer (the server's metrics) what a
// committed change did: the job's status change, the actions it
// materialized.
func (c *coordChange) report(obs effect.Observer) {
	if c.reported != c.job.Status && c.reported != "" {
		obs.JobStatus("coordinator", c.reported, c.job.Status)
	}
	c.reported = c.job.Status
	for _, l := range c.lags {
		obs.Materialized(l)
	}
	c.lags = nil
}

// EffectBundleNotify is the effect by which a coordinator of a bundle
// tells the bundle engine that its status changed: JobID is the
// coordinator, Payload its new status. The bundle engine registers the
// kind and reads the coordinator's status when it performs it, so a late
// or repeated one does no harm.
var EffectBundleNotify = effect.NotifyKind(vocab.TypeBundle)

// notifyBundle queues the bundle's notification of a coordinator whose
// status this change moves (spec: bundle 4.2: the bundle's status
// follows its coordinators').
func (c *coordChange) notifyBundle() {
	if c.job.Status == c.loaded || !vocab.IsBundleJob(c.job.ParentID) {
		return
	}
	c.addEffect(&store.Effect{Kind: EffectBundleNotify, Payload: c.job.Status})
	c.loaded = c.job.Status
}

// PerformEffect performs the coordinator effects, and the notify effect of a
// workflow launched by a coordinator action (engine.Coordinators). It
// returns the error of its work: the workflow engine performs a failed one
// again after a backoff, so a passing database error does not stall the job.
func (e *Engine) PerformEffect(ctx context.Context, ef *store.Effect) error {
	switch ef.Kind {
	case EffectCoordTick:
		return e.performCoordTick(ctx, ef)
	case EffectCoordSubmit:
		return e.performCoordSubmit(ctx, ef)
	case EffectCoordKill, EffectCoordSuspend, EffectCoordResume:
		return e.performCoordCascade(ctx, ef)
	case EffectCoordCleanup:
		return e.performCoordCleanup(ctx, ef)
	case store.EffectNotify:
		jobID := vocab.JobOf(ef.ActionID)
		return e.coordWorkflowEnded(ctx, ef, jobID)
	}
	e.logf("gozie: unknown effect %q of job %s; leaving it", ef.Kind, ef.JobID)
	return nil
}

func (e *Engine) performCoordTick(ctx context.Context, ef *store.Effect) error {
	unlock := e.coordLock(ef.JobID)
	defer unlock()
	c, err := e.loadCoordChange(ctx, ef.JobID)
	if err != nil {
		return err
	}
	if c.extra.TickID != ef.ID {
		// A superseded tick: the live one is earlier.
		return e.markDone(ctx, ef)
	}
	c.extra.TickID, c.extra.TickAt = 0, time.Time{}
	c.jobDirty = true
	c.done = append(c.done, ef.ID)
	if err := e.coordStep(ctx, c); err != nil {
		return err
	}
	return e.commitCoord(ctx, c)
}

// coordStep is the body of a tick: pause time, materialization, input
// checks, execution policy, the job's status from its actions, and the
// next tick. c.job must be locked.
func (e *Engine) coordStep(ctx context.Context, c *coordChange) error {
	j, now, opts := c.job, c.now, e.opts
	if CoordTerminal(j.Status) {
		c.cancelTick()
		return nil
	}
	app, props, err := e.coordApp(j)
	if err != nil {
		return err
	}
	paused := !j.PauseTime.IsZero() && !now.Before(j.PauseTime)
	for _, to := range PauseSteps(j.Status, paused) {
		c.setStatus(e, to)
	}
	running := j.Status == store.CoordRunning || j.Status == store.CoordRunningWithError
	active := running || j.Status == store.CoordPaused || j.Status == store.CoordPausedWithError
	if !active {
		// Suspended or paused before starting: resume or a change of the
		// pause time brings the job back.
		c.cancelTick()
		return nil
	}

	acts, counts, err := e.activeActions(ctx, c)
	if err != nil {
		return err
	}

	if running && !j.DoneMaterialization {
		acts = e.materialize(c, app, props, acts, opts)
	}
	e.checkInputs(ctx, c, app, props, acts, opts)
	e.decide(c, app, props, acts)

	// The job's status follows its actions.
	for _, a := range c.actions {
		if before, ok := c.before[a.ID]; ok {
			if before != "" {
				counts[before]--
			}
			counts[a.Status]++
		}
	}
	if j.Status == store.CoordRunning && hasErrors(counts) {
		c.setStatus(e, store.CoordRunningWithError)
	}
	if j.DoneMaterialization && (j.Status == store.CoordRunning || j.Status == store.CoordRunningWithError) {
		if final, ok := coordFinalStatus(counts); ok {
			if final != store.CoordSucceeded && j.Status == store.CoordRunning {
				c.setStatus(e, store.CoordRunningWithError)
			}
			if final == store.CoordSucceeded && j.Status == store.CoordRunningWithError {
				final = store.CoordDoneWithError
			}
			c.setStatus(e, final)
			c.cancelTick()
			return nil
		}
	}

	if next := nextTick(j, acts, now, c.extra.CheckedAt, c.extra.WakeAt, opts); !next.IsZero() {
		c.schedule(next)
	}
	return nil
}

// nextTick is when a job's next tick is due: the next materialization,
// the next input check (an interval after the last, checkedAt), or the
// pause time, or the elapsing of an input logic's wait (wakeAt), whichever
// comes first; zero for none.
func nextTick(j *store.CoordJob, acts []*store.CoordAction, now, checkedAt, wakeAt time.Time, opts Options) time.Time {
	var next time.Time
	earlier := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	if (j.Status == store.CoordRunning || j.Status == store.CoordRunningWithError) && !j.DoneMaterialization {
		t := j.NextMaterializedTime.Add(-opts.MaterializationLookahead)
		if !t.After(now) {
			// Due but held back (throttle, batch size): try again later.
			t = now.Add(opts.InputCheckInterval)
		}
		earlier(t)
	}
	check := checkedAt.Add(opts.InputCheckInterval)
	if check.Before(now) {
		check = now
	}
	for _, a := range acts {
		switch {
		case a.Status == store.CoordActionWaiting && a.NominalTime.After(now):
			earlier(a.NominalTime)
		case a.Status == store.CoordActionWaiting:
			earlier(check)
			if wakeAt.After(now) {
				earlier(wakeAt)
			}
		case a.Status == store.CoordActionReady:
			earlier(now.Add(opts.InputCheckInterval))
		}
	}
	if !j.PauseTime.IsZero() && j.PauseTime.After(now) && (j.Status == store.CoordRunning || j.Status == store.CoordRunningWithError) {
		earlier(j.PauseTime)
	}
	return next
}

// activeActions reads a job's active actions and its counts of actions
// by status, as the change c sees them: the actions it deleted gone, the
// ones it changed as changed.
func (e *Engine) activeActions(ctx context.Context, c *coordChange) ([]*store.CoordAction, map[string]int, error) {
	j := c.job
	var acts []*store.CoordAction
	var counts map[string]int
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		if acts, err = tx.CoordActions(ctx, j.ID, store.CoordActionFilter{Statuses: activeActionStatuses}); err != nil {
			return err
		}
		counts, err = tx.CountCoordActions(ctx, j.ID)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	// Actions this transition deletes are gone already.
	if len(c.deleted) > 0 {
		acts = slices.DeleteFunc(acts, func(a *store.CoordAction) bool {
			if slices.Contains(c.deleted, a.ID) {
				counts[a.Status]--
				return true
			}
			return false
		})
	}
	// Actions this transition already changed are not in the store yet:
	// work on the changed copies.
	for i, a := range acts {
		for _, x := range c.actions {
			if x.ID == a.ID {
				acts[i] = x
			}
		}
	}

	return acts, counts, nil
}

// PauseSteps is the status step of a coordinator job at a tick for its
// pause time (spec: coord 6.1.2): the statuses it goes through, in order,
// from status when the pause time has (paused) or has not come; none when
// it stays. A job in PREP starts RUNNING, or PREPPAUSED when paused.
func PauseSteps(status string, paused bool) []string {
	switch status {
	case store.CoordPrep:
		if paused {
			return []string{store.CoordPrepPaused}
		}
		return []string{store.CoordRunning}
	case store.CoordPrepPaused:
		if !paused {
			return []string{store.CoordPrep, store.CoordRunning}
		}
	case store.CoordRunning:
		if paused {
			return []string{store.CoordPaused}
		}
	case store.CoordRunningWithError:
		if paused {
			return []string{store.CoordPausedWithError}
		}
	case store.CoordPaused:
		if !paused {
			return []string{store.CoordRunning}
		}
	case store.CoordPausedWithError:
		if !paused {
			return []string{store.CoordRunningWithError}
		}
	}
	return nil
}

func hasErrors(counts map[string]int) bool {
	for s, n := range counts {
		if n > 0 && coordHasError(s) {
			return true
		}
	}
	return false
}

// materialize creates the actions that are due, within the throttle, and
// returns acts with them appended.
func (e *Engine) materialize(c *coordChange, app *coord.App, props *conf.Config, acts []*store.CoordAction, opts Options) []*store.CoordAction {
	j := c.job
	waiting := 0
	for _, a := range acts {
		if a.Status == store.CoordActionWaiting {
			waiting++
		}
	}
	plan, err := app.Materialize(coord.PlanState{
		LastActionNumber: j.LastActionNumber, NextMaterializedTime: j.NextMaterializedTime,
		PauseTime: j.PauseTime, WaitingActions: waiting,
	}, coord.PlanOptions{Now: c.now, Window: opts.MaterializationWindow, BatchSize: opts.BatchSize,
		Lookahead: opts.MaterializationLookahead}, props)
	if err != nil {
		code := vocab.CodeOf(err)
		if code == "" {
			code = coord.ErrorCode(err)
		}
		if j.ErrorMessage != err.Error() {
			j.ErrorCode, j.ErrorMessage = code, err.Error()
			c.jobDirty = true
			c.log("", "ERROR", "materialization failed: %v", err)
		}
		return acts
	}
	for _, p := range plan.Actions {
		p.ID = CoordActionID(j.ID, p.Number)
		planJSON, err := json.Marshal(p)
		if err != nil {
			e.logf("gozie: %s: %v", j.ID, err)
			continue
		}
		created := p.CreatedTime
		if created.IsZero() {
			created = c.now
		}
		a := &store.CoordAction{
			ID: CoordActionID(j.ID, p.Number), JobID: j.ID, Number: p.Number, Status: store.CoordActionWaiting,
			NominalTime: p.NominalTime, CreatedTime: created, LastModTime: c.now,
			MissingDependencies: strings.Join(p.Dependencies, "#"), CreatedConf: p.CreatedConf,
			ActionXML: p.ActionXML, Plan: string(planJSON),
		}
		c.touch(a, "")
		c.registerSLA(a)
		// Due when the window first reached its nominal time.
		c.lags = append(c.lags, max(0, c.now.Sub(p.NominalTime.Add(-opts.MaterializationWindow))))
		c.log(a.ID, "INFO", "status -> %s, nominal time %s", a.Status, a.NominalTime.UTC().Format(time.RFC3339))
		acts = append(acts, a)
		j.LastActionTime = p.NominalTime
	}
	if plan.LastActionNumber != j.LastActionNumber || !plan.NextMaterializedTime.Equal(j.NextMaterializedTime) || plan.Done != j.DoneMaterialization {
		j.LastActionNumber, j.NextMaterializedTime, j.DoneMaterialization = plan.LastActionNumber, plan.NextMaterializedTime, plan.Done
		c.jobDirty = true
	}
	return acts
}

// decide applies concurrency and the execution policy: READY actions the
// policy picks become SUBMITTED (their workflow is launched by an effect),
// the ones it skips SKIPPED.
func (e *Engine) decide(c *coordChange, app *coord.App, props *conf.Config, acts []*store.CoordAction) {
	var states []coord.ActionState
	byNumber := map[int]*store.CoordAction{}
	running := 0
	for _, a := range acts {
		if coordActionTerminal(a.Status) {
			continue
		}
		byNumber[a.Number] = a
		states = append(states, coord.ActionState{Number: a.Number, NominalTime: a.NominalTime, Status: a.Status})
		if a.Status == store.CoordActionSubmitted || a.Status == store.CoordActionRunning {
			running++
		}
	}
	if len(states) == 0 {
		return
	}
	d := app.Decide(states, running, c.now)
	for _, n := range d.Skip {
		if a := byNumber[n]; a != nil {
			c.setActionStatus(e, a, store.CoordActionSkipped)
		}
	}
	for _, n := range d.Submit {
		a := byNumber[n]
		if a == nil || a.Status != store.CoordActionReady {
			continue
		}
		// Concurrency is the engine's promise too: never more than
		// <concurrency> SUBMITTED or RUNNING at once (-1 unlimited).
		if app.Concurrency > 0 && running >= app.Concurrency {
			break
		}
		var p coord.ActionPlan
		runConf := ""
		err := json.Unmarshal([]byte(a.Plan), &p)
		if err == nil {
			runConf, err = app.RunConfXML(&p, props)
		}
		if !c.setActionStatus(e, a, store.CoordActionSubmitted) {
			continue
		}
		running++
		if err != nil {
			a.ErrorCode, a.ErrorMessage = coord.ErrorCode(err), err.Error()
			c.log(a.ID, "ERROR", "cannot build the workflow configuration: %v", err)
			c.setActionStatus(e, a, store.CoordActionFailed)
			running--
			continue
		}
		a.RunConf = runConf
		c.addEffect(&store.Effect{Kind: EffectCoordSubmit, ActionID: a.ID})
	}
}
