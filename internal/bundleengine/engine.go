// Package bundleengine runs bundle jobs (bundle specification section 4):
// a set of coordinator jobs submitted, started at the bundle's kick-off
// time, paused, suspended, resumed, changed, rerun and killed as one data
// pipeline, with the bundle's status rolled up from its coordinators'.
//
// It is the third peer engine on the effect runtime: every change of a
// bundle is committed with its effects and log lines in one transaction,
// and the effects (the bundle's timer, the submission of one coordinator,
// a command passed on to one coordinator, a coordinator's report of its new
// status) are kinds New registers on the runtime. The bundle engine uses
// the coordinator engine through Coordinators, an interface of its own
// that *coordengine.Engine satisfies; neither package imports the other.
// A coordinator of a bundle names the bundle as its ParentID and reports
// each change of its status through the coordinator engine's
// EffectBundleNotify kind, which this engine performs.
package bundleengine

import (
	"context"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// Effect kinds of bundle jobs. JobID is the bundle job id and, for the
// per-coordinator ones, ActionID the bundle action id.
const (
	// EffectBundleTick is a bundle's timer: the start at kick-off time,
	// the pause at pause time, the unpause when the pause time moved.
	EffectBundleTick = "bundle-tick"
	// EffectBundleSubmit submits the coordinator of one bundle action.
	EffectBundleSubmit = "bundle-submit"
	// EffectBundleCommand passes a bundle command (suspend, resume,
	// kill, change, rerun; the payload says which) on to the coordinator
	// of one bundle action.
	EffectBundleCommand = "bundle-command"
)

// EffectBundleNotify is the kind by which a coordinator of a bundle reports
// a change of its status (JobID: the coordinator); the coordinator engine
// queues it, this engine performs it.
var EffectBundleNotify = effect.NotifyKind(vocab.TypeBundle)

// Host is what the bundle engine uses of the workflow engine's settings:
// job ids, the default user, the expansion bound, reading the job's files
// with the user's rights. *engine.Engine has these methods.
type Host interface {
	NewJobID(n int64, kind string) string
	DefaultUser() string
	CheckExpansion(props *conf.Config) error
	CoordFileReader(ctx context.Context) func(string) ([]byte, error)
	JobUserContext(ctx context.Context, user string) (context.Context, error)
}

// Coordinators is what the bundle engine uses of the coordinator engine;
// *coordengine.Engine has these methods.
type Coordinators interface {
	// StageCoord prepares a coordinator of a bundle, to be written by the
	// bundle's transaction that records its id.
	StageCoord(ctx context.Context, props *conf.Config, bundleID, name string) (effect.StagedCoord, error)
	// Suspend, Resume and Kill are the coordinator job commands,
	// CoordChange and CoordRerun the change and rerun commands.
	Suspend(ctx context.Context, id string) error
	Resume(ctx context.Context, id string) error
	Kill(ctx context.Context, id string) error
	CoordChange(ctx context.Context, id, value string) error
	CoordRerun(ctx context.Context, id, rangeType, scope string, refresh, noCleanup, failedOnly bool) ([]*rest.CoordAction, error)
	// CoordJobList lists coordinator jobs as the REST API shows them: a
	// bundle's (ParentID) for its info.
	CoordJobList(ctx context.Context, f store.JobFilter) ([]*rest.CoordJob, int, error)
}

// Engine runs bundle jobs.
type Engine struct {
	host   Host
	coords Coordinators
	rt     *effect.Runtime
	store  store.Store
	clock  effect.Clock
	logf   func(format string, args ...any)
	locks  effect.Locks // one writer per bundle
}

// New returns a bundle engine working with coords on rt (the runtime the
// other engines perform their effects on) and registers its effect kinds
// there. Call it before the runtime starts, so that pending bundle
// effects are performed.
func New(host Host, coords Coordinators, rt *effect.Runtime) *Engine {
	e := &Engine{host: host, coords: coords, rt: rt, store: rt.Store(), clock: rt.Clock(), logf: rt.Logf}
	h := effectHandler{e}
	for _, kind := range []string{EffectBundleTick, EffectBundleSubmit, EffectBundleCommand, EffectBundleNotify} {
		rt.Register(kind, h)
	}
	return e
}

// effectHandler performs and quarantines the bundle effect kinds.
type effectHandler struct{ e *Engine }

// Perform performs a bundle effect.
func (h effectHandler) Perform(ctx context.Context, ef *store.Effect) error {
	return h.e.PerformEffect(ctx, ef)
}

// Quarantine gives up on an effect that kept killing the server: it is
// marked done and the bundle's log says so, so that the bundle can be
// operated on again (a coordinator not submitted stays without one).
func (h effectHandler) Quarantine(ctx context.Context, ef *store.Effect, _ int, msg string) error {
	bundleID := ef.JobID
	if ef.Kind == EffectBundleNotify {
		bundleID = ""
	}
	return h.e.store.Update(ctx, func(tx store.Tx) error {
		if err := tx.DoneEffect(ctx, ef.ID); err != nil {
			return err
		}
		if bundleID == "" {
			return nil
		}
		return tx.AppendLog(ctx, &store.LogEntry{JobID: bundleID, ActionID: ef.ActionID, Time: h.e.now(),
			Level: "ERROR", Message: "effect " + ef.Kind + " quarantined: " + msg})
	})
}

// now is the engine's time, to the millisecond the store keeps.
func (e *Engine) now() time.Time { return e.clock.Now().Truncate(time.Millisecond) }

func errorf(code, format string, args ...any) *vocab.Error {
	return vocab.Errorf(code, format, args...)
}

// Terminal reports whether a bundle status is final: SUCCEEDED,
// DONEWITHERROR, KILLED or FAILED.
func Terminal(status string) bool {
	switch status {
	case store.BundleSucceeded, store.BundleDoneWithError, store.BundleKilled, store.BundleFailed:
		return true
	}
	return false
}
