package postgres

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlstore"
	"github.com/gozie/gozie/internal/store/storetest"
)

func TestPurge(t *testing.T) {
	storetest.RunPurge(t, func(t *testing.T) store.Store { return OpenTest(t) })
}

// TestPurgeLockShared: the purge lock is one for every store on the
// database (several servers), and a dead holder's lock goes with its
// session.
func TestPurgeLockShared(t *testing.T) {
	ctx := context.Background()
	dsn := TestDSN(t)
	a, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	release, ok, err := a.(store.Purger).PurgeLock(ctx)
	if err != nil || !ok {
		t.Fatalf("a: PurgeLock = %v, %v", ok, err)
	}
	if _, ok, err := b.(store.Purger).PurgeLock(ctx); err != nil || ok {
		t.Fatalf("b: PurgeLock while a holds it = %v, %v; want refused", ok, err)
	}
	release()
	rb, ok, err := b.(store.Purger).PurgeLock(ctx)
	if err != nil || !ok {
		t.Fatalf("b: PurgeLock after a released = %v, %v", ok, err)
	}
	// b's server dies holding it: the database ends its session (as
	// when the process dies), and the lock with it.
	_ = rb
	defer b.Close()
	raw, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	held := `FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = hashtext(current_schema())::oid AND objsubid = 2 AND granted`
	if _, err := raw.Exec(`SELECT pg_terminate_backend(pid) `+held, purgeLock); err != nil {
		t.Fatal(err)
	}
	// The backend ends a moment after the signal.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var n int
		if err := raw.QueryRow(`SELECT COUNT(*) `+held, purgeLock).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the terminated session still holds the purge lock")
		}
	}
	r2, ok, err := a.(store.Purger).PurgeLock(ctx)
	if err != nil || !ok {
		t.Fatalf("a: PurgeLock after b's end = %v, %v", ok, err)
	}
	r2()
}

// TestSchemaGuard: a database that records a migration this binary does
// not know is refused, naming both versions, as on SQLite.
func TestSchemaGuard(t *testing.T) {
	ctx := context.Background()
	dsn := TestDSN(t)
	s, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO schema_migrations (version, name, applied_ms) VALUES (9999, '9999_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, dsn)
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
