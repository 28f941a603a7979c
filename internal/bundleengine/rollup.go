package bundleengine

import "github.com/gozie/gozie/internal/store"

// RollUpInput is what the roll-up of a bundle's status reads: the bundle's
// status, whether its pause time and suspended time are set, and its
// coordinators as the bundle last saw them.
type RollUpInput struct {
	Status    string
	PauseTime bool
	Suspended bool
	Actions   []RollUpAction
}

// RollUpAction is one coordinator of a bundle for the roll-up.
type RollUpAction struct {
	Status string
	// Pending is set while a command passed on to the coordinator has
	// not been performed yet.
	Pending bool
}

// RollUp computes a bundle's status from its coordinators' (spec: bundle
// 4.2; the decision order is Oozie's BundleStatusTransitXCommand: ended,
// paused, suspended, running). It returns the status and whether it
// changes. IGNORED coordinators do not count. A bundle without
// coordinators, or one that was killed or failed, keeps its status: the
// roll-up never moves a bundle away from an end its own command gave it.
func RollUp(in RollUpInput) (string, bool) {
	n := map[string]int{}
	total, pending := 0, false
	for _, a := range in.Actions {
		if a.Status == string(store.CoordIgnored) {
			continue
		}
		n[a.Status]++
		total++
		pending = pending || a.Pending
	}
	if total == 0 || in.Status == store.BundleKilled || in.Status == store.BundleFailed {
		return in.Status, false
	}
	to := rollUp(in, n, total, pending)
	if to == "" || to == in.Status {
		return in.Status, false
	}
	return to, true
}

func rollUp(in RollUpInput, n map[string]int, total int, pending bool) string {
	has := func(ss ...string) bool {
		for _, s := range ss {
			if n[s] > 0 {
				return true
			}
		}
		return false
	}
	sum := func(ss ...string) int {
		t := 0
		for _, s := range ss {
			t += n[s]
		}
		return t
	}
	ended := has(store.CoordKilled, store.CoordFailed, store.CoordDoneWithError)
	switch {
	case !pending && total == sum(store.CoordSucceeded, store.CoordFailed, store.CoordKilled, store.CoordDoneWithError):
		switch total {
		case n[store.CoordSucceeded]:
			return store.BundleSucceeded
		case n[store.CoordKilled]:
			return store.BundleKilled
		case n[store.CoordFailed]:
			return store.BundleFailed
		}
		return store.BundleDoneWithError
	// Oozie's test here reads "PAUSED or PAUSEDWITHERROR with a pause
	// time" by Java's precedence, though its comment means both with a
	// pause time; its pause service unpauses a PAUSED bundle without one
	// on its next run. gozie has no such sweep: a bundle paused bottom up
	// (its coordinators' reports of PAUSED arriving after the unpause)
	// would stay PAUSED for good, so both statuses need the pause time.
	case (in.Status == store.BundlePaused || in.Status == store.BundlePausedWithError) && in.PauseTime:
		if ended || has(store.CoordSuspendedWithError, store.CoordRunningWithError, store.CoordPausedWithError) {
			return store.BundlePausedWithError
		}
		return store.BundlePaused
	case has(store.CoordPaused) && total == n[store.CoordPaused]:
		return store.BundlePaused
	case has(store.CoordPausedWithError) && total == sum(store.CoordPaused, store.CoordPausedWithError):
		return store.BundlePausedWithError
	case (in.Status == store.BundleSuspended || in.Status == store.BundleSuspendedWithError) && in.Suspended:
		if ended || has(store.CoordSuspendedWithError, store.CoordPausedWithError) {
			return store.BundleSuspendedWithError
		}
		return store.BundleSuspended
	case (!pending && has(store.CoordSuspended) || has(store.CoordSuspendedWithError)) &&
		total == sum(store.CoordSuspended, store.CoordSucceeded):
		return store.BundleSuspended
	case (!pending && has(store.CoordSuspended) || has(store.CoordSuspendedWithError)) &&
		total == sum(store.CoordSuspendedWithError, store.CoordSuspended, store.CoordSucceeded,
			store.CoordKilled, store.CoordFailed, store.CoordDoneWithError):
		return store.BundleSuspendedWithError
	case in.Status != store.BundlePrep,
		!pending && has(store.CoordPrep) && total > n[store.CoordPrep]:
		if ended || has(store.CoordRunningWithError) {
			return store.BundleRunningWithError
		}
		return store.BundleRunning
	}
	return ""
}
