package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
)

// autoVacuumIncremental is PRAGMA auto_vacuum's value for INCREMENTAL.
const autoVacuumIncremental = 2

// incrementalIfNew sets auto_vacuum=INCREMENTAL on a database that has no
// page yet: the mode can only be chosen before the first table exists
// (or by a VACUUM, see reclaim), and with it the purge can give freed
// pages back to the file system without rewriting the file.
func incrementalIfNew(ctx context.Context, w *sql.DB) error {
	var pages int64
	if err := w.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		return fmt.Errorf("page count: %w", err)
	}
	if pages > 0 {
		return nil
	}
	if _, err := w.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
		return fmt.Errorf("auto_vacuum: %w", err)
	}
	return nil
}

// reclaim is the store's Reclaim after a purge round: PRAGMA
// incremental_vacuum moves the free pages to the file's end and cuts
// them off, and the bytes are the free pages it released. A database
// created before gozie chose INCREMENTAL (auto_vacuum NONE) is converted
// first, by the one VACUUM SQLite needs for that: it rewrites the whole
// file while holding the write lock, once, and the bytes are those the
// file shrank by.
func reclaim(ctx context.Context, w *sql.DB) (int64, error) {
	conn, err := w.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	pragma := func(name string) (int64, error) {
		var v int64
		err := conn.QueryRowContext(ctx, `PRAGMA `+name).Scan(&v)
		if err != nil {
			err = fmt.Errorf("sqlite: PRAGMA %s: %w", name, err)
		}
		return v, err
	}
	mode, err := pragma("auto_vacuum")
	if err != nil {
		return 0, err
	}
	pageSize, err := pragma("page_size")
	if err != nil {
		return 0, err
	}
	if mode != autoVacuumIncremental {
		before, err := pragma("page_count")
		if err != nil {
			return 0, err
		}
		if _, err := conn.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
			return 0, fmt.Errorf("sqlite: auto_vacuum: %w", err)
		}
		if _, err := conn.ExecContext(ctx, `VACUUM`); err != nil {
			return 0, fmt.Errorf("sqlite: VACUUM: %w", err)
		}
		after, err := pragma("page_count")
		return max(before-after, 0) * pageSize, err
	}
	before, err := pragma("freelist_count")
	if err != nil || before == 0 {
		return 0, err
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA incremental_vacuum`); err != nil {
		return 0, fmt.Errorf("sqlite: incremental_vacuum: %w", err)
	}
	after, err := pragma("freelist_count")
	return max(before-after, 0) * pageSize, err
}

// Backup writes a consistent copy of the database at path to dest while
// servers keep using it: VACUUM INTO reads one snapshot (WAL lets it run
// beside the writer) and writes a compact database file, which `gozie
// server` opens like any other (copied into a data directory as
// gozie.db). dest must not exist; it is created with mode 0600, as the
// store's own files are. The database is opened without migrations, so
// that a backup never changes it.
func Backup(ctx context.Context, path, dest string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	f, err := os.OpenFile(dest, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	f.Close()
	done := false
	defer func() {
		if !done {
			os.Remove(dest)
		}
	}()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("backup: open %s: %w", path, err)
	}
	defer db.Close()
	var tables int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE name = 'schema_migrations'`).Scan(&tables); err != nil {
		return fmt.Errorf("backup: %s: %w", path, err)
	}
	if tables == 0 {
		return fmt.Errorf("backup: %s is not a gozie database (no schema_migrations table)", path)
	}
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, dest); err != nil {
		return fmt.Errorf("backup: VACUUM INTO %s: %w", dest, err)
	}
	done = true
	return nil
}
