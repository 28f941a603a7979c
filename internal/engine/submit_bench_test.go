package engine

import (
	"context"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// BenchmarkSubmitConcurrent submits and runs three-step no-op workflows
// from 16 goroutines at once: job numbers, action records and their
// transactions from many jobs at a time, the pattern that queued on the
// single counter row on PostgreSQL (issue 15). ns/op is per workflow.
func BenchmarkSubmitConcurrent(b *testing.B) {
	backends(b, func(b *testing.B, backend string) {
		env := newBenchEnv(b, backend, false)
		app := env.app(b, "three", linearApp(3, "noop", noopBody))
		// RunParallel starts parallelism x GOMAXPROCS goroutines; on two
		// cores that is 16 concurrent clients.
		b.SetParallelism(8)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			ctx := context.Background()
			for pb.Next() {
				id, err := env.e.Run(ctx, props(app))
				if err != nil {
					b.Error(err)
					return
				}
				j, err := env.e.Wait(ctx, id)
				if err != nil || j.Status != store.JobSucceeded {
					b.Errorf("job %s: %v", id, err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Minutes(), "workflows/min")
	})
}
