package effect

import (
	"context"

	"github.com/gozie/gozie/internal/store"
)

// StagedJob is a new job one engine prepared for a transaction another
// engine makes, so that a change crossing the two is one commit: the
// coordinator's launch writes a new workflow job, started, with its own
// action RUNNING and its launch effect done.
type StagedJob interface {
	// Write stores the job in tx and returns it as written (its id, its
	// status). It may be called again when the store retries tx.
	Write(ctx context.Context, tx store.Tx) (*store.Job, error)
	// Committed follows the commit of tx: the job's first effects are
	// dispatched.
	Committed()
}

// StagedCoord is a new coordinator job the coordinator engine prepared for
// the bundle engine's transaction: the bundle records the coordinator it
// submits in the commit that creates it.
type StagedCoord interface {
	// Write stores the job in tx and returns it as written. It may be
	// called again when the store retries tx.
	Write(ctx context.Context, tx store.Tx) (*store.CoordJob, error)
	// Committed follows the commit of tx: the job's first tick is
	// dispatched.
	Committed()
}
