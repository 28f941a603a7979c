package postgres

import (
	"context"
	"database/sql"
	"testing"

	"github.com/gozie/gozie/internal/store/sqlstore"
)

// Issue 23 point 6: versions before migration 0009 kept the cookie
// signing secret in clear in cluster_secrets, where anyone reading the
// database could sign an admin's cookie with it. The upgrade deletes it
// (with its table): nothing may sign with it any more.
func TestMigrationDropsClusterSecrets(t *testing.T) {
	ctx := context.Background()
	dsn := TestDSN(t)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := sqlstore.Migrate(ctx, db, migrationsBefore(t, "0009"), "migrations", sqlstore.Rebind); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO cluster_secrets (name, value) VALUES ('authentication', 'e2aa3bbd2046')`); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var table sql.NullString
	if err := db.QueryRowContext(ctx, `SELECT to_regclass('cluster_secrets')::TEXT`).Scan(&table); err != nil {
		t.Fatal(err)
	}
	if table.Valid {
		var n int
		_ = db.QueryRowContext(ctx, `SELECT COUNT(*) FROM cluster_secrets`).Scan(&n)
		t.Errorf("after the upgrade the table %s is still there with %d secrets", table.String, n)
	}
}
