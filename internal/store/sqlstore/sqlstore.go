// Package sqlstore implements store.Store on database/sql with SQL that
// SQLite and PostgreSQL both accept (INSERT ... ON CONFLICT, RETURNING).
// What differs between the databases, the placeholder syntax and the DDL of
// the migrations, comes from a Dialect, so a PostgreSQL store is this
// package plus its own Dialect and driver.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// Dialect is what one database needs beyond the shared SQL.
type Dialect struct {
	// Name is used in error messages ("sqlite", "postgres").
	Name string
	// Rebind rewrites '?' placeholders into the database's syntax; nil
	// keeps them.
	Rebind func(query string) string
	// Retryable reports whether a transaction failed on a transient
	// conflict (a busy database, a serialization failure) and may be run
	// again; nil means never.
	Retryable func(err error) bool
	// Unavailable reports driver errors beyond store.Unavailable's that
	// mean the database cannot be reached now (PostgreSQL's connection
	// exceptions, SQLite busy after the retries); nil means none.
	Unavailable func(err error) bool
	// Sequences maps counter names to a query returning the counter's
	// next value, for counters the database keeps itself (PostgreSQL's
	// CREATE SEQUENCE). Other names use a row of the sequences table,
	// which every transaction asking for the name updates and so holds
	// locked until it commits: fine with SQLite's single writer, a queue
	// on a server with concurrent writers.
	Sequences map[string]string
	// ShareLock is appended to the ownership check of a fenced commit to
	// lock the job row against a concurrent take-over until the commit
	// (PostgreSQL: " FOR SHARE"). Several servers can share only a
	// database that has it.
	ShareLock string
	// TakeOverLock serializes the transactions that move jobs between
	// server instances (PostgreSQL: a transaction-scoped advisory lock),
	// so that two servers never split one instance's jobs.
	TakeOverLock string
	// LastInsertID says the driver reports the id an INSERT generated
	// (sql.Result.LastInsertId). The store then inserts effects and log
	// lines with a plain Exec instead of reading a RETURNING row, and
	// marks effects done without RETURNING when no ownership check needs
	// the job: database/sql starts a goroutine and a context per query
	// result to watch for cancellation, a good part of the cost of a
	// small statement in process (SQLite).
	LastInsertID bool
	// Pipeline, when set, makes Update send a transaction's statements in
	// as few round trips as its reads allow (pipeline.go). nil runs each
	// statement on its own, which costs nothing more in process (SQLite).
	Pipeline *Pipeline
	// Schema is the version the store's migrations bring the database to
	// (LatestVersion of its migrations); Ping's caller compares.
	Schema int
	// RowLock is appended to the purge's reads of the jobs it is about to
	// delete (PostgreSQL: " FOR UPDATE"), so that a job cannot start
	// again (a rerun) between the check that it ended and its deletion.
	// "" for a database with one writer.
	RowLock string
	// PurgeLock and PurgeUnlock take and free the lock that lets one
	// server of several purge at a time: PurgeLock returns one boolean,
	// true when taken (PostgreSQL: a session advisory lock). "" uses an
	// in-process lock.
	PurgeLock, PurgeUnlock string
	// Reclaim gives the space of deleted rows back to the file system
	// after a purge and returns the bytes (SQLite's incremental vacuum);
	// nil for a database that does so itself.
	Reclaim func(ctx context.Context, write *sql.DB) (int64, error)
	// FoldCounts replaces the delta rows of wf_job_counts by their sums
	// and returns one number, the rows replaced (PostgreSQL, whose
	// triggers append deltas; counts.go); "" for a database whose
	// triggers update the rows in place (SQLite).
	FoldCounts string
	// TextMatch, when set, returns a condition on wf_jobs that every job
	// whose id, name, app path or user contains text (lowered) meets and
	// that an index answers (SQLite's FTS5 trigram table, PostgreSQL's
	// pg_trgm index; migrations 0014 and 0017), with its arguments; ""
	// when no index helps (fewer than three characters). It narrows the
	// console's free-text search to candidates, which the exact
	// condition then checks.
	TextMatch func(text string) (string, []any)
	// TextFrom, when set, returns a FROM that joins wf_jobs to the text
	// index's candidates of text, led by the index, with its arguments:
	// a capped count of a common substring then stops after CountCap
	// matches instead of collecting every candidate first (SQLite's FTS5
	// yields them one by one). "" where TextMatch has none.
	TextFrom func(text string) (from string, args []any)
	// IndexText, when set, adds the jobs created since its last call to
	// the text index and returns how many (SQLite, whose FTS5 index
	// costs a segment per transaction when written by the job's own
	// commit); the store runs it in the background (counts.go).
	IndexText func(ctx context.Context, write *sql.DB) (int64, error)
	// IndexHints names the index of the purge's workflow scans in the
	// query (SQLite's INDEXED BY): without statistics, SQLite prefers
	// an index answering an equality of the scan (status, parent_id)
	// and sorts all its rows, over the partial index that holds just
	// the rows wanted, in the order wanted.
	IndexHints bool
}

// DB is a store.Store over database/sql. Writes go through Write; reads may
// use a separate pool (SQLite WAL readers run beside the single writer).
type DB struct {
	Write   *sql.DB
	Read    *sql.DB
	Dialect Dialect
	// q holds the rebound query text by name.
	q map[string]string

	// Prepared statements by pool and name: database/sql re-prepares a
	// plain Exec every time, and parsing SQL was a good part of the cost
	// of a small transaction.
	mu    sync.Mutex
	stmts map[*sql.DB]map[string]*sql.Stmt

	// owner is the registered server instance (Cluster.Register): the
	// owner of the jobs this store creates, and the only instance whose
	// commits to a job are accepted. "" leaves commits unfenced (one
	// server per database).
	owner atomic.Pointer[string]

	// observer is told of each transaction (Observe, stats.go).
	observer atomic.Pointer[observer]
	// purgeMu is the purge lock of a dialect without PurgeLock.
	purgeMu sync.Mutex

	// folding is set while a fold of the counts table runs in the
	// background (kickFold), folds lets Close wait for it, jobWrites
	// counts the job writes that kick one, foldedAt is when the last one
	// ended (Unix ns; counts.go).
	foldedAt  atomic.Int64
	folding   atomic.Bool
	folds     sync.WaitGroup
	jobWrites atomic.Int64
}

// fence returns the registered instance, "" when not registered.
func (db *DB) fence() string {
	if p := db.owner.Load(); p != nil {
		return *p
	}
	return ""
}

// New returns a store over the given pools. read may equal write.
func New(write, read *sql.DB, d Dialect) *DB {
	if read == nil {
		read = write
	}
	db := &DB{Write: write, Read: read, Dialect: d, q: map[string]string{}, stmts: map[*sql.DB]map[string]*sql.Stmt{}}
	for name, text := range queries {
		if d.Rebind != nil {
			text = d.Rebind(text)
		}
		db.q[name] = text
	}
	for name, text := range d.Sequences {
		db.q[seqQuery(name)] = text
	}
	for name, text := range ownerQueries(d) {
		if d.Rebind != nil {
			text = d.Rebind(text)
		}
		db.q[name] = text
	}
	db.prepareAll(write)
	db.prepareAll(read)
	return db
}

// Rebind rewrites '?' placeholders as $1, $2, ... for PostgreSQL.
func Rebind(query string) string {
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Update implements store.Store.
func (db *DB) Update(ctx context.Context, fn func(store.Tx) error) (err error) {
	defer db.observed("update", time.Now(), &err)
	return db.retry(ctx, func() error { return db.run(ctx, db.Write, false, fn) })
}

// retry runs a write transaction (attempt) again after the dialect's
// transient conflicts, backing off a little each time; attempt must
// therefore have no effects outside the transaction.
func (db *DB) retry(ctx context.Context, attempt func() error) error {
	const attempts = 20
	var err error
	for i := 0; i < attempts; i++ {
		err = attempt()
		if err == nil || db.Dialect.Retryable == nil || !db.Dialect.Retryable(err) {
			return db.classify(err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(i+1) * time.Millisecond):
		}
	}
	return db.classify(err)
}

// View implements store.Store.
func (db *DB) View(ctx context.Context, fn func(store.Tx) error) (err error) {
	defer db.observed("view", time.Now(), &err)
	return db.classify(db.run(ctx, db.Read, true, fn))
}

// classify marks an error that means the database is out of reach as
// store.ErrUnavailable, so that callers (the engine's effect retries, the
// REST API's 503) need not know the driver's error types. Errors of the
// function given to Update or View pass unchanged unless they wrap such
// an error themselves.
func (db *DB) classify(err error) error {
	if err == nil || errors.Is(err, store.ErrUnavailable) || errors.Is(err, context.Canceled) {
		return err
	}
	if store.Unavailable(err) || (db.Dialect.Unavailable != nil && db.Dialect.Unavailable(err)) {
		return &store.UnavailableError{Err: err}
	}
	return err
}

// prepareAll prepares every named query on a pool up front. Preparing
// later, inside a transaction, would need a second connection, and the
// SQLite writer pool has exactly one. A query that fails to prepare runs
// unprepared.
func (db *DB) prepareAll(pool *sql.DB) {
	if _, done := db.stmts[pool]; done {
		return
	}
	m := map[string]*sql.Stmt{}
	for name, text := range db.q {
		if st, err := pool.Prepare(text); err == nil {
			m[name] = st
		}
	}
	db.stmts[pool] = m
}

// Close implements store.Store.
func (db *DB) Close() error {
	db.folds.Wait()
	db.mu.Lock()
	for _, m := range db.stmts {
		for _, st := range m {
			st.Close()
		}
	}
	db.stmts = map[*sql.DB]map[string]*sql.Stmt{}
	db.mu.Unlock()
	err := db.Write.Close()
	if db.Read != db.Write {
		if e := db.Read.Close(); err == nil {
			err = e
		}
	}
	return err
}

func (db *DB) run(ctx context.Context, pool *sql.DB, readOnly bool, fn func(store.Tx) error) (err error) {
	if db.Dialect.Pipeline != nil {
		if readOnly {
			// Reads without a transaction block, each on any connection
			// of the pool: BEGIN and ROLLBACK were two of the four round
			// trips of a typical View. Under READ COMMITTED, PostgreSQL's
			// default, every statement sees a snapshot of its own inside
			// a transaction too, so the reads see the same.
			return fn(&tx{db: db, pool: pool, q: pool, readOnly: true, owner: db.fence()})
		}
		return db.runPipelined(ctx, fn)
	}
	sqlTx, err := pool.BeginTx(ctx, nil)
	if err != nil {
		return store.Errorf("%s: begin: %w", db.Dialect.Name, err)
	}
	t := &tx{db: db, pool: pool, tx: sqlTx, q: sqlTx, readOnly: readOnly, owner: db.fence()}
	defer func() {
		if p := recover(); p != nil {
			_ = sqlTx.Rollback()
			panic(p)
		}
	}()
	if err := fn(t); err != nil {
		_ = sqlTx.Rollback()
		return err
	}
	if readOnly {
		return sqlTx.Rollback()
	}
	if err := t.checkOwner(ctx); err != nil {
		_ = sqlTx.Rollback()
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		return store.Errorf("%s: commit: %w", db.Dialect.Name, err)
	}
	return nil
}

var errReadOnly = store.NewSentinel("store: write in a read-only transaction")

type tx struct {
	db       *DB
	pool     *sql.DB
	tx       *sql.Tx // nil for a dialect with a Pipeline
	q        querier // tx; with a Pipeline, the connection of an Update or the pool of a View
	readOnly bool
	// owner is the store's registered instance when the transaction
	// began ("" unfenced); touched collects the jobs it wrote to, whose
	// ownership is checked before the commit.
	owner   string
	touched map[string]bool
	// pipe holds the state of a pipelined transaction (pipeline.go); nil
	// otherwise.
	pipe *pipelined
}

// querier is what *sql.Tx, *sql.Conn and *sql.DB have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// rowScanner is a *sql.Row, or a failure to read one.
type rowScanner interface{ Scan(dest ...any) error }

// errRow is a row whose reading failed before the query ran.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// touch records that the transaction writes to a job (a workflow,
// coordinator or bundle job id, or an id of an action with "@").
func (t *tx) touch(id string) {
	if t.owner == "" || id == "" {
		return
	}
	id = vocab.JobOf(id)
	if t.touched == nil {
		t.touched = map[string]bool{}
	}
	t.touched[id] = true
}

// checkOwner fails the commit with store.ErrNotOwner when a job it wrote
// to belongs to another instance, as gozie_fence does on PostgreSQL
// (migration 0016): the jobs are t.owner's, or belong to an instance it
// inherited, and t.owner was not taken over. The checks lock each job row
// and then the servers rows (the dialect's ShareLock) until the commit, so
// a take-over either waits for this commit or has committed before the
// check sees it. A job that does not exist (deleted meanwhile) passes:
// nothing of it is left to protect.
func (t *tx) checkOwner(ctx context.Context) error {
	others := map[string]string{} // owner -> one of its jobs
	for id := range t.touched {
		var owner string
		err := t.queryRow(ctx, ownerQuery(id)+"Locked", id).Scan(&owner)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return store.Errorf("%s: owner of %s: %w", t.db.Dialect.Name, id, err)
		}
		if owner != t.owner {
			others[owner] = id
		}
	}
	if len(t.touched) == 0 {
		return nil
	}
	var heir sql.NullString
	if err := t.queryRow(ctx, "serverHeirLocked", t.owner).Scan(&heir); err != nil || heir.Valid {
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return store.Errorf("%s: instance %s: %w", t.db.Dialect.Name, t.owner, err)
		}
		return fmt.Errorf("instance %s: %w (taken over by %q)", t.owner, store.ErrNotOwner, heir.String)
	}
	for _, owner := range slices.Sorted(maps.Keys(others)) {
		id := others[owner]
		err := t.queryRow(ctx, "serverHeirLocked", owner).Scan(&heir)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return store.Errorf("%s: owner of %s: %w", t.db.Dialect.Name, id, err)
		}
		if err != nil || heir.String != t.owner {
			return fmt.Errorf("job %s: %w (%s)", id, store.ErrNotOwner, owner)
		}
	}
	return nil
}

// ownerQuery names the query of the owner of a job by the job's kind: a
// coordinator job (…-C), a bundle job (…-B), else a workflow job. The
// fenced commit's check appends "Locked".
func ownerQuery(id string) string {
	switch {
	case vocab.IsCoordJob(id):
		return "ownerCoord"
	case vocab.IsBundleJob(id):
		return "ownerBundle"
	}
	return "ownerWorkflow"
}

// prepared returns a named statement bound to this transaction, or nil
// when the query is not prepared.
func (t *tx) prepared(ctx context.Context, name string) *sql.Stmt {
	if t.tx == nil {
		// Not in a *sql.Tx (a dialect with a Pipeline): the driver
		// keeps prepared statements per connection itself.
		return nil
	}
	t.db.mu.Lock()
	st := t.db.stmts[t.pool][name]
	t.db.mu.Unlock()
	if st == nil {
		return nil
	}
	return t.tx.StmtContext(ctx, st)
}

func (t *tx) exec(ctx context.Context, name string, args ...any) error {
	if t.readOnly {
		return errReadOnly
	}
	if t.pipe != nil {
		t.pipe.queue = append(t.pipe.queue, Stmt{SQL: t.db.q[name], Args: args})
		return nil
	}
	var err error
	if st := t.prepared(ctx, name); st != nil {
		_, err = st.ExecContext(ctx, args...)
	} else {
		_, err = t.tx.ExecContext(ctx, t.db.q[name], args...)
	}
	if err != nil {
		return store.Errorf("%s: %s: %w", t.db.Dialect.Name, name, err)
	}
	return nil
}

// insert runs a named INSERT and returns the id it generated
// (Dialect.LastInsertID).
func (t *tx) insert(ctx context.Context, name string, args ...any) (int64, error) {
	if t.readOnly {
		return 0, errReadOnly
	}
	var res sql.Result
	var err error
	if st := t.prepared(ctx, name); st != nil {
		res, err = st.ExecContext(ctx, args...)
	} else {
		res, err = t.q.ExecContext(ctx, t.db.q[name], args...)
	}
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// queryRow runs a named query that returns one row.
func (t *tx) queryRow(ctx context.Context, name string, args ...any) rowScanner {
	if st := t.prepared(ctx, name); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.queryRowText(ctx, t.db.q[name], args...)
}

// queryRowText runs a query that returns one row; the writes a pipelined
// transaction has queued are sent first, so that it reads them.
func (t *tx) queryRowText(ctx context.Context, q string, args ...any) rowScanner {
	if err := t.flush(ctx); err != nil {
		return errRow{err}
	}
	return t.q.QueryRowContext(ctx, q, args...)
}

// query runs a query, after the queued writes as queryRowText.
func (t *tx) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	return t.q.QueryContext(ctx, q, args...)
}

// page is the LIMIT/OFFSET clause of a list: limit 0 means no bound, so
// an offset alone takes a huge LIMIT, which both databases read as none
// (each spells "no limit" its own way).
func page(limit, offset int) string {
	switch {
	case limit > 0:
		return fmt.Sprintf(" LIMIT %d OFFSET %d", limit, max(offset, 0))
	case offset > 0:
		return fmt.Sprintf(" LIMIT %d OFFSET %d", int64(1)<<62, offset)
	}
	return ""
}

// listRows reads every row of a list query (rows and err as t.query
// returned them) with scan, naming what in its errors.
func listRows[T any](t *tx, what string, rows *sql.Rows, err error, scan func(rowScanner) (T, error)) ([]T, error) {
	if err != nil {
		return nil, store.Errorf("%s: %s: %w", t.db.Dialect.Name, what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, store.Errorf("%s: %s: %w", t.db.Dialect.Name, what, err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
