package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/workflow"
)

// jobExtra is the engine's private part of a job's state, stored as JSON in
// store.Job.State.
type jobExtra struct {
	// AppRoot is the local directory of the application; relative paths
	// in the definition resolve from it.
	AppRoot string `json:"appRoot"`
	// Defaults is config-default.xml, which also seeds action
	// configurations.
	Defaults map[string]string `json:"defaults,omitempty"`
	// LastErrorNode is the last action that ended in ERROR.
	LastErrorNode string `json:"lastErrorNode,omitempty"`
	// Deferred lists actions that ended while the job was suspended; their
	// transitions are taken on resume.
	Deferred []string `json:"deferred,omitempty"`
	// Held lists actions whose start came due while the job was
	// suspended; they are started on resume.
	Held []string `json:"held,omitempty"`
	// Stopped lists the nodes oozie.suspend.on.nodes suspended the job
	// before (control nodes; an action stopped at is Held), with the
	// nodes the same walk had still to enter: resume enters them, past
	// their stop.
	Stopped []string `json:"stopped,omitempty"`
	// ParentAction and ParentAttempt identify the sub-workflow action that
	// started this job, Depth its nesting (0 for a top-level job).
	ParentAction  string `json:"parentAction,omitempty"`
	ParentAttempt int    `json:"parentAttempt,omitempty"`
	Depth         int    `json:"depth,omitempty"`
	// Launch is the id of the coordinator effect that created the job.
	Launch int64 `json:"launch,omitempty"`
	// RerunSkip lists the nodes a rerun skips (rerun.go); RerunAttempts
	// continues the attempt numbers of records a rerun dropped, so a
	// rerun action never reuses an earlier run's work directory.
	RerunSkip     []string       `json:"rerunSkip,omitempty"`
	RerunAttempts map[string]int `json:"rerunAttempts,omitempty"`
	// UserRetries keeps, per action name, the runs that ended in a user
	// retry (retry-max): the action record only holds its latest run, and
	// show=retries lists the earlier ones. Kept in the job's state, which
	// the commit of the retry writes anyway, so no table is needed.
	UserRetries map[string][]RetryRecord `json:"userRetries,omitempty"`
	// RetryStarts holds when the current run of a retried action started:
	// its record keeps the first run's start time.
	RetryStarts map[string]time.Time `json:"retryStarts,omitempty"`
}

// RetryRecord is one run of an action that ended in a user retry.
type RetryRecord struct {
	// Attempt numbers the user retries from 1; Run is the action's
	// Attempt (work directory) of the run.
	Attempt    int       `json:"attempt"`
	Run        int       `json:"run"`
	StartTime  time.Time `json:"startTime,omitzero"`
	EndTime    time.Time `json:"endTime,omitzero"`
	ConsoleURL string    `json:"consoleUrl,omitempty"`
	ChildIDs   string    `json:"childIds,omitempty"`
}

func (x *jobExtra) encode() string {
	b, _ := json.Marshal(x)
	return string(b)
}

func decodeExtra(s string) (jobExtra, error) {
	var x jobExtra
	if s == "" {
		return x, nil
	}
	err := json.Unmarshal([]byte(s), &x)
	return x, err
}

// jobState is a job in memory while the engine works on it: the stored
// records plus what is derived from them (parsed definition, properties),
// and the changes of the transition in progress.
type jobState struct {
	mu    sync.Mutex
	stale bool // the store may hold something else: reload
	// committing says a goroutine is writing this job's changes (commit
	// releases mu meanwhile); queue holds the changes made since, which
	// it writes next, together (engine.go, commit).
	committing bool
	queue      []*queuedChange
	ended      bool // a committed change ended the job: forget it once the queue is written

	job      *store.Job
	extra    jobExtra
	app      *workflow.App
	conf     *conf.Config // job properties
	vars     el.MapVars   // the properties that are Java identifiers
	defaults *conf.Config
	actions  map[string]*store.Action // by node name
	joinOf   map[string]int           // paths each join waits for
	// arrived counts the paths that reached each join so far. It is
	// derived from the records (those whose transition is the join), so
	// an arrival costs no write of the job row.
	arrived map[string]int

	// Changes not yet committed.
	jobDirty   bool
	dirty      map[string]*store.Action
	dirtyOrder []string
	effects    []*store.Effect
	done       []int64
	deleted    []string // action records to delete (rerun)
	log        jobLog   // joblog.go
	// slas are the SLA records the change registers (sla.go).
	slas []*store.SLA
	// announced is the job status the last event was published for (or
	// the stored one, at load): a change to another status publishes one
	// (Options.Events).
	announced string
	// observed and seen are the job's and its records' statuses as the
	// runtime's Observer was last told (or as stored, at load): observe.go.
	observed string
	seen     map[string]string
	// lastSeq is the largest Seq the job's records have had: new records
	// are numbered here rather than by the store, which would need a
	// query (a round trip on PostgreSQL) per new record.
	lastSeq int64
}

// loadState builds a job's state from its records, parsing its stored
// definition; parsed, when not nil, is that definition parsed already (by
// the submission that stores it) with the options the stored
// configuration gives.
func loadState(j *store.Job, acts []*store.Action, options func(*conf.Config) workflow.Options, parsed ...*workflow.App) (*jobState, error) {
	extra, err := decodeExtra(j.State)
	if err != nil {
		return nil, fmt.Errorf("engine: job %s: corrupt state: %w", j.ID, err)
	}
	c, err := conf.ParseXML(strings.NewReader(j.Conf), "job "+j.ID)
	if err != nil {
		return nil, fmt.Errorf("engine: job %s: stored configuration: %w", j.ID, err)
	}
	// Submissions are checked, but a job stored before the check existed
	// (or by another tool) must not expand into gigabytes each time it is
	// loaded: refuse it with the expansion error (E1004) instead.
	if err := c.CheckExpansion(conf.ExpandLimits{}); err != nil {
		return nil, fmt.Errorf("engine: job %s: stored configuration: %w", j.ID, err)
	}
	var app *workflow.App
	if len(parsed) > 0 && parsed[0] != nil {
		app = parsed[0]
	} else {
		app, err = workflow.Parse([]byte(j.Definition), options(c))
	}
	if err != nil {
		// It parsed at submission; a failure now means the store was
		// edited or the parser changed. Parse leniently to let the job
		// at least be killed and shown.
		if app, err = workflow.ParseNoValidate([]byte(j.Definition)); err != nil {
			return nil, fmt.Errorf("engine: job %s: stored definition: %w", j.ID, err)
		}
	}
	st := &jobState{
		job: j, extra: extra, app: app, conf: c, vars: workflow.Variables(c),
		defaults: conf.FromMap(extra.Defaults),
		actions:  map[string]*store.Action{},
		joinOf:   joinCounts(app),
		dirty:    map[string]*store.Action{},
	}
	st.observed, st.seen = j.Status, make(map[string]string, len(acts))
	for _, a := range acts {
		st.actions[a.Name] = a
		st.lastSeq = max(st.lastSeq, a.Seq)
		st.seen[a.Name] = a.Status
	}
	st.arrived = arrivals(app, st.actions)
	st.log = newJobLog(j, acts)
	st.announced = j.Status
	return st, nil
}

func (st *jobState) changed() bool {
	return st.jobDirty || len(st.dirty) > 0 || len(st.effects) > 0 || len(st.done) > 0 || len(st.log.pending) > 0 || len(st.slas) > 0
}

// touch marks an action changed in the transition in progress.
func (st *jobState) touch(a *store.Action) {
	if _, ok := st.dirty[a.Name]; !ok {
		st.dirtyOrder = append(st.dirtyOrder, a.Name)
	}
	st.dirty[a.Name] = a
}

// takeDirty returns the changed actions in the order they were first
// changed, numbering new records (Seq 0) in that order, which is execution
// order, and clears the set. A record created again keeps its Seq.
func (st *jobState) takeDirty() []*store.Action {
	out := make([]*store.Action, 0, len(st.dirtyOrder))
	for _, name := range st.dirtyOrder {
		a := st.dirty[name]
		if a.Seq == 0 {
			st.lastSeq++
			a.Seq = st.lastSeq
		}
		out = append(out, a)
	}
	clear(st.dirty)
	st.dirtyOrder = st.dirtyOrder[:0]
	return out
}

func (st *jobState) addEffect(ef *store.Effect) {
	ef.JobID = st.job.ID
	st.effects = append(st.effects, ef)
}

// arrivals counts, for each join not yet passed, the ended records whose
// transition leads to it (a fork's record lists all its paths).
func arrivals(app *workflow.App, acts map[string]*store.Action) map[string]int {
	out := map[string]int{}
	for _, a := range acts {
		if a.Status != store.ActionOK && a.Status != store.ActionError {
			continue
		}
		for _, to := range strings.Split(a.Transition, ",") {
			if n := app.Node(to); n != nil && n.Kind == workflow.JoinNode {
				if j := acts[to]; j == nil || j.Status != store.ActionOK {
					out[to]++
				}
			}
		}
	}
	return out
}

// joinCounts finds, for every join, how many paths of its fork must arrive:
// the paths of the fork whose paths lead to it, skipping nested fork/join
// pairs on the way.
func joinCounts(app *workflow.App) map[string]int {
	out := map[string]int{}
	memo := map[string]string{}
	for _, n := range app.Nodes {
		if n.Kind == workflow.ForkNode {
			if j := pairedJoin(app, n, memo, 0); j != "" {
				out[j] += len(n.Paths)
			}
		}
	}
	return out
}

// pairedJoin walks forward from a fork's paths to the first join reached.
func pairedJoin(app *workflow.App, fork *workflow.Node, memo map[string]string, depth int) string {
	if j, ok := memo[fork.Name]; ok {
		return j
	}
	memo[fork.Name] = ""
	if depth > 100 {
		return ""
	}
	seen := map[string]bool{}
	queue := append([]string(nil), fork.Paths...)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		n := app.Node(name)
		if n == nil {
			continue
		}
		switch n.Kind {
		case workflow.JoinNode:
			memo[fork.Name] = n.Name
			return n.Name
		case workflow.ForkNode:
			if j := app.Node(pairedJoin(app, n, memo, depth+1)); j != nil {
				queue = append(queue, j.To)
			}
		case workflow.ActionNode:
			queue = append(queue, n.OK)
		default:
			queue = append(queue, n.Targets()...)
		}
	}
	return ""
}
