package postgres

import (
	"context"
	"database/sql"
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/gozie/gozie/internal/store"
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

// TestMigrationJobSequence upgrades databases whose job numbers came from
// the 'wfjob' row of the sequences table (before migration 0006): the
// database sequence continues after the last number issued, and action
// records of a job created before the upgrade still list first.
func TestMigrationJobSequence(t *testing.T) {
	tests := []struct {
		name    string
		counter int64 // 0: no job was ever numbered, no row
		want    int64
	}{
		{"fresh", 0, 1},
		{"used", 41, 42},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dsn := TestDSN(t)
			db, err := sql.Open("pgx", dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := sqlstore.Migrate(ctx, db, migrationsBefore(t, "0006"), "migrations", sqlstore.Rebind); err != nil {
				t.Fatal(err)
			}
			if tc.counter > 0 {
				// As the old store left them: job numbers and a global
				// action counter far ahead of any one job's actions.
				for _, q := range []string{
					`INSERT INTO sequences (name, value) VALUES ('wfjob', $1)`,
					`INSERT INTO sequences (name, value) VALUES ('action', $1 * 10)`,
					`INSERT INTO wf_actions (id, job_id, name, type, seq, status) VALUES ('j@a', 'j', 'a', 'shell', $1 * 5, 'OK')`,
					`INSERT INTO wf_actions (id, job_id, name, type, seq, status) VALUES ('j@b', 'j', 'b', 'shell', $1 * 7, 'OK')`,
				} {
					if _, err := db.ExecContext(ctx, q, tc.counter); err != nil {
						t.Fatal(err)
					}
				}
			}
			s, err := Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var got []int64
			for range 2 {
				var v int64
				if err := s.Update(ctx, func(tx store.Tx) (err error) { v, err = tx.NextSequence(ctx, store.JobSequence); return err }); err != nil {
					t.Fatal(err)
				}
				got = append(got, v)
			}
			if got[0] != tc.want || got[1] != tc.want+1 {
				t.Errorf("job numbers after the upgrade = %v, want %d, %d", got, tc.want, tc.want+1)
			}
			var names []string
			err = s.Update(ctx, func(tx store.Tx) error {
				if err := tx.PutAction(ctx, &store.Action{ID: "j@c", JobID: "j", Name: "c", Type: "shell", Status: store.ActionPrep}); err != nil {
					return err
				}
				acts, err := tx.Actions(ctx, "j")
				for _, a := range acts {
					names = append(names, a.Name)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"c"}
			if tc.counter > 0 {
				want = []string{"a", "b", "c"}
			}
			if !slices.Equal(names, want) {
				t.Errorf("actions of j = %v, want %v", names, want)
			}
		})
	}
}
