package main

// Writing rows fast: the store is created (and migrated) by the store
// package itself, then its secondary indexes and triggers are dropped,
// the rows are written in bulk (multi-row INSERTs on SQLite, COPY on
// PostgreSQL), and the indexes and triggers are created again from the
// definitions the database held, so that the seeded store has exactly
// the schema a migrated one has.

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/postgres"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// sink is one store being seeded.
type sink interface {
	// write appends rows of cols to table.
	write(ctx context.Context, table string, cols []string, rows [][]any) error
	// commit ends the current batch durably (SQLite) or does nothing.
	commit(ctx context.Context) error
	// finish restores indexes and triggers, sets the job id counter to
	// next, and refreshes the planner's statistics.
	finish(ctx context.Context, next int) error
	// size is the bytes the store takes.
	size(ctx context.Context) (int64, error)
	close() error
}

// seededTables are the tables the seeder fills, whose indexes and
// triggers are set aside while it writes.
var seededTables = []string{"wf_jobs", "wf_actions", "job_logs", "coord_jobs", "coord_actions", "wf_effects"}

// migrate creates the store through its own package, which applies every
// migration, and refuses a store that already holds jobs.
func migrate(ctx context.Context, open func(context.Context) (store.Store, error)) error {
	st, err := open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	var jobs []*store.Job
	err = st.View(ctx, func(tx store.Tx) error {
		var err error
		jobs, err = tx.Jobs(ctx, store.JobFilter{Limit: 1, Brief: true})
		return err
	})
	if err == nil && len(jobs) > 0 {
		err = fmt.Errorf("the store already holds jobs (%s); seed a new one", jobs[0].ID)
	}
	return err
}

// recount fills the jobs' counts table (SQLite migration 0014,
// PostgreSQL 0017), whose triggers were set aside while the jobs were
// written, as the migration does.
var recount = []string{"DELETE FROM wf_job_counts",
	`INSERT INTO wf_job_counts (user_name, status, n)
		SELECT user_name, status, COUNT(*) FROM wf_jobs GROUP BY user_name, status`}

// The same for the free-text search's index of the jobs (SQLite: FTS5,
// PostgreSQL: wf_job_text and its trigram index).
var (
	sqliteRetext = []string{"DELETE FROM wf_job_text_ids", "INSERT INTO wf_jobs_text (wf_jobs_text) VALUES ('delete-all')",
		"INSERT INTO wf_job_text_ids (job_id) SELECT id FROM wf_jobs",
		`INSERT INTO wf_jobs_text (rowid, txt)
			SELECT t.k, j.id || char(10) || j.app_name || char(10) || j.app_path || char(10) || j.user_name
			FROM wf_job_text_ids t JOIN wf_jobs j ON j.id = t.job_id`,
		`INSERT INTO sequences (name, value) VALUES ('wf_jobs_text', COALESCE((SELECT MAX(k) FROM wf_job_text_ids), 0))
			ON CONFLICT (name) DO UPDATE SET value = excluded.value`}
	pgRetext = []string{"TRUNCATE wf_job_text",
		`INSERT INTO wf_job_text (job_id, txt)
			SELECT id, lower(id) || chr(10) || lower(app_name) || chr(10) || lower(app_path) || chr(10) || lower(user_name)
			FROM wf_jobs`}
)

// sqliteSink writes a SQLite database file.
type sqliteSink struct {
	path  string
	db    *sql.DB
	tx    *sql.Tx
	saved []string // CREATE statements of the dropped indexes and triggers
}

// sqliteMaxVars is SQLite's limit of bound parameters per statement.
const sqliteMaxVars = 32766

func openSQLite(ctx context.Context, path string) (*sqliteSink, error) {
	if err := migrate(ctx, func(ctx context.Context) (store.Store, error) { return sqlite.Open(ctx, path) }); err != nil {
		return nil, err
	}
	// The seeder is the database's only user, and a crash means seeding
	// again: no fsync until the end.
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)&_pragma=cache_size(-200000)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	s := &sqliteSink{path: path, db: db}
	q := `SELECT name, type, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL
		AND tbl_name IN ('` + strings.Join(seededTables, "','") + `') AND sql NOT LIKE 'CREATE UNIQUE%'`
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		db.Close()
		return nil, err
	}
	var drops []string
	for rows.Next() {
		var name, typ, def string
		if err := rows.Scan(&name, &typ, &def); err != nil {
			rows.Close()
			db.Close()
			return nil, err
		}
		s.saved = append(s.saved, def)
		drops = append(drops, "DROP "+strings.ToUpper(typ)+" "+name)
	}
	rows.Close()
	for _, d := range drops {
		if _, err := db.ExecContext(ctx, d); err != nil {
			db.Close()
			return nil, fmt.Errorf("%s: %w", d, err)
		}
	}
	return s, nil
}

func (s *sqliteSink) write(ctx context.Context, table string, cols []string, rows [][]any) error {
	if s.tx == nil {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		s.tx = tx
	}
	per := sqliteMaxVars / len(cols)
	for len(rows) > 0 {
		n := min(per, len(rows))
		if _, err := s.tx.ExecContext(ctx, insertSQL(table, cols, n, nil), flatten(rows[:n])...); err != nil {
			return fmt.Errorf("insert into %s: %w", table, err)
		}
		rows = rows[n:]
	}
	return nil
}

// insertSQL is a multi-row INSERT of n rows; ph numbers placeholders
// ($1...) when set, else they are '?'.
func insertSQL(table string, cols []string, n int, ph func(int) string) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES ")
	k := 0
	for r := 0; r < n; r++ {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteByte(',')
			}
			k++
			if ph != nil {
				b.WriteString(ph(k))
			} else {
				b.WriteByte('?')
			}
		}
		b.WriteByte(')')
	}
	return b.String()
}

func flatten(rows [][]any) []any {
	out := make([]any, 0, len(rows)*len(rows[0]))
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

func (s *sqliteSink) commit(context.Context) error {
	if s.tx == nil {
		return nil
	}
	err := s.tx.Commit()
	s.tx = nil
	return err
}

func (s *sqliteSink) finish(ctx context.Context, next int) error {
	if err := s.commit(ctx); err != nil {
		return err
	}
	stmts := append(append(append(append([]string{}, s.saved...), recount...), sqliteRetext...),
		fmt.Sprintf(`INSERT INTO sequences (name, value) VALUES ('%s', %d)
			ON CONFLICT (name) DO UPDATE SET value = excluded.value`, store.JobSequence, next),
		// No ANALYZE: the server never runs it, so a real store's
		// planner has no statistics either.
		"PRAGMA wal_checkpoint(TRUNCATE)")
	for _, q := range stmts {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", firstLine(q), err)
		}
	}
	return nil
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

func (s *sqliteSink) size(context.Context) (int64, error) {
	var n int64
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if fi, err := os.Stat(s.path + suffix); err == nil {
			n += fi.Size()
		}
	}
	return n, nil
}

func (s *sqliteSink) close() error { return s.db.Close() }

// pgSink writes a PostgreSQL schema through COPY.
type pgSink struct {
	conn   *pgx.Conn
	schema string
	saved  []string
}

// schemaDSN returns dsn with search_path set to schema (URL form).
func schemaDSN(dsn, schema string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		return "", fmt.Errorf("-dsn must be a postgres:// URL (got %q)", dsn)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func openPostgres(ctx context.Context, dsn, schema string) (*pgSink, error) {
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	_, err = admin.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize())
	admin.Close(ctx)
	if err != nil {
		return nil, err
	}
	sdsn, err := schemaDSN(dsn, schema)
	if err != nil {
		return nil, err
	}
	if err := migrate(ctx, func(ctx context.Context) (store.Store, error) { return postgres.Open(ctx, sdsn) }); err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, sdsn)
	if err != nil {
		return nil, err
	}
	s := &pgSink{conn: conn, schema: schema}
	// Secondary indexes only: those of primary keys and unique
	// constraints stay (they check the seeded ids).
	rows, err := conn.Query(ctx, `SELECT i.indexname, i.indexdef FROM pg_indexes i
		JOIN pg_class c ON c.relname = i.indexname JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = i.schemaname
		JOIN pg_index x ON x.indexrelid = c.oid
		WHERE i.schemaname = $1 AND i.tablename = ANY($2) AND NOT x.indisunique`, schema, seededTables)
	if err != nil {
		conn.Close(ctx)
		return nil, err
	}
	var names []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			rows.Close()
			conn.Close(ctx)
			return nil, err
		}
		names, s.saved = append(names, name), append(s.saved, def)
	}
	rows.Close()
	stmts := []string{}
	for _, n := range names {
		stmts = append(stmts, "DROP INDEX "+pgx.Identifier{schema, n}.Sanitize())
	}
	for _, t := range seededTables {
		stmts = append(stmts, "ALTER TABLE "+t+" DISABLE TRIGGER USER")
	}
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			conn.Close(ctx)
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	return s, nil
}

func (s *pgSink) write(ctx context.Context, table string, cols []string, rows [][]any) error {
	_, err := s.conn.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
	if err != nil {
		return fmt.Errorf("copy into %s: %w", table, err)
	}
	return nil
}

func (s *pgSink) commit(context.Context) error { return nil }

func (s *pgSink) finish(ctx context.Context, next int) error {
	stmts := append([]string{"SET maintenance_work_mem = '256MB'"}, s.saved...)
	for _, t := range seededTables {
		stmts = append(stmts, "ALTER TABLE "+t+" ENABLE TRIGGER USER")
	}
	stmts = append(append(append(stmts, recount...), pgRetext...),
		fmt.Sprintf("SELECT setval('wf_job_ids', %d)", next),
		"SELECT setval(pg_get_serial_sequence('wf_effects', 'id'), GREATEST((SELECT MAX(id) FROM wf_effects), 1))",
		// What autovacuum would have done over the year the rows
		// stand for: statistics, and the visibility map that lets
		// counts read indexes only.
		"VACUUM (ANALYZE)")
	for _, q := range stmts {
		if _, err := s.conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", firstLine(q), err)
		}
	}
	return nil
}

func (s *pgSink) size(ctx context.Context) (int64, error) {
	var n int64
	err := s.conn.QueryRow(ctx, `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`, s.schema).Scan(&n)
	return n, err
}

func (s *pgSink) close() error { return s.conn.Close(context.Background()) }
