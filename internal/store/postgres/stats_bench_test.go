package postgres

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// BenchmarkStats is one count of the /metrics scrape (store.Counter) over
// 100,000 workflow jobs in six statuses, 10,000 coordinator jobs and 200
// pending effects: what gozie.metrics.store.refresh.s bounds per interval.
func BenchmarkStats(b *testing.B) {
	ctx := context.Background()
	dsn := TestDSN(b)
	s, err := Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`INSERT INTO wf_jobs (id, status, created_ms) SELECT lpad(i::text, 7, '0') || '-W',
			(ARRAY['PREP','RUNNING','SUSPENDED','SUCCEEDED','KILLED','FAILED'])[i % 6 + 1], i FROM generate_series(0, 99999) i`,
		`INSERT INTO coord_jobs (id, status, created_ms) SELECT lpad(i::text, 7, '0') || '-C',
			(ARRAY['PREP','RUNNING','SUSPENDED','SUCCEEDED','KILLED','FAILED'])[i % 6 + 1], i FROM generate_series(0, 9999) i`,
		`INSERT INTO wf_effects (job_id, kind, created_ms, not_before_ms) SELECT lpad(i::text, 7, '0') || '-W', 'start', i, i * 1000
			FROM generate_series(0, 199) i`,
		`ANALYZE`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			b.Fatal(err)
		}
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
