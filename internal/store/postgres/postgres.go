// Package postgres is gozie's shared store: the tables of the embedded store
// on a PostgreSQL server, through the pgx driver, so that several gozie
// servers can share one database when one machine is not enough.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib" // also registers the "pgx" database/sql driver

	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// maxIdleConns is how many open connections the pool keeps between
// transactions.
const maxIdleConns = 32

// maxOpenConns caps the connections of one store. PostgreSQL serves 100
// clients by default, and several servers share it: without a cap a busy
// server opened one per concurrent commit (up to the engine's 64 starts in
// flight), and three servers under load were refused with "too many
// clients". Beyond the cap a transaction waits for a free connection; on
// two cores 20 keeps the database busy.
const maxOpenConns = 20

// migrationLock is the advisory lock key held while migrations run, so that
// servers starting together apply each migration once. The value is
// arbitrary but fixed: every gozie binary must use the same one.
const migrationLock = 0x676f7a6965 // "gozie"

// purgeLock is the first key of the purge's advisory lock, the second
// being the schema's hash: "gozi", a 32-bit key (the two-key form takes
// two int4).
const purgeLock = 0x676f7a69

// Open connects to the database named by dsn (a PostgreSQL URL or key=value
// string, e.g. "postgres://gozie@db:5432/gozie" or
// "host=127.0.0.1 dbname=test") and applies the schema migrations.
//
// Its errors never show the DSN's password: the driver already tries to
// mask it, and the text is masked again here (redact.Secrets), since
// callers print and log these errors.
func Open(ctx context.Context, dsn string) (store.Store, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, &openError{"postgres: ", err}
	}
	// database/sql keeps only 2 idle connections by default: under
	// concurrent jobs every further transaction would open (and then
	// close) a connection, a new server backend each time. Keep enough warm
	// for the engine's concurrency; idle ones still go after a while.
	db.SetMaxOpenConns(maxOpenConns)
	db.SetMaxIdleConns(min(maxIdleConns, maxOpenConns))
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, &openError{"postgres: connect: ", err}
	}
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	textMatch, err := trigramMatch(ctx, db)
	if err != nil {
		db.Close()
		return nil, &openError{"postgres: ", err}
	}
	return sqlstore.New(db, db, sqlstore.Dialect{
		TextMatch:   textMatch,
		Name:        "postgres",
		Rebind:      sqlstore.Rebind,
		Retryable:   retryable,
		Unavailable: unavailable,
		Sequences:   map[string]string{store.JobSequence: `SELECT nextval('wf_job_ids')`},
		ShareLock:   " FOR SHARE",
		// Another key than migrationLock's: take-overs may run while a
		// newer server migrates.
		TakeOverLock: `SELECT pg_advisory_xact_lock(` + fmt.Sprint(migrationLock+1) + `)`,
		Pipeline:     pipeline,
		Schema:       sqlstore.LatestVersion(migrations, "migrations"),
		RowLock:      " FOR UPDATE",
		// One purge at a time among the servers of one schema (advisory
		// locks are the whole database's; stores in other schemas purge
		// tables of their own).
		PurgeLock:   `SELECT pg_try_advisory_lock(` + fmt.Sprint(purgeLock) + `, hashtext(current_schema()))`,
		PurgeUnlock: `SELECT pg_advisory_unlock(` + fmt.Sprint(purgeLock) + `, hashtext(current_schema()))`,
		// The deltas the triggers of migration 0017 append, folded: a
		// DELETE sees only committed rows, so the deltas of commits in
		// flight stay for the next fold, and of two concurrent folds the
		// second skips the rows the first deleted.
		FoldCounts: `WITH d AS (DELETE FROM wf_job_counts RETURNING user_name, status, n),
			s AS (INSERT INTO wf_job_counts (user_name, status, n)
				SELECT user_name, status, SUM(n) FROM d GROUP BY user_name, status HAVING SUM(n) <> 0)
			SELECT COUNT(*) FROM d`,
	}), nil
}

// trigramMatch is the Dialect's TextMatch when migration 0017 could
// create the trigram index of wf_job_text (pg_trgm available), nil when
// it could not: the side table alone, without its index, would only add
// a join to the scan.
func trigramMatch(ctx context.Context, db *sql.DB) (func(string) (string, []any), error) {
	var has bool
	err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_indexes
		WHERE schemaname = current_schema() AND indexname = 'wf_job_text_trgm')`).Scan(&has)
	if err != nil || !has {
		return nil, err
	}
	return func(text string) (string, []any) {
		if utf8.RuneCountInString(text) < 3 {
			return "", nil // no trigram: the index would be read whole
		}
		return `id IN (SELECT job_id FROM wf_job_text WHERE txt LIKE ? ESCAPE '\')`, []any{sqlstore.LikeContains(text)}
	}, nil
}

// pipeline sends a write transaction's statements as pgx batches: one
// round trip for all of them, instead of one per statement (see
// sqlstore.Pipeline).
var pipeline = &sqlstore.Pipeline{
	Send:        sendBatch,
	DoneEffects: `DELETE FROM wf_effects WHERE id = ANY($1) RETURNING job_id`,
	// The effects' deletion and the ownership check (gozie_fence,
	// migration 0008) in one statement: the check needs the jobs of the
	// deleted effects, which only the deletion knows.
	Seal: `WITH done AS (DELETE FROM wf_effects WHERE id = ANY($1) RETURNING job_id)
		SELECT gozie_fence(ARRAY(SELECT job_id FROM done) || $2::TEXT[], $3)`,
	NotOwner: func(err error) bool {
		var pgErr *pgconn.PgError
		return errors.As(err, &pgErr) && pgErr.Code == fenceCode
	},
}

// fenceCode is the SQLSTATE gozie_fence fails with.
const fenceCode = "GZ001"

// sendBatch is sqlstore.Pipeline.Send for the pgx database/sql driver.
func sendBatch(ctx context.Context, conn any, stmts []sqlstore.Stmt) error {
	c, ok := conn.(*stdlib.Conn)
	if !ok {
		return store.Errorf("postgres: pipeline on a %T connection", conn)
	}
	b := &pgx.Batch{}
	for _, s := range stmts {
		q := b.Queue(s.SQL, s.Args...)
		if row := s.Row; row != nil {
			q.Query(func(rows pgx.Rows) error {
				for rows.Next() {
					if err := row(rows); err != nil {
						return err
					}
				}
				return rows.Err()
			})
		}
	}
	return c.Conn().SendBatch(ctx, b).Close()
}

// openError is a failure to open the store, with any password in the
// driver's message masked.
type openError struct {
	prefix string
	err    error
}

func (e *openError) Error() string { return e.prefix + redact.Secrets(e.err.Error()) }
func (e *openError) Unwrap() error { return e.err }

// Is makes errors.Is(err, store.ErrStore) hold.
func (e *openError) Is(target error) bool { return target == store.ErrStore }

// migrate applies the migrations while holding a session advisory lock on a
// connection of its own; the statements themselves run on the pool, and any
// other server waits at the lock until they are done.
func migrate(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return store.Errorf("postgres: migrate: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
		return store.Errorf("postgres: migrate: lock: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLock)
	if err := sqlstore.Migrate(ctx, db, migrations, "migrations", sqlstore.Rebind); err != nil {
		return store.Errorf("postgres: %w", err)
	}
	return nil
}

// retryable reports the errors after which PostgreSQL asks for the whole
// transaction to be run again: serialization failures and deadlocks.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	return pgErr.Code == "40001" || pgErr.Code == "40P01"
}

// unavailable reports pgx errors that mean the server cannot be reached or
// is not serving now: a failed connection attempt, a timeout, and the
// SQLSTATE classes 08 (connection exception) and 57P01-57P03 (the server
// shutting down, crashed or still starting).
func unavailable(err error) bool {
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) || pgconn.Timeout(err) || errors.Is(err, pgconn.ErrConnClosed) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03"
	}
	// A connection that died mid-statement surfaces as pgx's own errors
	// without a SQLSTATE; pgconn says which are safe to run again.
	return pgconn.SafeToRetry(err)
}
