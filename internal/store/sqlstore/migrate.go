package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Migrate applies the migrations in dir of fsys that the database has not
// seen yet, in order of their numeric prefix ("0001_init.sql"), each in its
// own transaction together with its row in schema_migrations. Files hold
// statements separated by ";" at the end of a line.
func Migrate(ctx context.Context, db *sql.DB, fsys fs.FS, dir string, rebind func(string) string) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_ms BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	type mig struct {
		version int
		name    string
	}
	var migs []mig
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return fmt.Errorf("migrate: file %s lacks a numeric prefix", e.Name())
		}
		migs = append(migs, mig{v, e.Name()})
	}
	sort.Slice(migs, func(i, j int) bool { return migs[i].version < migs[j].version })
	if rebind == nil {
		rebind = func(s string) string { return s }
	}
	known := map[int]bool{}
	for _, m := range migs {
		known[m.version] = true
	}
	if err := checkKnown(ctx, db, known); err != nil {
		return err
	}
	for _, m := range migs {
		var n int
		if err := db.QueryRowContext(ctx, rebind(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`), m.version).Scan(&n); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if n > 0 {
			continue
		}
		body, err := fs.ReadFile(fsys, dir+"/"+m.name)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		for _, stmt := range splitStatements(string(body)) {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				_ = tx.Rollback()
				return fmt.Errorf("migrate %s: %w", m.name, err)
			}
		}
		if _, err := tx.ExecContext(ctx, rebind(`INSERT INTO schema_migrations (version, name, applied_ms) VALUES (?, ?, ?)`),
			m.version, m.name, time.Now().UnixMilli()); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("migrate %s: %w", m.name, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migrate %s: %w", m.name, err)
		}
	}
	return nil
}

// splitStatements cuts a migration at lines ending in ";" and drops "--"
// comment lines, except within a dollar-quoted body ($$ ... $$, a
// PostgreSQL function's), whose lines are kept as written. Migrations are
// ours, so no other quoting rules are needed.
func splitStatements(s string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for _, line := range strings.Split(s, "\n") {
		trimmed := strings.TrimSpace(line)
		if !quoted && (strings.HasPrefix(trimmed, "--") || trimmed == "") {
			continue
		}
		cur.WriteString(line)
		cur.WriteString("\n")
		if strings.Count(line, "$$")%2 == 1 {
			quoted = !quoted
		}
		if !quoted && strings.HasSuffix(trimmed, ";") {
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		}
	}
	if strings.TrimSpace(cur.String()) != "" {
		out = append(out, strings.TrimSpace(cur.String()))
	}
	return out
}

// SchemaTooNewError is Migrate's refusal of a database that a newer gozie
// has migrated: it records a migration this binary does not carry, so
// this binary's SQL may not fit its tables (a dropped or renamed column),
// and applying nothing is the only safe answer.
type SchemaTooNewError struct {
	// Database is the highest migration the database records that the
	// binary does not know, Name its file name; Binary the highest
	// migration the binary carries.
	Database int
	Name     string
	Binary   int
}

func (e *SchemaTooNewError) Error() string {
	if e.Database < e.Binary {
		return fmt.Sprintf("the database records migration %d (%s), which this gozie binary (schema version %d) does not carry: "+
			"another build migrated it; run that build against it (or restore a backup taken before)", e.Database, e.Name, e.Binary)
	}
	return fmt.Sprintf("the database's schema is at version %d (%s), newer than this gozie binary's %d: "+
		"a newer gozie migrated it; run that version or a newer one against it (or restore a backup taken before the upgrade)",
		e.Database, e.Name, e.Binary)
}

// checkKnown refuses a database that records a migration not in known.
func checkKnown(ctx context.Context, db *sql.DB, known map[int]bool) error {
	rows, err := db.QueryContext(ctx, `SELECT version, name FROM schema_migrations ORDER BY version DESC`)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer rows.Close()
	binary := 0
	for v := range known {
		binary = max(binary, v)
	}
	for rows.Next() {
		var v int
		var name string
		if err := rows.Scan(&v, &name); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if !known[v] {
			return &SchemaTooNewError{Database: v, Name: name, Binary: binary}
		}
	}
	return rows.Err()
}
