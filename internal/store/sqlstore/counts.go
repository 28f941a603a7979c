package sqlstore

// The totals of the workflow jobs lists, read from wf_job_counts (SQLite
// migration 0014, PostgreSQL 0017): rows of (user, status, n) that the
// database's triggers keep, so that the total of a list filtered by
// nothing, statuses and users is a sum over a few rows, whatever the
// number of jobs; and the console's free-text search over the text
// index of the same migrations (wfWhere, recentText, textFrom).

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/store"
)

const (
	// foldRows is how many rows a total may sum before the store folds
	// the deltas (Dialect.FoldCounts): a read of a few thousand small
	// rows costs well under a millisecond.
	foldRows = 2000
	// foldWrites is how many job writes through this store kick a fold
	// even when nobody reads the totals, so that the deltas of a busy
	// server that nobody lists stay bounded, and the text of new jobs
	// (IndexJobText): the jobs a search scans beside the index.
	foldWrites = 1000
	// foldTimeout bounds one fold in the background.
	foldTimeout = time.Minute
	// foldEvery spaces the folds a reader kicks: with many users the
	// folded rows alone may exceed foldRows, and folding them again on
	// every read would only rewrite them.
	foldEvery = 10 * time.Second
)

// countable reports whether the counts table answers the total of f:
// filters of status and user only (the table's columns); any other
// condition needs a COUNT(*) of the jobs.
func countable(f store.JobFilter) bool {
	return f.ParentID == "" && f.ParentPrefix == "" && f.AppName == "" && len(f.Names) == 0 &&
		len(f.Groups) == 0 && len(f.IDs) == 0 && f.ExternalID == "" && f.Text == "" &&
		f.CreatedAfter.IsZero() && f.CreatedBefore.IsZero()
}

// countFromCounts is the total of a countable filter: the sum of the
// matching rows (jobWhere renders the filter, the counts table having
// wf_jobs' column names). Summing more than foldRows rows kicks a fold.
func (t *tx) countFromCounts(ctx context.Context, f store.JobFilter) (int, error) {
	where, args := jobWhere(f)
	q := `SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT), COUNT(*) FROM wf_job_counts` + where
	q = t.rebind(q)
	var n, rows int
	if err := t.queryRowText(ctx, q, args...).Scan(&n, &rows); err != nil {
		return 0, store.Errorf("%s: count jobs: %w", t.db.Dialect.Name, err)
	}
	if rows > foldRows {
		t.db.kickFold()
	}
	return n, nil
}

// kickFold folds the deltas of the counts table and indexes the text
// of new jobs in the background, unless that is running or the dialect
// needs neither.
func (db *DB) kickFold() {
	if (db.Dialect.FoldCounts == "" && db.Dialect.IndexText == nil) ||
		time.Now().UnixNano()-db.foldedAt.Load() < int64(foldEvery) || !db.folding.CompareAndSwap(false, true) {
		return
	}
	db.folds.Add(1)
	go func() {
		defer db.folds.Done()
		defer db.folding.Store(false)
		defer func() { db.foldedAt.Store(time.Now().UnixNano()) }()
		ctx, cancel := context.WithTimeout(context.Background(), foldTimeout)
		defer cancel()
		// A failed fold leaves the deltas, which stay right, and jobs
		// not indexed yet are searched without the index: the next kick
		// tries again.
		_, _ = db.FoldJobCounts(ctx)
		_, _ = db.IndexJobText(ctx)
	}()
}

// wroteJob counts a job write and kicks a fold every foldWrites of them.
func (db *DB) wroteJob() {
	if db.jobWrites.Add(1)%foldWrites == 0 {
		db.kickFold()
	}
}

// IndexJobText adds the jobs created since the last call to the text
// index where the dialect defers that (Dialect.IndexText) and returns
// how many; 0 elsewhere. Jobs not yet indexed are found all the same,
// by a scan of their few rows.
func (db *DB) IndexJobText(ctx context.Context) (int64, error) {
	if db.Dialect.IndexText == nil {
		return 0, nil
	}
	n, err := db.Dialect.IndexText(ctx, db.Write)
	if err != nil {
		return n, db.classify(store.Errorf("%s: index job text: %w", db.Dialect.Name, err))
	}
	return n, nil
}

// FoldJobCounts replaces the delta rows of the jobs' counts table by one
// row per (user, status) and returns how many rows it replaced; 0 for a
// database whose table holds no deltas (SQLite). Concurrent folds, by
// several servers, are safe: each delta row is deleted, and summed, by
// one of them only.
func (db *DB) FoldJobCounts(ctx context.Context) (int64, error) {
	if db.Dialect.FoldCounts == "" {
		return 0, nil
	}
	var n int64
	if err := db.Write.QueryRowContext(ctx, db.Dialect.FoldCounts).Scan(&n); err != nil {
		return 0, db.classify(store.Errorf("%s: fold job counts: %w", db.Dialect.Name, err))
	}
	return n, nil
}

// wfWhere is jobWhere for wf_jobs: with a free text, the dialect's
// indexed condition (Dialect.TextMatch) is added to the exact one, so
// that the database reads the candidates from the text index instead of
// every job.
func (db *DB) wfWhere(f store.JobFilter) (string, []any) {
	where, args := jobWhere(f)
	if f.Text == "" || db.Dialect.TextMatch == nil {
		return where, args
	}
	cond, more := db.Dialect.TextMatch(strings.ToLower(f.Text))
	if cond == "" {
		return where, args
	}
	return where + " AND " + cond, append(args, more...)
}

const (
	// recentJobs is how many of the newest jobs a free-text page looks
	// at first (recentText).
	recentJobs = 5000
	// textProbe is how many candidates of the text index make a text
	// common enough to look for its page among the newest jobs first.
	textProbe = 2000
)

// recentText answers a page of a free-text search from the newest
// recentJobs jobs when they hold the whole page (offset and limit): a
// common substring fills it there, in a read of those rows in list
// order (20-30 ms on a million jobs), where the text index would yield
// every one of its matches to be sorted (20,000 to 220,000 in
// bench/seed's store, 0.2-1 s). ok is false when the page needs older
// jobs; the caller then reads the candidates from the index. Where the
// index can say cheaply that the text is rare (Dialect.TextFrom: fewer
// than textProbe candidates), the newest jobs are not read at all: a
// miss there cost 50 ms of SQLite's wide rows.
func (t *tx) recentText(ctx context.Context, cols string, f store.JobFilter) ([]*store.Job, bool, error) {
	if f.Text == "" || f.Limit <= 0 || f.Offset+f.Limit > recentJobs/10 {
		return nil, false, nil
	}
	probe := f
	probe.CountCap = textProbe - 1
	if from, fromArgs := t.db.textFrom(probe); from != "" {
		var n int
		q := fmt.Sprintf(`SELECT COUNT(*) FROM (SELECT 1 FROM %s LIMIT %d) n`, from, textProbe)
		q = t.rebind(q)
		if err := t.queryRowText(ctx, q, fromArgs...).Scan(&n); err != nil {
			return nil, false, store.Errorf("%s: jobs: %w", t.db.Dialect.Name, err)
		}
		if n < textProbe {
			return nil, false, nil
		}
	}
	where, args := jobWhere(f)
	q := `SELECT * FROM (SELECT ` + cols + ` FROM wf_jobs` + listOrder + fmt.Sprintf(` LIMIT %d) r`, recentJobs) +
		where + listOrder + page(f.Limit+max(f.Offset, 0), 0)
	q = t.rebind(q)
	rows, err := t.query(ctx, q, args...)
	jobs, err := listRows(t, "jobs", rows, err, func(r rowScanner) (*store.Job, error) { return scanJob(r) })
	if err != nil || len(jobs) < f.Limit+max(f.Offset, 0) {
		return nil, false, err
	}
	return jobs[max(f.Offset, 0):], true, nil
}

// textFrom is the FROM of a capped count of a free-text search driven by
// the text index (Dialect.TextFrom), with its arguments; "" when the
// dialect has none or the count is not capped.
func (db *DB) textFrom(f store.JobFilter) (string, []any) {
	if f.Text == "" || f.CountCap <= 0 || db.Dialect.TextFrom == nil {
		return "", nil
	}
	return db.Dialect.TextFrom(strings.ToLower(f.Text))
}
