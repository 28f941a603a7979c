package sqlite

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/gozie/gozie/internal/store/sqlstore"
)

// migrationsBefore returns the migrations numbered below prefix, the
// schema an older gozie left behind.
func migrationsBefore(t *testing.T, prefix string) fstest.MapFS {
	t.Helper()
	before := fstest.MapFS{}
	entries, err := fs.ReadDir(migrations, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() < prefix {
			b, _ := fs.ReadFile(migrations, "migrations/"+e.Name())
			before["migrations/"+e.Name()] = &fstest.MapFile{Data: b}
		}
	}
	return before
}

// Issue 23 point 6: the cluster_secrets table of older versions (created
// here too, though only PostgreSQL servers filled it) goes at the upgrade.
func TestMigrationDropsClusterSecrets(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := sqlstore.Migrate(ctx, db, migrationsBefore(t, "0007"), "migrations", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO cluster_secrets (name, value) VALUES ('authentication', 'e2aa3bbd2046')`); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE name = 'cluster_secrets'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Error("after the upgrade the table cluster_secrets is still there")
	}
}
