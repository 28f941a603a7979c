// Package action defines how the engine runs workflow action nodes: the
// Executor interface every action type implements, the Context and Result
// of a run, classified errors, a registry keyed by action type, and the
// server keys executors declare. The built-in types live in packages of
// their own (internal/action/fs, shell, jvm, distcp, hadoop, email, ssh,
// custom; internal/action/all links them) on the launch runtime of
// internal/launch; sub-workflow lives in the engine because it starts jobs
// of the engine itself.
//
// Actions are asynchronous (spec: wf 3.2.1): Start hands the
// work to an external system and returns its external id; the engine learns
// of completion by a callback or by polling Check; then the action ends with
// an ok or error transition. An executor keeps no state between calls that a
// restarted server could not rebuild from the Context and the external id:
// that is what lets the engine re-attach to running actions after a crash
// instead of running them again.
package action

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/vocab"
	"github.com/gozie/gozie/internal/workflow"
)

// Context is everything an executor needs to know about one run of one
// action. The engine builds it; EL in Element has already been resolved.
type Context struct {
	JobID    string // workflow job id
	ActionID string // <jobId>@<nodeName>
	Name     string // node name
	Type     string // action type: "fs", "shell", ...
	User     string // the job's user
	AppPath  string // application directory (local path or URI)
	// Element is the action body (<fs>, <shell xmlns=...>) with every EL
	// expression already evaluated.
	Element *workflow.Element
	// Conf is the action configuration after <global>, job-xml and
	// <configuration> have been merged, and JobConf the job's properties.
	Conf    *conf.Config
	JobConf *conf.Config
	// WorkDir names a directory private to this action run, under the
	// server's data directory; it survives a server restart. The engine
	// does not create it: an executor that needs it does (most actions
	// never do, and a directory per action is a cost on every one).
	WorkDir string
	// CallbackURL lets the external system report completion; "" when the
	// engine polls only.
	CallbackURL string
	// Attempt counts runs of this action: 0 first, then 1, 2, ... for
	// retries. An executor uses it to keep attempts apart (WorkDir differs).
	Attempt int
	// Notify, when set, tells the engine that the action may have finished,
	// so that it calls Check at once instead of at its next poll. It is the
	// in-process form of the callback URL: an executor that watches its own
	// child process calls it when the child exits. Safe to call from any
	// goroutine, any number of times, also after the action ended.
	Notify func()
}

// Status is the outcome of a finished action.
type Status string

// Outcomes, named as the action's external status (spec: wf 9.2: an action
// that is DONE ends as OK or ERROR).
const (
	OK    Status = "OK"
	Error Status = "ERROR"
)

// Result reports the state of an action after Start or Check.
type Result struct {
	// ExternalID identifies the work in the external system (a process id
	// file, a job id). Start must set it, even when the action finished at
	// once, so Check and Kill can find it again after a restart.
	ExternalID     string
	ExternalStatus string // as the external system says it: RUNNING, SUCCEEDED, FAILED/KILLED, ...
	TrackerURI     string
	// Done is true when the action has finished; Status, ErrorCode and
	// ErrorMessage are then meaningful.
	Done         bool
	Status       Status
	ErrorCode    string // Oozie error code of a failed action, e.g. "FS009", "JA018"
	ErrorMessage string
	// Data is the captured output (wf:actionData), nil when none.
	Data map[string]string
	// Stats are the counters of the work (Hadoop's counter groups: group
	// name -> counter name -> value), read by hadoop:counters(node) and
	// shown as the action's stats; nil when the action type has none.
	Stats map[string]map[string]int64
	// ChildIDs are the ids of the jobs the action started in an external
	// system (Hadoop, YARN or Spark application ids picked out of a
	// tool's output), shown as the action's externalChildIDs.
	ChildIDs []string
}

// ErrorKind classifies executor failures the way Oozie does, which decides
// the action's next state (spec: wf 9.2, spec: wf 18). It is vocab.Kind,
// whose zero value is "unclassified": only an error with one of the four
// kinds below is an executor's verdict.
type ErrorKind = vocab.Kind

const (
	// Transient errors may pass if the operation is retried later: the
	// engine retries (START_RETRY / END_RETRY) up to the configured count.
	Transient = vocab.KindTransient
	// NonTransient errors need a person: START_MANUAL / END_MANUAL.
	NonTransient = vocab.KindNonTransient
	// ErrorKindError makes the action end with its error transition.
	ErrorKindError = vocab.KindError
	// Failed fails the whole workflow job.
	Failed = vocab.KindFailed
)

// ExecError is a classified executor failure with an Oozie error code:
// gozie's one coded error type, vocab.Error, with its Kind set.
type ExecError = vocab.Error

// Errorf returns an ExecError of the given kind and code.
func Errorf(kind ErrorKind, code, format string, args ...any) *ExecError {
	return &ExecError{Kind: kind, Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Executor runs one type of action. Implementations must be safe for
// concurrent use: the engine runs many actions at once.
type Executor interface {
	// Start begins the action. It may finish it synchronously (Result.Done).
	// Calling Start again for the same Context.ActionID and Attempt after a
	// crash must not run the work twice: the executor finds the earlier run
	// by its WorkDir and reports on it instead.
	Start(ctx context.Context, a *Context) (Result, error)
	// Check reports on an action started earlier, identified by
	// externalID. It returns Done=false while the action is still running.
	Check(ctx context.Context, a *Context, externalID string) (Result, error)
	// Kill stops a running action. Killing an action that has already
	// ended is not an error.
	Kill(ctx context.Context, a *Context, externalID string) error
}

// Registry maps action types to executors. The engine refuses a workflow
// whose action type has no executor (E0723 at submission).
type Registry struct {
	mu        sync.RWMutex
	executors map[string]Executor
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{executors: make(map[string]Executor)}
}

// Register makes e the executor of actionType, replacing any earlier one.
func (r *Registry) Register(actionType string, e Executor) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.executors[actionType] = e
}

// Lookup returns the executor of actionType.
func (r *Registry) Lookup(actionType string) (Executor, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.executors[actionType]
	return e, ok
}

// Types returns the registered action types in order.
func (r *Registry) Types() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	types := make([]string, 0, len(r.executors))
	for t := range r.executors {
		types = append(types, t)
	}
	sort.Strings(types)
	return types
}
