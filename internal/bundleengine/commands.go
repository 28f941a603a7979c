package bundleengine

import (
	"context"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/bundle"
	"github.com/gozie/gozie/internal/schedule"
	"github.com/gozie/gozie/internal/store"
)

// CodePrecondition is Oozie's "Command precondition does not hold before
// execution" (E1100), the refusal of start, resume and rerun in the wrong
// status.
const CodePrecondition = "E1100"

// Start starts a bundle in PREP now, whatever its kick-off time (the
// start command): its coordinators are submitted.
func (e *Engine) Start(ctx context.Context, id string) error {
	return e.update(ctx, id, func(c *change) error {
		if c.job.Status != store.BundlePrep {
			return errorf(CodePrecondition, "Command precondition does not hold before execution, [Bundle %s is not in PREP status. It is in : %s]", id, c.job.Status)
		}
		return e.start(c)
	})
}

// start moves a PREP bundle to RUNNING: one action per enabled
// coordinator, PREP and pending until its coordinator is submitted by an
// effect of this change. A bundle whose coordinators are all disabled
// fails (E1318).
func (e *Engine) start(c *change) error {
	app, err := e.app(c.job)
	if err != nil {
		return err
	}
	c.cancelTick()
	for _, co := range app.Coordinators {
		if !co.Enabled {
			c.log("", "INFO", "coordinator [%s] is not enabled: not submitted", co.Name)
			continue
		}
		a := &store.BundleAction{ID: c.job.ID + "_" + co.Name, BundleID: c.job.ID, CoordName: co.Name,
			Status: store.CoordPrep, Critical: co.Critical, Pending: 1}
		c.actions = append(c.actions, a)
		c.touch(a)
		c.addEffect(&store.Effect{Kind: EffectBundleSubmit, ActionID: a.ID})
	}
	sortActions(c.actions)
	if len(c.actions) == 0 {
		c.job.ErrorCode = "E1318"
		c.job.ErrorMessage = "No coord jobs for the bundle=[" + c.job.ID + "], fail the bundle"
		c.log("", "ERROR", "%s: %s", c.job.ErrorCode, c.job.ErrorMessage)
		c.setStatus(store.BundleFailed)
		return nil
	}
	c.setStatus(store.BundleRunning)
	c.schedulePause()
	return nil
}

// app parses a bundle's stored definition with its configuration.
func (e *Engine) app(j *store.BundleJob) (*bundle.App, error) {
	props, err := jobConf(j)
	if err != nil {
		return nil, err
	}
	return bundle.Load(j.Definition, props)
}

// schedulePause sets the timer for the bundle's pause time, if it is
// ahead and the bundle can be paused.
func (c *change) schedulePause() {
	p := c.job.PauseTime
	switch c.job.Status {
	case store.BundlePrep, store.BundleRunning, store.BundleRunningWithError:
		if !p.IsZero() {
			c.schedule(maxTime(p, c.now))
		}
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// pauseSteps are the status changes of a bundle reaching its pause time,
// and their reverse when the pause time is moved ahead or cleared (spec:
// bundle 4.2).
var pauseSteps = map[string]string{
	store.BundleRunning:          store.BundlePaused,
	store.BundleRunningWithError: store.BundlePausedWithError,
	store.BundlePrep:             store.BundlePrepPaused,
}

func unpauseStep(status string) string {
	for from, to := range pauseSteps {
		if to == status {
			return from
		}
	}
	return ""
}

// tick is the bundle's timer: pause, unpause, then the start of a PREP
// bundle whose kick-off time has come (Oozie's pause service, in its
// order).
func (e *Engine) tick(c *change) error {
	j, now := c.job, c.now
	paused := !j.PauseTime.IsZero() && !j.PauseTime.After(now)
	if to, ok := pauseSteps[j.Status]; ok && paused {
		c.log("", "INFO", "pause time %s reached", fmtUTC(j.PauseTime))
		c.setStatus(to)
	} else if from := unpauseStep(j.Status); from != "" && !paused {
		c.setStatus(from)
	}
	if j.Status == store.BundlePrep && (j.KickoffTime.IsZero() || !j.KickoffTime.After(now)) {
		return e.start(c)
	}
	if j.Status == store.BundlePrep {
		c.schedule(j.KickoffTime)
	}
	c.schedulePause()
	return nil
}

// suspendSteps map a bundle's (and a coordinator's) status to its status
// suspended (spec: bundle 4.2, coord 6.1.2).
var suspendSteps = map[string]string{
	store.BundlePrep:             store.BundlePrepSuspended,
	store.BundleRunning:          store.BundleSuspended,
	store.BundleRunningWithError: store.BundleSuspendedWithError,
	store.BundlePaused:           store.BundleSuspended,
	store.BundlePausedWithError:  store.BundleSuspendedWithError,
}

// resumeSteps map a suspended status back (spec: bundle 4.2).
var resumeSteps = map[string]string{
	store.BundlePrepSuspended:      store.BundlePrep,
	store.BundleSuspended:          store.BundleRunning,
	store.BundleSuspendedWithError: store.BundleRunningWithError,
}

// Suspend suspends a bundle and passes the suspend on to its coordinators
// (spec: bundle 4.2). An ended bundle is refused (E1312); one suspended
// already stays as it is.
func (e *Engine) Suspend(ctx context.Context, id string) error {
	return e.update(ctx, id, func(c *change) error {
		j := c.job
		if Terminal(j.Status) {
			return errorf("E1312", "Bundle Job can not be suspended as job finished or failed or killed, id : %s, status : %s", id, j.Status)
		}
		to, ok := suspendSteps[j.Status]
		if !ok {
			return nil
		}
		c.setStatus(to)
		j.SuspendedTime = c.now
		for _, a := range c.actions {
			if s, ok := suspendSteps[a.Status]; ok {
				c.setAction(a, s)
				c.passOn(a, commandPayload{Op: "suspend"})
			}
		}
		return nil
	})
}

// Resume resumes a suspended bundle and its coordinators (spec: bundle
// 4.2); a bundle not suspended is refused (E1100).
func (e *Engine) Resume(ctx context.Context, id string) error {
	return e.update(ctx, id, func(c *change) error {
		j := c.job
		to, ok := resumeSteps[j.Status]
		if !ok {
			return errorf(CodePrecondition, "Command precondition does not hold before execution, [BundleResumeCommand not Resumed - job not in SUSPENDED/SUSPENDEDWITHERROR/PREPSUSPENDED state %s]", id)
		}
		c.setStatus(to)
		j.SuspendedTime = time.Time{}
		for _, a := range c.actions {
			if s, ok := resumeSteps[a.Status]; ok {
				c.setAction(a, s)
				c.passOn(a, commandPayload{Op: "resume"})
			}
		}
		if to == store.BundlePrep {
			// Started now if its kick-off time passed while suspended.
			c.schedule(c.now)
		}
		c.schedulePause()
		return nil
	})
}

// passOn passes a command on to an action's coordinator; an action whose
// coordinator is not submitted yet counts it pending all the same, and
// its submission applies the bundle's state (submitted).
func (c *change) passOn(a *store.BundleAction, cmd commandPayload) {
	if a.CoordID == "" {
		return
	}
	c.command(a, cmd)
}

// Kill kills a bundle and its coordinators (spec: bundle 4.2). An ended
// bundle is refused with Oozie's E1020.
func (e *Engine) Kill(ctx context.Context, id string) error {
	return e.update(ctx, id, func(c *change) error {
		if Terminal(c.job.Status) {
			return errorf("E1020", "Could not kill coord job, this job either finished successfully or does not exist , [%s]", id)
		}
		e.kill(c, store.BundleKilled)
		return nil
	})
}

// kill ends a bundle in status to and kills every coordinator not ended.
func (e *Engine) kill(c *change, to string) {
	c.setStatus(to)
	c.cancelTick()
	for _, a := range c.actions {
		if coordTerminal(a.Status) {
			continue
		}
		c.setAction(a, store.CoordKilled)
		c.passOn(a, commandPayload{Op: "kill"})
	}
}

// coordTerminal reports whether a coordinator status is final.
func coordTerminal(s string) bool {
	switch s {
	case store.CoordSucceeded, store.CoordDoneWithError, store.CoordKilled, store.CoordFailed, store.CoordIgnored:
		return true
	}
	return false
}

func fmtUTC(t time.Time) string { return t.UTC().Format("2006-01-02T15:04Z") }

// changeValue is a parsed value of the change command.
type changeValue struct {
	pause, end       *time.Time // set when the key was given; zero time clears
	hasPause, hasEnd bool
}

func changeError(value, reason string) error {
	return errorf("E1317", "Invalid bundle job change value %s, %s", value, reason)
}

// parseChange reads "pausetime=...;endtime=..." as Oozie's bundle change
// does: only those two keys, at most two entries, dates in UTC
// (yyyy-MM-ddTHH:mmZ), an empty value clearing the time.
func parseChange(value string) (*changeValue, error) {
	v := &changeValue{}
	var parts []string
	for _, p := range strings.Split(value, ";") {
		if strings.TrimSpace(p) != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) > 2 || len(parts) == 0 {
		return nil, changeError(value, "can only change pausetime or end time")
	}
	for _, p := range parts {
		key, val, ok := strings.Cut(p, "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok || (key != "pausetime" && key != "endtime") {
			return nil, changeError(value, "can only change pausetime or end time")
		}
		var t time.Time
		if val != "" {
			var err error
			if t, err = schedule.ParseTime(val); err != nil {
				return nil, changeError(val, "is not a valid date")
			}
		}
		if key == "pausetime" {
			v.hasPause, v.pause = true, &t
		} else {
			v.hasEnd, v.end = true, &t
		}
	}
	return v, nil
}

// BundleChange changes a bundle's pause time or end time (spec: bundle 4.3) and
// passes the same change on to every coordinator not killed. With both
// keys, the bundle takes the pause time (as Oozie does); its coordinators
// get both.
func (e *Engine) BundleChange(ctx context.Context, id, value string) error {
	v, err := parseChange(value)
	if err != nil {
		return err
	}
	return e.update(ctx, id, func(c *change) error {
		j := c.job
		switch {
		case v.hasPause:
			if Terminal(j.Status) {
				return errorf("E1312", "Bundle Job can not be suspended as job finished or failed or killed, id : %s, status : %s", id, j.Status)
			}
			if !v.pause.IsZero() && v.pause.Before(c.now) {
				return changeError(fmtUTC(*v.pause), "must be a non-past time")
			}
			j.PauseTime = *v.pause
			c.log("", "INFO", "pause time changed to [%s]", fmtOpt(j.PauseTime))
			// The timer pauses or unpauses the bundle: now, or at the
			// new pause time.
			c.schedule(c.now)
		default:
			if j.Status == store.BundleKilled {
				return errorf("E1312", "Bundle Job can not be suspended as job finished or failed or killed, id : %s, status : %s", id, j.Status)
			}
			if !v.end.IsZero() && !j.KickoffTime.IsZero() && v.end.Before(j.KickoffTime) {
				return changeError(fmtUTC(*v.end), "must be greater then kickoff time")
			}
			j.EndTime = *v.end
			c.log("", "INFO", "end time changed to [%s]", fmtOpt(j.EndTime))
			if Terminal(j.Status) {
				// A later end reopens an ended bundle, as Oozie does;
				// its coordinators' reports then roll its status up.
				c.setStatus(store.BundleRunning)
			}
		}
		c.jobDirty = true
		for _, a := range c.actions {
			if a.Status != store.CoordKilled {
				c.passOn(a, commandPayload{Op: "change", Value: value})
			}
		}
		return nil
	})
}

func fmtOpt(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return fmtUTC(t)
}

// BundleRerun reruns coordinators of a bundle (spec: bundle 4.4): those named
// in coordScope (names, or coordinator ids) over dateScope, or over each
// one's whole run when no dates are given; with dates only, every
// coordinator. A killed or failed bundle is refused (E1100).
func (e *Engine) BundleRerun(ctx context.Context, id, coordScope, dateScope string, refresh, noCleanup bool) error {
	return e.update(ctx, id, func(c *change) error {
		j := c.job
		if j.Status == store.BundleKilled || j.Status == store.BundleFailed {
			return errorf(CodePrecondition, "Command precondition does not hold before execution, [Not able to rerun the bundle Id= %s. Bundle is in wrong state= %s]", id, j.Status)
		}
		picked, err := e.rerunScope(ctx, c, coordScope, dateScope)
		if err != nil {
			return err
		}
		for _, p := range picked {
			c.command(p.action, commandPayload{Op: "rerun", Dates: p.dates, Refresh: refresh, NoCleanup: noCleanup})
		}
		if len(picked) > 0 && j.Status != store.BundlePaused {
			c.setStatus(store.BundleRunning)
		}
		c.log("", "INFO", "rerun of [%d] coordinators, coordinators [%s] dates [%s]", len(picked), coordScope, dateScope)
		return nil
	})
}

type rerunPick struct {
	action *store.BundleAction
	dates  string
}

// rerunScope selects the coordinators of a rerun and the dates each one
// reruns.
func (e *Engine) rerunScope(ctx context.Context, c *change, coordScope, dateScope string) ([]rerunPick, error) {
	dateScope = strings.TrimSpace(dateScope)
	var out []rerunPick
	if strings.TrimSpace(coordScope) == "" {
		if dateScope == "" {
			// Oozie's rerun does nothing without a scope.
			return nil, nil
		}
		for _, a := range c.actions {
			if a.CoordID != "" {
				out = append(out, rerunPick{a, dateScope})
			}
		}
		return out, nil
	}
	for _, name := range strings.Split(coordScope, ",") {
		name = strings.TrimSpace(name)
		var a *store.BundleAction
		for _, x := range c.actions {
			if x.CoordName == name || x.CoordID == name {
				a = x
			}
		}
		if a == nil || a.CoordID == "" {
			c.log("", "INFO", "rerun: coordinator [%s] is not a started coordinator of this bundle", name)
			continue
		}
		dates := dateScope
		if dates == "" {
			var cj *store.CoordJob
			err := e.store.View(ctx, func(tx store.Tx) (err error) {
				cj, err = tx.CoordJob(ctx, a.CoordID)
				return err
			})
			if err != nil {
				return nil, err
			}
			dates = fmtUTC(cj.StartTime) + "::" + fmtUTC(cj.EndTime)
		}
		out = append(out, rerunPick{a, dates})
	}
	return out, nil
}
