// Package store holds gozie's durable state behind one interface, so that
// the engine runs unchanged on the embedded SQLite database (package
// store/sqlite) or on PostgreSQL shared by several servers.
//
// The engine keeps every job as a state machine: it commits a job's next
// state together with the effects that state calls for (start an action,
// kill one, notify a parent) in one transaction, then performs the effects
// and marks each one done. The interface is shaped by that: Update runs a
// function in one transaction, and effects are rows like any other.
//
// Times are stored as Unix milliseconds, the zero time as NULL, so that both
// databases hold the same values and Oozie's millisecond timestamps survive.
package store

import (
	"context"
	"time"

	"github.com/gozie/gozie/internal/vocab"
)

// ErrNotFound is returned by lookups of a job or action that does not exist.
var ErrNotFound = NewSentinel("store: not found")

// JobSequence is the counter that numbers workflow and coordinator jobs
// (the 0000001 of 0000001-<start>-<system id>-W). A store may keep it
// outside its sequences table; PostgreSQL keeps it as a database sequence.
const JobSequence = "wfjob"

// Workflow job statuses as the store keeps them: the text of vocab.JobStatus
// (spec: wf 9.1; the REST API spells them
// the same way).
const (
	JobPrep      = string(vocab.JobPrep)
	JobRunning   = string(vocab.JobRunning)
	JobSuspended = string(vocab.JobSuspended)
	JobSucceeded = string(vocab.JobSucceeded)
	JobKilled    = string(vocab.JobKilled)
	JobFailed    = string(vocab.JobFailed)
)

// Workflow action statuses: the text of vocab.ActionStatus (spec: wf 9.2).
const (
	ActionPrep        = string(vocab.ActionPrep)
	ActionStartRetry  = string(vocab.ActionStartRetry)
	ActionStartManual = string(vocab.ActionStartManual)
	ActionRunning     = string(vocab.ActionRunning)
	ActionDone        = string(vocab.ActionDone)
	ActionOK          = string(vocab.ActionOK)
	ActionError       = string(vocab.ActionError)
	ActionUserRetry   = string(vocab.ActionUserRetry)
	ActionEndRetry    = string(vocab.ActionEndRetry)
	ActionEndManual   = string(vocab.ActionEndManual)
	ActionKilled      = string(vocab.ActionKilled)
	ActionFailed      = string(vocab.ActionFailed)
)

// Job is one workflow job: the fields of the REST API's workflow job object
// plus what the engine needs to resume it after a restart.
type Job struct {
	ID         string
	AppName    string
	AppPath    string
	User       string
	Group      string
	ACL        string
	ParentID   string // parent workflow job (sub-workflow) or coordinator action
	ExternalID string // oozie.wf.external.id
	Status     string
	Run        int
	// Conf is the job configuration as Hadoop configuration XML.
	Conf string
	// Definition is the workflow.xml the job was submitted with, so that a
	// restart runs what was submitted even if the file has changed since.
	Definition string
	// State is engine-private execution state (JSON): join arrivals, the
	// last error node, ... Kept opaque here so the engine can evolve it
	// without schema changes.
	State string
	// ErrorCode and ErrorMessage explain why a job failed or was refused
	// (the REST object has no such keys; the CLI and logs show them).
	ErrorCode    string
	ErrorMessage string

	CreatedTime time.Time
	StartTime   time.Time
	EndTime     time.Time
	LastModTime time.Time
}

// Terminal reports whether a job status is final.
func Terminal(status string) bool {
	return status == JobSucceeded || status == JobKilled || status == JobFailed
}

// Action is one node of a workflow job as it was executed: actions and the
// control nodes alike, like Oozie's workflow action records.
type Action struct {
	ID    string // <jobId>@<nodeName>
	JobID string
	Name  string
	Type  string // "fs", "shell", ":START:", "switch", ...
	// Seq orders the records of a job by creation, the order the REST API
	// and gozie run list them in.
	Seq    int64
	Status string
	// Conf is the action XML with EL resolved (empty until it is started).
	Conf string
	Cred string
	// Retries counts the automatic start retries (START_RETRY).
	Retries           int
	UserRetryCount    int
	UserRetryMax      int
	UserRetryInterval int // minutes, as written in workflow.xml
	// Attempt numbers the runs of this action (0 first); it selects the
	// run's work directory so a retry never sees an earlier run's files.
	Attempt          int
	Transition       string
	Data             string // captured output, Java properties text
	Stats            string
	ExternalChildIDs string
	ExternalID       string
	ExternalStatus   string
	TrackerURI       string
	ConsoleURL       string
	ErrorCode        string
	ErrorMessage     string

	StartTime   time.Time
	EndTime     time.Time
	LastModTime time.Time
}

// Effect kinds the engine records. They are strings in the database so an
// older binary can leave unknown kinds alone.
const (
	EffectStart  = "start"  // start an action (Attempt says which run)
	EffectKill   = "kill"   // kill a running action
	EffectNotify = "notify" // tell a parent job that this child job ended
	EffectSignal = "signal" // re-evaluate a job (e.g. after resume)
)

// Effect is a side effect the engine committed to perform. It stays pending
// until DoneEffect marks it, so a crash between commit and completion only
// means performing it again: effects are idempotent.
type Effect struct {
	ID       int64
	JobID    string
	ActionID string
	Kind     string
	Attempt  int
	Payload  string
	// NotBefore delays the effect (retry intervals); zero means now.
	NotBefore   time.Time
	CreatedTime time.Time
}

// JobFilter selects jobs for Tx.Jobs and Tx.CountJobs. Empty fields match
// everything; the list fields match any of their values (the REST API's
// filter repeats a key to mean OR, and ANDs different keys).
type JobFilter struct {
	Statuses []string
	ParentID string
	// ParentPrefix matches the jobs whose parent id starts with it: a
	// coordinator's id and "@" selects the workflows its actions
	// launched (the console's filter by coordinator).
	ParentPrefix string
	AppName      string
	User         string
	Names        []string
	Users        []string
	Groups       []string
	IDs          []string
	// ExternalID matches oozie.wf.external.id (GET /jobs?external-id=).
	ExternalID string
	// Text matches jobs whose id, name, app path or user contains it,
	// ignoring case (the console's free-text filter).
	Text string
	// Brief leaves Conf, Definition and State empty: job lists show none
	// of them, and reading kilobytes of XML per row made a page of 50 jobs
	// several times slower to fetch.
	Brief bool
	// CreatedAfter and CreatedBefore bound the creation time (inclusive);
	// zero means unbounded.
	CreatedAfter  time.Time
	CreatedBefore time.Time
	// Limit bounds the result; 0 means no bound. Jobs come newest first.
	Limit  int
	Offset int
	// CountCap, when positive, lets CountJobs stop counting past it: a
	// total above CountCap means "more than CountCap". The console caps
	// the total of its free-text search, which no index counts.
	CountCap int
}

// Tx is one transaction. Reads see the transaction's own writes. A Tx must
// not be used after the function given to Update or View returns.
type Tx interface {
	CoordTx
	BundleTx
	SLATx

	// Job returns the job with the given id, or ErrNotFound.
	Job(ctx context.Context, id string) (*Job, error)
	// PutJob inserts or replaces a job.
	PutJob(ctx context.Context, j *Job) error
	// Jobs lists jobs matching f, newest first.
	Jobs(ctx context.Context, f JobFilter) ([]*Job, error)
	// CountJobs counts the jobs matching f, ignoring its Limit and Offset.
	CountJobs(ctx context.Context, f JobFilter) (int, error)

	// Action returns the action with the given id, or ErrNotFound.
	Action(ctx context.Context, id string) (*Action, error)
	// Actions lists the actions of a job in Seq order.
	Actions(ctx context.Context, jobID string) ([]*Action, error)
	// ActionsByStatus lists actions in any of the given statuses, across
	// all jobs, by job id and then in Seq order. The engine polls RUNNING
	// actions with it.
	ActionsByStatus(ctx context.Context, statuses ...string) ([]*Action, error)
	// PutAction inserts or replaces an action. A zero Seq is assigned on
	// insert: the largest Seq of the job's actions plus one, so Seq orders
	// the actions of one job by creation and means nothing across jobs.
	// Callers serialize the writers of one job (the engine's per-job lock).
	PutAction(ctx context.Context, a *Action) error
	// DeleteAction removes an action record; a missing one is not an
	// error. A workflow rerun drops the records of the nodes it runs again.
	DeleteAction(ctx context.Context, id string) error

	// AddEffect records a pending effect and sets e.ID.
	AddEffect(ctx context.Context, e *Effect) error
	// QueueEffect records a pending effect like AddEffect, but may set
	// e.ID only once the store has sent the write: before the
	// transaction's next read, and at the latest when Update returns. A
	// store may then send it together with the transaction's other writes
	// (PostgreSQL: one round trip for a whole transition), so callers that
	// need the id within the transaction use AddEffect.
	QueueEffect(ctx context.Context, e *Effect) error
	// DoneEffect marks an effect performed, after which PendingEffects no
	// longer lists it (the SQL stores delete it); marking it twice is not
	// an error.
	DoneEffect(ctx context.Context, id int64) error
	// PendingEffects lists effects not yet done, oldest first; limit 0
	// means all. jobID "" means every job.
	PendingEffects(ctx context.Context, jobID string, limit int) ([]*Effect, error)

	// NextSequence returns the next value (1, 2, ...) of a named counter:
	// unique and increasing, but a rolled-back transaction may leave a
	// gap (JobSequence on PostgreSQL is a database sequence, which does
	// not roll back, so that concurrent transactions need not wait for
	// each other's commit).
	NextSequence(ctx context.Context, name string) (int64, error)

	// AppendLog adds a line to a job's log and sets e.ID, as QueueEffect
	// does: once the write has been sent, at the latest when Update
	// returns. A line of LevelAudit is not fenced (Cluster): any server
	// may record a request it answered about a job.
	AppendLog(ctx context.Context, e *LogEntry) error
	// Logs lists a job's log lines with ID > afterID, oldest first; limit
	// 0 means all.
	Logs(ctx context.Context, jobID string, afterID int64, limit int) ([]*LogEntry, error)
}

// LevelAudit is the level of a job log's audit lines: the requests made
// about the job (show=auditlog), allowed or refused.
const LevelAudit = "AUDIT"

// LogEntry is one line of a job's log: what the engine did to the job or
// one of its actions, written in the transaction of the change it
// describes so the log never claims what did not happen.
type LogEntry struct {
	ID       int64
	JobID    string
	ActionID string
	Time     time.Time
	Level    string // "INFO", "WARN", "ERROR", LevelAudit
	Message  string
}

// Store is gozie's durable state.
type Store interface {
	// Update runs fn in a read-write transaction, committed when fn returns
	// nil and rolled back otherwise.
	Update(ctx context.Context, fn func(Tx) error) error
	// View runs fn in a read-only transaction; writes fail.
	View(ctx context.Context, fn func(Tx) error) error
	// Close releases the database.
	Close() error
}
