package effect

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
	"github.com/gozie/gozie/internal/store/storetest"
)

// TestBatcher: commits of different jobs that queue behind one in flight
// are written in one transaction; when that transaction fails because of
// one of them, only that one's caller sees the failure; when the store is
// unavailable, every caller does, without each retrying alone.
func TestBatcher(t *testing.T) {
	const n = 6
	errBoom := errors.New("boom: a constraint of one job")
	for _, c := range []struct {
		name    string
		failing int   // index of the commit whose write fails; -1: none
		failErr error // what it fails with
		updates int   // store transactions in all (the gated first one included)
		written int   // jobs in the store afterwards
	}{
		{"queued commits share a transaction", -1, nil, 2, n},
		{"one failing commit fails alone", 3, errBoom, 2 + (n - 1), n - 1},
		{"an unavailable store fails them all at once", 3, store.ErrUnavailable, 2, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "gozie.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			gs := &storetest.Gated{Store: s}
			gs.Arm(0)
			b := &batcher{store: gs}
			put := func(i int) func(store.Tx) error {
				return func(tx store.Tx) error {
					if i == c.failing {
						return c.failErr
					}
					return tx.PutJob(context.Background(), &store.Job{ID: fmt.Sprintf("%07d-W", i), Status: store.JobRunning,
						CreatedTime: time.Unix(1, 0), LastModTime: time.Unix(1, 0)})
				}
			}
			errs := make([]error, n)
			var wg sync.WaitGroup
			wg.Go(func() { errs[0] = b.update(context.Background(), put(0)) })
			// The first commit waits at the gate; the others queue.
			for {
				b.mu.Lock()
				busy := b.busy
				b.mu.Unlock()
				if busy {
					break
				}
				time.Sleep(time.Millisecond) // the first goroutine reaching the store
			}
			for i := 1; i < n; i++ {
				wg.Go(func() { errs[i] = b.update(context.Background(), put(i)) })
			}
			for {
				b.mu.Lock()
				queued := len(b.queue)
				b.mu.Unlock()
				if queued == n-1 {
					break
				}
				time.Sleep(time.Millisecond) // the others queueing
			}
			gs.Open()
			wg.Wait()
			for i, err := range errs {
				want := error(nil)
				if i == c.failing || (errors.Is(c.failErr, store.ErrUnavailable) && i > 0) {
					want = c.failErr
				}
				if !errors.Is(err, want) && !(want == nil && err == nil) {
					t.Errorf("commit %d: %v, want %v", i, err, want)
				}
			}
			if got := gs.Count(); got != c.updates {
				t.Errorf("%d store transactions, want %d", got, c.updates)
			}
			jobs := 0
			_ = s.View(context.Background(), func(tx store.Tx) error {
				for i := range n {
					if _, err := tx.Job(context.Background(), fmt.Sprintf("%07d-W", i)); err == nil {
						jobs++
					}
				}
				return nil
			})
			if jobs != c.written {
				t.Errorf("%d jobs written, want %d", jobs, c.written)
			}
		})
	}
}
