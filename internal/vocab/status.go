package vocab

// Statuses of jobs and actions, spelt as Oozie's REST API and database
// spell them. Each kind of thing has its own type so that a workflow
// status is not given where a coordinator status is meant; the store
// keeps them as text.

// JobStatus is the status of a workflow job (spec: wf 9.1).
type JobStatus string

// Workflow job statuses.
const (
	JobPrep      JobStatus = "PREP"
	JobRunning   JobStatus = "RUNNING"
	JobSuspended JobStatus = "SUSPENDED"
	JobSucceeded JobStatus = "SUCCEEDED"
	JobKilled    JobStatus = "KILLED"
	JobFailed    JobStatus = "FAILED"
)

// ActionStatus is the status of a workflow action (spec: wf 9.2).
type ActionStatus string

// Workflow action statuses.
const (
	ActionPrep        ActionStatus = "PREP"
	ActionStartRetry  ActionStatus = "START_RETRY"
	ActionStartManual ActionStatus = "START_MANUAL"
	ActionRunning     ActionStatus = "RUNNING"
	ActionDone        ActionStatus = "DONE"
	ActionOK          ActionStatus = "OK"
	ActionError       ActionStatus = "ERROR"
	ActionUserRetry   ActionStatus = "USER_RETRY"
	ActionEndRetry    ActionStatus = "END_RETRY"
	ActionEndManual   ActionStatus = "END_MANUAL"
	ActionKilled      ActionStatus = "KILLED"
	ActionFailed      ActionStatus = "FAILED"
)

// CoordStatus is the status of a coordinator job (spec: coord 6.1.2).
type CoordStatus string

// Coordinator job statuses.
const (
	CoordPrep               CoordStatus = "PREP"
	CoordRunning            CoordStatus = "RUNNING"
	CoordRunningWithError   CoordStatus = "RUNNINGWITHERROR"
	CoordPrepSuspended      CoordStatus = "PREPSUSPENDED"
	CoordSuspended          CoordStatus = "SUSPENDED"
	CoordSuspendedWithError CoordStatus = "SUSPENDEDWITHERROR"
	CoordPrepPaused         CoordStatus = "PREPPAUSED"
	CoordPaused             CoordStatus = "PAUSED"
	CoordPausedWithError    CoordStatus = "PAUSEDWITHERROR"
	CoordSucceeded          CoordStatus = "SUCCEEDED"
	CoordDoneWithError      CoordStatus = "DONEWITHERROR"
	CoordKilled             CoordStatus = "KILLED"
	CoordFailed             CoordStatus = "FAILED"
	CoordIgnored            CoordStatus = "IGNORED"
)

// CoordActionStatus is the status of a coordinator action (spec: coord
// 6.1.3.2).
type CoordActionStatus string

// Coordinator action statuses.
const (
	CoordActionWaiting   CoordActionStatus = "WAITING"
	CoordActionReady     CoordActionStatus = "READY"
	CoordActionSubmitted CoordActionStatus = "SUBMITTED"
	CoordActionRunning   CoordActionStatus = "RUNNING"
	CoordActionSucceeded CoordActionStatus = "SUCCEEDED"
	CoordActionKilled    CoordActionStatus = "KILLED"
	CoordActionFailed    CoordActionStatus = "FAILED"
	CoordActionTimedOut  CoordActionStatus = "TIMEDOUT"
	CoordActionSkipped   CoordActionStatus = "SKIPPED"
	CoordActionIgnored   CoordActionStatus = "IGNORED"
	// CoordActionSuspended is in Oozie's enumeration (an action whose
	// workflow is suspended) though not in the spec's table: no row of
	// the lifecycle leads to or from it.
	CoordActionSuspended CoordActionStatus = "SUSPENDED"
)

// BundleStatus is the status of a bundle job (spec: bundle 4.1).
type BundleStatus string

// Bundle job statuses.
const (
	BundlePrep               BundleStatus = "PREP"
	BundleRunning            BundleStatus = "RUNNING"
	BundleRunningWithError   BundleStatus = "RUNNINGWITHERROR"
	BundlePrepSuspended      BundleStatus = "PREPSUSPENDED"
	BundleSuspended          BundleStatus = "SUSPENDED"
	BundleSuspendedWithError BundleStatus = "SUSPENDEDWITHERROR"
	BundlePrepPaused         BundleStatus = "PREPPAUSED"
	BundlePaused             BundleStatus = "PAUSED"
	BundlePausedWithError    BundleStatus = "PAUSEDWITHERROR"
	BundleSucceeded          BundleStatus = "SUCCEEDED"
	BundleDoneWithError      BundleStatus = "DONEWITHERROR"
	BundleKilled             BundleStatus = "KILLED"
	BundleFailed             BundleStatus = "FAILED"
)

// Every status of each kind, in the order of the constants above.
var (
	jobStatuses    = []JobStatus{JobPrep, JobRunning, JobSuspended, JobSucceeded, JobKilled, JobFailed}
	actionStatuses = []ActionStatus{ActionPrep, ActionStartRetry, ActionStartManual, ActionRunning, ActionDone,
		ActionOK, ActionError, ActionUserRetry, ActionEndRetry, ActionEndManual, ActionKilled, ActionFailed}
	coordStatuses = []CoordStatus{CoordPrep, CoordRunning, CoordRunningWithError, CoordPrepSuspended,
		CoordSuspended, CoordSuspendedWithError, CoordPrepPaused, CoordPaused, CoordPausedWithError,
		CoordSucceeded, CoordDoneWithError, CoordKilled, CoordFailed, CoordIgnored}
	coordActionStatuses = []CoordActionStatus{CoordActionWaiting, CoordActionReady, CoordActionSubmitted,
		CoordActionRunning, CoordActionSucceeded, CoordActionKilled, CoordActionFailed, CoordActionTimedOut,
		CoordActionSkipped, CoordActionIgnored, CoordActionSuspended}
	bundleStatuses = []BundleStatus{BundlePrep, BundleRunning, BundleRunningWithError, BundlePrepSuspended,
		BundleSuspended, BundleSuspendedWithError, BundlePrepPaused, BundlePaused, BundlePausedWithError,
		BundleSucceeded, BundleDoneWithError, BundleKilled, BundleFailed}
)

// Known reports whether name is a status of kind S, spelt exactly (the
// REST filters are case-sensitive, as Oozie's are).
func Known[S Status](name string) bool {
	var all any
	switch any(S("")).(type) {
	case JobStatus:
		all = jobStatuses
	case ActionStatus:
		all = actionStatuses
	case CoordStatus:
		all = coordStatuses
	case CoordActionStatus:
		all = coordActionStatuses
	case BundleStatus:
		all = bundleStatuses
	}
	for _, s := range all.([]S) {
		if string(s) == name {
			return true
		}
	}
	return false
}
