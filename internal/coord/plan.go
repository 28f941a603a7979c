package coord

import (
	"strings"
	"time"
)

// SubmitOptions are the server-side inputs of a submission.
type SubmitOptions struct {
	// ReadFile reads the coordinator definition, config-default.xml and
	// included dataset files by path (the path part of their URI). An
	// error that is an *Error is a refusal (a file over a size limit, a
	// FIFO or device) and fails the submission as it is; any other error
	// means the file is not there, which for the application path sends
	// Submit on to <path>/coordinator.xml.
	ReadFile func(path string) ([]byte, error)
	// Now is the submission time (coord:actualTime of nothing yet; used for
	// the job's created time).
	Now time.Time
	// MinFrequencyMinutes is the smallest accepted frequency in minutes;
	// 0 means DefaultMinFrequencyMinutes and a negative value disables the
	// check (oozie.service.coord.check.maximum.frequency=false).
	MinFrequencyMinutes int
	// MaxActionBytes bounds an action's configuration after EL
	// (App.MaxActionBytes); 0 means DefaultMaxActionBytes.
	MaxActionBytes int
}

// PlanState is what materialization knows of a job from the store.
type PlanState struct {
	// LastActionNumber is the number of the last materialized action
	// (0 before the first).
	LastActionNumber int
	// NextMaterializedTime is the nominal time materialization resumes
	// from; zero means the job's start.
	NextMaterializedTime time.Time
	// PauseTime, when set, stops materialization at actions nominally at or
	// after it.
	PauseTime time.Time
	// WaitingActions is the number of WAITING actions of the job, counted
	// against the throttle.
	WaitingActions int
}

// PlanOptions tune one materialization run.
type PlanOptions struct {
	// Now is the current time: a window entirely in the past makes the run
	// catch up (throttle times the frequency, or up to now for LAST_ONLY
	// and NONE).
	Now time.Time
	// Window is the materialization window; 0 means one hour
	// (oozie.service.CoordMaterializeTriggerService.materialization.window).
	Window time.Duration
	// BatchSize caps the actions of one run; 0 means 10000 and a negative
	// value is unlimited (oozie.service.CoordMaterializeTriggerService.action.batch.size).
	BatchSize int
	// Lookahead is how far after Now the next materialization time may be
	// for a run to proceed; 0 means 5 minutes (Oozie's lookup interval).
	Lookahead time.Duration
}

// Plan is the result of a materialization run.
type Plan struct {
	Actions []*ActionPlan
	// LastActionNumber and NextMaterializedTime are the job's new values.
	LastActionNumber     int
	NextMaterializedTime time.Time
	// Done is set when materialization reached the job's end.
	Done bool
}

// ActionPlan is one materialized coordinator action.
type ActionPlan struct {
	// ID is the action id (<job id>@<number>) when the caller knows it; it
	// is coord:actionId() in the start phase.
	ID          string
	Number      int
	NominalTime time.Time
	CreatedTime time.Time
	// Dependencies is every input URI to check (done-flag applied), in
	// order of the data-in events and their instances.
	Dependencies []string
	// Unresolved are the latest/future ranges still to resolve at start,
	// as ${coord:latestRange(s,e)} texts, one per unresolved data-in.
	Unresolved []string
	// CreatedConf is the action's configuration after materialization as
	// Hadoop configuration XML (REST "createdConf").
	CreatedConf string
	// ActionXML is the materialized action definition Oozie would store.
	ActionXML string
	// InputURIs and OutputURIs are the instance URIs (no done flag) by
	// event name, newest first; unresolved inputs are absent.
	InputURIs, OutputURIs map[string][]string
	// UnresolvedByEvent maps a data-in name to its unresolved range text.
	UnresolvedByEvent map[string]string
	// OutputUnresolved maps a data-out name to the coord:latest or
	// coord:future instance it names, which Oozie keeps unresolved at
	// materialization; the input check refuses the action (E1021).
	OutputUnresolved map[string]string `json:",omitempty"`
	// Logic is what the last input check of an app with <input-logic>
	// found: the evaluated tree, the next wait to elapse and, once
	// satisfied, coord:dataIn of the named nodes. Nil without input logic
	// or before the first check.
	Logic *LogicState `json:",omitempty"`

	vars confVars // the job variables, for the action XML
}

// CheckResult is the outcome of an input check.
type CheckResult struct {
	// Missing are the dependencies still absent, in order, then the
	// latest/future ranges still unresolved (the Unresolved tail).
	Missing []string
	// Unresolved are the latest/future ranges still unresolved, also the
	// last entries of Missing.
	Unresolved []string
	// NotChecked counts the dependencies of Missing (before the
	// unresolved tail) that were not checked, the last ones: the check
	// stops at the first missing dependency, as Oozie's input check does,
	// and lists the rest as they are; an input logic lists those it found
	// missing, then those it did not look at.
	NotChecked int
	// Ready is set when nothing is missing and every latest/future range
	// resolved.
	Ready bool
	// TimedOut is set when the action waited longer than the timeout.
	TimedOut bool
	// Plan is the action after latest/future resolution.
	Plan *ActionPlan
}

// MissingDependencies renders Missing as Oozie stores an action's
// missingDependencies: the absent URIs '#'-separated, then, when some
// latest/future instances are still unresolved, "!!" and those
// '#'-separated.
func (r *CheckResult) MissingDependencies() string {
	return JoinMissing(r.Missing, len(r.Unresolved))
}

// JoinMissing joins missing dependencies whose last unresolved entries are
// latest/future ranges, with Oozie's "!!" between resolved and unresolved.
func JoinMissing(missing []string, unresolved int) string {
	unresolved = min(max(unresolved, 0), len(missing))
	k := len(missing) - unresolved
	s := strings.Join(missing[:k], "#")
	if unresolved > 0 {
		s += "!!" + strings.Join(missing[k:], "#")
	}
	return s
}

// ActionState is what execution-policy decisions need of an action.
type ActionState struct {
	Number      int
	NominalTime time.Time
	Status      string // WAITING, READY, SUBMITTED, RUNNING, ...
}

// Decision lists, by action number, the READY actions to submit now and the
// WAITING or READY actions to mark SKIPPED.
type Decision struct {
	Submit []int
	Skip   []int
}
