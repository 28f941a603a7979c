// Package jobs is the one face of the engines that the server, the
// console and the command line use: a Service over the workflow, the
// coordinator and the bundle engine, which routes submissions and job
// commands by the kind of job they name (a "-C" or "-B" id, a
// configuration naming oozie.coord.application.path or
// oozie.bundle.application.path) and otherwise reads through the workflow
// engine. The engines are peers on one effect runtime and do not know
// each other; this is where the system holds all three.
package jobs

import (
	"context"
	"strings"

	"github.com/gozie/gozie/internal/bundleengine"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/vocab"
)

// Workflows, Coordinators and Bundles name the engines as Service embeds
// them.
type (
	Workflows    = engine.Engine
	Coordinators = coordengine.Engine
	Bundles      = bundleengine.Engine
)

// Service serves the faces over the engines. The workflow engine's
// methods (jobs, logs, reruns, files, limits) are promoted from it, the
// coordinator engine's Coord* methods from it, the bundle engine's
// Bundle* methods from it; the commands the engines share go to the
// engine of the job's kind.
type Service struct {
	*Workflows
	*Coordinators // nil: no coordinator jobs
	*Bundles      // nil: no bundle jobs
}

// New returns the service over wf, coords and bundles; coords and bundles
// may be nil (no coordinator or bundle jobs: their submissions and
// commands are refused E0302).
func New(wf *engine.Engine, coords *coordengine.Engine, bundles *bundleengine.Engine) *Service {
	return &Service{Workflows: wf, Coordinators: coords, Bundles: bundles}
}

// isBundleConf reports whether a submission is a bundle job.
func isBundleConf(props *conf.Config) bool {
	v, ok := props.Get(vocab.PropBundleAppPath)
	return ok && strings.TrimSpace(v) != ""
}

func errNoBundles() error {
	return vocab.Errorf("E0302", "Invalid parameter [bundle jobs are not supported by this engine]")
}

// isCoordID reports whether an id names a coordinator job.
func isCoordID(id string) bool { return vocab.IsCoordJob(id) }

// isCoordConf reports whether a submission is a coordinator job.
func isCoordConf(props *conf.Config) bool {
	v, ok := props.Get(vocab.PropCoordAppPath)
	return ok && strings.TrimSpace(v) != ""
}

func errNoCoordinators() error {
	return vocab.Errorf("E0302", "Invalid parameter [coordinator jobs are not supported by this engine]")
}

// Submit creates a job in PREP, a coordinator (which starts on
// submission) when props name its application.
func (s *Service) Submit(ctx context.Context, props *conf.Config) (string, error) {
	if isBundleConf(props) {
		if s.Bundles == nil {
			return "", errNoBundles()
		}
		return s.Bundles.Submit(ctx, props)
	}
	if isCoordConf(props) {
		if s.Coordinators == nil {
			return "", errNoCoordinators()
		}
		return s.Coordinators.Submit(ctx, props)
	}
	return s.Workflows.Submit(ctx, props)
}

// Run creates a job and starts it: a workflow in one transaction, a
// coordinator as Submit does.
func (s *Service) Run(ctx context.Context, props *conf.Config) (string, error) {
	if isBundleConf(props) {
		if s.Bundles == nil {
			return "", errNoBundles()
		}
		return s.Bundles.Run(ctx, props)
	}
	if isCoordConf(props) {
		return s.Submit(ctx, props)
	}
	return s.Workflows.Run(ctx, props)
}

// Start starts the engines: the workflow engine starts the effect runtime
// it made, which performs the pending effects of both.
func (s *Service) Start(ctx context.Context) error { return s.Workflows.Start(ctx) }

// Close stops the engines.
func (s *Service) Close() error { return s.Workflows.Close() }

// StartJob starts a job in PREP.
func (s *Service) StartJob(ctx context.Context, id string) error {
	return s.command(ctx, id, s.Workflows.StartJob, (*coordengine.Engine).Start, (*bundleengine.Engine).Start)
}

// Suspend suspends a job.
func (s *Service) Suspend(ctx context.Context, id string) error {
	return s.command(ctx, id, s.Workflows.Suspend, (*coordengine.Engine).Suspend, (*bundleengine.Engine).Suspend)
}

// Resume resumes a suspended job.
func (s *Service) Resume(ctx context.Context, id string) error {
	return s.command(ctx, id, s.Workflows.Resume, (*coordengine.Engine).Resume, (*bundleengine.Engine).Resume)
}

// Kill kills a job.
func (s *Service) Kill(ctx context.Context, id string) error {
	return s.command(ctx, id, s.Workflows.Kill, (*coordengine.Engine).Kill, (*bundleengine.Engine).Kill)
}

// command sends a job command to the engine of the job's kind.
func (s *Service) command(ctx context.Context, id string, wf func(context.Context, string) error,
	coord func(*coordengine.Engine, context.Context, string) error,
	bundle func(*bundleengine.Engine, context.Context, string) error) error {
	if vocab.IsBundleJob(id) {
		if s.Bundles == nil {
			return errNoBundles()
		}
		return bundle(s.Bundles, ctx, id)
	}
	if !isCoordID(id) {
		return wf(ctx, id)
	}
	if s.Coordinators == nil {
		return errNoCoordinators()
	}
	return coord(s.Coordinators, ctx, id)
}
