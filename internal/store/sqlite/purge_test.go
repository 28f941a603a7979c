package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlstore"
	"github.com/gozie/gozie/internal/store/storetest"
)

func TestPurge(t *testing.T) {
	storetest.RunPurge(t, func(t *testing.T) store.Store {
		s, err := Open(context.Background(), filepath.Join(t.TempDir(), "gozie.db"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestSchemaGuard: a database that records a migration this binary does
// not know (a newer gozie migrated it) is refused, naming both versions,
// and left as it was.
func TestSchemaGuard(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gozie.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO schema_migrations (version, name, applied_ms) VALUES (9999, '9999_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, path)
	var tooNew *sqlstore.SchemaTooNewError
	if !errors.As(err, &tooNew) {
		t.Fatalf("Open of a newer schema: %v, want a SchemaTooNewError", err)
	}
	// The binary's version is its last migration's, whichever that is.
	latest := sqlstore.LatestVersion(migrations, "migrations")
	if tooNew.Database != 9999 || tooNew.Binary != latest {
		t.Errorf("versions %d (database), %d (binary); want 9999, %d", tooNew.Database, tooNew.Binary, latest)
	}
	for _, want := range []string{"9999", "9999_future.sql", strconv.Itoa(latest), "newer"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

// TestIncrementalVacuum: a new database is created with
// auto_vacuum=INCREMENTAL, so that Reclaim gives a purge's pages back;
// an old one (NONE) is converted by Reclaim's one VACUUM.
func TestIncrementalVacuum(t *testing.T) {
	ctx := context.Background()
	for _, old := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "gozie.db")
		if old {
			// A database as earlier versions created it.
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`CREATE TABLE filler (x TEXT)`); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		w := s.(*sqlstore.DB).Write
		var created int64
		if err := w.QueryRow(`PRAGMA auto_vacuum`).Scan(&created); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int64{false: autoVacuumIncremental, true: 0}[old]; created != want {
			t.Fatalf("old=%v: auto_vacuum %d after Open, want %d", old, created, want)
		}
		big := strings.Repeat("x", 4000)
		err = s.Update(ctx, func(tx store.Tx) error {
			for i := range 500 {
				if err := tx.PutJob(ctx, &store.Job{ID: "j" + string(rune('a'+i%26)) + strings.Repeat("0", i/26) + "-W", Status: store.JobRunning, Conf: big}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Exec(`DELETE FROM wf_jobs`); err != nil {
			t.Fatal(err)
		}
		freed, err := s.(store.Purger).Reclaim(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var mode, free int64
		if err := w.QueryRow(`PRAGMA auto_vacuum`).Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if err := w.QueryRow(`PRAGMA freelist_count`).Scan(&free); err != nil {
			t.Fatal(err)
		}
		t.Logf("old=%v: freed %d bytes, auto_vacuum %d, free pages left %d", old, freed, mode, free)
		if mode != autoVacuumIncremental || freed < 500*4000 || free != 0 {
			t.Errorf("old=%v: auto_vacuum %d, freed %d bytes, %d free pages left; want 2, >= 2 MB, 0", old, mode, freed, free)
		}
		s.Close()
	}
}
