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
