package assembly

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/gozie/gozie/internal/server"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// ErrBackupPostgres refuses a backup of a PostgreSQL store: its tools
// (pg_dump, pg_restore) do it, on line, better than a copy through gozie
// could.
var ErrBackupPostgres = errors.New("the store is PostgreSQL (gozie.db): back it up with pg_dump and restore it with pg_restore " +
	"(docs/operations.md, \"Backups\"); gozie admin -backup copies SQLite stores")

// Backup writes an on-line, consistent copy of the SQLite store the
// configuration names (gozie.data.dir/gozie.db, as `gozie server` opens
// it) to dest, a new file. It reads the database file directly, beside a
// running server, so that no HTTP request can make a server write files;
// the copy is what the server had committed at one instant.
func Backup(ctx context.Context, cfg server.Config, dsn, dest string) (string, error) {
	if dsn != "" {
		return "", ErrBackupPostgres
	}
	src := filepath.Join(cfg["gozie.data.dir"], "gozie.db")
	return src, sqlite.Backup(ctx, src, dest)
}
