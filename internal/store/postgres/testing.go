package postgres

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// TestDSNVariable names the environment variable that points the
// PostgreSQL tests at a server.
const TestDSNVariable = "GOZIE_TEST_POSTGRES_DSN"

// defaultTestDSN is the server CI provides: local, trust authentication,
// database "test".
const defaultTestDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// OpenTest opens a store in a schema of its own on the test server (see
// TestDSN) and closes it when the test ends.
func OpenTest(t testing.TB) store.Store {
	t.Helper()
	s, err := Open(context.Background(), TestDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestDSN creates a schema of its own on the test server, so that tests of
// several packages (and the server processes a test starts) can share one
// database at the same time, and returns a DSN whose search_path selects
// it. The schema is dropped when the test ends. Without a reachable server
// the test is skipped with a message naming TestDSNVariable; when the
// variable is set explicitly an unreachable server fails the test instead,
// so that a broken CI setup cannot pass silently.
func TestDSN(t testing.TB) string {
	t.Helper()
	dsn, explicit := os.LookupEnv(TestDSNVariable)
	if !explicit {
		dsn = defaultTestDSN
	}
	ctx := context.Background()
	admin, err := sql.Open("pgx", dsn)
	if err == nil {
		err = admin.PingContext(ctx)
	}
	if err != nil {
		if admin != nil {
			admin.Close()
		}
		if explicit {
			t.Fatalf("PostgreSQL at %s=%q: %v", TestDSNVariable, dsn, err)
		}
		t.Skipf("no PostgreSQL server at %s (%v); set %s to a server's URL to run these tests", dsn, err, TestDSNVariable)
	}
	t.Cleanup(func() { admin.Close() })

	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	schema := "gozie_test_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return withSearchPath(dsn, schema)
}

// withSearchPath adds a search_path run-time parameter to a URL or
// key=value DSN.
func withSearchPath(dsn, schema string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err == nil {
			q := u.Query()
			q.Set("search_path", schema)
			u.RawQuery = q.Encode()
			return u.String()
		}
	}
	return dsn + " search_path=" + schema
}
