package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// BenchmarkDueSLAs is the SLA calculator's scan over 100,000 undecided
// records (one per workflow action of 10,000 jobs), of which 50 are past
// their next check and 50 track an action that changed status since.
// "store" is DueSLAs; "join" is the same selection as a join of every
// undecided record to its entity, which the trigger-kept entity_status
// of migration 0010 replaces, for comparison.
func BenchmarkDueSLAs(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "gozie.db")
	s, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const jobs, actions = 10000, 10
	for j0 := 0; j0 < jobs; j0 += 1000 {
		err := s.Update(ctx, func(tx store.Tx) error {
			for j := j0; j < j0+1000; j++ {
				job := fmt.Sprintf("%07d-bench-W", j)
				if err := tx.PutJob(ctx, &store.Job{ID: job, Status: store.JobRunning}); err != nil {
					return err
				}
				for a := range actions {
					id := fmt.Sprintf("%s@a%d", job, a)
					if err := tx.PutAction(ctx, &store.Action{ID: id, JobID: job, Name: fmt.Sprint("a", a),
						Type: "shell", Status: store.ActionRunning, Seq: int64(a + 1)}); err != nil {
						return err
					}
					n := j*actions + a
					next := base.Add(time.Duration(1000+n) * time.Hour) // far off
					if n%2000 == 0 {
						next = base.Add(time.Duration(n) * time.Second) // due
					}
					r := &store.SLA{ID: id, AppType: "WORKFLOW_ACTION", AppName: "bench", User: "bench",
						ParentID: job, JobStatus: store.ActionRunning, EventProcessed: 1, NextCheck: next,
						NominalTime: base, ExpectedEnd: next, ExpectedDurationMs: -1, ActualDurationMs: -1}
					if err := tx.PutSLA(ctx, r); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	// 50 actions end.
	err = s.Update(ctx, func(tx store.Tx) error {
		for k := range 50 {
			j := k*200 + 1
			job := fmt.Sprintf("%07d-bench-W", j)
			a, err := tx.Action(ctx, job+"@a3")
			if err != nil {
				return err
			}
			a.Status = store.ActionOK
			if err := tx.PutAction(ctx, a); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	now := base.Add(48 * time.Hour) // after every "due" record, before the others

	b.Run("store", func(b *testing.B) {
		for b.Loop() {
			var due []*store.SLA
			err := s.View(ctx, func(tx store.Tx) (err error) { due, err = tx.DueSLAs(ctx, now, 1000); return err })
			if err != nil || len(due) != 100 {
				b.Fatalf("DueSLAs: %d records, %v; want 100", len(due), err)
			}
		}
	})
	b.Run("join", func(b *testing.B) {
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		const q = `SELECT s.id FROM sla s
			LEFT JOIN wf_jobs j ON s.app_type = 'WORKFLOW_JOB' AND j.id = s.id
			LEFT JOIN wf_actions a ON s.app_type = 'WORKFLOW_ACTION' AND a.id = s.id
			LEFT JOIN coord_actions c ON s.app_type = 'COORDINATOR_ACTION' AND c.id = s.id
			WHERE s.event_processed < 8 AND (s.next_check_ms <= ? OR COALESCE(j.status, a.status, c.status) <> s.job_status)
			ORDER BY s.next_check_ms, s.id LIMIT 1000`
		for b.Loop() {
			rows, err := db.QueryContext(ctx, q, now.UnixMilli())
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for rows.Next() {
				n++
			}
			rows.Close()
			if n != 100 {
				b.Fatalf("join: %d records, want 100", n)
			}
		}
	})
}
