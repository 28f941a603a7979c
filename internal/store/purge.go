package store

import (
	"context"
	"time"
)

// PurgeStep names one kind of root a purge round removes, in the order a
// round takes them (Oozie's PurgeXCommand: workflows, then the old
// actions of running coordinators, then coordinators, then bundles).
type PurgeStep int

// The steps of a purge round.
const (
	// PurgeWorkflows removes ended workflow jobs without a parent, with
	// their sub-workflows.
	PurgeWorkflows PurgeStep = iota
	// PurgeCoordActions removes the ended workflows of coordinator
	// actions and those actions, whatever their coordinator's status
	// (oozie.service.PurgeService.purge.old.coord.action).
	PurgeCoordActions
	// PurgeCoords removes ended coordinator jobs without a bundle, with
	// their actions and the workflows these launched.
	PurgeCoords
	// PurgeBundles removes ended bundle jobs with their coordinators.
	PurgeBundles
)

// String names the step in log lines.
func (s PurgeStep) String() string {
	switch s {
	case PurgeWorkflows:
		return "workflows"
	case PurgeCoordActions:
		return "coordinator actions"
	case PurgeCoords:
		return "coordinators"
	case PurgeBundles:
		return "bundles"
	}
	return "unknown"
}

// PurgeRules say which jobs a purge removes: ended ones whose end (a
// workflow; its last modification when it has no end time) or last
// modification (a coordinator or bundle) is before the cut-off of their
// kind. A job goes only together with everything it started, and only
// when all of that may go too.
type PurgeRules struct {
	WorkflowBefore time.Time
	CoordBefore    time.Time
	BundleBefore   time.Time
	// Limit is how many roots (the jobs a step selects, each with its
	// children) one transaction removes at most.
	Limit int
}

// PurgeCount counts what a purge removed.
type PurgeCount struct {
	Workflows    int
	CoordActions int
	Coords       int
	Bundles      int
	// Rows counts the rows deleted from every table: jobs, actions, log
	// lines, effects, SLA records, bundle actions.
	Rows int64
}

// Add adds o to c.
func (c *PurgeCount) Add(o PurgeCount) {
	c.Workflows += o.Workflows
	c.CoordActions += o.CoordActions
	c.Coords += o.Coords
	c.Bundles += o.Bundles
	c.Rows += o.Rows
}

// Purger is implemented by the stores that can remove old jobs (both SQL
// stores). A purge is a sequence of small transactions, so that the
// engines' commits wait for one batch at most.
type Purger interface {
	// PurgeBatch removes, in one transaction, up to r.Limit roots of step
	// whose ids sort after after, each with every row of it and of its
	// children, and returns what it removed and the cursor of the next
	// batch ("" once the step has no more candidates). A root whose
	// children may not all go yet is skipped whole.
	PurgeBatch(ctx context.Context, step PurgeStep, r PurgeRules, after string) (PurgeCount, string, error)
	// PurgeLock takes the store's purge lock for one round, so that one
	// server of several sharing the database purges at a time: ok is
	// false when another holds it. release frees it.
	PurgeLock(ctx context.Context) (release func(), ok bool, err error)
	// Reclaim gives the space freed by deleted rows back to the file
	// system where the database can do so on line (SQLite's incremental
	// vacuum) and returns the bytes given back; 0 where the database does
	// it itself (PostgreSQL's autovacuum).
	Reclaim(ctx context.Context) (int64, error)
}
