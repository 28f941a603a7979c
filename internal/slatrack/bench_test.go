package slatrack

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/engine/enginetest"
	"github.com/gozie/gozie/internal/sla"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// BenchmarkPass measures the tracker's pass over 100,000 undecided SLA
// records of PREP workflow jobs whose deadlines are spread over a day:
// "steady" is a pass with nothing due (the cost paid every interval),
// "due" a pass deciding the 1,000 records whose start deadline came in
// the last 15 minutes (each decided and written).
//
//	go test ./internal/slatrack/ -run XXX -bench Pass -benchtime 20x
func BenchmarkPass(b *testing.B) {
	const n = 100000
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "gozie.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for i := 0; i < n; i += 1000 {
		err := st.Update(ctx, func(tx store.Tx) error {
			for k := i; k < i+1000; k++ {
				id := fmt.Sprintf("%07d-300101000000000-oozie-bench-W", k)
				if err := tx.PutJob(ctx, &store.Job{ID: id, AppName: "bench", User: "u", Status: store.JobPrep, CreatedTime: t0}); err != nil {
					return err
				}
				// Expected starts every 864 ms over the day after t0.
				s := &store.SLA{ID: id, AppType: sla.AppTypeWorkflowJob, AppName: "bench", User: "u", CreatedTime: t0}
				nominal := t0.Add(time.Duration(k) * 864 * time.Millisecond).Truncate(time.Minute)
				if err := sla.Expect(s, sla.NS02, map[string]string{"nominal-time": nominal.Format("2006-01-02T15:04Z"),
					"should-start": "10", "should-end": "60"}); err != nil {
					return err
				}
				s.JobStatus = store.JobPrep
				if err := tx.PutSLA(ctx, s); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		at   time.Duration
	}{{"steady", 0}, {"due", 25 * time.Minute}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				// A fresh copy of the state each round: a pass that
				// decides records would otherwise leave nothing due.
				clock := enginetest.NewFakeClock(t0.Add(c.at))
				rt, err := effect.New(effect.Options{Store: st, Clock: clock})
				if err != nil {
					b.Fatal(err)
				}
				tr := New(rt, Options{})
				b.StartTimer()
				if err := tr.Pass(ctx); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if c.at > 0 {
					// Undo the decisions for the next round.
					_ = st.Update(ctx, func(tx store.Tx) error {
						recs, err := tx.SLAs(ctx, store.SLAFilter{SLAStatuses: []string{sla.Miss, sla.NotStarted}, EventStatuses: []string{sla.StartMiss}})
						for _, s := range recs {
							s.EventStatus, s.EventProcessed = "", 0
							s.NextCheck = s.ExpectedStart
							_ = tx.PutSLA(ctx, s)
						}
						return err
					})
					_ = st.Update(ctx, func(tx store.Tx) error {
						effs, err := tx.PendingEffects(ctx, "", 0)
						for _, ef := range effs {
							_ = tx.DoneEffect(ctx, ef.ID)
						}
						return err
					})
				}
				b.StartTimer()
			}
		})
	}
}
