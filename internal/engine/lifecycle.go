package engine

import (
	"fmt"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// JobTransitionAllowed reports whether a workflow job may go from one status
// to another (spec: wf 9.1): the lifecycle table of package vocab. A job
// is created in PREP, never moved there, so from "" is refused.
func JobTransitionAllowed(from, to string) bool {
	return from != "" && vocab.CanTransition(vocab.JobStatus(from), vocab.JobStatus(to))
}

// ActionTransitionAllowed reports whether a workflow action may go from one
// status to another (spec: wf 9.2), by package vocab's table.
func ActionTransitionAllowed(from, to string) bool {
	return from != "" && vocab.CanTransition(vocab.ActionStatus(from), vocab.ActionStatus(to))
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
