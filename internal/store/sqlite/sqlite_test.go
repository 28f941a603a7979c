package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/storetest"
)

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := Open(context.Background(), filepath.Join(t.TempDir(), "gozie.db"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestReopen checks that data and the applied migrations survive closing
// the database, and that opening again does not re-run migrations.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gozie.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.NextSequence(ctx, "wf"); err != nil {
			return err
		}
		return tx.PutJob(ctx, &store.Job{ID: "j", Status: store.JobRunning})
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.Update(ctx, func(tx store.Tx) error {
		j, err := tx.Job(ctx, "j")
		if err != nil {
			return err
		}
		if j.Status != store.JobRunning {
			t.Errorf("status %s", j.Status)
		}
		v, err := tx.NextSequence(ctx, "wf")
		if v != 2 {
			t.Errorf("sequence after reopen = %d, want 2", v)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpenUnwritable(t *testing.T) {
	if _, err := Open(context.Background(), "/nonexistent-dir/x/gozie.db"); err == nil {
		t.Fatal("Open in a missing directory succeeded")
	}
}

// TestNoCluster: a SQLite database serves one server; registering a second
// one (or any take-over) is refused with a message that names PostgreSQL.
func TestNoCluster(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := s.(store.Cluster)
	err = c.Register(ctx, store.ServerInfo{ID: "a#1", Name: "a"})
	if err == nil || !strings.Contains(err.Error(), "PostgreSQL") {
		t.Errorf("Register on SQLite = %v, want a refusal naming PostgreSQL", err)
	}
	if _, err := c.TakeOver(ctx, "a#1", "b#1", 1); err == nil {
		t.Error("TakeOver on SQLite succeeded")
	}
	// Listing works (there is no one), without PostgreSQL's servers.heir.
	if all, err := c.Servers(ctx); err != nil || len(all) != 0 {
		t.Errorf("Servers on SQLite = %v, %v; want none", all, err)
	}
}
