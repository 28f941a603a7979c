package coordengine

import (
	"fmt"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// CoordJobTransitionAllowed reports whether a coordinator job may go from
// one status to another (spec: coord 6.1.2), by package vocab's table; a
// job is created in PREP, never moved there.
func CoordJobTransitionAllowed(from, to string) bool {
	return from != "" && vocab.CanTransition(vocab.CoordStatus(from), vocab.CoordStatus(to))
}

// CoordActionTransitionAllowed reports whether a coordinator action may go
// from one status to another (spec: coord 6.1.3.2), by package vocab's
// table.
func CoordActionTransitionAllowed(from, to string) bool {
	return from != "" && vocab.CanTransition(vocab.CoordActionStatus(from), vocab.CoordActionStatus(to))
}

// setCoordStatus moves a coordinator job to status "to" if the lifecycle
// allows it.
func setCoordStatus(j *store.CoordJob, to string) error {
	if j.Status == to {
		return nil
	}
	if !CoordJobTransitionAllowed(j.Status, to) {
		return &errTransition{"coordinator job", j.ID, j.Status, to}
	}
	j.Status = to
	return nil
}

// setCoordActionStatus moves a coordinator action through the given
// statuses in order, each step checked against the lifecycle table.
func setCoordActionStatus(a *store.CoordAction, path ...string) error {
	for _, to := range path {
		if a.Status == to {
			continue
		}
		if !CoordActionTransitionAllowed(a.Status, to) {
			return &errTransition{"coordinator action", a.ID, a.Status, to}
		}
		a.Status = to
	}
	return nil
}

// CoordTerminal reports whether a coordinator job status is final: the
// engine does no more work for it (IGNORED included, until a change
// command brings the job back).
func CoordTerminal(status string) bool {
	switch status {
	case store.CoordSucceeded, store.CoordDoneWithError, store.CoordKilled, store.CoordFailed, store.CoordIgnored:
		return true
	}
	return false
}

// coordActionTerminal reports action statuses the engine never leaves by
// itself.
func coordActionTerminal(status string) bool {
	switch status {
	case store.CoordActionSucceeded, store.CoordActionKilled, store.CoordActionFailed,
		store.CoordActionTimedOut, store.CoordActionSkipped, store.CoordActionIgnored:
		return true
	}
	return false
}

// coordHasError reports whether an action status puts a running job in
// RUNNINGWITHERROR (spec: coord 6.1.2: a FAILED, KILLED or TIMEDOUT
// workflow).
func coordHasError(status string) bool {
	return status == store.CoordActionFailed || status == store.CoordActionKilled || status == store.CoordActionTimedOut
}

// withError maps a job status to its WITHERROR twin, and back with
// withoutError: suspend, pause and resume keep the error flag.
var withError = map[string]string{
	store.CoordRunning:   store.CoordRunningWithError,
	store.CoordSuspended: store.CoordSuspendedWithError,
	store.CoordPaused:    store.CoordPausedWithError,
}

func isWithError(status string) bool {
	switch status {
	case store.CoordRunningWithError, store.CoordSuspendedWithError, store.CoordPausedWithError:
		return true
	}
	return false
}

// coordFinalStatus is the status of a job whose materialization is done
// and whose actions have all ended (spec: coord 6.1.2): SUCCEEDED when
// every workflow succeeded, FAILED or KILLED when all of them failed or
// were killed, DONEWITHERROR for any other mix with an error (all TIMEDOUT
// included). SKIPPED actions ran nothing and do not count. ok is false
// while some action has not ended.
func coordFinalStatus(counts map[string]int) (status string, ok bool) {
	total, errs := 0, 0
	for s, n := range counts {
		if n == 0 {
			continue
		}
		if !coordActionTerminal(s) {
			return "", false
		}
		if s == store.CoordActionSkipped || s == store.CoordActionIgnored {
			continue
		}
		total += n
		if coordHasError(s) {
			errs += n
		}
	}
	switch {
	case errs == 0:
		return store.CoordSucceeded, true
	case counts[store.CoordActionFailed] == total:
		return store.CoordFailed, true
	case counts[store.CoordActionKilled] == total:
		return store.CoordKilled, true
	default:
		return store.CoordDoneWithError, true
	}
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
