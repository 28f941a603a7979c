package postgres

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// BenchmarkConcurrentSubmit is the store's part of a workflow submission
// from 32 concurrent clients: a job number, the job, and three action
// records in one transaction. Before migration 0006 every such
// transaction updated the one counter row and held it until its commit,
// so commits queued one behind the other. ns/op is per submission.
func BenchmarkConcurrentSubmit(b *testing.B) {
	benchSubmit(b, OpenTest(b))
}

// BenchmarkFencedSubmit is BenchmarkConcurrentSubmit on a registered
// store: each commit runs the fence (gozie_fence), which since migration
// 0016 also key-share locks the committing instance's servers row.
func BenchmarkFencedSubmit(b *testing.B) {
	s := OpenTest(b)
	if err := s.(store.Cluster).Register(context.Background(), store.ServerInfo{ID: "bench#1", Name: "bench"}); err != nil {
		b.Fatal(err)
	}
	benchSubmit(b, s)
}

func benchSubmit(b *testing.B, s store.Store) {
	ctx := context.Background()
	var n atomic.Int64
	b.SetParallelism(16) // x GOMAXPROCS (2 here): 32 clients
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			err := s.Update(ctx, func(tx store.Tx) error {
				seq, err := tx.NextSequence(ctx, store.JobSequence)
				if err != nil {
					return err
				}
				id := fmt.Sprintf("%07d-bench-W", seq)
				if err := tx.PutJob(ctx, &store.Job{ID: id, AppName: "bench", User: "bench", Status: store.JobRunning}); err != nil {
					return err
				}
				for _, name := range []string{":start:", "a", "b"} {
					if err := tx.PutAction(ctx, &store.Action{ID: id + "@" + name, JobID: id, Name: name, Type: "noop", Status: store.ActionPrep}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Errorf("submission %d: %v", i, err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "submissions/s")
}
