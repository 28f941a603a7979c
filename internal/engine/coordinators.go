package engine

import (
	"context"
	"errors"

	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// PropCoordAppPath names the coordinator application of a submission: a
// coordinator job, which package jobs passes to the coordinator engine.
const PropCoordAppPath = coord.PropAppPath

// IsCoordJobID reports whether an id names a coordinator job.
func IsCoordJobID(id string) bool { return vocab.IsCoordJob(id) }

// LaunchID returns the id of the effect that launched a workflow (Launch),
// 0 for a workflow created otherwise or by an older version.
func LaunchID(j *store.Job) int64 {
	x, _ := decodeExtra(j.State)
	return x.Launch
}

// LaunchID is the package's LaunchID, for the coordinator engine.
func (e *Engine) LaunchID(j *store.Job) int64 { return LaunchID(j) }

// DefaultUser is the user of submissions that name none
// (Options.DefaultUser).
func (e *Engine) DefaultUser() string { return e.opts.DefaultUser }

// MaxActionBytes bounds an action after EL (Options.MaxActionBytes).
func (e *Engine) MaxActionBytes() int { return e.opts.MaxActionBytes }

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
