package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// heirCluster opens n stores on one fresh schema, registered as
// instances ids[i] (name = id; "" leaves the store unregistered), and a
// plain connection to the schema.
func heirCluster(t *testing.T, ids ...string) ([]store.Store, *sql.DB) {
	t.Helper()
	ctx := context.Background()
	dsn := TestDSN(t)
	var out []store.Store
	for _, id := range ids {
		s, err := Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if id == "" {
			out = append(out, s)
			continue
		}
		if err := s.(store.Cluster).Register(ctx, store.ServerInfo{ID: id, Name: id}); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	raw, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return out, raw
}

// putFinished creates n finished workflow jobs and one coordinator job
// through s.
func putFinished(t *testing.T, s store.Store, n int) {
	t.Helper()
	ctx := context.Background()
	err := s.Update(ctx, func(tx store.Tx) error {
		for i := range n {
			j := &store.Job{ID: fmt.Sprintf("%07d-W", i), AppName: "app", User: "joe", Status: store.JobSucceeded}
			if err := tx.PutJob(ctx, j); err != nil {
				return err
			}
		}
		return tx.PutCoordJob(ctx, &store.CoordJob{ID: "0000000-C", Status: store.CoordSucceeded})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// rowVersions is every job row's id, transaction and place: an UPDATE
// changes the last two.
func rowVersions(t *testing.T, raw *sql.DB) string {
	t.Helper()
	var v string
	err := raw.QueryRow(`SELECT COALESCE(string_agg(id || ':' || xmin::text || ':' || ctid::text, ',' ORDER BY id), '')
		FROM (SELECT id, xmin, ctid FROM wf_jobs UNION ALL SELECT id, xmin, ctid FROM coord_jobs) j`).Scan(&v)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func beat(t *testing.T, raw *sql.DB, id string) int64 {
	t.Helper()
	var b int64
	if err := raw.QueryRow(`SELECT beat FROM servers WHERE id = $1`, id).Scan(&b); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTakeOverRewritesNoJob: taking over an instance with thousands of
// jobs, and then its heir, writes servers rows only.
func TestTakeOverRewritesNoJob(t *testing.T) {
	ctx := context.Background()
	ss, raw := heirCluster(t, "a#1", "b#1", "c#1")
	putFinished(t, ss[0], 3000)
	before := rowVersions(t, raw)
	for _, x := range []struct{ me, dead string }{{"b#1", "a#1"}, {"c#1", "b#1"}} {
		c := ss[map[string]int{"b#1": 1, "c#1": 2}[x.me]].(store.Cluster)
		if moved, err := c.TakeOver(ctx, x.me, x.dead, beat(t, raw, x.dead)); err != nil || !moved {
			t.Fatalf("TakeOver(%s, %s) = %v, %v", x.me, x.dead, moved, err)
		}
	}
	if after := rowVersions(t, raw); after != before {
		t.Error("a take-over rewrote job rows")
	}
	if o, err := ss[2].(store.Cluster).Owner(ctx, "0002999-W"); err != nil || o != "c#1" {
		t.Errorf("Owner = %q, %v; want c#1", o, err)
	}
	// b had no job of its own: its row is forgotten; a's stays, naming c.
	var rows []string
	r, err := raw.Query(`SELECT id || '>' || COALESCE(heir, '') FROM servers ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
		var s string
		if err := r.Scan(&s); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, s)
	}
	if fmt.Sprint(rows) != "[a#1>c#1 c#1>]" {
		t.Errorf("servers rows = %v, want [a#1>c#1 c#1>]", rows)
	}
}

// TestTakeOverEarlierVersion: while an instance of a version before heirs
// (protocol 0) is registered, or is the one taken over, the jobs move as
// that version expects: it reads the owner column alone.
func TestTakeOverEarlierVersion(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		old  string // the instance registered as an earlier version
		move bool
	}{
		{"dead instance of an earlier version", "a#1", true},
		{"live instance of an earlier version", "c#1", true},
		{"all of this version", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ss, raw := heirCluster(t, "a#1", "b#1", "c#1")
			putFinished(t, ss[0], 10)
			if tc.old != "" {
				if _, err := raw.Exec(`UPDATE servers SET protocol = 0 WHERE id = $1`, tc.old); err != nil {
					t.Fatal(err)
				}
			}
			before := rowVersions(t, raw)
			if moved, err := ss[1].(store.Cluster).TakeOver(ctx, "b#1", "a#1", beat(t, raw, "a#1")); err != nil || !moved {
				t.Fatalf("TakeOver = %v, %v", moved, err)
			}
			var owner string
			var rows int
			if err := raw.QueryRow(`SELECT owner FROM wf_jobs WHERE id = '0000003-W'`).Scan(&owner); err != nil {
				t.Fatal(err)
			}
			if err := raw.QueryRow(`SELECT COUNT(*) FROM servers WHERE id = 'a#1'`).Scan(&rows); err != nil {
				t.Fatal(err)
			}
			moved := owner == "b#1" && rows == 0 && rowVersions(t, raw) != before
			inherited := owner == "a#1" && rows == 1 && rowVersions(t, raw) == before
			if tc.move && !moved || !tc.move && !inherited {
				t.Errorf("owner column %q, a's row kept %v: want moved %v", owner, rows == 1, tc.move)
			}
			if o, err := ss[1].(store.Cluster).Owner(ctx, "0000003-W"); err != nil || o != "b#1" {
				t.Errorf("Owner = %q, %v; want b#1", o, err)
			}
		})
	}
}

// TestOrphanedHeirs: a server of an earlier version that takes over a
// heir its way (moving the heir's own jobs, deleting its row) leaves the
// instances that heir had inherited dead and listed, to be taken over in
// turn, rather than naming a heir that is gone.
func TestOrphanedHeirs(t *testing.T) {
	ctx := context.Background()
	ss, raw := heirCluster(t, "a#1", "b#1", "c#1")
	putFinished(t, ss[0], 10)
	if moved, err := ss[1].(store.Cluster).TakeOver(ctx, "b#1", "a#1", beat(t, raw, "a#1")); err != nil || !moved {
		t.Fatalf("TakeOver = %v, %v", moved, err)
	}
	// c, an earlier version, takes b over.
	if _, err := raw.Exec(`UPDATE wf_jobs SET owner = 'c#1' WHERE owner = 'b#1'`); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`DELETE FROM servers WHERE id = 'b#1'`); err != nil {
		t.Fatal(err)
	}
	c := ss[2].(store.Cluster)
	all, err := c.Servers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].ID != "a#1" {
		t.Fatalf("Servers() = %v, want a#1 listed again", all)
	}
	if moved, err := c.TakeOver(ctx, "c#1", "a#1", all[0].Beat); err != nil || !moved {
		t.Fatalf("TakeOver of the orphan = %v, %v", moved, err)
	}
	if o, err := c.Owner(ctx, "0000003-W"); err != nil || o != "c#1" {
		t.Errorf("Owner = %q, %v; want c#1", o, err)
	}
}

// TestClaimUnownedRewritesNoJob: the jobs without an owner (a store of a
// version before clusters) become the claimer's through a servers row with
// the empty id naming it as heir; none is rewritten, later unowned jobs
// are the claimer's too, its fenced commits to them pass, and its
// take-over hands them on.
func TestClaimUnownedRewritesNoJob(t *testing.T) {
	ctx := context.Background()
	ss, raw := heirCluster(t, "a#1", "b#1", "")
	putFinished(t, ss[2], 2000)
	before := rowVersions(t, raw)
	a := ss[0].(store.Cluster)
	if n, err := a.ClaimUnowned(ctx, "a#1"); err != nil || n != 2001 {
		t.Fatalf("ClaimUnowned = %d, %v; want 2001 (2000 workflows, a coordinator)", n, err)
	}
	if n, err := ss[1].(store.Cluster).ClaimUnowned(ctx, "b#1"); err != nil || n != 0 {
		t.Errorf("second ClaimUnowned = %d, %v; want 0", n, err)
	}
	if rowVersions(t, raw) != before {
		t.Error("the claim rewrote job rows")
	}
	if o, err := a.Owner(ctx, "0000007-W"); err != nil || o != "a#1" {
		t.Errorf("Owner = %q, %v; want a#1", o, err)
	}
	err := ss[0].Update(ctx, func(tx store.Tx) error {
		return tx.PutAction(ctx, &store.Action{ID: "0000007-W@x", JobID: "0000007-W", Name: "x", Type: "noop", Status: store.ActionPrep})
	})
	if err != nil {
		t.Errorf("a's commit to a claimed job: %v", err)
	}
	err = ss[2].Update(ctx, func(tx store.Tx) error {
		return tx.PutJob(ctx, &store.Job{ID: "9999999-W", AppName: "late", User: "joe", Status: store.JobPrep})
	})
	if err != nil {
		t.Fatal(err)
	}
	if o, err := a.Owner(ctx, "9999999-W"); err != nil || o != "a#1" {
		t.Errorf("Owner of an unowned job made after the claim = %q, %v; want a#1", o, err)
	}
	if moved, err := ss[1].(store.Cluster).TakeOver(ctx, "b#1", "a#1", beat(t, raw, "a#1")); err != nil || !moved {
		t.Fatalf("TakeOver = %v, %v", moved, err)
	}
	if o, err := a.Owner(ctx, "0000007-W"); err != nil || o != "b#1" {
		t.Errorf("Owner after a's take-over = %q, %v; want b#1", o, err)
	}
}

// TestFenceHoldsOffTakeOver: a commit that passed the fence of b (for a
// job of a, whom b inherited) holds the servers rows it read until it
// ends, so c's take-over of b waits for it, and the same check after the
// take-over fails: no commit of b lands after c became the owner.
func TestFenceHoldsOffTakeOver(t *testing.T) {
	ctx := context.Background()
	ss, raw := heirCluster(t, "a#1", "b#1", "c#1")
	putFinished(t, ss[0], 1)
	if moved, err := ss[1].(store.Cluster).TakeOver(ctx, "b#1", "a#1", beat(t, raw, "a#1")); err != nil || !moved {
		t.Fatalf("TakeOver(b, a) = %v, %v", moved, err)
	}
	fence := `SELECT gozie_fence(ARRAY['0000000-W'], 'b#1')`
	tx, err := raw.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(fence); err != nil {
		t.Fatalf("b's fence before the take-over: %v", err)
	}
	done := make(chan error, 1)
	bBeat := beat(t, raw, "b#1")
	go func() {
		moved, err := ss[2].(store.Cluster).TakeOver(ctx, "c#1", "b#1", bBeat)
		if err == nil && !moved {
			err = fmt.Errorf("nothing taken over")
		}
		done <- err
	}()
	// The take-over's row locks wait for b's transaction (observed, not
	// timed: the server says which backend waits for a lock).
	for {
		var waiting int
		err := raw.QueryRow(`SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'
			AND query LIKE '%FROM servers WHERE id = $1 OR heir = $2 ORDER BY id FOR UPDATE%'`).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the take-over ended (%v) while b's fenced transaction was open", err)
		default:
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("TakeOver(c, b): %v", err)
	}
	if _, err := raw.Exec(fence); err == nil {
		t.Error("b's fence after the take-over passed")
	}
	if _, err := raw.Exec(`SELECT gozie_fence(ARRAY['0000000-W'], 'c#1')`); err != nil {
		t.Errorf("c's fence: %v", err)
	}
}
