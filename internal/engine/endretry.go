package engine

import (
	"context"
	"errors"
	"strings"
	"syscall"

	"github.com/gozie/gozie/internal/store"
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

// performEndRetry is the EffectCheck: check the action now, then mark the
// effect done (a check that cannot reach the store leaves it pending).
func (e *Engine) performEndRetry(ctx context.Context, ef *store.Effect) {
	if jobID, _, ok := strings.Cut(ef.ActionID, "@"); ok {
		e.performCheck(ctx, jobID, ef.ActionID)
	}
	e.markDone(ctx, ef)
}

// endStatus is the status path of an action ending as to: through DONE
// from RUNNING, directly from END_RETRY and END_MANUAL, which come after
// DONE already (specification 9.2).
func endStatus(a *store.Action, to string) []string {
	if a.Status == store.ActionEndRetry || a.Status == store.ActionEndManual {
		return []string{to}
	}
	return []string{store.ActionDone, to}
}
