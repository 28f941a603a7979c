package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/store/storetest"
)

// BenchmarkJobLifecycle: a job inserted, started and ended (three
// commits), with the triggers of migration 0014, with those of the
// counts only, and without.
func BenchmarkJobLifecycle(b *testing.B) {
	for _, keep := range []string{"triggers", "counts", "none"} {
		b.Run(keep, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "gozie.db")
			s, err := Open(context.Background(), path)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if keep != "triggers" {
				db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
				if err != nil {
					b.Fatal(err)
				}
				for _, tr := range storetest.IssueTriggers {
					if keep == "counts" && strings.HasPrefix(tr, "wf_job_counts") {
						continue
					}
					if _, err := db.Exec(`DROP TRIGGER IF EXISTS ` + tr); err != nil {
						b.Fatal(err)
					}
				}
				db.Close()
			}
			storetest.BenchLifecycle(b, s)
		})
	}
}
