package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
)

// autoVacuumIncremental is PRAGMA auto_vacuum's value for INCREMENTAL.
const autoVacuumIncremental = 2

// reclaimStep is how many free pages one incremental_vacuum step gives
// back (1 MiB of 4 KiB pages): the engines' commits wait for one step at
// most, not for the whole freed space. Measured (TestPurgeStall, 340 MB
// freed): 1 MiB steps kept engine commits under 40 ms, 4 MiB steps let
// them wait 120 ms.
const reclaimStep = 256

// reclaim is the store's Reclaim after a purge round: PRAGMA
// incremental_vacuum moves free pages to the file's end and cuts them
// off, reclaimStep pages per statement, and the bytes are the free pages
// released. A database created before gozie chose INCREMENTAL
// (auto_vacuum NONE) is converted first, by the one VACUUM SQLite needs
// for that: it rewrites the whole file while holding the write lock,
// once, and the bytes are those the file shrank by.
func reclaim(ctx context.Context, w *sql.DB) (int64, error) {
	pragma := func(name string) (int64, error) {
		var v int64
		err := w.QueryRowContext(ctx, `PRAGMA `+name).Scan(&v)
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
		return convert(ctx, w, pageSize)
	}
	var freed int64
	for {
		before, err := pragma("freelist_count")
		if err != nil || before == 0 {
			return freed, err
		}
		// Each statement on its own: the writer pool's one connection
		// goes back to the engines between steps.
		if _, err := w.ExecContext(ctx, fmt.Sprintf(`PRAGMA incremental_vacuum(%d)`, reclaimStep)); err != nil {
			return freed, fmt.Errorf("sqlite: incremental_vacuum: %w", err)
		}
		after, err := pragma("freelist_count")
		if err != nil {
			return freed, err
		}
		if after >= before {
			return freed, nil // nothing more to give back
		}
		freed += (before - after) * pageSize
	}
}

// convert switches a database to auto_vacuum=INCREMENTAL: the mode is
// recorded, then VACUUM rewrites the file in it.
func convert(ctx context.Context, w *sql.DB, pageSize int64) (int64, error) {
	conn, err := w.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	var before, after int64
	if err := conn.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&before); err != nil {
		return 0, fmt.Errorf("sqlite: page_count: %w", err)
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
		return 0, fmt.Errorf("sqlite: auto_vacuum: %w", err)
	}
	if _, err := conn.ExecContext(ctx, `VACUUM`); err != nil {
		return 0, fmt.Errorf("sqlite: VACUUM: %w", err)
	}
	if err := conn.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&after); err != nil {
		return 0, fmt.Errorf("sqlite: page_count: %w", err)
	}
	return max(before-after, 0) * pageSize, nil
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
