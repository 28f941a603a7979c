package vocab

// The lifecycle tables of the specifications: for each status, the
// statuses it may change to. The empty status stands for "not created
// yet", so that the tables' "--> PREP" rows are rows like the others.

// Status is any of the typed statuses; each has its own lifecycle table.
type Status interface {
	JobStatus | ActionStatus | CoordStatus | CoordActionStatus | BundleStatus
}

// spec: wf 9.1
var jobLifecycle = map[JobStatus][]JobStatus{
	"":           {JobPrep},
	JobPrep:      {JobRunning, JobKilled},
	JobRunning:   {JobSuspended, JobSucceeded, JobKilled, JobFailed},
	JobSuspended: {JobRunning, JobKilled},
}

// spec: wf 9.2
var actionLifecycle = map[ActionStatus][]ActionStatus{
	"":                {ActionPrep},
	ActionPrep:        {ActionStartRetry, ActionStartManual, ActionRunning, ActionKilled},
	ActionStartRetry:  {ActionStartManual, ActionRunning, ActionKilled},
	ActionStartManual: {ActionRunning, ActionKilled},
	ActionUserRetry:   {ActionRunning, ActionDone, ActionKilled},
	ActionRunning:     {ActionDone, ActionKilled},
	ActionKilled:      {ActionFailed},
	ActionDone:        {ActionOK, ActionError, ActionUserRetry, ActionEndRetry, ActionEndManual},
	ActionEndRetry:    {ActionEndManual, ActionKilled, ActionOK, ActionError},
	ActionEndManual:   {ActionKilled, ActionOK, ActionError},
}

// spec: coord 6.1.2
var coordLifecycle = map[CoordStatus][]CoordStatus{
	"":                      {CoordPrep},
	CoordPrep:               {CoordPrepSuspended, CoordPrepPaused, CoordRunning, CoordKilled},
	CoordRunning:            {CoordRunningWithError, CoordSuspended, CoordPaused, CoordSucceeded, CoordKilled},
	CoordRunningWithError:   {CoordRunning, CoordSuspendedWithError, CoordPausedWithError, CoordDoneWithError, CoordKilled, CoordFailed},
	CoordPrepSuspended:      {CoordPrep, CoordKilled},
	CoordSuspended:          {CoordRunning, CoordKilled},
	CoordSuspendedWithError: {CoordRunningWithError, CoordKilled},
	CoordPrepPaused:         {CoordPrep, CoordKilled},
	CoordPaused:             {CoordSuspended, CoordRunning, CoordKilled},
	CoordPausedWithError:    {CoordSuspendedWithError, CoordRunningWithError, CoordKilled},
	CoordFailed:             {CoordIgnored},
	CoordKilled:             {CoordIgnored},
	CoordIgnored:            {CoordRunning},
}

// spec: coord 6.1.3.2
var coordActionLifecycle = map[CoordActionStatus][]CoordActionStatus{
	"":                   {CoordActionWaiting},
	CoordActionWaiting:   {CoordActionReady, CoordActionTimedOut, CoordActionSkipped, CoordActionKilled},
	CoordActionReady:     {CoordActionSubmitted, CoordActionSkipped, CoordActionKilled},
	CoordActionSubmitted: {CoordActionRunning, CoordActionKilled, CoordActionFailed},
	CoordActionRunning:   {CoordActionSucceeded, CoordActionKilled, CoordActionFailed},
	CoordActionFailed:    {CoordActionIgnored},
	CoordActionKilled:    {CoordActionIgnored},
	CoordActionTimedOut:  {CoordActionIgnored},
	CoordActionIgnored:   {CoordActionWaiting},
}

// spec: bundle 4.2.
var bundleLifecycle = map[BundleStatus][]BundleStatus{
	"":                       {BundlePrep},
	BundlePrep:               {BundlePrepSuspended, BundlePrepPaused, BundleRunning, BundleKilled},
	BundleRunning:            {BundleRunningWithError, BundleSuspended, BundlePaused, BundleSucceeded, BundleKilled},
	BundleRunningWithError:   {BundleRunning, BundleSuspendedWithError, BundlePausedWithError, BundleDoneWithError, BundleFailed, BundleKilled},
	BundlePrepSuspended:      {BundlePrep, BundleKilled},
	BundleSuspended:          {BundleRunning, BundleKilled},
	BundleSuspendedWithError: {BundleRunningWithError, BundleKilled},
	BundlePrepPaused:         {BundlePrep, BundleKilled},
	BundlePaused:             {BundleSuspended, BundleRunning, BundleKilled},
	BundlePausedWithError:    {BundleSuspendedWithError, BundleRunningWithError, BundleKilled},
}

// CanTransition reports whether the lifecycle table of the status's kind
// has the row from --> to. from "" asks whether a new job or action may be
// created in status to. Statuses without a row (the terminal ones) go
// nowhere.
func CanTransition[S Status](from, to S) bool {
	for _, next := range Next(from) {
		if next == to {
			return true
		}
	}
	return false
}

// Next returns the statuses from may change to, in the table's order.
func Next[S Status](from S) []S {
	var out any
	switch f := any(from).(type) {
	case JobStatus:
		out = jobLifecycle[f]
	case ActionStatus:
		out = actionLifecycle[f]
	case CoordStatus:
		out = coordLifecycle[f]
	case CoordActionStatus:
		out = coordActionLifecycle[f]
	case BundleStatus:
		out = bundleLifecycle[f]
	}
	next, _ := out.([]S)
	return next
}

// IsTerminal reports whether the table lets s change no further (for a
// coordinator job or action, save to IGNORED, which the spec allows from
// several ends).
func IsTerminal[S Status](s S) bool {
	if s == "" {
		return false
	}
	next := Next(s)
	if len(next) == 0 {
		return true
	}
	var ignored any
	switch any(s).(type) {
	case CoordStatus:
		ignored = CoordIgnored
	case CoordActionStatus:
		ignored = CoordActionIgnored
	default:
		return false
	}
	return len(next) == 1 && any(next[0]) == ignored
}
