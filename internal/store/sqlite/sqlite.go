// Package sqlite is gozie's embedded store: a SQLite database file opened
// with the pure-Go modernc.org/sqlite driver in WAL mode, so a single binary
// needs no database server and no cgo.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlstore"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

//go:embed migrations/*.sql
var migrations embed.FS

// Options tune OpenWith.
type Options struct {
	// Logf, when set, is told once when Open had to narrow the modes of
	// existing files of the store (see OpenWith).
	Logf func(format string, args ...any)
}

// Open is OpenWith without options.
func Open(ctx context.Context, path string) (store.Store, error) {
	return OpenWith(ctx, path, Options{})
}

// OpenWith opens (creating if needed) the database file at path and
// applies the schema migrations. synchronous=NORMAL in WAL mode keeps
// commits durable against a process crash, which is what the engine's
// recovery relies on; only a power loss may lose the last commits.
//
// The database and its -wal and -shm files are the opening user's alone
// (mode 0600, whatever the umask): they hold every job's configuration.
// A new database file is created so before SQLite opens it, and SQLite
// gives the -wal and -shm files it creates the database file's mode;
// existing files with group or other bits (from older versions) lose
// them, and Logf says so.
func OpenWith(ctx context.Context, path string, o Options) (store.Store, error) {
	fi, statErr := os.Stat(path)
	isNew := errors.Is(statErr, fs.ErrNotExist) || (statErr == nil && fi.Size() == 0)
	narrowed, err := privateFiles(path)
	if err != nil {
		return nil, store.Errorf("sqlite: open %s: %w", path, err)
	}
	if len(narrowed) > 0 && o.Logf != nil {
		o.Logf("gozie: made the store's files private (mode 0600; other users could read them): %s", strings.Join(narrowed, ", "))
	}
	pragmas := url.Values{}
	// Reads go through a memory map of up to 256 MB instead of a read(2)
	// per page missing from each connection's small page cache: a page of
	// the jobs list over 10,000 jobs went from 1.3 ms to 0.7 ms
	// (BenchmarkJobsList in internal/server). Writes still go through the
	// WAL as before, so durability is unchanged.
	//
	// LIKE compares case-sensitively, as PostgreSQL's does, so that the
	// SLA filters' patterns and the parent-prefix filter select the same
	// rows in both stores (the free-text filter lowers both sides).
	//
	// A new database is created with auto_vacuum=INCREMENTAL, so that the
	// purge can give freed pages back to the file system (reclaim.go). The
	// mode must be set before the first page is written, which switching
	// to WAL already does: it comes first.
	list := []string{"journal_mode(WAL)", "synchronous(NORMAL)", "busy_timeout(10000)", "foreign_keys(1)", "mmap_size(268435456)",
		"case_sensitive_like(1)"}
	if isNew {
		list = append([]string{"auto_vacuum(2)"}, list...)
	}
	for _, p := range list {
		pragmas.Add("_pragma", p)
	}
	// The writer takes the write lock at BEGIN so two writers never
	// deadlock upgrading read locks; there is only one writer connection.
	writeDSN := "file:" + path + "?" + pragmas.Encode() + "&_txlock=immediate"
	readDSN := "file:" + path + "?" + pragmas.Encode()
	w, err := sql.Open("sqlite", writeDSN)
	if err != nil {
		return nil, store.Errorf("sqlite: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, store.Errorf("sqlite: open %s: %w", path, err)
	}
	if err := sqlstore.Migrate(ctx, w, migrations, "migrations", nil); err != nil {
		w.Close()
		return nil, store.Errorf("sqlite: %s: %w", path, err)
	}
	r, err := sql.Open("sqlite", readDSN)
	if err != nil {
		w.Close()
		return nil, store.Errorf("sqlite: open %s: %w", path, err)
	}
	r.SetMaxOpenConns(max(2, runtime.GOMAXPROCS(0)))
	return sqlstore.New(w, r, sqlstore.Dialect{Name: "sqlite", Retryable: busy, Unavailable: busy, LastInsertID: true,
		Schema:  sqlstore.LatestVersion(migrations, "migrations"),
		Reclaim: reclaim, TextMatch: textMatch, TextFrom: textFrom, IndexText: indexText, IndexHints: true}), nil
}

// textTail selects the keys of the jobs not yet in the FTS5 index
// (migration 0014): above the mark of the last batch of indexText.
const textTail = `SELECT k FROM wf_job_text_ids WHERE k > (SELECT value FROM sequences WHERE name = 'wf_jobs_text')`

// textFrom is the Dialect's TextFrom: the FTS5 matches first, then the
// keys not indexed yet, each looked up by key and job id.
func textFrom(text string) (string, []any) {
	if utf8.RuneCountInString(text) < 3 {
		return "", nil
	}
	return `(SELECT rowid AS k FROM wf_jobs_text WHERE wf_jobs_text MATCH ? UNION ALL ` + textTail + `) c
		JOIN wf_job_text_ids t ON t.k = c.k JOIN wf_jobs ON wf_jobs.id = t.job_id`, []any{ftsPhrase(text)}
}

// ftsPhrase quotes text as one FTS5 phrase: every character literal.
func ftsPhrase(text string) string { return `"` + strings.ReplaceAll(text, `"`, `""`) + `"` }

// textMatch is the Dialect's TextMatch: the jobs whose FTS5 trigram
// row holds text as a phrase, which is every indexed job whose id, name,
// app path or user contains it (the tokenizer folds case), and the jobs
// not indexed yet; nothing for fewer than three characters, which make
// no trigram.
func textMatch(text string) (string, []any) {
	if utf8.RuneCountInString(text) < 3 {
		return "", nil
	}
	return `id IN (SELECT job_id FROM wf_job_text_ids WHERE k IN
		(SELECT rowid FROM wf_jobs_text WHERE wf_jobs_text MATCH ? UNION ALL ` + textTail + `))`,
		[]any{ftsPhrase(text)}
}

// textBatch is how many new jobs one transaction of indexText adds to
// the FTS5 index: a few milliseconds of the writer.
const textBatch = 1000

// indexText is the Dialect's IndexText: it adds the jobs above the mark
// to the FTS5 index, textBatch keys per transaction, moving the mark, and
// returns how many keys it passed (deleted jobs leave gaps).
func indexText(ctx context.Context, w *sql.DB) (int64, error) {
	var total int64
	for {
		n, err := indexTextBatch(ctx, w)
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
}

func indexTextBatch(ctx context.Context, w *sql.DB) (int64, error) {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var lo, hi sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT value FROM sequences WHERE name = 'wf_jobs_text'`).Scan(&lo); err != nil {
		return 0, fmt.Errorf("sqlite: index text: %w", err)
	}
	err = tx.QueryRowContext(ctx, `SELECT MAX(k) FROM (SELECT k FROM wf_job_text_ids WHERE k > ? ORDER BY k LIMIT ?)`,
		lo.Int64, textBatch).Scan(&hi)
	if err != nil || !hi.Valid {
		return 0, err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO wf_jobs_text (rowid, txt)
		SELECT t.k, j.id || char(10) || j.app_name || char(10) || j.app_path || char(10) || j.user_name
		FROM wf_job_text_ids t JOIN wf_jobs j ON j.id = t.job_id WHERE t.k > ? AND t.k <= ?`, lo.Int64, hi.Int64)
	if err != nil {
		return 0, fmt.Errorf("sqlite: index text: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sequences SET value = ? WHERE name = 'wf_jobs_text'`, hi.Int64); err != nil {
		return 0, fmt.Errorf("sqlite: index text: %w", err)
	}
	return hi.Int64 - lo.Int64, tx.Commit()
}

// privateFiles creates the database file at path with mode 0600 if it
// does not exist, and removes the group and other bits of the database,
// -wal and -shm files that have them. It returns the files it narrowed,
// each with its former mode.
func privateFiles(path string) ([]string, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		// The umask may have taken more than group and other bits.
		err = f.Chmod(0o600)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	var narrowed []string
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if perm := fi.Mode().Perm(); fi.Mode().IsRegular() && perm&0o077 != 0 {
			if err := os.Chmod(p, perm&^0o077); err != nil {
				return nil, err
			}
			narrowed = append(narrowed, fmt.Sprintf("%s (was %#o)", p, perm))
		}
	}
	return narrowed, nil
}

// busy reports SQLite's transient lock errors. With one writer connection
// they only come from another process sharing the file; still busy after
// the store's own retries, they make the store unavailable for now.
func busy(err error) bool {
	if err == nil {
		return false
	}
	var coder interface{ Code() int }
	if errors.As(err, &coder) {
		code := coder.Code() & 0xff
		return code == 5 || code == 6 // SQLITE_BUSY, SQLITE_LOCKED
	}
	return strings.Contains(err.Error(), "database is locked")
}
