package engine

import (
	"context"
	"errors"
	"syscall"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// EffectCheck checks an action again after a retry interval: the END_RETRY
// of an action whose end could not be recorded (its outcome is still with
// the external system) and the re-check of an END_MANUAL action on resume.
const EffectCheck = "check"

// endRetryable reports check errors that send a finished action to
// END_RETRY. Only a full disk does today: the program has run and its
// launcher could not record the outcome, which it may still do once there
// is room. Other transient check errors keep the action RUNNING and are
// polled again, as before.
func endRetryable(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// endRetry moves an action whose end could not be recorded to END_RETRY
// and checks it again after the retry interval, up to the retry count of
// starts (Oozie's oozie.action.retries.max applies to both); then to
// END_MANUAL, suspending the job for a person, whose resume checks again.
func (st *jobState) endRetry(e *Engine, a *store.Action, code, msg string) {
	if a.Status == store.ActionRunning {
		// A fresh count: the retries of the start are behind it.
		a.Retries = 0
	}
	a.ErrorCode, a.ErrorMessage = code, msg
	st.touch(a)
	if a.Retries < e.opts.StartRetryMax {
		_ = setActionStatus(a, endStatus(a, store.ActionEndRetry)...)
		a.Retries++
		st.addEffect(&store.Effect{ActionID: a.ID, Kind: EffectCheck, Attempt: a.Attempt,
			NotBefore: e.now().Add(e.opts.StartRetryInterval)})
		return
	}
	_ = setActionStatus(a, endStatus(a, store.ActionEndManual)...)
	if setJobStatus(st.job, store.JobSuspended) == nil {
		st.jobDirty = true
	}
}

// checkable reports the statuses in which an executor's Check applies.
func checkable(status string) bool {
	switch status {
	case store.ActionRunning, store.ActionEndRetry, store.ActionEndManual:
		return true
	}
	return false
}

// errEndRetryUnrecorded reports an END_RETRY check whose commit did not go
// through: the action is still in the same round.
var errEndRetryUnrecorded = errors.New("the END_RETRY check could not be recorded; checking again")

// performEndRetry is the EffectCheck: check the action now. The effect is
// done once the check has changed the action (ended it, counted a retry,
// sent it to END_MANUAL) or the action moved on; if it is still in the
// same END_RETRY round, the check's commit did not go through (the store's
// disk may be full too), so it returns an error and the effect stays
// pending, held, and is performed again after the store backoff
// (retry.go).
func (e *Engine) performEndRetry(ctx context.Context, ef *store.Effect) error {
	jobID, node, _ := vocab.SplitID(ef.ActionID)
	key := endRetryKey(ef.ActionID)
	if !e.claim(key) {
		// Another check of this action is at work (the one that scheduled
		// this effect may still be finishing): the effect is performed
		// when that one is done, not only at the next sweep, which may be
		// long after the retry interval.
		e.mu.Lock()
		if e.inflight[key] {
			e.endRetryNext[key] = ef
			e.mu.Unlock()
			return nil
		}
		e.mu.Unlock()
		if !e.claim(key) {
			return nil // claimed again meanwhile; the sweep offers it again
		}
	}
	defer e.releaseEndRetry(key)
	before, inRound := e.endRetryRound(ctx, jobID, node)
	e.performCheck(ctx, jobID, ef.ActionID)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if after, still := e.endRetryRound(ctx, jobID, node); inRound && still && after == before {
		return errEndRetryUnrecorded
	}
	return e.rt.MarkDone(ctx, ef)
}

func endRetryKey(actionID string) string { return "endretry:" + actionID }

// releaseEndRetry ends a check's claim on its action and performs the
// END_RETRY check that came due meanwhile, if any.
func (e *Engine) releaseEndRetry(key string) {
	e.mu.Lock()
	delete(e.inflight, key)
	next := e.endRetryNext[key]
	delete(e.endRetryNext, key)
	e.mu.Unlock()
	if next != nil {
		e.rt.Go(func() { e.rt.PerformAgain(next) })
	}
}

// endRetryDue reports whether the END_RETRY check of the action is being
// performed now. Only that check counts a retry: another one (a poll
// listed while the action still ran, a callback) that finds the end still
// unrecorded leaves the round alone.
func (e *Engine) endRetryDue(actionID string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.inflight[endRetryKey(actionID)]
}

// endRetryRound returns the retry count of an action in END_RETRY; false
// when the action is in another status or cannot be read.
func (e *Engine) endRetryRound(ctx context.Context, jobID, node string) (int, bool) {
	st, err := e.lockState(ctx, jobID)
	if err != nil {
		return 0, false
	}
	defer st.mu.Unlock()
	a := st.actions[node]
	if a == nil || a.Status != store.ActionEndRetry {
		return 0, false
	}
	return a.Retries, true
}

// endStatus is the status path of an action ending as to: through DONE
// from RUNNING, directly from END_RETRY and END_MANUAL, which come after
// DONE already (spec: wf 9.2).
func endStatus(a *store.Action, to string) []string {
	if a.Status == store.ActionEndRetry || a.Status == store.ActionEndManual {
		return []string{to}
	}
	return []string{store.ActionDone, to}
}
