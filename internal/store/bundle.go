package store

import (
	"context"
	"time"

	"github.com/gozie/gozie/internal/vocab"
)

// Bundle job statuses: the text of vocab.BundleStatus (spec: bundle 4.1; the
// REST API spells them the same way).
const (
	BundlePrep               = string(vocab.BundlePrep)
	BundleRunning            = string(vocab.BundleRunning)
	BundleRunningWithError   = string(vocab.BundleRunningWithError)
	BundlePrepSuspended      = string(vocab.BundlePrepSuspended)
	BundleSuspended          = string(vocab.BundleSuspended)
	BundleSuspendedWithError = string(vocab.BundleSuspendedWithError)
	BundlePrepPaused         = string(vocab.BundlePrepPaused)
	BundlePaused             = string(vocab.BundlePaused)
	BundlePausedWithError    = string(vocab.BundlePausedWithError)
	BundleSucceeded          = string(vocab.BundleSucceeded)
	BundleDoneWithError      = string(vocab.BundleDoneWithError)
	BundleKilled             = string(vocab.BundleKilled)
	BundleFailed             = string(vocab.BundleFailed)
)

// BundleJob is one bundle job: the fields of the REST API's bundle job
// object plus what the engine needs to go on after a restart.
type BundleJob struct {
	ID         string
	AppName    string
	AppPath    string
	User       string
	Group      string
	ACL        string
	ExternalID string
	Status     string
	// Conf is the job configuration as Hadoop configuration XML.
	Conf string
	// Definition is the bundle.xml as submitted, so that a restart starts
	// the coordinators that were submitted even if the file changed since.
	Definition string
	// TimeUnit and TimeOut are the bean's fields of those names (Oozie
	// keeps them for bundles and never sets them: NONE and -1... as the
	// engine writes them).
	TimeUnit string
	TimeOut  int

	KickoffTime time.Time
	StartTime   time.Time
	EndTime     time.Time
	PauseTime   time.Time

	ErrorCode    string
	ErrorMessage string
	// State is engine-private state (JSON), opaque to the store.
	State string

	CreatedTime   time.Time
	LastModTime   time.Time
	SuspendedTime time.Time
}

// BundleAction is one coordinator of a bundle job as the bundle tracks it
// (Oozie's bundle action): the coordinator's name in bundle.xml, the id of
// the coordinator job once it was submitted, the status last reported.
type BundleAction struct {
	ID        string // <bundleJobId>_<coordinator name>
	BundleID  string
	CoordName string
	// CoordID is the coordinator job's id, empty until it is submitted
	// (and for a coordinator the bundle does not run: enabled="false").
	CoordID string
	// Status is the coordinator's status as the bundle last saw it.
	Status   string
	Critical bool
	// Pending counts the commands passed on to the coordinator and not
	// yet reported done.
	Pending     int
	LastModTime time.Time
}

// BundleTx is the bundle part of a transaction.
type BundleTx interface {
	// BundleJob returns the bundle job with the given id, or ErrNotFound.
	BundleJob(ctx context.Context, id string) (*BundleJob, error)
	// PutBundleJob inserts or replaces a bundle job.
	PutBundleJob(ctx context.Context, j *BundleJob) error
	// BundleJobs lists bundle jobs matching f, newest first (f.ParentID
	// matches nothing but "").
	BundleJobs(ctx context.Context, f JobFilter) ([]*BundleJob, error)
	// CountBundleJobs counts the bundle jobs matching f, ignoring its
	// Limit and Offset.
	CountBundleJobs(ctx context.Context, f JobFilter) (int, error)

	// BundleAction returns the bundle action with the given id, or
	// ErrNotFound.
	BundleAction(ctx context.Context, id string) (*BundleAction, error)
	// PutBundleAction inserts or replaces a bundle action.
	PutBundleAction(ctx context.Context, a *BundleAction) error
	// BundleActions lists the actions of a bundle job in the order of
	// their coordinators' names.
	BundleActions(ctx context.Context, bundleID string) ([]*BundleAction, error)
}
