package engine

import (
	"reflect"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/store"
)

// t0 is any instant: the decisions only add to the time they are given.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

var testPolicy = retryPolicy{StartRetryMax: 3, StartRetryInterval: 10 * time.Second,
	UserRetryable: func(code string) bool { return code == "JA018" }}

// checkPath fails when a decided path leaves the action lifecycle of
// spec: wf 9.2.
func checkPath(t *testing.T, from string, path []string) {
	t.Helper()
	for _, to := range path {
		// Staying is no transition (a start retried again).
		if to != from && !ActionTransitionAllowed(from, to) {
			t.Errorf("%s -> %s is not a transition of the action lifecycle", from, to)
		}
		from = to
	}
}

// TestStartFailure: the decision after a failed Start (spec: wf 3.2.1.4,
// wf 9.2), by the error's kind, the action's status and its start retries.
func TestStartFailure(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  string
		retries int
		kind    action.ErrorKind
		want    actionOutcome
	}{
		{"transient, retries left", store.ActionPrep, 0, action.Transient,
			actionOutcome{Statuses: []string{store.ActionStartRetry}, Retry: true, Retries: 1, NotBefore: t0.Add(10 * time.Second)}},
		{"transient, last retry", store.ActionStartRetry, 2, action.Transient,
			actionOutcome{Statuses: []string{store.ActionStartRetry}, Retry: true, Retries: 1, NotBefore: t0.Add(10 * time.Second)}},
		{"transient, retries spent", store.ActionStartRetry, 3, action.Transient,
			actionOutcome{Statuses: []string{store.ActionStartManual}, SuspendJob: true}},
		{"non-transient", store.ActionPrep, 0, action.NonTransient,
			actionOutcome{Statuses: []string{store.ActionStartManual}, SuspendJob: true}},
		{"error", store.ActionPrep, 0, action.ErrorKindError,
			actionOutcome{Statuses: []string{store.ActionRunning}, EndAsError: true}},
		{"failed", store.ActionPrep, 0, action.Failed, actionOutcome{Fail: true}},
		{"user retry that cannot start ends as an error", store.ActionUserRetry, 0, action.Transient,
			actionOutcome{Statuses: []string{store.ActionRunning}, EndAsError: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := startFailure(tc.status, tc.retries, tc.kind, t0, testPolicy)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			checkPath(t, tc.status, got.Statuses)
		})
	}
}

// TestActionEnd: the decision when an executor reports an action ended
// (spec: wf 9.2, wf 18): ok, error, user retry.
func TestActionEnd(t *testing.T) {
	for _, tc := range []struct {
		name        string
		a           store.Action
		ok          bool
		code        string
		exponential bool
		want        actionOutcome
	}{
		{"ok", store.Action{Status: store.ActionRunning}, true, "", false,
			actionOutcome{Statuses: []string{store.ActionDone, store.ActionOK}, Transition: "ok"}},
		{"ok after END_RETRY", store.Action{Status: store.ActionEndRetry}, true, "", false,
			actionOutcome{Statuses: []string{store.ActionOK}, Transition: "ok"}},
		{"error without retry-max", store.Action{Status: store.ActionRunning}, false, "JA018", false,
			actionOutcome{Statuses: []string{store.ActionDone, store.ActionError}, Transition: "error"}},
		{"error retried", store.Action{Status: store.ActionRunning, UserRetryMax: 2, UserRetryInterval: 1}, false, "JA018", false,
			actionOutcome{Statuses: []string{store.ActionDone, store.ActionUserRetry}, Retry: true, UserRetries: 1, NotBefore: t0.Add(time.Minute)}},
		{"second retry, exponential", store.Action{Status: store.ActionRunning, UserRetryMax: 3, UserRetryCount: 2, UserRetryInterval: 1}, false, "JA018", true,
			actionOutcome{Statuses: []string{store.ActionDone, store.ActionUserRetry}, Retry: true, UserRetries: 1, NotBefore: t0.Add(4 * time.Minute)}},
		{"retries spent", store.Action{Status: store.ActionRunning, UserRetryMax: 2, UserRetryCount: 2}, false, "JA018", false,
			actionOutcome{Statuses: []string{store.ActionDone, store.ActionError}, Transition: "error"}},
		{"code not retryable", store.Action{Status: store.ActionRunning, UserRetryMax: 2}, false, "E0902", false,
			actionOutcome{Statuses: []string{store.ActionDone, store.ActionError}, Transition: "error"}},
		{"no user retry from END_MANUAL", store.Action{Status: store.ActionEndManual, UserRetryMax: 2}, false, "JA018", false,
			actionOutcome{Statuses: []string{store.ActionError}, Transition: "error"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := actionEnd(&tc.a, tc.ok, tc.code, tc.exponential, t0, testPolicy)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			from := tc.a.Status
			if from == store.ActionRunning || from == store.ActionEndRetry || from == store.ActionEndManual {
				checkPath(t, from, got.Statuses)
			}
		})
	}
}
