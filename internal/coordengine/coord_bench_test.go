package coordengine

import (
	"context"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// BenchmarkCoordCatchUp measures a coordinator catching up 240 hourly
// actions (ten days in the past, every input present, concurrency
// unlimited, fs workflows) from submission to SUCCEEDED, on SQLite.
func BenchmarkCoordCatchUp(b *testing.B) {
	const actions = 240
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		h := newCoordHarness(b, policyNow, Options{InputCheckInterval: time.Minute})
		start := policyNow.Add(-actions * time.Hour)
		for n := 0; n < actions; n++ {
			h.publish(start.Add(time.Duration(n) * time.Hour))
		}
		props := h.coordProps(fsWorkflow, "start", start.Format("2006-01-02T15:04Z"),
			"end", policyNow.Format("2006-01-02T15:04Z"), "concurrency", "-1", "throttle", "1000")
		b.StartTimer()
		id, err := h.e.Run(context.Background(), props)
		if err != nil {
			b.Fatal(err)
		}
		for step := 0; step < 100 && h.coordJob(id).Status != store.CoordSucceeded; step++ {
			h.advance(time.Minute, time.Minute, nil)
		}
		if s := h.coordJob(id).Status; s != store.CoordSucceeded {
			b.Fatalf("job %s", s)
		}
		b.StopTimer()
		h.e.Close()
	}
	b.ReportMetric(float64(actions*b.N)/b.Elapsed().Seconds(), "actions/s")
}
