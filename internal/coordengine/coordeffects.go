package coordengine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// performCoordSubmit launches the workflow of a SUBMITTED action. It is
// idempotent: a workflow already created for the action (found by its
// parent id, which is the action id) is reused, never created twice.
func (e *Engine) performCoordSubmit(ctx context.Context, ef *store.Effect) error {
	unlock := e.coordLock(ef.JobID)
	defer unlock()
	c, err := e.loadCoordChange(ctx, ef.JobID)
	if err != nil {
		return err
	}
	var a *store.CoordAction
	var existing []*store.Job
	err = e.store.View(ctx, func(tx store.Tx) (err error) {
		if a, err = tx.CoordAction(ctx, ef.ActionID); err != nil {
			return err
		}
		existing, err = tx.Jobs(ctx, store.JobFilter{ParentID: ef.ActionID})
		return err
	})
	if errors.Is(err, store.ErrNotFound) || (err == nil && a.Status != store.CoordActionSubmitted) {
		c.done = append(c.done, ef.ID)
		if err := e.commitCoord(ctx, c); err != nil {
			return err
		}
		if a != nil && a.Status == store.CoordActionRunning && a.ExternalID != "" {
			// Launched, maybe by this effect whose commit's answer was
			// lost (launch): the workflow's first effects were then
			// never dispatched.
			e.rt.SweepJob(ctx, a.ExternalID)
		}
		return nil
	}
	if err != nil {
		return err
	}
	switch c.job.Status {
	case store.CoordSuspended, store.CoordSuspendedWithError:
		// Held: resume submits it again.
		c.done = append(c.done, ef.ID)
		return e.commitCoord(ctx, c)
	}
	wfID := a.ExternalID
	if wfID == "" {
		wfID = e.rerunFailedNodes(ctx, c, a)
	}
	if wfID == "" {
		// A workflow created by this launch before a crash or a failed
		// commit: in PREP, or already started (even ended) when only the
		// record of its start was lost. It names this effect; one
		// created by an older binary is recognized by being in PREP and
		// not older than the effect (earlier runs of a rerun action have
		// all started).
		for _, w := range existing {
			launch := e.wf.LaunchID(w)
			if launch == ef.ID || (launch == 0 && w.Status == store.JobPrep && !w.CreatedTime.Before(ef.CreatedTime)) {
				wfID = w.ID
			}
		}
	}
	if wfID == "" {
		return e.launch(ctx, c, a, ef)
	} else if a.ExternalID == "" {
		a.ExternalID = wfID
		c.touch(a, a.Status)
	}
	if err := e.wf.StartJob(ctx, wfID); vocab.CodeOf(err) == vocab.CodeAlreadyStarted {
		// Started by an earlier attempt whose commit acknowledgement was
		// lost: its first effects may never have been dispatched.
		e.rt.SweepJob(ctx, wfID)
	} else if err != nil {
		return err
	}
	wf, _, err := e.wf.Job(ctx, wfID)
	if err != nil {
		return err
	}
	c.done = append(c.done, ef.ID)
	a.ExternalStatus = wf.Status
	c.setActionStatus(e, a, store.CoordActionRunning)
	if store.Terminal(wf.Status) {
		c.workflowEnded(e, a, wf)
		c.stepSoon()
	}
	return e.commitCoord(ctx, c)
}

// launch creates and starts the workflow of a SUBMITTED action that has
// none and records the action RUNNING, in one transaction with the
// effect's completion: a crash or a failed commit leaves either nothing
// (the effect is performed again) or all of it.
func (e *Engine) launch(ctx context.Context, c *coordChange, a *store.CoordAction, ef *store.Effect) error {
	props, err := conf.ParseXML(strings.NewReader(a.RunConf), "action "+a.ID)
	var staged effect.StagedJob
	if err == nil {
		staged, err = e.wf.StageLaunch(ctx, props, a.ID, ef.ID)
	}
	if errors.Is(err, store.ErrUnavailable) {
		// The database, not the workflow: the effect is retried.
		return err
	}
	c.done = append(c.done, ef.ID)
	if err != nil {
		a.ErrorCode, a.ErrorMessage = vocab.CodeOf(err), err.Error()
		c.log(a.ID, "ERROR", "workflow submission failed: %v", err)
		c.setActionStatus(e, a, store.CoordActionFailed)
		c.stepSoon()
		return e.commitCoord(ctx, c)
	}
	c.log(a.ID, "INFO", "workflow submitted") // named in the transaction
	c.launch = &stagedLaunch{job: staged, action: a, line: c.logs[len(c.logs)-1]}
	c.setActionStatus(e, a, store.CoordActionRunning)
	// A workflow that ends as it starts (start to end) reaches the
	// action through its notify effect, as any other end does.
	return e.commitCoord(ctx, c)
}

// stagedLaunch is a workflow a coordinator change writes in its own
// transaction (launch): its id goes into the action and its log line
// there, since the job number is drawn in the transaction.
type stagedLaunch struct {
	job    effect.StagedJob
	action *store.CoordAction
	line   *store.LogEntry
}

// write writes the workflow in tx and names it in the action.
func (l *stagedLaunch) write(ctx context.Context, tx store.Tx) error {
	wf, err := l.job.Write(ctx, tx)
	if err != nil {
		return err
	}
	l.action.ExternalID, l.action.ExternalStatus = wf.ID, wf.Status
	l.line.Message = fmt.Sprintf("workflow [%s] submitted", wf.ID)
	return nil
}

// workflowEnded moves an action to the status of its ended workflow.
func (c *coordChange) workflowEnded(e *Engine, a *store.CoordAction, wf *store.Job) {
	a.ExternalStatus = wf.Status
	c.touch(a, a.Status)
	if steps := WorkflowEndSteps(a.Status, wf.Status); len(steps) > 0 {
		if wf.Status == store.JobFailed {
			a.ErrorCode, a.ErrorMessage = wf.ErrorCode, wf.ErrorMessage
		}
		c.setActionStatus(e, a, steps...)
	}
}

// WorkflowEndSteps is the status step of a coordinator action whose
// workflow ended with wfStatus (spec: coord 6.1.3): the statuses it goes
// through, in order, from status; none for an action that has ended
// already. A workflow that ends SUCCEEDED before its action was recorded
// RUNNING takes the action through RUNNING.
func WorkflowEndSteps(status, wfStatus string) []string {
	if coordActionTerminal(status) {
		return nil
	}
	to := store.CoordActionSucceeded
	switch wfStatus {
	case store.JobKilled:
		to = store.CoordActionKilled
	case store.JobFailed:
		to = store.CoordActionFailed
	}
	if status == store.CoordActionSubmitted && to == store.CoordActionSucceeded {
		return []string{store.CoordActionRunning, to}
	}
	return []string{to}
}

// coordWorkflowEnded is the notify effect of a workflow a coordinator
// action launched: the action takes the workflow's final status and the
// job steps (a concurrency slot is free now).
func (e *Engine) coordWorkflowEnded(ctx context.Context, ef *store.Effect, jobID string) error {
	unlock := e.coordLock(jobID)
	defer unlock()
	c, err := e.loadCoordChange(ctx, jobID)
	if err != nil {
		return err
	}
	c.done = append(c.done, ef.ID)
	var a *store.CoordAction
	var wf *store.Job
	err = e.store.View(ctx, func(tx store.Tx) (err error) {
		if a, err = tx.CoordAction(ctx, ef.ActionID); err != nil {
			return err
		}
		wf, err = tx.Job(ctx, ef.JobID)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return e.commitCoord(ctx, c)
	}
	if err != nil {
		return err
	}
	if a.ExternalID == wf.ID && store.Terminal(wf.Status) {
		c.workflowEnded(e, a, wf)
		c.stepSoon()
	}
	return e.commitCoord(ctx, c)
}

// performCoordCascade passes kill, suspend or resume on to the workflow of
// an action. A workflow that has ended or is not in the state the command
// needs is left alone.
//
// A suspend and the resume after it are effects of two kinds, which the
// runtime performs in any order. So each is performed under the job's lock
// and only while the coordinator is still in the state its command left
// it: a resume performed first finds the workflow running and leaves it,
// and the suspend, performed after it on a coordinator resumed since, must
// not suspend that workflow for good.
func (e *Engine) performCoordCascade(ctx context.Context, ef *store.Effect) error {
	if ef.Kind == EffectCoordSuspend || ef.Kind == EffectCoordResume {
		unlock := e.coordLock(ef.JobID)
		defer unlock()
		var j *store.CoordJob
		err := e.store.View(ctx, func(tx store.Tx) (err error) {
			j, err = tx.CoordJob(ctx, ef.JobID)
			return err
		})
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if j != nil && coordSuspended(j.Status) != (ef.Kind == EffectCoordSuspend) {
			return e.markDone(ctx, ef)
		}
	}
	var a *store.CoordAction
	var existing []*store.Job
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		if a, err = tx.CoordAction(ctx, ef.ActionID); err != nil {
			return err
		}
		existing, err = tx.Jobs(ctx, store.JobFilter{ParentID: ef.ActionID})
		return err
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	var ids []string
	if a != nil && a.ExternalID != "" {
		ids = append(ids, a.ExternalID)
	}
	for _, j := range existing {
		if a != nil && j.ID == a.ExternalID {
			if j.CreatedTime.After(ef.CreatedTime) {
				// Created after the command: the workflow of a rerun
				// of the action, not the command's business.
				ids = ids[1:]
			}
			continue
		}
		if !j.CreatedTime.After(ef.CreatedTime) {
			ids = append(ids, j.ID)
		}
	}
	for _, id := range ids {
		var cmdErr error
		switch ef.Kind {
		case EffectCoordKill:
			cmdErr = e.wf.Kill(ctx, id)
		case EffectCoordSuspend:
			cmdErr = e.wf.Suspend(ctx, id)
		case EffectCoordResume:
			cmdErr = e.wf.Resume(ctx, id)
		}
		switch vocab.CodeOf(cmdErr) {
		case "", vocab.CodeCannotKill, vocab.CodeCannotSuspend, vocab.CodeNotSuspended, vocab.CodeJobNotFound:
		default:
			return cmdErr
		}
	}
	return e.markDone(ctx, ef)
}

// coordSuspended reports the statuses a suspend leaves a coordinator in.
func coordSuspended(status string) bool {
	switch status {
	case store.CoordSuspended, store.CoordSuspendedWithError, store.CoordPrepSuspended:
		return true
	}
	return false
}

// QuarantineEffect marks done a coordinator effect the server died
// performing (engine.Coordinators): the tick's step is skipped and the tick
// dropped, so that the next event of the job (an action ending, a command)
// schedules a new one instead of the job waiting for a tick that never
// comes; a workflow launch fails its action with vocab.CodeQuarantined;
// the other kinds (cascades, clean-up) are only marked done. Each says so
// in the job's log.
func (e *Engine) QuarantineEffect(ctx context.Context, ef *store.Effect, msg string) error {
	jobID := ef.JobID
	if ef.Kind == store.EffectNotify {
		jobID = vocab.JobOf(ef.ActionID)
	}
	unlock := e.coordLock(jobID)
	defer unlock()
	c, err := e.loadCoordChange(ctx, jobID)
	if errors.Is(err, store.ErrNotFound) || vocab.CodeOf(err) == vocab.CodeJobNotFound {
		return e.markDone(ctx, ef)
	}
	if err != nil {
		return err
	}
	c.done = append(c.done, ef.ID)
	switch ef.Kind {
	case EffectCoordTick:
		if c.extra.TickID == ef.ID {
			c.extra.TickID, c.extra.TickAt = 0, time.Time{}
			c.jobDirty = true
		}
		c.log("", "ERROR", "%s; the job's next action end or command steps it again", msg)
	case EffectCoordSubmit:
		a, err := e.coordActionOf(ctx, ef.ActionID)
		if err != nil {
			return err
		}
		c.log(ef.ActionID, "ERROR", "%s", msg)
		if a != nil && a.Status == store.CoordActionSubmitted {
			a.ErrorCode, a.ErrorMessage = vocab.CodeQuarantined, "the server died while launching this action's workflow; it is not launched again"
			c.setActionStatus(e, a, store.CoordActionFailed)
			c.stepSoon()
		}
	default:
		c.log(ef.ActionID, "ERROR", "%s", msg)
	}
	return e.commitCoord(ctx, c)
}

// coordActionOf reads a coordinator action, nil when it is gone.
func (e *Engine) coordActionOf(ctx context.Context, id string) (*store.CoordAction, error) {
	var a *store.CoordAction
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		a, err = tx.CoordAction(ctx, id)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return a, err
}
