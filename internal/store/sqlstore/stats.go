package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// observer is what Observe installs: one function, behind a pointer so
// that Update and View read it without a lock.
type observer func(op string, took time.Duration, err error)

// Observe implements store.Observed.
func (db *DB) Observe(fn func(op string, took time.Duration, err error)) {
	if fn == nil {
		db.observer.Store(nil)
		return
	}
	o := observer(fn)
	db.observer.Store(&o)
}

// observed reports a transaction to the observer, if any; deferred with
// the start time and the named result.
func (db *DB) observed(op string, start time.Time, err *error) {
	if p := db.observer.Load(); p != nil {
		(*p)(op, time.Since(start), *err)
	}
}

// Ping implements store.Pinger: one query on the reading pool, which
// both proves a connection answers and reads the schema version.
func (db *DB) Ping(ctx context.Context) (int, error) {
	var v sql.NullInt64
	err := db.Read.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v)
	if err != nil {
		if ctx.Err() != nil {
			err = errors.Join(err, ctx.Err())
		}
		return 0, db.classify(store.Errorf("%s: ping: %w", db.Dialect.Name, err))
	}
	return int(v.Int64), nil
}

// Schema implements store.Pinger.
func (db *DB) Schema() int { return db.Dialect.Schema }

// LatestVersion is the version of the last migration in dir of fsys (the
// numeric prefix of its file name), 0 when there is none.
func LatestVersion(fsys fs.FS, dir string) int {
	entries, _ := fs.ReadDir(fsys, dir)
	latest := 0
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		if v, err := strconv.Atoi(num); ok && err == nil && strings.HasSuffix(e.Name(), ".sql") {
			latest = max(latest, v)
		}
	}
	return latest
}

// statsJobQueries count each kind's jobs by status: the status columns
// are indexed, so each is a scan of one small index.
var statsJobQueries = []struct{ kind, query string }{
	{"workflow", `SELECT status, COUNT(*) FROM wf_jobs GROUP BY status`},
	{"coordinator", `SELECT status, COUNT(*) FROM coord_jobs GROUP BY status`},
	{"bundle", `SELECT status, COUNT(*) FROM bundle_jobs GROUP BY status`},
}

// Stats implements store.Counter.
func (db *DB) Stats(ctx context.Context, now time.Time) (store.Stats, error) {
	var st store.Stats
	// Not through View: the metrics' own reads are not the store's
	// transactions they report.
	err := db.classify(db.run(ctx, db.Read, true, func(stx store.Tx) error {
		t := stx.(*tx)
		for _, q := range statsJobQueries {
			rows, err := t.query(ctx, q.query)
			if err != nil {
				return err
			}
			for rows.Next() {
				c := store.StatusCount{Kind: q.kind}
				if err := rows.Scan(&c.Status, &c.N); err != nil {
					rows.Close()
					return store.Errorf("%s: stats: %w", db.Dialect.Name, err)
				}
				st.Jobs = append(st.Jobs, c)
			}
			if err := errors.Join(rows.Err(), rows.Close()); err != nil {
				return store.Errorf("%s: stats: %w", db.Dialect.Name, err)
			}
		}
		// Pending effects are few and have a partial index; the due
		// ones are those whose delay is over, due since their delay's
		// end or their creation.
		var oldest sql.NullInt64
		nowMS := now.UnixMilli()
		err := t.queryRowText(ctx, db.rebind(`SELECT COUNT(*),
			COALESCE(SUM(CASE WHEN not_before_ms IS NULL OR not_before_ms <= ? THEN 1 ELSE 0 END), 0),
			MIN(CASE WHEN not_before_ms IS NULL OR not_before_ms <= ?
				THEN (CASE WHEN not_before_ms IS NOT NULL AND not_before_ms > created_ms THEN not_before_ms ELSE created_ms END) END)
			FROM wf_effects WHERE done_ms IS NULL`), nowMS, nowMS).Scan(&st.Effects, &st.Due, &oldest)
		if err != nil {
			return store.Errorf("%s: stats: %w", db.Dialect.Name, err)
		}
		if oldest.Valid {
			st.OldestDue = time.UnixMilli(oldest.Int64)
		}
		return nil
	}))
	return st, err
}

// rebind applies the dialect's placeholders to a query written with '?'.
func (db *DB) rebind(q string) string {
	if db.Dialect.Rebind != nil {
		return db.Dialect.Rebind(q)
	}
	return q
}
