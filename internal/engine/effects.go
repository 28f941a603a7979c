package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// registerEffects registers the engine's effect kinds on its runtime.
func (e *Engine) registerEffects() {
	e.rt.Register(store.EffectStart, startHandler{e})
	e.rt.Register(store.EffectKill, effect.HandlerFunc(e.performKill))
	// Deliveries have their own retries and mark their effects done
	// themselves; one left pending by a store failure is found by the
	// sweep.
	e.rt.Register(EffectHTTPNotify, effect.HandlerFunc(func(_ context.Context, ef *store.Effect) error {
		e.performHTTPNotify(ef)
		return nil
	}))
	e.rt.Register(EffectCheck, effect.HandlerFunc(e.performEndRetry))
	e.rt.Register(store.EffectNotify, notifyHandler{e})
	e.rt.OnLost(e.forget)
}

// startHandler performs start effects (performStart) and quarantines them
// (quarantine.go).
type startHandler struct{ e *Engine }

// Perform starts the effect's action.
func (h startHandler) Perform(ctx context.Context, ef *store.Effect) error {
	return h.e.performStart(ctx, ef)
}

// notifyHandler performs the notify effect of a job that ended: its
// parent is told. A workflow parent's sub-workflow action is checked now;
// the end of a workflow whose parent is another engine's (a coordinator
// action) goes to the kind that engine registered
// (effect.ParentNotifyKind).
type notifyHandler struct{ e *Engine }

// Route names the parent engine's kind when the parent is not a workflow.
func (notifyHandler) Route(ef *store.Effect) string {
	parent, _, _ := strings.Cut(ef.ActionID, "@")
	if k := effect.ParentNotifyKind(parent); k != ef.Kind {
		return k
	}
	return ""
}

// Perform checks the parent's sub-workflow action now: notify, not a
// plain check, since the parent's action may not be RUNNING yet when a
// quick child ends.
func (h notifyHandler) Perform(ctx context.Context, ef *store.Effect) error {
	if jobID, _, ok := strings.Cut(ef.ActionID, "@"); ok {
		h.e.notify(jobID, ef.ActionID)
	}
	return h.e.rt.MarkDone(ctx, ef)
}

// occupies reports whether an action in status holds its slot: it runs
// or may still run (END_RETRY, END_MANUAL: its outcome is not known).
func occupies(status string) bool {
	switch status {
	case store.ActionRunning, store.ActionEndRetry, store.ActionEndManual:
		return true
	}
	return false
}

func nodeName(actionID string) string {
	_, name, _ := vocab.SplitID(actionID)
	return name
}

// claim marks a key in one of the in-flight sets; false if already there.
func (e *Engine) claim(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.inflight[key] {
		return false
	}
	e.inflight[key] = true
	return true
}

func (e *Engine) release(key string) {
	e.mu.Lock()
	delete(e.inflight, key)
	e.mu.Unlock()
}

func startable(status string) bool {
	switch status {
	case store.ActionPrep, store.ActionStartRetry, store.ActionStartManual, store.ActionUserRetry:
		return true
	}
	return false
}

// performStart resolves the action's EL, calls the executor's Start outside
// the job lock, and commits the outcome together with the effect's
// completion. An error means the outcome is not committed: the effect is
// performed again, and the executor, asked to start the same attempt,
// reports on the run it already started.
func (e *Engine) performStart(ctx context.Context, ef *store.Effect) error {
	key := fmt.Sprintf("%s#%d", ef.ActionID, ef.Attempt)
	if !e.claim(key) {
		// Another effect starts this attempt; this one stays pending
		// and the sweep finds it superseded later.
		return nil
	}
	claimed := true
	defer func() {
		if claimed {
			e.release(key)
		}
	}()
	st, err := e.lockState(ctx, ef.JobID)
	if err != nil {
		return err
	}
	a := st.actions[nodeName(ef.ActionID)]
	switch {
	case a == nil || a.Attempt != ef.Attempt || !startable(a.Status) || store.Terminal(st.job.Status):
		// Superseded (killed, retried, already started): nothing to do.
		st.done = append(st.done, ef.ID)
		return e.commitUnlock(ctx, st)
	case st.job.Status != store.JobRunning:
		st.extra.Held = append(st.extra.Held, a.Name)
		st.done = append(st.done, ef.ID)
		st.jobDirty = true
		return e.commitUnlock(ctx, st)
	}
	other, workDir := e.startDir(ef, a)
	if other != nil && workDir == "" {
		// The effect that replaces this one starts the attempt; it
		// must find the attempt unclaimed when it is dispatched.
		e.startAgain(st, a, ef, other)
		e.release(key)
		claimed = false
		return e.commitUnlock(ctx, st)
	}
	exec, ok := e.actions.Lookup(a.Type)
	var actx *action.Context
	var confXML string
	if ok {
		actx, confXML, err = e.actionContext(st, a)
	}
	if err == nil && actx != nil && workDir != "" {
		// Started by another server on this host (or in a shared data
		// directory): its directory, where the executor finds the
		// program it launched.
		actx.WorkDir = workDir
		e.rt.LogLimited("intent "+a.ID, "gozie: job %s: action %s attempt %d was being started by %s; starting it in that server's work directory %s",
			st.job.ID, a.Name, a.Attempt, other.who(), workDir)
	}
	switch {
	case !ok:
		st.failAction(e, a, CodeUnsupportedAction, fmt.Sprintf("Unsupported action type, node [%s] type [%s]", a.Name, a.Type))
	case err != nil:
		if el.AsError(err) != nil {
			st.failAction(e, a, CodeELError, elMessage(err))
		} else {
			st.startFailed(e, a, err)
		}
	}
	if !ok || err != nil {
		st.done = append(st.done, ef.ID)
		return e.commitUnlock(ctx, st)
	}
	a.Conf = confXML
	e.setContext(a.ID, actx)
	if a.Cred != "" {
		exec = &credExecutor{Executor: exec, providers: e.credentials(), app: st.app, cred: a.Cred}
	}
	st.mu.Unlock()

	return e.runStart(ctx, ef, a.ID, a.Type, exec, actx, confXML)
}

// runStart is the second half of performStart, outside the job lock:
// it calls the executor's Start for action id (of type typ) once the
// lease, a slot and the executor bound allow, then commits the outcome
// with the effect's completion under the job lock again.
func (e *Engine) runStart(ctx context.Context, ef *store.Effect, id, typ string, exec action.Executor, actx *action.Context, confXML string) error {
	if !e.rt.LeaseValid() {
		// This server has not renewed its lease in time: another may be
		// taking the job over and would start the action too. The
		// effect waits (retried) until a heartbeat renews the lease or
		// the job's commit fails as taken over.
		return effect.ErrLeaseExpired
	}
	if typ != "sub-workflow" && !e.rt.Slots().TryAcquire(id) &&
		!e.rt.JournalWait(ctx, func() bool { return e.rt.Slots().Acquire(ctx, id) }) {
		return nil // shutting down: the effect stays pending
	}
	var ended chan struct{}
	if e.opts.StartSettle > 0 && typ != "sub-workflow" {
		ended = make(chan struct{})
		e.mu.Lock()
		e.settling[id] = ended
		e.mu.Unlock()
	}
	e.sem <- struct{}{}
	res, startErr := guard(func() (action.Result, error) { return exec.Start(ctx, actx) })
	<-e.sem
	if ended != nil {
		res = e.settleStart(ctx, exec, actx, id, ended, res, startErr)
	}
	if ctx.Err() != nil {
		return nil // shutting down: the effect stays pending for the next start
	}
	if errors.Is(startErr, store.ErrUnavailable) {
		// The engine's own store failed inside the executor (a
		// sub-workflow's submission): not the action's fault. The
		// effect is performed again; the executor is idempotent.
		return startErr
	}

	st, err := e.lockState(ctx, ef.JobID)
	if err != nil {
		return err
	}
	defer st.mu.Unlock()
	a := st.actions[nodeName(ef.ActionID)]
	if a == nil || a.Attempt != ef.Attempt || !startable(a.Status) {
		e.rt.Slots().Release(ef.ActionID)
		// Killed while starting: stop what was started.
		if startErr == nil && !res.Done && res.ExternalID != "" {
			if err := exec.Kill(ctx, actx, res.ExternalID); err != nil {
				e.logf("gozie: kill %s: %v", ef.ActionID, err)
			}
		}
		st.done = append(st.done, ef.ID)
		return e.commit(ctx, st)
	}
	a.Conf = confXML
	st.actionStarted(e, a, res, startErr)
	st.done = append(st.done, ef.ID)
	if err := e.commit(ctx, st); err != nil {
		if errors.Is(err, store.ErrNotOwner) {
			e.rt.Slots().Release(ef.ActionID)
		}
		return err
	}
	if a.Status == store.ActionRunning {
		e.mu.Lock()
		early := e.notified[a.ID]
		delete(e.notified, a.ID)
		e.mu.Unlock()
		if early {
			e.enqueueCheck(st.job.ID, a.ID)
		}
	}
	return nil
}

// settleStart waits up to StartSettle for the program a Start left running to
// end (its Notify closes ended) and returns the outcome of a Check then,
// so that the start and the end are committed together; otherwise, or
// when the Check does not report the end, it returns res as it was. Until
// the commit the start effect is pending, as during Start itself: a crash
// performs it again and the executor reports on the run it started.
func (e *Engine) settleStart(ctx context.Context, exec action.Executor, actx *action.Context, id string, ended chan struct{}, res action.Result, startErr error) action.Result {
	defer func() {
		e.mu.Lock()
		if e.settling[id] == ended {
			delete(e.settling, id)
		}
		e.mu.Unlock()
	}()
	if startErr != nil || res.Done || res.ExternalID == "" {
		return res
	}
	timeout := make(chan struct{})
	stop := e.clock.AfterFunc(e.opts.StartSettle, func() { close(timeout) })
	defer stop()
	select {
	case <-ended:
	case <-timeout:
		return res
	case <-ctx.Done():
		return res
	}
	end, err := guard(func() (action.Result, error) { return exec.Check(ctx, actx, res.ExternalID) })
	if err != nil || !end.Done {
		return res // the usual path: RUNNING now, the check after the commit
	}
	if end.ExternalID == "" {
		end.ExternalID = res.ExternalID
	}
	if end.TrackerURI == "" {
		end.TrackerURI = res.TrackerURI
	}
	return end
}

// commitUnlock commits st and unlocks it.
func (e *Engine) commitUnlock(ctx context.Context, st *jobState) error {
	err := e.commit(ctx, st)
	st.mu.Unlock()
	return err
}

// guard runs an executor call, turning a panic into a failure of the
// action: one broken executor must not take the server and every other
// job down with it.
func guard(call func() (action.Result, error)) (res action.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = action.Result{}, action.Errorf(action.Failed, "E0902", "Exception occured: [executor panic: %v]", p)
		}
	}()
	return call()
}

// commitOrLog commits a change whose loss the poll loop repairs (the
// outcome of a check, which the next poll asks for again), logging a
// failure at most once a minute per job.
func (e *Engine) commitOrLog(ctx context.Context, st *jobState) {
	err := e.commit(ctx, st)
	if errors.Is(err, store.ErrNotOwner) {
		e.rt.LostJob(st.job.ID, err)
		return
	}
	if err != nil && ctx.Err() == nil {
		e.rt.LogLimited("job "+st.job.ID, "gozie: job %s: %v (the next poll tries again)", st.job.ID, err)
	}
}

func (e *Engine) setContext(actionID string, actx *action.Context) {
	e.mu.Lock()
	e.contexts[actionID] = actx
	e.mu.Unlock()
}

// contextFor returns the executor context of an action's current attempt,
// rebuilding it after a restart. st.mu must be held.
func (e *Engine) contextFor(st *jobState, a *store.Action) *action.Context {
	e.mu.Lock()
	actx := e.contexts[a.ID]
	e.mu.Unlock()
	if actx != nil && actx.Attempt == a.Attempt {
		return actx
	}
	actx, _, err := e.actionContext(st, a)
	if err != nil {
		// The body resolved when the action started; if it no longer
		// does, the executor still gets enough to find its run.
		actx = &action.Context{JobID: st.job.ID, ActionID: a.ID, Name: a.Name, Type: a.Type, User: st.job.User,
			AppPath: st.extra.AppRoot, JobConf: st.conf, Attempt: a.Attempt}
		if n := st.app.Node(a.Name); n != nil && n.Action != nil {
			actx.Element = n.Action.Body
		}
	}
	e.setContext(a.ID, actx)
	return actx
}

// Callback is what the /callback endpoint calls: the external system of
// action actionID reports status. As in Oozie, the status only triggers a
// check; the executor's Check decides the outcome. An unknown action is
// E0605.
func (e *Engine) Callback(ctx context.Context, actionID, status string) error {
	jobID, name, ok := vocab.SplitID(actionID)
	if !ok || name == "" {
		return errorf(CodeActionNotFound, "Action does not exist [%s]", actionID)
	}
	var found bool
	err := e.store.View(ctx, func(tx store.Tx) error {
		_, err := tx.Action(ctx, actionID)
		found = err == nil
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	if !found {
		return errorf(CodeActionNotFound, "Action does not exist [%s]", actionID)
	}
	e.notify(jobID, actionID)
	return nil
}

// notify is Context.Notify: the action may have finished.
func (e *Engine) notify(jobID, actionID string) {
	e.mu.Lock()
	e.notified[actionID] = true
	if ch := e.settling[actionID]; ch != nil {
		close(ch)
		delete(e.settling, actionID)
	}
	e.mu.Unlock()
	e.enqueueCheck(jobID, actionID)
}

// enqueueCheck checks an action soon; a check asked for while one is
// running runs again after it, so no notification is lost.
func (e *Engine) enqueueCheck(jobID, actionID string) {
	e.mu.Lock()
	if n := e.checks[actionID]; n > 0 {
		e.checks[actionID] = 2
		e.mu.Unlock()
		return
	}
	e.checks[actionID] = 1
	e.mu.Unlock()
	e.rt.Go(func() {
		for {
			e.performCheck(e.rt.Context(), jobID, actionID)
			e.mu.Lock()
			if e.checks[actionID] == 2 && !e.rt.Closed() {
				e.checks[actionID] = 1
				e.mu.Unlock()
				continue
			}
			delete(e.checks, actionID)
			e.mu.Unlock()
			return
		}
	})
}

// performCheck asks the executor about a RUNNING action and applies the
// answer.
func (e *Engine) performCheck(ctx context.Context, jobID, actionID string) {
	st, err := e.lockState(ctx, jobID)
	if err != nil {
		return
	}
	a := st.actions[nodeName(actionID)]
	if a == nil || !checkable(a.Status) || st.job.Status == store.JobPrep || store.Terminal(st.job.Status) {
		st.mu.Unlock()
		return
	}
	exec, ok := e.actions.Lookup(a.Type)
	if !ok {
		st.mu.Unlock()
		return
	}
	actx := e.contextFor(st, a)
	extID, attempt := a.ExternalID, a.Attempt
	st.mu.Unlock()

	res, checkErr := guard(func() (action.Result, error) { return exec.Check(ctx, actx, extID) })
	if ctx.Err() != nil {
		return
	}
	st, err = e.lockState(ctx, jobID)
	if err != nil {
		return
	}
	defer st.mu.Unlock()
	a = st.actions[nodeName(actionID)]
	if a == nil || !checkable(a.Status) || a.Attempt != attempt || store.Terminal(st.job.Status) {
		return
	}
	e.mu.Lock()
	delete(e.notified, actionID)
	e.mu.Unlock()
	if checkErr != nil {
		kind, code, msg := classify(checkErr)
		switch kind {
		case action.Transient:
			if a.Status == store.ActionEndRetry && !e.endRetryDue(actionID) {
				return
			}
			if endRetryable(checkErr) || a.Status == store.ActionEndRetry {
				st.endRetry(e, a, code, msg)
				break
			}
			e.rt.LogLimited("check "+actionID, "gozie: check %s: %v (will poll again)", actionID, checkErr)
			return
		case action.NonTransient:
			_ = setActionStatus(a, endStatus(a, store.ActionEndManual)...)
			a.ErrorCode, a.ErrorMessage = code, msg
			st.touch(a)
			if setJobStatus(st.job, store.JobSuspended) == nil {
				st.jobDirty = true
			}
		case action.ErrorKindError:
			st.actionEnded(e, a, action.Result{Done: true, Status: action.Error, ErrorCode: code, ErrorMessage: msg})
		default:
			st.failAction(e, a, code, msg)
		}
		e.commitOrLog(ctx, st)
		return
	}
	if !res.Done && a.Status == store.ActionEndRetry && !e.endRetryDue(actionID) {
		return
	}
	if !res.Done && a.Status != store.ActionRunning {
		// Checked again after END_RETRY and still not finished: another
		// retry (there is no way back to RUNNING, spec: wf 9.2).
		st.endRetry(e, a, a.ErrorCode, a.ErrorMessage)
		e.commitOrLog(ctx, st)
		return
	}
	if !res.Done {
		if res.ExternalStatus != "" && res.ExternalStatus != a.ExternalStatus {
			a.ExternalStatus = res.ExternalStatus
			st.touch(a)
			e.commitOrLog(ctx, st)
		}
		return
	}
	st.actionEnded(e, a, res)
	e.commitOrLog(ctx, st)
}

// performKill stops an action's external work. A failure to kill moves
// the action from KILLED to FAILED (spec: wf 9.2).
func (e *Engine) performKill(ctx context.Context, ef *store.Effect) error {
	st, err := e.lockState(ctx, ef.JobID)
	if err != nil {
		return err
	}
	a := st.actions[nodeName(ef.ActionID)]
	var exec action.Executor
	ok := false
	if a != nil {
		exec, ok = e.actions.Lookup(a.Type)
	}
	if !ok || a.ExternalID == "" {
		st.done = append(st.done, ef.ID)
		return e.commitUnlock(ctx, st)
	}
	actx := e.contextFor(st, a)
	extID := a.ExternalID
	st.mu.Unlock()

	_, killErr := guard(func() (action.Result, error) { return action.Result{}, exec.Kill(ctx, actx, extID) })
	if ctx.Err() != nil {
		return nil
	}
	st, err = e.lockState(ctx, ef.JobID)
	if err != nil {
		return err
	}
	defer st.mu.Unlock()
	if a = st.actions[nodeName(ef.ActionID)]; a != nil && killErr != nil && a.Status == store.ActionKilled {
		_ = setActionStatus(a, store.ActionFailed)
		_, a.ErrorCode, a.ErrorMessage = classify(killErr)
		st.touch(a)
	}
	st.done = append(st.done, ef.ID)
	return e.commit(ctx, st)
}
