package server

import (
	"context"
	"net/http"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store"
)

// Coordinators is the coordinator engine as the server sees it; *coordengine.Engine implements it
// (Options.Coordinators). The server needs nothing else of it, so the workflow server builds and
// tests on its own.
type Coordinators interface {
	// CoordJobInfo returns the coordinator job JSON object (rest-api.md 5.3) with the actions selected by
	// offset (1-based), length (<=0: default), desc order and status filter (7.2).
	CoordJobInfo(ctx context.Context, id string, offset, length int, desc bool, statuses []string) (*rest.CoordJob, error)
	// CoordActionInfo returns one coordinator action JSON object (5.4); id is <coordId>@<n>.
	CoordActionInfo(ctx context.Context, id string) (*rest.CoordAction, error)
	// CoordJobList returns coordinator job JSON objects for the jobs list and the total count.
	CoordJobList(ctx context.Context, f store.JobFilter) ([]*rest.CoordJob, int, error)
	// CoordDryrun returns the dry-run text for a coordinator submission (the "id" value of 3.1).
	CoordDryrun(ctx context.Context, props *conf.Config) (string, error)
	// CoordKillActions kills coordinator actions in scope (rangeType "action" or "date", 7.3) and returns the actions JSON list.
	CoordKillActions(ctx context.Context, id, rangeType, scope string) ([]*rest.CoordAction, error)
	// CoordChange changes a coordinator job's endtime, concurrency, pausetime or status (value as in 7.4).
	CoordChange(ctx context.Context, id, value string) error
	// CoordIgnore sets the job (empty scope) or the actions in scope to IGNORED; it returns the actions JSON
	// list, nil for the job.
	CoordIgnore(ctx context.Context, id, rangeType, scope string) ([]*rest.CoordAction, error)
	// CoordRerun reruns the ended actions in scope (rangeType "action" or "date") and returns the actions JSON list.
	CoordRerun(ctx context.Context, id, rangeType, scope string, refresh, noCleanup, failedOnly bool) ([]*rest.CoordAction, error)
	// CoordMissingDependencies answers show=missing-dependencies (rest-api.md
	// 4.1) for a coordinator job (actions in scope, or every WAITING one)
	// or one coordinator action.
	CoordMissingDependencies(ctx context.Context, id, rangeType, scope string) ([]coordengine.MissingDependencies, error)
	// CoordOwner returns what authorization needs of a coordinator job.
	CoordOwner(ctx context.Context, id string) (user, group, acl string, err error)
	// CoordUpdate re-reads a coordinator job's definition and, with a
	// non-empty props, replaces its configuration; it returns the changes
	// (rest-api.md 4.2 update), "" without opts.ShowDiff.
	CoordUpdate(ctx context.Context, id string, props *conf.Config, opts coordengine.UpdateOptions) (string, error)
	// CoordDefinition returns the coordinator XML of a job.
	CoordDefinition(ctx context.Context, id string) (string, error)
}

// errNoCoordinators answers coordinator requests when the backend has no
// coordinator engine.
func errNoCoordinators() *apiError {
	return errorf(http.StatusBadRequest, "E0302", "Invalid parameter [coordinator jobs are not supported by this server]")
}
