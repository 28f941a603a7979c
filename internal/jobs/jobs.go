// Package jobs is the one face of the engines that the server, the
// console and the command line use: a Service over the workflow engine
// and the coordinator engine, which routes submissions and job commands
// by the kind of job they name (a "-C" id, a configuration naming
// oozie.coord.application.path) and otherwise reads through the workflow
// engine. The engines are peers on one effect runtime and do not know
// each other; this is where the system holds both, and where a bundle
// engine will join as a third.
package jobs

import (
	"context"
	"strings"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/vocab"
)

// Workflows and Coordinators name the engines as Service embeds them.
type (
	Workflows    = engine.Engine
	Coordinators = coordengine.Engine
)

// Service serves the faces over both engines. The workflow engine's
// methods (jobs, logs, reruns, files, limits) are promoted from it, the
// coordinator engine's Coord* methods from it; the commands both engines
// have go to the engine of the job's kind.
type Service struct {
	*Workflows
	*Coordinators // nil: no coordinator jobs
}

// New returns the service over wf and coords; coords may be nil (no
// coordinator jobs: their submissions and commands are refused E0302).
func New(wf *engine.Engine, coords *coordengine.Engine) *Service {
	return &Service{Workflows: wf, Coordinators: coords}
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
	return s.command(ctx, id, s.Workflows.StartJob, (*coordengine.Engine).Start)
}

// Suspend suspends a job.
func (s *Service) Suspend(ctx context.Context, id string) error {
	return s.command(ctx, id, s.Workflows.Suspend, (*coordengine.Engine).Suspend)
}

// Resume resumes a suspended job.
func (s *Service) Resume(ctx context.Context, id string) error {
	return s.command(ctx, id, s.Workflows.Resume, (*coordengine.Engine).Resume)
}

// Kill kills a job.
func (s *Service) Kill(ctx context.Context, id string) error {
	return s.command(ctx, id, s.Workflows.Kill, (*coordengine.Engine).Kill)
}

// command sends a job command to the engine of the job's kind.
func (s *Service) command(ctx context.Context, id string, wf func(context.Context, string) error,
	coord func(*coordengine.Engine, context.Context, string) error) error {
	if !isCoordID(id) {
		return wf(ctx, id)
	}
	if s.Coordinators == nil {
		return errNoCoordinators()
	}
	return coord(s.Coordinators, ctx, id)
}
