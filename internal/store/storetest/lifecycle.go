package storetest

import (
	"fmt"
	"syscall"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// BenchLifecycle is the store side of one workflow's life as the engine
// writes it: the job inserted PREP, then RUNNING, then SUCCEEDED, each in
// a transaction of its own. With setup dropping the triggers of the
// counts and the text index (issue 31) it shows what they add per job.
// It reports the process's CPU per job (cpu-µs/op): SQLite's work is
// in process, and CPU is what the machine's other load inflates least.
func BenchLifecycle(b *testing.B, s store.Store) {
	i := 0
	cpu := func() int64 {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return ru.Utime.Nano() + ru.Stime.Nano()
	}
	start := cpu()
	defer func() { b.ReportMetric(float64(cpu()-start)/1e3/float64(max(i, 1)), "cpu-µs/op") }()
	for b.Loop() {
		i++
		j := sampleJob(fmt.Sprintf("%07d-bench-W", i))
		j.AppPath = fmt.Sprintf("hdfs://nn/user/joe/apps/app-%d", i%50)
		for _, st := range []string{store.JobPrep, store.JobRunning, store.JobSucceeded} {
			j.Status = st
			if err := s.Update(ctx, func(tx store.Tx) error { return tx.PutJob(ctx, j) }); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// IssueTriggers are the triggers on wf_jobs of the counts and the text
// index, for benchmarks that drop them.
var IssueTriggers = []string{"wf_job_counts_insert", "wf_job_counts_update", "wf_job_counts_delete",
	"wf_jobs_text_insert", "wf_jobs_text_update", "wf_jobs_text_delete",
	"wf_job_text_insert", "wf_job_text_update", "wf_job_text_delete"}
