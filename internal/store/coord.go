package store

import (
	"context"
	"time"

	"github.com/gozie/gozie/internal/vocab"
)

// Coordinator job statuses: the text of vocab.CoordStatus (spec: coord 6.1.2; the REST API
// spells them the same way).
const (
	CoordPrep               = string(vocab.CoordPrep)
	CoordRunning            = string(vocab.CoordRunning)
	CoordRunningWithError   = string(vocab.CoordRunningWithError)
	CoordPrepSuspended      = string(vocab.CoordPrepSuspended)
	CoordSuspended          = string(vocab.CoordSuspended)
	CoordSuspendedWithError = string(vocab.CoordSuspendedWithError)
	CoordPrepPaused         = string(vocab.CoordPrepPaused)
	CoordPaused             = string(vocab.CoordPaused)
	CoordPausedWithError    = string(vocab.CoordPausedWithError)
	CoordSucceeded          = string(vocab.CoordSucceeded)
	CoordDoneWithError      = string(vocab.CoordDoneWithError)
	CoordKilled             = string(vocab.CoordKilled)
	CoordFailed             = string(vocab.CoordFailed)
	CoordIgnored            = string(vocab.CoordIgnored)
)

// Coordinator action statuses: the text of vocab.CoordActionStatus (spec: coord 6.1.3.2).
const (
	CoordActionWaiting   = string(vocab.CoordActionWaiting)
	CoordActionReady     = string(vocab.CoordActionReady)
	CoordActionSubmitted = string(vocab.CoordActionSubmitted)
	CoordActionRunning   = string(vocab.CoordActionRunning)
	CoordActionSucceeded = string(vocab.CoordActionSucceeded)
	CoordActionKilled    = string(vocab.CoordActionKilled)
	CoordActionFailed    = string(vocab.CoordActionFailed)
	CoordActionTimedOut  = string(vocab.CoordActionTimedOut)
	CoordActionSkipped   = string(vocab.CoordActionSkipped)
	CoordActionIgnored   = string(vocab.CoordActionIgnored)
)

// CoordJob is one coordinator job: the fields of the REST API's coordinator
// job object plus what the engine needs to go on materializing after a
// restart.
type CoordJob struct {
	ID         string
	AppName    string
	AppPath    string
	User       string
	Group      string
	ACL        string
	ExternalID string
	ParentID   string // the bundle job, if any
	Status     string
	// Conf is the job configuration as Hadoop configuration XML.
	Conf string
	// Definition is the coordinator.xml as submitted (includes resolved),
	// so a restart materializes what was submitted.
	Definition string
	// Frequency is the REST form: minutes as a decimal string, or a cron
	// expression when TimeUnit is CRON.
	Frequency   string
	TimeUnit    string
	TimeZone    string
	Concurrency int
	Throttle    int
	Timeout     int // minutes; -1 none
	Execution   string
	ConsoleURL  string

	StartTime time.Time
	EndTime   time.Time
	PauseTime time.Time
	// LastActionNumber is the number of the last materialized action (0
	// before the first); LastActionTime its nominal time.
	LastActionNumber     int
	LastActionTime       time.Time
	NextMaterializedTime time.Time
	// DoneMaterialization is set once every action up to EndTime exists.
	DoneMaterialization bool

	ErrorCode    string
	ErrorMessage string
	// State is engine-private state (JSON), opaque to the store.
	State string

	CreatedTime   time.Time
	LastModTime   time.Time
	SuspendedTime time.Time
}

// CoordAction is one materialized action of a coordinator job.
type CoordAction struct {
	ID          string // <coordJobId>@<number>
	JobID       string
	Number      int
	Status      string
	NominalTime time.Time
	CreatedTime time.Time
	LastModTime time.Time
	// ExternalID is the id of the workflow job the action launched.
	ExternalID     string
	ExternalStatus string
	// MissingDependencies lists the input URIs not yet available,
	// '#'-separated as the REST API shows them.
	MissingDependencies string
	CreatedConf         string
	RunConf             string
	ActionXML           string
	// Plan is the engine's materialization record of the action (JSON),
	// kept so that input checks after a restart need no re-materializing.
	Plan         string
	ErrorCode    string
	ErrorMessage string
	TrackerURI   string
	ConsoleURL   string
}

// CoordActionFilter selects actions of one coordinator job for
// Tx.CoordActions. Empty fields match everything.
type CoordActionFilter struct {
	Statuses    []string
	NotStatuses []string
	// NominalFrom and NominalTo bound the nominal time, inclusive; zero
	// means unbounded.
	NominalFrom time.Time
	NominalTo   time.Time
	// Desc orders by action number descending (the nominal time order).
	Desc bool
	// Offset skips that many actions (0-based); Limit 0 means no bound.
	Offset int
	Limit  int
}

// CoordTx is the coordinator part of a transaction.
type CoordTx interface {
	// CoordJob returns the coordinator job with the given id, or
	// ErrNotFound.
	CoordJob(ctx context.Context, id string) (*CoordJob, error)
	// PutCoordJob inserts or replaces a coordinator job.
	PutCoordJob(ctx context.Context, j *CoordJob) error
	// CoordJobs lists coordinator jobs matching f, newest first. f.ParentID
	// matches the bundle id.
	CoordJobs(ctx context.Context, f JobFilter) ([]*CoordJob, error)
	// CountCoordJobs counts the coordinator jobs matching f, ignoring its
	// Limit and Offset.
	CountCoordJobs(ctx context.Context, f JobFilter) (int, error)

	// CoordAction returns the coordinator action with the given id, or
	// ErrNotFound.
	CoordAction(ctx context.Context, id string) (*CoordAction, error)
	// PutCoordAction inserts or replaces a coordinator action.
	PutCoordAction(ctx context.Context, a *CoordAction) error
	// DeleteCoordAction removes a coordinator action (change moving the
	// end or pause time before materialized actions); a missing one is no
	// error.
	DeleteCoordAction(ctx context.Context, id string) error
	// CoordActions lists the actions of a job matching f, by number.
	CoordActions(ctx context.Context, jobID string, f CoordActionFilter) ([]*CoordAction, error)
	// CountCoordActions counts the actions of a job by status.
	CountCoordActions(ctx context.Context, jobID string) (map[string]int, error)
	// CoordActionsByStatus lists actions in any of the given statuses
	// across all jobs, by job and number.
	CoordActionsByStatus(ctx context.Context, statuses ...string) ([]*CoordAction, error)
}
