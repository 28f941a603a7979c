package engine

import (
	"context"
	"errors"
	"strings"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// PropCoordAppPath names the coordinator application of a submission; a
// configuration holding it makes Submit and Run create a coordinator job.
const PropCoordAppPath = coord.PropAppPath

// Coordinators is the coordinator engine as the workflow engine knows it.
// Package coordengine implements it and attaches itself with
// SetCoordinators.
//
// The dependency points from coordengine to this package, not the other
// way: the coordinator side needs much of the workflow side (creating,
// starting and commanding the workflows its actions launch, job ids and
// error codes, and the one effect machinery: dispatch, hold and settle,
// retries, the sweep, ownership), while the workflow side needs only to
// pass on what names a coordinator (a submission, a command for a "-C"
// id) and to hand over the effects the coordinator defines. That takes
// this one interface, and lets a workflow engine run without coordinators.
type Coordinators interface {
	// Submit creates a coordinator job from job properties naming
	// PropCoordAppPath; the job starts on submission.
	Submit(ctx context.Context, props *conf.Config) (string, error)
	// Start, Suspend, Resume and Kill are the job commands for a
	// coordinator job (IsCoordJobID).
	Start(ctx context.Context, id string) error
	Suspend(ctx context.Context, id string) error
	Resume(ctx context.Context, id string) error
	Kill(ctx context.Context, id string) error
	// EffectKinds names the effect kinds PerformEffect performs.
	EffectKinds() EffectKinds
	// PerformEffect performs an effect of those kinds, or the notify
	// effect (store.EffectNotify) of a workflow whose parent is a
	// coordinator action: its ActionID names the action. It is called
	// as the workflow engine's own effects are (effects.go): an error
	// performs the effect again after a backoff, store.ErrNotOwner gives
	// the job up to its new owner, E0604 marks the effect done.
	PerformEffect(ctx context.Context, ef *store.Effect) error
	// QuarantineEffect marks done, instead of performing it, an effect of
	// those kinds that the server died performing deaths times (the crash
	// journal, quarantine.go), with a line in its job's log saying so and
	// whatever else the job needs to go on without it. msg is that line's
	// reason. Errors are treated as PerformEffect's are.
	QuarantineEffect(ctx context.Context, ef *store.Effect, msg string) error
}

// EffectKinds describes the effect kinds of a Coordinators.
type EffectKinds struct {
	// All are the kinds performed; the sweep leaves pending effects of
	// kinds nobody performs (a newer binary's) alone.
	All []string
	// InOrder are kinds whose effects of one job, dispatched together,
	// are performed one after the other in commit order instead of each
	// on a goroutine of its own (a coordinator's workflow launches, which
	// its execution policy ordered).
	InOrder []string
}

// SetCoordinators attaches the coordinator engine; call it before Start.
func (e *Engine) SetCoordinators(c Coordinators) {
	k := c.EffectKinds()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.coords = c
	e.coordKinds = map[string]bool{}
	e.inOrder = map[string]bool{}
	for _, kind := range k.All {
		e.coordKinds[kind] = true
	}
	for _, kind := range k.InOrder {
		e.inOrder[kind] = true
	}
}

// coordinators returns the attached coordinator engine, or nil.
func (e *Engine) coordinators() Coordinators {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.coords
}

// errNoCoordinators refuses coordinator jobs when no coordinator engine
// is attached.
func errNoCoordinators() error {
	return errorf("E0302", "Invalid parameter [coordinator jobs are not supported by this engine]")
}

// coordEffect reports whether ef is the coordinator engine's to perform:
// one of its kinds, or the notify effect of a workflow it launched.
func (e *Engine) coordEffect(ef *store.Effect) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.coords == nil {
		return false
	}
	if ef.Kind == store.EffectNotify {
		parent := vocab.JobOf(ef.ActionID)
		return IsCoordJobID(parent)
	}
	return e.coordKinds[ef.Kind]
}

// IsCoordJobID reports whether an id names a coordinator job.
func IsCoordJobID(id string) bool { return vocab.IsCoordJob(id) }

// isCoordConf reports whether a submission is a coordinator job.
func isCoordConf(props *conf.Config) bool {
	v, ok := props.Get(PropCoordAppPath)
	return ok && strings.TrimSpace(v) != ""
}

// Launch creates, in PREP, the workflow of coordinator action actionID
// (its ParentID), recording launch, the id of the effect launching it, so
// that a retry of that effect finds the workflow (LaunchID) instead of
// creating another.
func (e *Engine) Launch(ctx context.Context, props *conf.Config, actionID string, launch int64) (string, error) {
	return e.submit(ctx, props, &parentInfo{jobID: actionID, actionID: actionID, launch: launch})
}

// LaunchID returns the id of the effect that launched a workflow (Launch),
// 0 for a workflow created otherwise or by an older version.
func LaunchID(j *store.Job) int64 {
	x, _ := decodeExtra(j.State)
	return x.Launch
}

// NewJobID formats the id of job number n (Tx.NextSequence) of this
// engine: kind "W" for a workflow, "C" for a coordinator.
func (e *Engine) NewJobID(n int64, kind string) string {
	return formatJobID(n, e.started, e.opts.SystemID, kind)
}

// Options returns the engine's options with their defaults applied.
func (e *Engine) Options() Options { return e.opts }

// CoordFileReader is the reader coordinator submissions and dry runs use:
// config-default.xml is a configuration file, everything else they read
// (coordinator.xml, dataset includes) a definition, each bounded by the
// engine's limits.
func (e *Engine) CoordFileReader(ctx context.Context) func(string) ([]byte, error) {
	return boundedCoordReader(ctx, e.opts.MaxDefinitionBytes, e.opts.MaxConfFileBytes)
}

// CoordError turns a *coord.Error into an *Error with the same code, so a
// coordinator's mistake gets one Oozie code whichever path finds it.
func CoordError(err error) error {
	var ce *coord.Error
	if errors.As(err, &ce) && ce.Code != "" && ce.Form == vocab.FormPlain {
		return &Error{Code: ce.Code, Msg: ce.Msg}
	}
	return err
}

// submitCoord passes a coordinator submission on.
func (e *Engine) submitCoord(ctx context.Context, props *conf.Config) (string, error) {
	c := e.coordinators()
	if c == nil {
		return "", errNoCoordinators()
	}
	return c.Submit(ctx, props)
}
