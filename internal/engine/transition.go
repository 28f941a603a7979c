package engine

import (
	"strings"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/store"
)

// The decisions of an action's lifecycle (spec: wf 9.2, wf 3.2.1.4) as
// pure functions of the action's state, the event, the time and the
// engine's policy: they read no clock and touch no job, so they are tested
// as tables (transition_test.go). The job state applies what they return.

// retryPolicy is what the engine's options say about retries.
type retryPolicy struct {
	StartRetryMax      int
	StartRetryInterval time.Duration
	// UserRetryable reports the error codes retry-max applies to.
	UserRetryable func(code string) bool
}

// policy returns the engine's retry policy.
func (e *Engine) policy() retryPolicy {
	return retryPolicy{StartRetryMax: e.opts.StartRetryMax, StartRetryInterval: e.opts.StartRetryInterval,
		UserRetryable: e.userRetryable}
}

// actionOutcome is what becomes of an action after an event.
type actionOutcome struct {
	// Statuses are those the action goes through, in order.
	Statuses []string
	// Transition is "ok" or "error" when the action's transition is
	// taken, "" otherwise.
	Transition string
	// Retry asks for a start of the next attempt at NotBefore; Retries
	// and UserRetries count it as a start retry or a user retry.
	Retry                bool
	NotBefore            time.Time
	Retries, UserRetries int
	// SuspendJob suspends the job: a person has to look (START_MANUAL).
	SuspendJob bool
	// EndAsError ends the action as an executor's ERROR result would,
	// through RUNNING; Fail fails the action and its job.
	EndAsError, Fail bool
}

// startFailure decides an action's next state when its executor's Start
// failed with an error of kind: a transient error is retried while the
// start retries last (START_RETRY), then waits for a person like a
// non-transient one (START_MANUAL, the job suspended); an ERROR takes the
// error transition; anything else fails the action. A user retry that
// cannot start ends the action: USER_RETRY may only go on to RUNNING,
// DONE or KILLED.
func startFailure(status string, retries int, kind action.ErrorKind, now time.Time, p retryPolicy) actionOutcome {
	if status == store.ActionUserRetry {
		kind = action.ErrorKindError
	}
	switch kind {
	case action.Transient:
		if retries < p.StartRetryMax {
			return actionOutcome{Statuses: []string{store.ActionStartRetry}, Retry: true, Retries: 1,
				NotBefore: now.Add(p.StartRetryInterval)}
		}
		fallthrough
	case action.NonTransient:
		return actionOutcome{Statuses: []string{store.ActionStartManual}, SuspendJob: true}
	case action.ErrorKindError:
		return actionOutcome{Statuses: []string{store.ActionRunning}, EndAsError: true}
	}
	return actionOutcome{Fail: true}
}

// actionEnd decides an action's next state when its executor reports it
// ended: OK takes the ok transition; ERROR is retried when retry-max
// allows (USER_RETRY, after retry-interval minutes, doubled per retry
// with the exponential policy), else takes the error transition. From
// END_RETRY and END_MANUAL the lifecycle has no way to USER_RETRY: those
// ends take the error transition.
func actionEnd(a *store.Action, ok bool, code string, exponential bool, now time.Time, p retryPolicy) actionOutcome {
	through := []string{store.ActionDone}
	if a.Status == store.ActionEndRetry || a.Status == store.ActionEndManual {
		through = nil
	}
	if ok {
		return actionOutcome{Statuses: append(through, store.ActionOK), Transition: "ok"}
	}
	if through != nil && a.UserRetryCount < a.UserRetryMax && p.UserRetryable(code) {
		delay := time.Duration(a.UserRetryInterval) * time.Minute
		if exponential {
			delay <<= uint(min(a.UserRetryCount, 20))
		}
		return actionOutcome{Statuses: []string{store.ActionDone, store.ActionUserRetry}, Retry: true,
			UserRetries: 1, NotBefore: now.Add(delay)}
	}
	return actionOutcome{Statuses: append(through, store.ActionError), Transition: "error"}
}

// exponentialRetry reports whether a retry-policy attribute asks for
// exponential backoff.
func exponentialRetry(policy string) bool {
	return strings.EqualFold(strings.TrimSpace(policy), "exponential")
}

// suspendsBefore reports whether the job property oozie.suspend.on.nodes,
// whose value is list, stops a job before it enters node: a comma list
// of node names (each trimmed), or "*" alone for every node, as Oozie's
// SignalXCommand reads it. An empty list stops nowhere.
func suspendsBefore(list, node string) bool {
	list = strings.TrimSpace(list)
	if list == "" {
		return false
	}
	if list == "*" {
		return true
	}
	for _, name := range strings.Split(list, ",") {
		if name = strings.TrimSpace(name); name != "" && name == node {
			return true
		}
	}
	return false
}
