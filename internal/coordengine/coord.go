// Package coordengine runs coordinator jobs (coordinator specification
// section 6): submission, the periodic tick of each job (pause time,
// materialization within the window, input checks, the execution policy,
// the job's status), the commands (suspend, resume, kill, change, ignore,
// rerun, update), the JSON of the REST API and missing dependencies.
//
// It runs beside the workflow engine (package engine), as its peer on one
// effect runtime (package effect): every change of a coordinator job is
// committed with its effects and log lines in one transaction, and the
// effects (launch a workflow, pass a command on to one, delete a rerun's
// outputs, the next tick) are kinds New registers on the runtime, which
// performs them with its retries, sweep and ownership handling. The
// coordinator engine uses the workflow engine through Workflows, an
// interface of its own that *engine.Engine satisfies; neither package
// imports the other.
package coordengine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// Effect kinds of coordinator jobs. JobID is the coordinator job id and,
// for the per-action ones, ActionID the coordinator action id.
const (
	// EffectCoordTick is a job's timer: materialize what is due, check
	// the inputs of WAITING actions, apply the execution policy. A job has
	// at most one live tick (its id is in the job's private state).
	EffectCoordTick = "coord-tick"
	// EffectCoordSubmit launches the workflow of a SUBMITTED action.
	EffectCoordSubmit = "coord-submit"
	// EffectCoordKill, EffectCoordSuspend and EffectCoordResume pass a
	// command on to the workflow of an action.
	EffectCoordKill    = "coord-kill"
	EffectCoordSuspend = "coord-suspend"
	EffectCoordResume  = "coord-resume"
)

// Options tune the coordinator engine; zero values take the defaults
// documented in docs/coordinator-engine.md.
type Options struct {
	// MaterializationWindow is how far ahead of now actions are
	// materialized (Oozie's materialization.window); default 1h.
	MaterializationWindow time.Duration
	// MaterializationLookahead is how early before the next materialization
	// time a run starts; default 5m.
	MaterializationLookahead time.Duration
	// BatchSize caps the actions one materialization run creates; 0 means
	// the coord package's default (10000).
	BatchSize int
	// InputCheckInterval is how often the inputs of WAITING actions are
	// checked (and READY ones reconsidered); default 1m.
	InputCheckInterval time.Duration
	// MinFrequencyMinutes is the smallest accepted frequency; 0 means 5,
	// negative disables the check.
	MinFrequencyMinutes int
	// Exists, when set, answers every dependency check by itself, one
	// call per URI (no prefetch, no bounds, no backoff): for embedders
	// with a store of their own. ctx carries the coordinator job's
	// configuration (fsys.WithConf) and user (fsys.WithUser). Unset,
	// dependencies are probed through Namespace by the engine's prober.
	Exists func(ctx context.Context, uri string) (bool, error)
	// Namespace is where dependencies are probed; nil: the process's
	// namespace (fsys.Default) at each check.
	Namespace *fsys.Namespace
	// InputCheckParallel bounds the requests the input check has in
	// flight to one store (scheme://authority) across all jobs
	// (gozie.coord.input.check.parallel); default 16.
	InputCheckParallel int
	// InputCheckTimeout bounds each request of the input check; a store
	// that does not answer in time counts as unavailable
	// (gozie.coord.input.check.timeout.s); default 30s.
	InputCheckTimeout time.Duration
	// InputCheckWalkBudget is the most entries one listing answering a
	// group of done-flags may list before the prober asks for each flag
	// instead (gozie.coord.input.check.walk.budget); default 10000,
	// negative: never list.
	InputCheckWalkBudget int
	// InputCheckMaxBackoff caps how long a store that did not answer is
	// left alone; the backoff starts at InputCheckInterval and doubles
	// per failing cycle (gozie.coord.input.check.backoff.max.s); default
	// 10m.
	InputCheckMaxBackoff time.Duration
	// Events publishes the status changes of coordinator actions to the
	// message broker (package events), from the commit making them.
	Events bool
}

func (o Options) withDefaults() Options {
	if o.MaterializationWindow <= 0 {
		o.MaterializationWindow = time.Hour
	}
	if o.MaterializationLookahead <= 0 {
		o.MaterializationLookahead = 5 * time.Minute
	}
	if o.InputCheckInterval <= 0 {
		o.InputCheckInterval = time.Minute
	}
	return o
}

// Workflows is what the coordinator engine uses of the workflow engine;
// *engine.Engine has these methods.
type Workflows interface {
	// StageLaunch prepares the workflow of a coordinator action, to be
	// written started by the coordinator's transaction that records the
	// action RUNNING, and recording the id of the effect launching it,
	// which LaunchID reads from the workflow's record.
	StageLaunch(ctx context.Context, props *conf.Config, actionID string, launch int64) (effect.StagedJob, error)
	LaunchID(j *store.Job) int64
	// StartJob, Kill, Suspend, Resume and Rerun are the workflow job
	// commands; Job reads a workflow and its actions.
	StartJob(ctx context.Context, id string) error
	Kill(ctx context.Context, id string) error
	Suspend(ctx context.Context, id string) error
	Resume(ctx context.Context, id string) error
	Rerun(ctx context.Context, id string, props *conf.Config) error
	Job(ctx context.Context, id string) (*store.Job, []*store.Action, error)
	// NewJobID formats the id of job number n (kind "C" here), so that
	// both engines' ids name one server start and system.
	NewJobID(n int64, kind string) string
	// CheckExpansion bounds what ${var} may build in a configuration;
	// CoordFileReader reads the coordinator's files within the engine's
	// size limits.
	CheckExpansion(props *conf.Config) error
	CoordFileReader(ctx context.Context) func(string) ([]byte, error)
	// DefaultUser is the user of submissions naming none; MaxActionBytes
	// bounds an action's configuration (coord.App.MaxActionBytes).
	DefaultUser() string
	MaxActionBytes() int
	// JobUserContext and AsJobUser act with a job user's file-system
	// rights when the server acts for its users (gozie.launch.as.user):
	// the coordinator's files are read, and its inputs checked, as the
	// coordinator's user.
	JobUserContext(ctx context.Context, user string) (context.Context, error)
	AsJobUser(user string, fn func() error) error
}

// Engine runs coordinator jobs.
type Engine struct {
	wf    Workflows
	rt    *effect.Runtime
	store store.Store
	clock effect.Clock
	logf  func(format string, args ...any)
	opts  Options
	// What the workflow engine's configuration says for every job: the
	// default user, job ids, the expansion and file size limits.
	defaultUser    string
	newJobID       func(n int64, kind string) string
	checkExpansion func(*conf.Config) error
	readFile       func(ctx context.Context) func(string) ([]byte, error)
	maxAction      int // coord.App.MaxActionBytes: the workflow engine's bound on an action

	locks effect.Locks // one writer per job, as for workflows

	// prober answers the input checks of every job (Options.Exists
	// unset).
	prober *fsys.Prober

	mu   sync.Mutex
	apps map[string]*cachedApp // parsed apps by job id
}

// New returns a coordinator engine working with wf on rt (the runtime the
// workflow engine performs its effects on: one store, clock and log), and
// registers its effect kinds there. Call it before the runtime starts, so
// that the pending coordinator effects are performed. Whoever assembles
// the system passes coordinator submissions and commands to it (the
// workflow engine's SetCoordinators, or package jobs).
func New(wf Workflows, rt *effect.Runtime, opts Options) *Engine {
	e := &Engine{
		wf: wf, rt: rt, store: rt.Store(), clock: rt.Clock(), logf: rt.Logf, opts: opts.withDefaults(),
		defaultUser: wf.DefaultUser(), newJobID: wf.NewJobID, checkExpansion: wf.CheckExpansion,
		readFile: wf.CoordFileReader, maxAction: wf.MaxActionBytes(),
		apps: map[string]*cachedApp{},
	}
	o := e.opts
	e.prober = fsys.NewProber(o.Namespace, fsys.ProberOptions{
		Parallel: o.InputCheckParallel, WalkBudget: o.InputCheckWalkBudget, Timeout: o.InputCheckTimeout,
		MinBackoff: o.InputCheckInterval, MaxBackoff: o.InputCheckMaxBackoff, Clock: e.clock.Now,
	})
	h := effectHandler{e}
	for _, kind := range []string{EffectCoordTick, EffectCoordKill, EffectCoordSuspend, EffectCoordResume, EffectCoordCleanup, effect.NotifyKind("C")} {
		rt.Register(kind, h)
	}
	// The workflow launches of one job are performed in commit order: the
	// execution policy ordered them.
	rt.Register(EffectCoordSubmit, h, effect.InOrder())
	return e
}

// InputCheckCounts returns what the input check's prober did since the
// engine started: requests by kind, paths skipped for a store backing off.
func (e *Engine) InputCheckCounts() fsys.ProbeCounts { return e.prober.Counts() }

// InputCheckSchemes returns the input checks' requests so far by the
// scheme of the store they asked (the server's metrics).
func (e *Engine) InputCheckSchemes() map[string]fsys.SchemeCounts { return e.prober.CountsByScheme() }

// exists answers one dependency outside the input check (dry run): with
// Options.Exists, or from the namespace.
func (e *Engine) exists(ctx context.Context, uri string) (bool, error) {
	if e.opts.Exists != nil {
		return e.opts.Exists(ctx, uri)
	}
	ns := e.opts.Namespace
	if ns == nil {
		ns = fsys.Default()
	}
	return ns.Exists(ctx, uri)
}

// effectHandler performs and quarantines the coordinator's effect kinds
// for the runtime.
type effectHandler struct{ e *Engine }

// Perform performs a coordinator effect (PerformEffect).
func (h effectHandler) Perform(ctx context.Context, ef *store.Effect) error {
	return h.e.PerformEffect(ctx, ef)
}

// Quarantine quarantines a coordinator effect (QuarantineEffect).
func (h effectHandler) Quarantine(ctx context.Context, ef *store.Effect, _ int, msg string) error {
	return h.e.QuarantineEffect(ctx, ef, msg)
}

// coordError turns a *coord.Error into a coded error with the same code,
// so a coordinator's mistake gets one Oozie code whichever path finds it.
func coordError(err error) error {
	var ce *coord.Error
	if errors.As(err, &ce) {
		return &vocab.Error{Code: ce.Code, Msg: ce.Msg}
	}
	return err
}

// now is the engine's time, to the millisecond the store keeps.
func (e *Engine) now() time.Time { return e.clock.Now().Truncate(time.Millisecond) }

func errorf(code, format string, args ...any) *vocab.Error {
	return vocab.Errorf(code, format, args...)
}

// markDone records an effect performed when nothing else changes.
func (e *Engine) markDone(ctx context.Context, ef *store.Effect) error {
	return e.rt.MarkDone(ctx, ef)
}

type cachedApp struct {
	definition, conf string
	// end and concurrency are the job's controls the app was built with
	// (withJobControls); a change command makes the cache miss, so that a
	// cached app is never written once readers share it.
	end         time.Time
	concurrency int
	app         *coord.App
	props       *conf.Config
}

// coordLock locks a coordinator job and returns its unlock.
func (e *Engine) coordLock(id string) func() { return e.locks.Lock(id) }

// coordApp returns the parsed app and configuration of a job, parsing once
// per definition.
func (e *Engine) coordApp(j *store.CoordJob) (*coord.App, *conf.Config, error) {
	e.mu.Lock()
	c := e.apps[j.ID]
	e.mu.Unlock()
	if c != nil && c.definition == j.Definition && c.conf == j.Conf &&
		c.end.Equal(j.EndTime) && c.concurrency == j.Concurrency {
		return c.app, c.props, nil
	}
	props, err := conf.ParseXML(strings.NewReader(j.Conf), "job "+j.ID)
	if err != nil {
		return nil, nil, err
	}
	app, err := coord.Load(j.Definition, props)
	if err != nil {
		return nil, nil, err
	}
	app.MaxActionBytes = e.maxAction
	withJobControls(app, j)
	e.mu.Lock()
	e.apps[j.ID] = &cachedApp{definition: j.Definition, conf: j.Conf, end: j.EndTime, concurrency: j.Concurrency, app: app, props: props}
	e.mu.Unlock()
	return app, props, nil
}

// withJobControls makes the app follow what the change command may have
// changed on the job: its end time and concurrency.
func withJobControls(app *coord.App, j *store.CoordJob) {
	if !j.EndTime.IsZero() {
		app.End = j.EndTime
	}
	if j.Concurrency != 0 {
		app.Concurrency = j.Concurrency
	}
}

// coordExtra is the engine's private state of a coordinator job, stored
// as JSON in store.CoordJob.State.
type coordExtra struct {
	// TickID and TickAt identify the job's live tick effect; an older
	// tick that fires finds another id here and does nothing.
	TickID int64     `json:"tickId,omitempty"`
	TickAt time.Time `json:"tickAt,omitempty"`
	// Cleaning lists the rerun actions whose outputs are still to be
	// deleted: their inputs are not checked (so they cannot run) before.
	Cleaning []string `json:"cleaning,omitempty"`
	// FailedReruns maps an action rerun with failed=true to the workflow
	// whose failed nodes its launch reruns.
	FailedReruns map[string]string `json:"failedReruns,omitempty"`
	// CheckedAt is the time of the job's last input check of every
	// WAITING action; zero makes the next step check them all. Steps in
	// between (a workflow ended, a command) check only the actions that
	// became due since, so that a job with thousands of WAITING actions
	// does not probe every done-flag again whenever one of its workflows
	// ends.
	CheckedAt time.Time `json:"checkedAt,omitempty"`
	// WakeAt is the earliest time a wait of an input logic (spec: coord
	// 6.10) that holds a WAITING action elapses: the job ticks then and
	// checks its WAITING actions, instead of at the next interval.
	WakeAt time.Time `json:"wakeAt,omitzero"`
}

func decodeCoordExtra(s string) coordExtra {
	var x coordExtra
	if s != "" {
		_ = json.Unmarshal([]byte(s), &x)
	}
	return x
}

func (x coordExtra) encode() string {
	b, _ := json.Marshal(x)
	return string(b)
}

// Submit creates a coordinator job from its job properties and starts
// it (spec: coord 6.1.2: started immediately unless a pause time says
// otherwise): the job is committed in PREP with a tick due now, so a crash
// right after submission still starts it.
func (e *Engine) Submit(ctx context.Context, props *conf.Config) (string, error) {
	s, err := e.prepare(ctx, props)
	if err != nil {
		return "", err
	}
	err = e.store.Update(ctx, func(tx store.Tx) error {
		_, err := s.Write(ctx, tx)
		return err
	})
	if err != nil {
		return "", err
	}
	s.Committed()
	return s.job.ID, nil
}

// StageCoord prepares a coordinator of bundle bundleID, named name in the
// bundle's definition, for the bundle engine's transaction: the bundle
// records the coordinator's id in the commit that creates it, so that no
// coordinator of a bundle is ever created twice.
func (e *Engine) StageCoord(ctx context.Context, props *conf.Config, bundleID, name string) (effect.StagedCoord, error) {
	s, err := e.prepare(ctx, props)
	if err != nil {
		return nil, err
	}
	s.job.ParentID = bundleID
	if name != "" {
		// A bundle's coordinator goes by its name in the bundle.
		s.job.AppName = name
	}
	return s, nil
}

// stagedCoord is a coordinator job ready to be written: Submit writes it
// in a transaction of its own, a bundle in the bundle's.
type stagedCoord struct {
	e    *Engine
	job  *store.CoordJob
	tick *store.Effect
}

// Write stores the job in PREP with its first tick, due now.
func (s *stagedCoord) Write(ctx context.Context, tx store.Tx) (*store.CoordJob, error) {
	j := s.job
	n, err := tx.NextSequence(ctx, store.JobSequence)
	if err != nil {
		return nil, err
	}
	j.ID = s.e.newJobID(n, "C")
	s.tick = &store.Effect{Kind: EffectCoordTick, JobID: j.ID, NotBefore: j.CreatedTime, CreatedTime: j.CreatedTime}
	if err := tx.AddEffect(ctx, s.tick); err != nil {
		return nil, err
	}
	j.State = coordExtra{TickID: s.tick.ID, TickAt: j.CreatedTime}.encode()
	if err := tx.PutCoordJob(ctx, j); err != nil {
		return nil, err
	}
	msg := fmt.Sprintf("coordinator job submitted, app [%s] status [%s]", j.AppName, j.Status)
	if j.ParentID != "" {
		msg += fmt.Sprintf(" by bundle [%s]", j.ParentID)
	}
	err = tx.AppendLog(ctx, &store.LogEntry{JobID: j.ID, Time: j.CreatedTime, Level: "INFO", Message: msg})
	return j, err
}

// Committed dispatches the job's first tick.
func (s *stagedCoord) Committed() { s.e.rt.Dispatch([]*store.Effect{s.tick}) }

// prepare reads and checks a coordinator submission: the job it makes,
// not yet written.
func (e *Engine) prepare(ctx context.Context, props *conf.Config) (*stagedCoord, error) {
	props = props.Clone()
	if _, ok := props.Get(vocab.PropUser); !ok && e.defaultUser != "" {
		props.Set(vocab.PropUser, e.defaultUser)
	}
	now := e.now()
	err := e.checkExpansion(props)
	if err != nil {
		return nil, err
	}
	user, _ := props.Get(vocab.PropUser)
	if ctx, err = e.wf.JobUserContext(ctx, user); err != nil {
		return nil, err
	}
	app, full, err := coord.Submit(props, coord.SubmitOptions{
		ReadFile:            e.readFile(ctx),
		Now:                 now,
		MinFrequencyMinutes: e.opts.MinFrequencyMinutes,
		MaxActionBytes:      e.maxAction,
	})
	if err != nil {
		var ce *coord.Error
		if errors.As(err, &ce) && ce.Code != "" && ce.Form == vocab.FormPlain {
			return nil, &vocab.Error{Code: ce.Code, Msg: ce.Msg}
		}
		return nil, err
	}
	if err := e.checkExpansion(full); err != nil {
		return nil, err
	}
	var confXML strings.Builder
	if err := full.WriteXML(&confXML); err != nil {
		return nil, err
	}
	j := &store.CoordJob{
		AppName: app.Name, Status: store.CoordPrep, Conf: confXML.String(), Definition: app.Definition,
		Frequency: app.Frequency, TimeUnit: app.TimeUnit, TimeZone: app.TimeZone, Concurrency: app.Concurrency,
		Throttle: app.Throttle, Timeout: app.Timeout, Execution: app.Execution,
		StartTime: app.Start, EndTime: app.End, NextMaterializedTime: app.Start,
		CreatedTime: now, LastModTime: now,
	}
	j.AppPath, _ = full.Get(vocab.PropCoordAppPath)
	j.User, _ = full.Get(vocab.PropUser)
	if app.User != "" {
		j.User = app.User
	}
	j.Group, _ = full.Get(vocab.PropGroup)
	if app.Group != "" {
		j.Group = app.Group
	}
	j.ACL, _ = full.Get(vocab.PropACL)
	j.ExternalID, _ = full.Get(vocab.PropExternal)
	if err := applySubmitControls(j, app, full); err != nil {
		return nil, err
	}
	return &stagedCoord{e: e, job: j}, nil
}

// coordJob reads a coordinator job, E0604 when there is none.
func (e *Engine) coordJob(ctx context.Context, id string) (*store.CoordJob, error) {
	var j *store.CoordJob
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		j, err = tx.CoordJob(ctx, id)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, errorf(vocab.CodeJobNotFound, "Job does not exist [%s]", id)
	}
	return j, err
}

// CoordJob returns a coordinator job as stored.
func (e *Engine) CoordJob(ctx context.Context, id string) (*store.CoordJob, error) {
	return e.coordJob(ctx, id)
}

// changeCoord runs fn on the state of coordinator id under the job's lock
// and commits what fn changed, in one transaction; an error from fn
// commits nothing.
func (e *Engine) changeCoord(ctx context.Context, id string, fn func(c *coordChange) error) error {
	unlock := e.coordLock(id)
	defer unlock()
	c, err := e.loadCoordChange(ctx, id)
	if err != nil {
		return err
	}
	if err := fn(c); err != nil {
		return err
	}
	return e.commitCoord(ctx, c)
}

// Start is StartJob for a coordinator: a job in PREP is started now
// rather than at its next tick.
func (e *Engine) Start(ctx context.Context, id string) error {
	return e.changeCoord(ctx, id, func(c *coordChange) error {
		if c.job.Status != store.CoordPrep {
			return errorf(vocab.CodeAlreadyStarted, "Job already started, job [%s] status [%s]", id, c.job.Status)
		}
		return e.coordStep(ctx, c)
	})
}

// Suspend is Suspend for a coordinator: PREP -> PREPSUSPENDED,
// RUNNING and PAUSED -> SUSPENDED, their WITHERROR twins likewise, and the
// running workflows are suspended too (spec: coord 6.1.2).
func (e *Engine) Suspend(ctx context.Context, id string) error {
	return e.changeCoord(ctx, id, func(c *coordChange) error {
		j := c.job
		var to string
		switch j.Status {
		case store.CoordPrep:
			to = store.CoordPrepSuspended
		case store.CoordRunning, store.CoordPaused:
			to = store.CoordSuspended
		case store.CoordRunningWithError, store.CoordPausedWithError:
			to = store.CoordSuspendedWithError
		default:
			return errorf(vocab.CodeCannotSuspend, "Coordinator job can not be suspended as its not in running state, %s, Status: %s", id, j.Status)
		}
		c.setStatus(e, to)
		j.SuspendedTime = e.now()
		return e.cascade(ctx, c, EffectCoordSuspend, store.CoordActionRunning)
	})
}

// Resume is Resume for a coordinator: the suspend reversed, the
// workflows resumed, and a step run at once so that the actions due while
// the job was suspended are materialized now (delayed, not lost).
func (e *Engine) Resume(ctx context.Context, id string) error {
	return e.changeCoord(ctx, id, func(c *coordChange) error {
		j := c.job
		var to string
		switch j.Status {
		case store.CoordPrepSuspended:
			to = store.CoordPrep
		case store.CoordSuspended:
			to = store.CoordRunning
		case store.CoordSuspendedWithError:
			to = store.CoordRunningWithError
		default:
			return errorf(vocab.CodeNotSuspended, "Coordinator job not suspended, job [%s] status [%s]", id, j.Status)
		}
		c.setStatus(e, to)
		j.SuspendedTime = time.Time{}
		if err := e.cascade(ctx, c, EffectCoordResume, store.CoordActionRunning); err != nil {
			return err
		}
		// SUBMITTED actions whose launch was held while suspended go now.
		held, err := e.coordActions(ctx, id, store.CoordActionFilter{Statuses: []string{store.CoordActionSubmitted}})
		if err != nil {
			return err
		}
		for _, a := range held {
			c.addEffect(&store.Effect{Kind: EffectCoordSubmit, ActionID: a.ID})
		}
		return e.coordStep(ctx, c)
	})
}

// Kill is Kill for a coordinator: the job and every action not ended
// become KILLED and the launched workflows are killed.
func (e *Engine) Kill(ctx context.Context, id string) error {
	return e.changeCoord(ctx, id, func(c *coordChange) error {
		if CoordTerminal(c.job.Status) {
			return errorf(vocab.CodeCannotKill, "Coordinator job can not be killed, %s status [%s]", id, c.job.Status)
		}
		acts, err := e.coordActions(ctx, id, store.CoordActionFilter{Statuses: activeActionStatuses})
		if err != nil {
			return err
		}
		for _, a := range acts {
			c.killAction(e, a)
		}
		c.setStatus(e, store.CoordKilled)
		c.cancelTick()
		return nil
	})
}

// activeActionStatuses are the action statuses a kill applies to.
var activeActionStatuses = []string{store.CoordActionWaiting, store.CoordActionReady,
	store.CoordActionSubmitted, store.CoordActionRunning}

// cascade adds an effect per action in status, passing a job command on
// to the action's workflow.
func (e *Engine) cascade(ctx context.Context, c *coordChange, kind, status string) error {
	acts, err := e.coordActions(ctx, c.job.ID, store.CoordActionFilter{Statuses: []string{status}})
	if err != nil {
		return err
	}
	for _, a := range acts {
		if a.ExternalID != "" {
			c.addEffect(&store.Effect{Kind: kind, ActionID: a.ID})
		}
	}
	return nil
}

func (e *Engine) coordActions(ctx context.Context, id string, f store.CoordActionFilter) ([]*store.CoordAction, error) {
	var out []*store.CoordAction
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		out, err = tx.CoordActions(ctx, id, f)
		return err
	})
	return out, err
}
