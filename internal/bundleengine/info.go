package bundleengine

import (
	"context"
	"errors"

	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// NewBundleJobJSON builds the REST bean of a bundle job (rest-api.md 5.5)
// with the given coordinators.
func NewBundleJobJSON(j *store.BundleJob, coords []*rest.CoordJob) *rest.BundleJob {
	out := &rest.BundleJob{
		BundleJobID: j.ID, BundleJobName: rest.Str(j.AppName), BundleJobPath: rest.Str(j.AppPath),
		BundleExternalID: rest.Str(j.ExternalID), Conf: rest.Str(j.Conf), Status: j.Status,
		TimeUnit: j.TimeUnit, TimeOut: j.TimeOut, KickoffTime: rest.Date(j.KickoffTime),
		StartTime: rest.Date(j.StartTime), EndTime: rest.Date(j.EndTime), PauseTime: rest.Date(j.PauseTime),
		CreatedTime: rest.Date(j.CreatedTime), User: rest.Str(j.User), Group: rest.Str(j.Group),
		ACL: rest.Str(j.ACL), BundleCoordJobs: coords,
		ToString: "Bundle id[" + j.ID + "] status[" + j.Status + "]",
	}
	if out.TimeUnit == "" {
		out.TimeUnit = "NONE"
	}
	if out.BundleCoordJobs == nil {
		out.BundleCoordJobs = []*rest.CoordJob{}
	}
	return out
}

// BundleJob returns a bundle job as stored, E0604 when there is none.
func (e *Engine) BundleJob(ctx context.Context, id string) (*store.BundleJob, error) {
	var j *store.BundleJob
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		j, err = tx.BundleJob(ctx, id)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, errorf(vocab.CodeJobNotFound, "Job does not exist [%s]", id)
	}
	return j, err
}

// BundleActions returns a bundle's coordinators as the bundle tracks them.
func (e *Engine) BundleActions(ctx context.Context, id string) ([]*store.BundleAction, error) {
	var out []*store.BundleAction
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		out, err = tx.BundleActions(ctx, id)
		return err
	})
	return out, err
}

// BundleJobInfo returns the bundle job bean with its coordinator jobs.
func (e *Engine) BundleJobInfo(ctx context.Context, id string) (*rest.BundleJob, error) {
	j, err := e.BundleJob(ctx, id)
	if err != nil {
		return nil, err
	}
	coords, _, err := e.coords.CoordJobList(ctx, store.JobFilter{ParentID: id})
	if err != nil {
		return nil, err
	}
	return NewBundleJobJSON(j, coords), nil
}

// BundleJobList lists bundle jobs as the items of the REST API's
// "bundlejobs" (the fields rest-api.md 5.6 lists), newest first, with
// the number of jobs matching f.
func (e *Engine) BundleJobList(ctx context.Context, f store.JobFilter) ([]*rest.BundleJob, int, error) {
	var jobs []*store.BundleJob
	var total int
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		if jobs, err = tx.BundleJobs(ctx, f); err != nil {
			return err
		}
		total, err = tx.CountBundleJobs(ctx, f)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	out := make([]*rest.BundleJob, 0, len(jobs))
	for _, j := range jobs {
		o := NewBundleJobJSON(j, nil)
		o.ACL, o.BundleExternalID, o.ConsoleURL, o.BundleCoordJobs = "", "", "", nil
		out = append(out, o)
	}
	return out, total, nil
}

// BundleOwner returns what authorization needs of a bundle job.
func (e *Engine) BundleOwner(ctx context.Context, id string) (user, group, acl string, err error) {
	j, err := e.BundleJob(ctx, id)
	if err != nil {
		return "", "", "", err
	}
	return j.User, j.Group, j.ACL, nil
}

// BundleDefinition returns the bundle XML of a job.
func (e *Engine) BundleDefinition(ctx context.Context, id string) (string, error) {
	j, err := e.BundleJob(ctx, id)
	if err != nil {
		return "", err
	}
	return j.Definition, nil
}
