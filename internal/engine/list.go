package engine

import (
	"context"

	"github.com/gozie/gozie/internal/store"
)

// Jobs returns a page of the workflow jobs matching f (newest first) and
// how many match in all, both read in one transaction so they agree.
func (e *Engine) Jobs(ctx context.Context, f store.JobFilter) ([]*store.Job, int, error) {
	var jobs []*store.Job
	var total int
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		if jobs, err = tx.Jobs(ctx, f); err != nil {
			return err
		}
		total, err = tx.CountJobs(ctx, f)
		return err
	})
	return jobs, total, err
}
