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

// BenchmarkStats is one count of the /metrics scrape (store.Counter) over
// 100,000 workflow jobs in six statuses, 10,000 coordinator jobs and 200
// pending effects: what gozie.metrics.store.refresh.s bounds per interval.
func BenchmarkStats(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "gozie.db")
	s, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	statuses := []string{"PREP", "RUNNING", "SUSPENDED", "SUCCEEDED", "KILLED", "FAILED"}
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	for i := range 100000 {
		if _, err := tx.Exec(`INSERT INTO wf_jobs (id, status, created_ms) VALUES (?, ?, ?)`,
			fmt.Sprintf("%07d-W", i), statuses[i%len(statuses)], i); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 10000 {
		if _, err := tx.Exec(`INSERT INTO coord_jobs (id, status, created_ms) VALUES (?, ?, ?)`,
			fmt.Sprintf("%07d-C", i), statuses[i%len(statuses)], i); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 200 {
		if _, err := tx.Exec(`INSERT INTO wf_effects (job_id, kind, created_ms, not_before_ms) VALUES (?, 'start', ?, ?)`,
			fmt.Sprintf("%07d-W", i), i, i*1000); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	c := s.(store.Counter)
	now := time.UnixMilli(100000)
	b.ResetTimer()
	for b.Loop() {
		st, err := c.Stats(ctx, now)
		if err != nil || len(st.Jobs) != 12 || st.Effects != 200 || st.Due != 101 {
			b.Fatalf("%+v %v", st, err)
		}
	}
}
