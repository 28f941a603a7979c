package postgres

import (
	"database/sql"
	"testing"

	"github.com/gozie/gozie/internal/store/storetest"
)

// BenchmarkJobLifecycle: a job inserted, started and ended (three
// commits), with the triggers of migration 0017 and without.
func BenchmarkJobLifecycle(b *testing.B) {
	for _, triggers := range []bool{true, false} {
		b.Run(map[bool]string{true: "triggers", false: "none"}[triggers], func(b *testing.B) {
			dsn := TestDSN(b)
			s, err := Open(b.Context(), dsn)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if !triggers {
				db, err := sql.Open("pgx", dsn)
				if err != nil {
					b.Fatal(err)
				}
				for _, tr := range storetest.IssueTriggers {
					if _, err := db.Exec(`DROP TRIGGER IF EXISTS ` + tr + ` ON wf_jobs`); err != nil {
						b.Fatal(err)
					}
				}
				db.Close()
			}
			storetest.BenchLifecycle(b, s)
		})
	}
}
