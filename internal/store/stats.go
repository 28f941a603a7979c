package store

import (
	"context"
	"time"
)

// The optional parts of a store that the server's metrics and readiness
// probe use. A store without them (a test's wrapper) is simply not
// measured that way.

// Observed is a store that reports each of its transactions.
type Observed interface {
	// Observe has fn told of every Update ("update") and View ("view")
	// once it returns: how long it took, its error. fn must not block.
	// nil stops the reports.
	Observe(fn func(op string, took time.Duration, err error))
}

// Pinger is a store a readiness probe can ask whether it answers.
type Pinger interface {
	// Ping asks the database one trivial question and returns the
	// version of its schema (the last migration applied), or the error
	// that kept it from answering (ErrUnavailable when it is out of
	// reach or too slow for ctx).
	Ping(ctx context.Context) (schema int, err error)
	// Schema is the version this binary's migrations bring the database
	// to: Ping returning less means they have not all run.
	Schema() int
}

// StatusCount is how many jobs of a kind ("workflow", "coordinator",
// "bundle") are in a status.
type StatusCount struct {
	Kind, Status string
	N            int
}

// Stats are counts of the whole store, cheap enough to read every scrape.
type Stats struct {
	Jobs []StatusCount
	// Effects are the pending effects (the outbox); Due those whose
	// delay is over at the time given, the oldest of which became due
	// at OldestDue (zero when none is due).
	Effects, Due int
	OldestDue    time.Time
}

// Counter is a store that counts jobs by status and pending effects.
type Counter interface {
	Stats(ctx context.Context, now time.Time) (Stats, error)
}
