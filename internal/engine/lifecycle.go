package engine

import (
	"fmt"

	"github.com/gozie/gozie/internal/store"
)

// jobTransitions is the table of spec: wf 9.1: the only
// status changes a workflow job may make.
var jobTransitions = map[string][]string{
	store.JobPrep:      {store.JobRunning, store.JobKilled},
	store.JobRunning:   {store.JobSuspended, store.JobSucceeded, store.JobKilled, store.JobFailed},
	store.JobSuspended: {store.JobRunning, store.JobKilled},
}

// actionTransitions is the table of spec: wf 9.2.
var actionTransitions = map[string][]string{
	store.ActionPrep:        {store.ActionStartRetry, store.ActionStartManual, store.ActionRunning, store.ActionKilled},
	store.ActionStartRetry:  {store.ActionStartManual, store.ActionRunning, store.ActionKilled},
	store.ActionStartManual: {store.ActionRunning, store.ActionKilled},
	store.ActionUserRetry:   {store.ActionRunning, store.ActionDone, store.ActionKilled},
	store.ActionRunning:     {store.ActionDone, store.ActionKilled},
	store.ActionKilled:      {store.ActionFailed},
	store.ActionDone:        {store.ActionOK, store.ActionError, store.ActionUserRetry, store.ActionEndRetry, store.ActionEndManual},
	store.ActionEndRetry:    {store.ActionEndManual, store.ActionKilled, store.ActionOK, store.ActionError},
	store.ActionEndManual:   {store.ActionKilled, store.ActionOK, store.ActionError},
}

// JobTransitionAllowed reports whether a workflow job may go from one status
// to another (spec: wf 9.1).
func JobTransitionAllowed(from, to string) bool {
	return allowed(jobTransitions, from, to)
}

// ActionTransitionAllowed reports whether a workflow action may go from one
// status to another (spec: wf 9.2).
func ActionTransitionAllowed(from, to string) bool {
	return allowed(actionTransitions, from, to)
}

func allowed(table map[string][]string, from, to string) bool {
	for _, s := range table[from] {
		if s == to {
			return true
		}
	}
	return false
}

// errTransition reports an engine bug: a status change the lifecycle tables
// forbid. The engine refuses to commit it rather than store a state the
// specification says cannot exist.
type errTransition struct {
	what, id, from, to string
}

func (e *errTransition) Error() string {
	return fmt.Sprintf("illegal %s transition %s -> %s for [%s]", e.what, e.from, e.to, e.id)
}

// setJobStatus moves a job to status "to" if the lifecycle allows it.
func setJobStatus(j *store.Job, to string) error {
	if j.Status == to {
		return nil
	}
	if !JobTransitionAllowed(j.Status, to) {
		return &errTransition{"job", j.ID, j.Status, to}
	}
	j.Status = to
	return nil
}

// setActionStatus moves an action through the given statuses in order,
// each step checked against the lifecycle table. Ending an action goes
// through DONE, as in the specification, even though only the final status
// is stored.
func setActionStatus(a *store.Action, path ...string) error {
	for _, to := range path {
		if a.Status == to {
			continue
		}
		if !ActionTransitionAllowed(a.Status, to) {
			return &errTransition{"action", a.ID, a.Status, to}
		}
		a.Status = to
	}
	return nil
}

// actionTerminal reports statuses after which an action never runs again
// within this job run.
func actionTerminal(status string) bool {
	switch status {
	case store.ActionOK, store.ActionError, store.ActionKilled, store.ActionFailed:
		return true
	}
	return false
}
