package engine

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
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/store"
)

// PropCoordAppPath names the coordinator application of a submission; a
// configuration holding it makes Submit and Run create a coordinator job.
const PropCoordAppPath = "oozie.coord.application.path"

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

// CoordOptions tune the coordinator engine; zero values take the defaults
// documented in docs/coordinator-engine.md.
type CoordOptions struct {
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
	// Exists reports whether a dependency URI is available; default
	// fsys.Exists (file:// and plain paths).
	Exists func(uri string) (bool, error)
}

func (o CoordOptions) withDefaults() CoordOptions {
	if o.MaterializationWindow <= 0 {
		o.MaterializationWindow = time.Hour
	}
	if o.MaterializationLookahead <= 0 {
		o.MaterializationLookahead = 5 * time.Minute
	}
	if o.InputCheckInterval <= 0 {
		o.InputCheckInterval = time.Minute
	}
	if o.Exists == nil {
		o.Exists = fsys.Exists
	}
	return o
}

// coordRuntime is the engine's in-memory part for coordinator jobs: one
// lock per job (one writer per job, as for workflows) and parsed apps.
type coordRuntime struct {
	mu    sync.Mutex
	locks map[string]*sync.Mutex
	apps  map[string]*cachedApp
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
func (e *Engine) coordLock(id string) func() {
	rt := &e.coord
	rt.mu.Lock()
	if rt.locks == nil {
		rt.locks = map[string]*sync.Mutex{}
	}
	l := rt.locks[id]
	if l == nil {
		l = &sync.Mutex{}
		rt.locks[id] = l
	}
	rt.mu.Unlock()
	l.Lock()
	return l.Unlock
}

// coordApp returns the parsed app and configuration of a job, parsing once
// per definition.
func (e *Engine) coordApp(j *store.CoordJob) (*coord.App, *conf.Config, error) {
	rt := &e.coord
	rt.mu.Lock()
	c := rt.apps[j.ID]
	rt.mu.Unlock()
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
	withJobControls(app, j)
	rt.mu.Lock()
	if rt.apps == nil {
		rt.apps = map[string]*cachedApp{}
	}
	rt.apps[j.ID] = &cachedApp{definition: j.Definition, conf: j.Conf, end: j.EndTime, concurrency: j.Concurrency, app: app, props: props}
	rt.mu.Unlock()
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

// IsCoordJobID reports whether an id names a coordinator job.
func IsCoordJobID(id string) bool { return strings.HasSuffix(id, "-C") }

// isCoordConf reports whether a submission is a coordinator job.
func isCoordConf(props *conf.Config) bool {
	v, ok := props.Get(PropCoordAppPath)
	return ok && strings.TrimSpace(v) != ""
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

// coordSubmit creates a coordinator job from its job properties and starts
// it (specification 6.1.2: started immediately unless a pause time says
// otherwise): the job is committed in PREP with a tick due now, so a crash
// right after submission still starts it.
func (e *Engine) coordSubmit(ctx context.Context, props *conf.Config) (string, error) {
	props = props.Clone()
	if _, ok := props.Get(PropUser); !ok && e.opts.DefaultUser != "" {
		props.Set(PropUser, e.opts.DefaultUser)
	}
	now := e.now()
	if err := e.CheckExpansion(props); err != nil {
		return "", err
	}
	app, full, err := coord.Submit(props, coord.SubmitOptions{
		ReadFile:            e.coordReadFile(ctx),
		Now:                 now,
		MinFrequencyMinutes: e.opts.Coord.MinFrequencyMinutes,
	})
	if err != nil {
		var ce *coord.Error
		if errors.As(err, &ce) {
			return "", &Error{Code: ce.Code, Msg: ce.Msg}
		}
		return "", err
	}
	if err := e.CheckExpansion(full); err != nil {
		return "", err
	}
	var confXML strings.Builder
	if err := full.WriteXML(&confXML); err != nil {
		return "", err
	}
	j := &store.CoordJob{
		AppName: app.Name, Status: store.CoordPrep, Conf: confXML.String(), Definition: app.Definition,
		Frequency: app.Frequency, TimeUnit: app.TimeUnit, TimeZone: app.TimeZone, Concurrency: app.Concurrency,
		Throttle: app.Throttle, Timeout: app.Timeout, Execution: app.Execution,
		StartTime: app.Start, EndTime: app.End, NextMaterializedTime: app.Start,
		CreatedTime: now, LastModTime: now,
	}
	j.AppPath, _ = full.Get(PropCoordAppPath)
	j.User, _ = full.Get(PropUser)
	if app.User != "" {
		j.User = app.User
	}
	j.Group, _ = full.Get(PropGroup)
	if app.Group != "" {
		j.Group = app.Group
	}
	j.ACL, _ = full.Get(PropACL)
	j.ExternalID, _ = full.Get(PropExternal)
	tick := &store.Effect{Kind: EffectCoordTick, NotBefore: now, CreatedTime: now}
	err = e.store.Update(ctx, func(tx store.Tx) error {
		n, err := tx.NextSequence(ctx, store.JobSequence)
		if err != nil {
			return err
		}
		j.ID = formatJobID(n, e.started, e.opts.SystemID, "C")
		tick.JobID = j.ID
		if err := tx.AddEffect(ctx, tick); err != nil {
			return err
		}
		j.State = coordExtra{TickID: tick.ID, TickAt: now}.encode()
		if err := tx.PutCoordJob(ctx, j); err != nil {
			return err
		}
		return tx.AppendLog(ctx, &store.LogEntry{JobID: j.ID, Time: now, Level: "INFO",
			Message: fmt.Sprintf("coordinator job submitted, app [%s] status [%s]", j.AppName, j.Status)})
	})
	if err != nil {
		return "", err
	}
	e.dispatch([]*store.Effect{tick})
	return j.ID, nil
}

// coordJob reads a coordinator job, E0604 when there is none.
func (e *Engine) coordJob(ctx context.Context, id string) (*store.CoordJob, error) {
	var j *store.CoordJob
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		j, err = tx.CoordJob(ctx, id)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, errorf(CodeJobNotFound, "Job does not exist [%s]", id)
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

// coordStart is StartJob for a coordinator: a job in PREP is started now
// rather than at its next tick.
func (e *Engine) coordStart(ctx context.Context, id string) error {
	return e.changeCoord(ctx, id, func(c *coordChange) error {
		if c.job.Status != store.CoordPrep {
			return errorf(CodeAlreadyStarted, "Job already started, job [%s] status [%s]", id, c.job.Status)
		}
		return e.coordStep(ctx, c)
	})
}

// coordSuspend is Suspend for a coordinator: PREP -> PREPSUSPENDED,
// RUNNING and PAUSED -> SUSPENDED, their WITHERROR twins likewise, and the
// running workflows are suspended too (specification 6.1.2).
func (e *Engine) coordSuspend(ctx context.Context, id string) error {
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
			return errorf(CodeCannotSuspend, "Coordinator job can not be suspended as its not in running state, %s, Status: %s", id, j.Status)
		}
		c.setStatus(e, to)
		j.SuspendedTime = e.now()
		return e.cascade(ctx, c, EffectCoordSuspend, store.CoordActionRunning)
	})
}

// coordResume is Resume for a coordinator: the suspend reversed, the
// workflows resumed, and a step run at once so that the actions due while
// the job was suspended are materialized now (delayed, not lost).
func (e *Engine) coordResume(ctx context.Context, id string) error {
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
			return errorf(CodeNotSuspended, "Coordinator job not suspended, job [%s] status [%s]", id, j.Status)
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

// coordKill is Kill for a coordinator: the job and every action not ended
// become KILLED and the launched workflows are killed.
func (e *Engine) coordKill(ctx context.Context, id string) error {
	return e.changeCoord(ctx, id, func(c *coordChange) error {
		if CoordTerminal(c.job.Status) {
			return errorf(CodeCannotKill, "Coordinator job can not be killed, %s status [%s]", id, c.job.Status)
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
