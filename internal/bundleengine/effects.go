package bundleengine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/bundle"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// PerformEffect performs the bundle effects. It returns the error of its
// work: the runtime performs a failed one again after a backoff, so a
// passing database error does not stall the bundle.
func (e *Engine) PerformEffect(ctx context.Context, ef *store.Effect) error {
	switch ef.Kind {
	case EffectBundleTick:
		return e.performTick(ctx, ef)
	case EffectBundleSubmit:
		return e.performSubmit(ctx, ef)
	case EffectBundleCommand:
		return e.performCommand(ctx, ef)
	case EffectBundleNotify:
		return e.performNotify(ctx, ef)
	}
	return fmt.Errorf("bundle engine: unknown effect kind %q", ef.Kind)
}

// performTick runs the bundle's timer, if it is still the live one.
func (e *Engine) performTick(ctx context.Context, ef *store.Effect) error {
	err := e.update(ctx, ef.JobID, func(c *change) error {
		c.done = append(c.done, ef.ID)
		if c.extra.TickID != ef.ID || Terminal(c.job.Status) {
			return nil
		}
		c.extra.TickID, c.extra.TickAt = 0, timeZero
		c.jobDirty = true
		return e.tick(c)
	})
	return e.settle(ctx, ef, err)
}

// settle marks an effect done when its bundle is gone, so that it is not
// performed forever.
func (e *Engine) settle(ctx context.Context, ef *store.Effect, err error) error {
	if vocab.CodeOf(err) == vocab.CodeJobNotFound {
		return e.rt.MarkDone(ctx, ef)
	}
	return err
}

// performSubmit submits the coordinator of one bundle action, writing the
// coordinator in the transaction that records its id in the action and
// marks the effect done: a coordinator of a bundle is created once.
func (e *Engine) performSubmit(ctx context.Context, ef *store.Effect) error {
	err := e.update(ctx, ef.JobID, func(c *change) error {
		c.done = append(c.done, ef.ID)
		a := c.action(ef.ActionID)
		if a == nil || a.CoordID != "" {
			return nil
		}
		if a.Pending > 0 {
			a.Pending--
		}
		c.touch(a)
		if a.Status == store.CoordKilled || Terminal(c.job.Status) {
			// Killed before its coordinator existed: nothing to submit.
			return nil
		}
		return e.submitCoord(ctx, c, a)
	})
	return e.settle(ctx, ef, err)
}

// submitCoord stages the coordinator of action a in change c. A
// coordinator that cannot be submitted fails the bundle, whose other
// coordinators are killed (Oozie kills a bundle one of whose coordinators
// failed submission).
func (e *Engine) submitCoord(ctx context.Context, c *change, a *store.BundleAction) error {
	app, err := e.app(c.job)
	var co *bundle.Coordinator
	if err == nil {
		for i := range app.Coordinators {
			if app.Coordinators[i].Name == a.CoordName {
				co = &app.Coordinators[i]
			}
		}
		if co == nil {
			err = errorf("E1311", "Bundle Action for bundle ID  [%s] not found", c.job.ID)
		}
	}
	if err == nil {
		props, perr := jobConf(c.job)
		if err = perr; err == nil {
			c.staged, err = e.coords.StageCoord(ctx, bundle.CoordProps(props, *co, c.job.ID), c.job.ID, a.CoordName)
		}
	}
	if errors.Is(err, store.ErrUnavailable) {
		return err
	}
	if err != nil {
		c.log(a.ID, "ERROR", "coordinator [%s] submission failed: %v", a.CoordName, err)
		c.setAction(a, store.CoordFailed)
		c.job.ErrorCode, c.job.ErrorMessage = vocab.CodeOf(err), err.Error()
		e.kill(c, store.BundleFailed)
		return nil
	}
	c.stagedFor = a
	c.log(a.ID, "INFO", "coordinator [%s] submitted", a.CoordName) // named in the transaction
	// What the bundle went through before its coordinator existed
	// reaches the coordinator now.
	if a.Status == store.CoordPrepSuspended {
		c.command(a, commandPayload{Op: "suspend"})
	} else {
		c.setAction(a, store.CoordPrep)
	}
	if !c.job.PauseTime.IsZero() || !c.job.EndTime.IsZero() {
		c.command(a, commandPayload{Op: "change", Value: inheritedChange(c.job)})
	}
	return nil
}

// inheritedChange is the change a late coordinator gets so that it
// follows the bundle's pause and end times.
func inheritedChange(j *store.BundleJob) string {
	var parts []string
	if !j.PauseTime.IsZero() {
		parts = append(parts, "pausetime="+fmtUTC(j.PauseTime))
	}
	if !j.EndTime.IsZero() {
		parts = append(parts, "endtime="+fmtUTC(j.EndTime))
	}
	return joinSemi(parts)
}

func joinSemi(parts []string) string { return strings.Join(parts, ";") }

// timeZero is the zero time, for clearing.
var timeZero time.Time

// performCommand passes a bundle command on to one coordinator, then
// records it performed. A coordinator that refuses the command (it ended,
// or is not in the status the command needs) is noted in the bundle's
// log: the command's outcome for the bundle is the coordinator's status,
// which the coordinator reports itself.
//
// It runs under the bundle's lock (the coordinator's is taken inside it,
// never the other way), and a suspend or resume the bundle has reversed
// since is skipped: the commands of one coordinator are separate effects
// whose order nothing fixes, and a resume performed before the suspend it
// follows would leave the coordinator suspended under a running bundle.
func (e *Engine) performCommand(ctx context.Context, ef *store.Effect) error {
	var retry error
	err := e.update(ctx, ef.JobID, func(c *change) error {
		c.done = append(c.done, ef.ID)
		a := c.action(ef.ActionID)
		if a == nil {
			return nil
		}
		cmd, err := decodeCommand(ef.Payload)
		var refused error
		switch {
		case err != nil:
			refused = err
		case a.CoordID == "":
		case reversed(c.job.Status, cmd.Op):
			c.log(a.ID, "INFO", "%s of coordinator [%s] skipped: the bundle is %s now", cmd.Op, a.CoordID, c.job.Status)
		default:
			refused = e.toCoordinator(ctx, a.CoordID, cmd)
			if refused != nil && vocab.CodeOf(refused) == "" {
				retry = refused // not the coordinator's answer: performed again
				return refused
			}
		}
		if a.Pending > 0 {
			a.Pending--
		}
		c.touch(a)
		if refused != nil {
			c.log(a.ID, "WARN", "%s of coordinator [%s] refused: %v", cmd.Op, a.CoordID, refused)
		}
		return e.rollUp(ctx, c)
	})
	if retry != nil {
		return retry
	}
	return e.settle(ctx, ef, err)
}

// reversed reports whether a suspend or resume no longer matches the
// bundle's status: a suspend of a bundle resumed since, a resume of one
// suspended again.
func reversed(status, op string) bool {
	_, suspended := resumeSteps[status]
	switch op {
	case "suspend":
		return !suspended
	case "resume":
		return suspended
	}
	return false
}

// toCoordinator performs one command on a coordinator.
func (e *Engine) toCoordinator(ctx context.Context, id string, cmd commandPayload) error {
	switch cmd.Op {
	case "suspend":
		return e.coords.Suspend(ctx, id)
	case "resume":
		return e.coords.Resume(ctx, id)
	case "kill":
		return e.coords.Kill(ctx, id)
	case "change":
		return e.coords.CoordChange(ctx, id, cmd.Value)
	case "rerun":
		_, err := e.coords.CoordRerun(ctx, id, "date", cmd.Dates, cmd.Refresh, cmd.NoCleanup, false)
		return err
	}
	return errorf("E1100", "unknown bundle command [%s]", cmd.Op)
}

// performNotify takes a coordinator's new status into its bundle action
// and rolls the bundle's status up. The coordinator's status is read
// now, so a late or repeated report does no harm.
func (e *Engine) performNotify(ctx context.Context, ef *store.Effect) error {
	var cj *store.CoordJob
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		cj, err = tx.CoordJob(ctx, ef.JobID)
		return err
	})
	if errors.Is(err, store.ErrNotFound) || err == nil && !vocab.IsBundleJob(cj.ParentID) {
		return e.rt.MarkDone(ctx, ef)
	}
	if err != nil {
		return err
	}
	err = e.update(ctx, cj.ParentID, func(c *change) error {
		c.done = append(c.done, ef.ID)
		return e.rollUp(ctx, c)
	})
	return e.settle(ctx, ef, err)
}

// rollUp applies the roll-up of the bundle's status (RollUp) to the
// coordinators' statuses as they are now: a report still on its way does
// not make the bundle follow an older status.
func (e *Engine) rollUp(ctx context.Context, c *change) error {
	err := e.store.View(ctx, func(tx store.Tx) error {
		for _, a := range c.actions {
			if a.CoordID == "" {
				continue
			}
			cj, err := tx.CoordJob(ctx, a.CoordID)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if cj.Status != a.Status {
				c.setAction(a, cj.Status)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.applyRollUp()
	return nil
}

// applyRollUp applies RollUp to the actions' statuses as c holds them.
func (c *change) applyRollUp() {
	in := RollUpInput{Status: c.job.Status, PauseTime: !c.job.PauseTime.IsZero(), Suspended: !c.job.SuspendedTime.IsZero()}
	for _, a := range c.actions {
		in.Actions = append(in.Actions, RollUpAction{Status: a.Status, Pending: a.Pending > 0})
	}
	if to, ok := RollUp(in); ok {
		c.setStatus(to)
		if Terminal(to) {
			c.cancelTick()
		}
	}
}
