package storetest

import (
	"context"
	"errors"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// testStats checks the optional parts the server's metrics and readiness
// probe use, in a store that has them: Stats counts jobs by kind and
// status and the pending effects, the due ones and the oldest due time;
// Ping answers with the schema version its migrations reached; Observe
// reports each transaction.
func testStats(t *testing.T, s store.Store) {
	if p, ok := s.(store.Pinger); ok {
		v, err := p.Ping(ctx)
		if err != nil || v == 0 || v != p.Schema() {
			t.Errorf("Ping = %d, %v; Schema %d", v, err, p.Schema())
		}
		dead, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := p.Ping(dead); err == nil {
			t.Errorf("Ping with a cancelled context succeeded")
		}
	}
	if o, ok := s.(store.Observed); ok {
		var mu sync.Mutex
		var seen []string
		o.Observe(func(op string, took time.Duration, err error) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, op+" "+errText(err))
		})
		mine := errors.New("mine")
		_ = s.Update(ctx, func(store.Tx) error { return nil })
		_ = s.View(ctx, func(store.Tx) error { return mine })
		o.Observe(nil)
		_ = s.View(ctx, func(store.Tx) error { return nil })
		mu.Lock()
		if len(seen) != 2 || seen[0] != "update -" || seen[1] != "view mine" {
			t.Errorf("observed %q", seen)
		}
		mu.Unlock()
	}
	c, ok := s.(store.Counter)
	if !ok {
		return
	}
	mustUpdate(t, s, func(tx store.Tx) error {
		for i, st := range []string{store.JobRunning, store.JobRunning, store.JobSucceeded} {
			j := sampleJob("stats-" + string(rune('a'+i)))
			j.Status, j.ExternalID = st, ""
			if err := tx.PutJob(ctx, j); err != nil {
				return err
			}
		}
		if err := tx.PutCoordJob(ctx, sampleCoordJob("stats-c")); err != nil {
			return err
		}
		for _, e := range []*store.Effect{
			{JobID: "stats-a", Kind: store.EffectStart, CreatedTime: at(10)},
			{JobID: "stats-a", Kind: store.EffectStart, CreatedTime: at(5), NotBefore: at(20)},
			{JobID: "stats-b", Kind: store.EffectStart, CreatedTime: at(30), NotBefore: at(3600)},
		} {
			if err := tx.AddEffect(ctx, e); err != nil {
				return err
			}
		}
		return nil
	})
	st, err := c.Stats(ctx, at(60))
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(st.Jobs, func(i, j int) bool { return st.Jobs[i].Kind+st.Jobs[i].Status < st.Jobs[j].Kind+st.Jobs[j].Status })
	want := []store.StatusCount{{Kind: "coordinator", Status: store.CoordRunning, N: 1},
		{Kind: "workflow", Status: store.JobRunning, N: 2}, {Kind: "workflow", Status: store.JobSucceeded, N: 1}}
	if len(st.Jobs) != len(want) {
		t.Fatalf("jobs %+v, want %+v", st.Jobs, want)
	}
	for i := range want {
		if st.Jobs[i] != want[i] {
			t.Errorf("jobs %+v, want %+v", st.Jobs, want)
		}
	}
	// Due: the first (since its creation, 10) and the second (since its
	// delay's end, 20); the third waits an hour.
	if st.Effects != 3 || st.Due != 2 || !st.OldestDue.Equal(at(10).Truncate(time.Millisecond)) {
		t.Errorf("effects %d due %d oldest %v, want 3 2 %v", st.Effects, st.Due, st.OldestDue, at(10))
	}
}

func errText(err error) string {
	if err == nil {
		return "-"
	}
	return err.Error()
}
