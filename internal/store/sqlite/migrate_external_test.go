package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/store/sqlstore"
)

// TestMigrationExternalIDDuplicates upgrades a database holding several
// jobs with one user and external id (possible before migration 0005): the
// oldest keeps the id, the others lose it, and the unique index is built.
func TestMigrationExternalIDDuplicates(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "old.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := sqlstore.Migrate(ctx, db, migrationsBefore(t, "0005"), "migrations", nil); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		id, user, ext string
		created       int
	}{
		{"j3", "joe", "x", 3}, {"j1", "joe", "x", 1}, {"j2", "joe", "x", 2},
		{"k1", "ann", "x", 5}, {"m1", "joe", "", 1}, {"m2", "joe", "", 1},
	} {
		if _, err := db.ExecContext(ctx, `INSERT INTO wf_jobs (id, user_name, external_id, status, created_ms) VALUES (?, ?, ?, 'SUCCEEDED', ?)`,
			r.id, r.user, r.ext, r.created); err != nil {
			t.Fatal(err)
		}
	}
	if err := sqlstore.Migrate(ctx, db, migrations, "migrations", nil); err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryContext(ctx, `SELECT id, external_id FROM wf_jobs ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var id, ext string
		if err := rows.Scan(&id, &ext); err != nil {
			t.Fatal(err)
		}
		got = append(got, id+"="+ext)
	}
	if want := "j1=x j2= j3= k1=x m1= m2="; strings.Join(got, " ") != want {
		t.Errorf("after migration: %s, want %s", strings.Join(got, " "), want)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO wf_jobs (id, user_name, external_id, status) VALUES ('j4', 'joe', 'x', 'PREP')`); err == nil {
		t.Error("a second job of joe with external id x was accepted")
	}
}
