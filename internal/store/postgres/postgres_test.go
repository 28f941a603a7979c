package postgres

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/storetest"
)

func TestStore(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	storetest.Run(t, func(t *testing.T) store.Store { return OpenTest(t) })
}

// TestCluster runs the ownership suite with several stores on one schema,
// as several servers share one database.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	storetest.RunCluster(t, func(t *testing.T, n int) []store.Store {
		dsn := TestDSN(t)
		var out []store.Store
		for range n {
			s, err := Open(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		return out
	})
}

// Sequences must hand out every value once even when many transactions ask
// at the same time, as several servers sharing the database will.
func TestConcurrentSequence(t *testing.T) {
	s := OpenTest(t)
	ctx := context.Background()
	const workers, each = 8, 25
	var mu sync.Mutex
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				var v int64
				err := s.Update(ctx, func(tx store.Tx) error {
					var err error
					v, err = tx.NextSequence(ctx, "wf")
					return err
				})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[v] {
					t.Errorf("value %d handed out twice", v)
				}
				seen[v] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != workers*each {
		t.Errorf("%d distinct values, want %d", len(seen), workers*each)
	}
}

func TestWithSearchPath(t *testing.T) {
	tests := []struct{ dsn, want string }{
		{"postgres://u@h:5432/db?sslmode=disable", "postgres://u@h:5432/db?search_path=s&sslmode=disable"},
		{"postgresql://h/db", "postgresql://h/db?search_path=s"},
		{"host=h dbname=db", "host=h dbname=db search_path=s"},
	}
	for _, tt := range tests {
		if got := withSearchPath(tt.dsn, "s"); got != tt.want {
			t.Errorf("withSearchPath(%q) = %q, want %q", tt.dsn, got, tt.want)
		}
	}
}

func TestOpenUnreachable(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Open(ctx, "postgres://nobody@127.0.0.1:1/none?connect_timeout=1"); err == nil {
		t.Fatal("Open of an unreachable server succeeded")
	}
}

// TestOpenErrorsHideThePassword: the errors of Open are printed by
// `gozie server` and logged; the DSN's password must not be in them. No
// server is needed: the DSNs cannot be parsed or nothing listens.
func TestOpenErrorsHideThePassword(t *testing.T) {
	for _, dsn := range []string{
		"postgres://gozie:s3cret@127.0.0.1:notaport/gozie",
		"postgres://gozie:s3cret@127.0.0.1:1/gozie?connect_timeout=5",
		"host=127.0.0.1 port=1 user=gozie password=s3cret dbname=gozie connect_timeout=5",
		"host=127.0.0.1 port=x password=s3cret",
	} {
		_, err := Open(context.Background(), dsn)
		if err == nil {
			t.Errorf("%s: opened", dsn)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("error shows the password: %v", err)
		}
	}
}
