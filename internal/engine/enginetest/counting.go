package enginetest

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// CountingStore counts the effects of one kind its transactions write,
// whether queued or added, done since or not (the notification tests
// count the deliveries an engine decided on).
type CountingStore struct {
	store.Store
	Kind  string
	added atomic.Int32
}

// Added is the number of effects of the kind written so far.
func (s *CountingStore) Added() int32 { return s.added.Load() }

type countingTx struct {
	store.Tx
	s *CountingStore
}

// Update implements store.Store, counting through the transaction.
func (s *CountingStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	return s.Store.Update(ctx, func(tx store.Tx) error { return fn(countingTx{tx, s}) })
}

func (tx countingTx) AddEffect(ctx context.Context, ef *store.Effect) error {
	tx.count(ef)
	return tx.Tx.AddEffect(ctx, ef)
}

func (tx countingTx) QueueEffect(ctx context.Context, ef *store.Effect) error {
	tx.count(ef)
	return tx.Tx.QueueEffect(ctx, ef)
}

func (tx countingTx) count(ef *store.Effect) {
	if ef.Kind == tx.s.Kind {
		tx.s.added.Add(1)
	}
}

// Pending lists the effects of kind not yet done, of every job.
func Pending(t testing.TB, s store.Store, kind string) []*store.Effect {
	t.Helper()
	var out []*store.Effect
	err := s.View(context.Background(), func(tx store.Tx) error {
		all, err := tx.PendingEffects(context.Background(), "", 0)
		for _, ef := range all {
			if ef.Kind == kind {
				out = append(out, ef)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
