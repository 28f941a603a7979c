// Package engine runs workflow jobs: the lifecycles of workflow
// spec: wf 9, the control nodes of section 3.1, asynchronous
// actions (3.2.1) through the executors of package action, sub-workflows
// (3.2.5) and parameterization (section 4).
//
// # Durability
//
// Every change of a job is computed in memory from the job's current state
// and one event (start, an action's result, kill, ...), then committed to the
// store in one transaction together with the effects it calls for: start
// this action, kill that one, tell a parent job. Only after the commit are
// the effects performed, and each is marked done in the transaction of its
// outcome. A crash at any point therefore leaves either the old state or the
// new state with its effects still pending; Start replays them and checks
// every RUNNING action again, which re-attaches to work that survived the
// crash. Effects are idempotent: an executor asked to start the same action
// attempt twice reports on the first run instead of running it again.
//
// One goroutine at a time changes a job (a per-job mutex); executors run
// outside it so that the paths of a fork proceed in parallel.
package engine

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/workflow"
)

// DefaultUserRetryErrorCodes are the errors Oozie retries by default when an
// action sets retry-max (oozie.service.LiteWorkflowStoreService.user.retry.error.code):
// file exists / permission errors of fs (FS008, FS009, FS014) and the
// launcher errors (JA008, JA009, JA017, JA018, JA019). JA018 covers a failed
// shell program.
var DefaultUserRetryErrorCodes = []string{"JA008", "JA009", "JA017", "JA018", "JA019", "FS008", "FS009", "FS014"}

// Engine runs workflow jobs on a store.
type Engine struct {
	opts    Options
	store   store.Store
	actions *action.Registry
	clock   Clock
	funcs   *el.Registry
	started time.Time
	dataDir string // DataDir made absolute: start intents name it
	// ownDataID is how this server's start intents name its data
	// directory's identity; intent the encoded intent (intent.go).
	ownDataID string
	intent    atomic.Pointer[intentPayload]

	// rt performs the effects (package effect), the coordinator engine's
	// too when one shares it; ownRT when New made it, and Start and Close
	// start and stop it.
	rt    *effect.Runtime
	ownRT bool
	jobs  *effect.Cache[*jobState] // cached state of jobs being worked on
	sem   chan struct{}            // bounds executor Starts in flight

	// mu guards the per-action bookkeeping below and waiters.
	mu      sync.Mutex
	waiters map[string][]chan struct{} // closed when the job ends
	// Starts: effects being performed, by action id + attempt; Notify
	// calls that came before the start was committed; starts waiting for
	// their program's end (StartSettle), closed by Notify; per action id,
	// the executor context of its current attempt.
	inflight map[string]bool
	notified map[string]bool
	settling map[string]chan struct{}
	contexts map[string]*action.Context
	// Checks: in flight (1 running, 2 running and asked again), and an
	// END_RETRY check that came due while another check of the same
	// action was in flight, by endRetryKey.
	checks       map[string]int
	endRetryNext map[string]*store.Effect

	notifier notifier // HTTP notification deliveries (notifysend.go)
}

// New returns an engine. It does not touch jobs until Start.
func New(opts Options) (*Engine, error) {
	if opts.Store == nil || opts.Actions == nil {
		return nil, errors.New("engine: Store and Actions are required")
	}
	if opts.Clock == nil {
		opts.Clock = SystemClock
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = time.Second
	}
	if opts.StartRetryMax == 0 {
		opts.StartRetryMax = 3
	}
	if opts.StartRetryInterval <= 0 {
		opts.StartRetryInterval = 10 * time.Second
	}
	if opts.MaxUserRetries <= 0 {
		opts.MaxUserRetries = 3
	}
	if opts.UserRetryErrorCodes == nil {
		opts.UserRetryErrorCodes = DefaultUserRetryErrorCodes
	}
	if opts.MaxSubWorkflowDepth <= 0 {
		opts.MaxSubWorkflowDepth = 50
	}
	if opts.MaxConcurrentStarts <= 0 {
		opts.MaxConcurrentStarts = 64
	}
	if opts.SystemID == "" {
		opts.SystemID = defaultSystemID()
	}
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	if opts.DataDir == "" {
		opts.DataDir = os.TempDir()
	}
	if opts.MaxDefinitionBytes <= 0 {
		opts.MaxDefinitionBytes = fsys.DefaultMaxDefinition
	}
	if opts.MaxConfFileBytes <= 0 {
		opts.MaxConfFileBytes = fsys.DefaultMaxConfFile
	}
	if opts.MaxActionBytes <= 0 {
		opts.MaxActionBytes = DefaultMaxActionBytes
	}
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, err
	}
	rt, own := opts.Runtime, false
	if rt == nil {
		rt, err = effect.New(effect.Options{
			Store: opts.Store, Clock: opts.Clock, Logf: opts.Logf,
			StoreRetryInterval: opts.StoreRetryInterval, StoreRetryMax: opts.StoreRetryMax,
			SweepInterval: opts.SweepInterval, MaxRunningActions: opts.MaxRunningActions,
			CrashJournal: opts.CrashJournal, LeaseValid: opts.LeaseValid, CodeOf: ErrorCode,
		})
		if err != nil {
			return nil, err
		}
		own = true
	}
	opts.Clock = rt.Clock()
	e := &Engine{
		opts: opts, store: opts.Store, actions: opts.Actions, clock: opts.Clock, dataDir: dataDir,
		ownDataID: ownDataIDTag(opts.DataID),
		funcs:     Functions(),
		rt:        rt, ownRT: own,
		jobs: effect.NewCache[*jobState](),
		sem:  make(chan struct{}, opts.MaxConcurrentStarts),

		waiters:  map[string][]chan struct{}{},
		inflight: map[string]bool{}, notified: map[string]bool{},
		settling: map[string]chan struct{}{}, contexts: map[string]*action.Context{},
		checks: map[string]int{}, endRetryNext: map[string]*store.Effect{},
	}
	e.started = e.clock.Now()
	e.registerEffects()
	if _, ok := opts.Actions.Lookup("sub-workflow"); !ok {
		opts.Actions.Register("sub-workflow", &subWorkflow{e: e})
	}
	return e, nil
}

// Functions returns the EL functions of workflow definitions: the basic
// ones, wf:* (4.2.3), fs:* (4.2.7), hcat:exists and hadoop:counters with the Hadoop
// counter constants (4.2.4, 4.2.5).
func Functions() *el.Registry {
	r := workflow.Functions()
	fsys.RegisterELFunctions(r)
	registerHadoop(r)
	return r
}

// Start resumes the work the store holds: it performs every pending effect,
// checks every RUNNING action again (re-attaching to work that outlived a
// previous process), and starts polling.
func (e *Engine) Start(ctx context.Context) error {
	if e.ownRT {
		if err := e.rt.Start(ctx); err != nil {
			return err
		}
	}
	if err := e.checkRunning(ctx); err != nil {
		return err
	}
	e.rt.Every(e.opts.PollInterval, e.poll)
	return nil
}

// Adopt takes up the jobs the store lists as this server's: it performs
// their pending effects (delayed ones when due) and checks their RUNNING
// actions, re-attaching to what runs. Start calls it; a server that took
// another's jobs over calls it again. Effects and checks already under way
// are not repeated.
func (e *Engine) Adopt(ctx context.Context) error {
	if err := e.rt.Adopt(ctx); err != nil {
		return err
	}
	return e.checkRunning(ctx)
}

// checkRunning checks every RUNNING action of the server's jobs,
// counting them in the action slots.
func (e *Engine) checkRunning(ctx context.Context) error {
	var running []*store.Action
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		running, err = tx.ActionsByStatus(ctx, store.ActionRunning)
		return err
	})
	if err != nil {
		return err
	}
	for _, a := range running {
		if a.Type != "sub-workflow" {
			e.rt.Slots().Adopt(a.ID)
		}
		e.enqueueCheck(a.JobID, a.ID)
	}
	return nil
}

// Runtime is the effect runtime the engine performs its effects on.
func (e *Engine) Runtime() *effect.Runtime { return e.rt }

// ForgetAll drops every cached job state, so that the next event of each
// job reloads it from the store: a server whose registration was taken
// from it (it owned nothing for a while) must not trust what it cached.
func (e *Engine) ForgetAll() {
	e.jobs.Clear()
	e.rt.Slots().Clear()
}

// Close stops polling and waits for the engine's goroutines. Jobs stay as
// they are in the store; a later Start continues them.
func (e *Engine) Close() error {
	if e.ownRT {
		return e.rt.Close()
	}
	return nil
}

func (e *Engine) logf(format string, args ...any) { e.opts.Logf(format, args...) }

// poll checks every RUNNING action: the fallback for actions whose
// completion callback never comes.
func (e *Engine) poll() {
	var running []*store.Action
	ctx := e.rt.Context()
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		running, err = tx.ActionsByStatus(ctx, store.ActionRunning)
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			e.rt.LogLimited("poll", "gozie: poll: %v (will poll again)", err)
		}
		return
	}
	e.rt.LogRecovered("poll", "gozie: poll works again")
	for _, a := range running {
		e.enqueueCheck(a.JobID, a.ID)
	}
}

// Job returns a job and its node records in execution order.
func (e *Engine) Job(ctx context.Context, id string) (*store.Job, []*store.Action, error) {
	var j *store.Job
	var acts []*store.Action
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		if j, err = tx.Job(ctx, id); err != nil {
			return err
		}
		acts, err = tx.Actions(ctx, id)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, errorf(CodeJobNotFound, "Job does not exist [%s]", id)
	}
	return j, acts, err
}

// JobRecord returns a workflow job's record without its actions: what a
// status poll (show=status) or a wait needs, one row instead of the job's
// every action with its configuration.
func (e *Engine) JobRecord(ctx context.Context, id string) (*store.Job, error) {
	var j *store.Job
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		j, err = tx.Job(ctx, id)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, errorf(CodeJobNotFound, "Job does not exist [%s]", id)
	}
	return j, err
}

// Wait blocks until the job ends (SUCCEEDED, KILLED or FAILED) or ctx is
// done, and returns the job as it ended.
func (e *Engine) Wait(ctx context.Context, id string) (*store.Job, error) {
	for {
		ch := make(chan struct{})
		e.mu.Lock()
		e.waiters[id] = append(e.waiters[id], ch)
		e.mu.Unlock()
		j, err := e.JobRecord(ctx, id)
		if err != nil {
			return nil, err
		}
		if store.Terminal(j.Status) {
			return j, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return j, ctx.Err()
		}
	}
}

func (e *Engine) wake(id string) {
	e.mu.Lock()
	chs := e.waiters[id]
	delete(e.waiters, id)
	e.mu.Unlock()
	for _, ch := range chs {
		close(ch)
	}
}

// state returns the cached state of a job, loading it from the store on
// first use. The caller locks st.mu before reading or changing it.
func (e *Engine) state(ctx context.Context, id string) (*jobState, error) {
	return e.jobs.Get(ctx, id, e.loadJobState)
}

// loadJobState reads a job and its actions from the store and rebuilds
// its in-memory state.
func (e *Engine) loadJobState(ctx context.Context, id string) (*jobState, error) {
	j, acts, err := e.Job(ctx, id)
	if err != nil {
		return nil, err
	}
	return loadState(j, acts, e.parseOptions)
}

// forget drops a job's cached state, after a failed commit (so the next
// event starts from what the store holds) or once the job has ended.
func (e *Engine) forget(id string) { e.jobs.Forget(id) }

// queuedChange is a change waiting for the job's commit in progress.
type queuedChange struct {
	ch   *change
	err  error
	done chan struct{}
}

// errStaleState fails changes queued behind a change whose commit failed:
// they were made on a state the store never got.
var errStaleState = errors.New("engine: an earlier change of the job failed to commit")

// commit writes the job's pending changes and effects, then performs the
// new effects. st.mu must be held; it is released while the store writes,
// so that other transitions of the job (the paths of a wide fork ending
// together) are made meanwhile: they wait for that commit and are written
// together in the next transaction, one commit instead of one each. A
// change is acknowledged only once it is committed, and its effects are
// dispatched only then. The changes written are copies taken under the
// lock, so the transitions that go on meanwhile never race the writes.
func (e *Engine) commit(ctx context.Context, st *jobState) error {
	if !st.changed() {
		return nil
	}
	me := &queuedChange{ch: e.takeChange(st), done: make(chan struct{})}
	st.queue = append(st.queue, me)
	if st.committing {
		st.mu.Unlock()
		<-me.done
		st.mu.Lock()
		return me.err
	}
	st.committing = true
	var failed error
	for len(st.queue) > 0 && failed == nil {
		batch := st.queue
		st.queue = nil
		for _, q := range batch {
			e.prepareStarts(st, q.ch)
		}
		st.mu.Unlock()
		err := e.rt.Update(ctx, func(tx store.Tx) error {
			for _, q := range batch {
				if err := q.ch.write(ctx, tx); err != nil {
					return err
				}
			}
			return nil
		})
		st.mu.Lock()
		if err != nil {
			// ErrNotOwner included: the job went to another server, and
			// the state is dropped just the same. The in-memory state is
			// ahead of the store now: drop it, so the next event reloads
			// what was really committed.
			failed = err
			e.forget(st.job.ID)
			st.stale = true
			for _, q := range batch {
				q.err = err
				close(q.done)
			}
			break
		}
		for _, q := range batch {
			e.committed(st, q.ch)
			close(q.done)
		}
	}
	for _, q := range st.queue {
		q.err = fmt.Errorf("%w: %w", errStaleState, failed)
		close(q.done)
	}
	st.queue = nil
	st.committing = false
	if st.ended {
		// The end is committed (a later failure dropped the state
		// already): waiters of the job learn it either way.
		e.forget(st.job.ID)
		st.stale = true
		e.wake(st.job.ID)
	}
	return me.err
}

// change is what one commit writes: the job row when it changed, the
// changed records, new and done effects, log lines.
type change struct {
	job      *store.Job // nil when only records changed
	jobAt    store.Job  // the job as of this change (a copy)
	dirty    []*store.Action
	effects  []*store.Effect
	done     []int64
	deleted  []string
	logs     []*store.LogEntry
	slas     []*store.SLA
	modified time.Time
	obs      observation // observe.go
}

// takeChange moves st's pending changes into a change, queueing the
// notifications they call for.
func (e *Engine) takeChange(st *jobState) *change {
	now := e.clock.Now()
	ch := &change{modified: now}
	if st.jobDirty {
		st.job.LastModTime = now
		st.job.State = st.extra.encode()
	}
	ch.jobAt = *st.job
	if st.jobDirty {
		// The job row carries the definition and configuration, which
		// can be large: it is written only when the job itself changed,
		// not for every action transition.
		ch.job = &ch.jobAt
	}
	// Copies: commit writes them without the job's lock.
	live := st.takeDirty()
	ch.dirty = make([]*store.Action, len(live))
	for i, a := range live {
		a.LastModTime = now
		c := *a
		ch.dirty[i] = &c
	}
	ch.obs = st.observe(&ch.jobAt, ch.dirty)
	e.queueNotifications(st, ch.dirty, now)
	ch.logs = st.takeLogs(now, ch.dirty, e.ActionDir)
	e.announce(st, now)
	ch.effects, ch.done, ch.deleted, ch.slas = st.effects, st.done, st.deleted, st.slas
	e.recordIntents(ch.effects)
	st.effects, st.done, st.deleted, st.slas, st.jobDirty = nil, nil, nil, nil, false
	return ch
}

// write performs a change in tx.
func (ch *change) write(ctx context.Context, tx store.Tx) error {
	for _, id := range ch.deleted {
		if err := tx.DeleteAction(ctx, id); err != nil {
			return err
		}
	}
	if ch.job != nil {
		if err := tx.PutJob(ctx, ch.job); err != nil {
			return err
		}
	}
	for _, a := range ch.dirty {
		if err := tx.PutAction(ctx, a); err != nil {
			return err
		}
	}
	for _, ef := range ch.effects {
		// The ids are needed only after the commit (dispatch).
		if err := tx.QueueEffect(ctx, ef); err != nil {
			return err
		}
	}
	for _, id := range ch.done {
		if err := tx.DoneEffect(ctx, id); err != nil {
			return err
		}
	}
	for _, l := range ch.logs {
		if err := tx.AppendLog(ctx, l); err != nil {
			return err
		}
	}
	for _, s := range ch.slas {
		if err := tx.PutSLA(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// prepareStarts has the work directories of the actions a change starts
// made while the change commits (launch.DirPreparer): they hold nothing
// that runs or that a crash could leave half done, and making them is
// much of a short step's cost. st.mu must be held.
func (e *Engine) prepareStarts(st *jobState, ch *change) {
	if e.opts.DataDir == "" {
		return
	}
	for _, ef := range ch.effects {
		if ef.Kind != store.EffectStart || !ef.NotBefore.IsZero() {
			continue
		}
		a := st.actions[nodeName(ef.ActionID)]
		if a == nil || a.Attempt != ef.Attempt {
			continue
		}
		x, ok := e.actions.Lookup(a.Type)
		if !ok {
			continue
		}
		if p, ok := x.(launch.DirPreparer); ok {
			dir := e.ActionDir(a)
			e.rt.Go(func() { p.PrepareDir(dir) })
		}
	}
}

// committed follows a change's commit: it drops what ended actions no
// longer need, performs the new effects and wakes waiters of an ended job.
func (e *Engine) committed(st *jobState, ch *change) {
	e.mu.Lock()
	for _, a := range ch.dirty {
		if actionTerminal(a.Status) {
			delete(e.contexts, a.ID)
			delete(e.notified, a.ID)
		}
	}
	e.mu.Unlock()
	for _, a := range ch.dirty {
		// PREP: being started, the slot taken for the start it waits for.
		if !occupies(a.Status) && a.Status != store.ActionPrep {
			e.rt.Slots().Release(a.ID)
		}
	}
	if e.opts.OnTransition != nil && len(ch.logs) > 0 {
		e.opts.OnTransition(transitionOf(ch))
	}
	e.report(ch.obs)
	e.rt.Dispatch(ch.effects)
	if store.Terminal(ch.jobAt.Status) {
		// Forgotten once the changes queued behind this one are
		// written too (commit), so that nobody reloads the job without
		// them meanwhile.
		st.ended = true
		if !st.committing {
			e.forget(st.job.ID)
			st.stale = true
			e.wake(st.job.ID)
		}
	}
}

// lockState returns the job's state locked, reloading it when a failed
// commit or the job's end made the cached copy stale.
func (e *Engine) lockState(ctx context.Context, id string) (*jobState, error) {
	for i := 0; i < 5; i++ {
		st, err := e.state(ctx, id)
		if err != nil {
			return nil, err
		}
		st.mu.Lock()
		if !st.stale {
			return st, nil
		}
		st.mu.Unlock()
	}
	return nil, fmt.Errorf("engine: job %s: state keeps changing", id)
}

// DefaultStartSettle is the StartSettle of gozie server
// (gozie.actions.start.settle.ms) and gozie run: long enough for a trivial
// program to end, short next to any step worth watching.
const DefaultStartSettle = 20 * time.Millisecond
