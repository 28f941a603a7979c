package engine

import (
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/credentials"
	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/store"
)

// Options configure an Engine. Store and Actions are required.
type Options struct {
	Store   store.Store
	Actions *action.Registry
	// DataDir holds the action work directories (<DataDir>/actions/...).
	DataDir string
	// Clock defaults to the system clock.
	Clock Clock
	// Runtime is the effect runtime to perform the engine's effects on,
	// shared with the coordinator engine; nil: New makes one from this
	// configuration (store, clock, logging, retries, sweep, slots,
	// journal, lease), which Start starts and Close closes. With one
	// given, its own configuration counts and whoever made it starts it
	// after the engines' Start and closes it.
	Runtime *effect.Runtime
	// PollInterval is how often RUNNING actions are checked when no
	// notification arrives; default 1s.
	PollInterval time.Duration
	// StartRetryMax and StartRetryInterval govern automatic retries of
	// transient start failures (START_RETRY); defaults 3 and 10s.
	StartRetryMax      int
	StartRetryInterval time.Duration
	// MaxUserRetries caps an action's retry-max (spec: wf 18); 0 means 3,
	// Oozie's default system maximum.
	MaxUserRetries int
	// UserRetryErrorCodes are the error codes retry-max applies to; nil
	// means Oozie's default list (DefaultUserRetryErrorCodes), and "ALL"
	// among them retries every error, as Oozie's
	// oozie.service.LiteWorkflowStoreService.user.retry.error.code.ext=ALL.
	UserRetryErrorCodes []string
	// MaxSubWorkflowDepth bounds nested sub-workflows; default 50.
	MaxSubWorkflowDepth int
	// MaxConcurrentStarts bounds executor Start calls in flight; default 64.
	MaxConcurrentStarts int
	// MaxRunningActions bounds the actions this engine runs at a time
	// (slots.go); further starts wait. 0 means no bound.
	MaxRunningActions int
	// StartSettle is how long a start whose program is running may wait
	// for it to end before the RUNNING state is committed (on Clock). A
	// program that ends within it (a short shell step) has its start and
	// its end committed in one transaction instead of two, about half of
	// a short step's store work; a longer one shows RUNNING that much
	// later. 0 commits RUNNING at once. gozie server and gozie run use
	// DefaultStartSettle.
	StartSettle time.Duration
	// SystemID is the id segment after the timestamp; default
	// "oozie-<os user>" cut to 10 characters, as Oozie.
	SystemID string
	// DefaultUser is the job user when user.name is not given.
	DefaultUser string
	// Credentials are the credential types the workflows' <credentials>
	// may use (checked at submission, handed to actions at their start);
	// nil offers the built-in types (credentials.Default).
	Credentials *credentials.Providers
	// CallbackURL is the base of wf:callback URLs ("" gives none).
	CallbackURL string
	// ConsoleURL is the base of job console URLs in the JSON object.
	ConsoleURL string
	// OnTransition, when set, is told of every committed change of a
	// workflow job that its log records (a node started or ended, the
	// job's status changed), in commit order per job. It runs with the
	// job locked: it must return quickly and not call the engine.
	// `gozie run` prints progress with it, the server its transition log.
	OnTransition func(Transition)
	// Events publishes the job's status changes to the message broker
	// (package events): each change of a workflow job's status that
	// Oozie announces adds an events.EffectPublish effect to the commit
	// making it. The server sets it when gozie.events.url names a broker.
	Events bool
	// Logf receives diagnostics; default log.Printf.
	Logf func(format string, args ...any)
	// NotificationTimeout bounds one HTTP notification (notify.go);
	// default 10s. NotificationRetries is how often a failed one is sent
	// again (default 3; negative for never), after NotificationRetryInterval
	// (default 60s) doubled for each earlier retry.
	NotificationTimeout       time.Duration
	NotificationRetries       int
	NotificationRetryInterval time.Duration
	// MaxDefinitionBytes bounds workflow.xml, coordinator.xml and dataset
	// include files (E0736 over it); default fsys.DefaultMaxDefinition,
	// Oozie's 100,000 bytes.
	MaxDefinitionBytes int64
	// MaxConfFileBytes bounds config-default.xml and <job-xml> files;
	// default fsys.DefaultMaxConfFile (10 MiB).
	MaxConfFileBytes int64
	// Expand bounds ${var} expansion of job and action configurations,
	// checked at submission (E1004); zero fields mean
	// conf.DefaultExpandLimits.
	Expand conf.ExpandLimits
	// DefaultNameNode and DefaultJobTracker are Oozie's server defaults
	// oozie.actions.default.name-node and oozie.actions.default.job-tracker:
	// what an action that needs a cluster gets when neither it nor the
	// workflow's <global> names one. Empty: such an action is refused
	// (E0701 "No name-node defined"), as in Oozie.
	DefaultNameNode, DefaultJobTracker string
	// MaxActionBytes bounds an action after EL: the XML of its resolved
	// body (arguments, its <configuration>, ...), which its record stores
	// and show=info serves. An action over it fails with E1004 without
	// starting; coordinator actions' run configurations have the same
	// bound. Default DefaultMaxActionBytes.
	MaxActionBytes int
	// StoreRetryInterval is the wait before an effect whose work failed
	// (a database outage, typically) is performed again, doubled for each
	// further failure up to StoreRetryMax; defaults 1s and 30s. The waits
	// run on Clock.
	StoreRetryInterval time.Duration
	StoreRetryMax      time.Duration
	// SweepInterval is how often the pending effects in the store are
	// compared with the ones the engine is performing, to perform the
	// ones a lost commit acknowledgement left behind (retry.go); default
	// 30s.
	SweepInterval time.Duration
	// RunAsUser says that the server acts for each job's user
	// (gozie.launch.as.user; the executors get the same flag): the
	// application files a job names (workflow.xml, config-default.xml,
	// <job-xml>, sub-workflow applications), its fs:* EL functions and
	// its coordinator's input checks are read with that user's
	// permission checks (osuser), so that a job cannot make the server,
	// running as root, read or probe for it what its user could not.
	RunAsUser bool
	// LeaseValid, when set, reports whether this server's lease on its
	// jobs is current (several servers sharing a store: see package
	// cluster). An action is started only while it is, so that a server
	// paused past its lease does not start what the server taking its
	// jobs over starts too. nil means always (one server per store).
	LeaseValid func() bool
	// CrashJournal is the file of the crash journal (journal.go): the
	// effects being performed, so that one whose performance kills the
	// process is quarantined after QuarantineDeaths deaths instead of
	// performed at every start. gozie server and gozie run use
	// <data>/effects.journal. Empty: no journal.
	CrashJournal string
	// DataID is the identity of DataDir (launch.DataDirID), ServerID
	// names this server's instance (package cluster's Member.ID) and Host
	// its host. With DataID set (several servers sharing a store), every
	// start effect records them with the data directory, in the commit
	// that creates it (the start intent, intent.go), so that a server
	// taking the job over starts the step in that directory when it can
	// see it, re-attaching to what the first server launched. Empty
	// records nothing (one server per store).
	DataID   string
	ServerID func() string
	Host     string
}
