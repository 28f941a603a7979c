package effect

import (
	"context"
	"errors"
	"sync"

	"github.com/gozie/gozie/internal/store"
)

// batcher writes the commits of different jobs that are ready at the same
// time in one store transaction. Why: on PostgreSQL a transaction costs a
// round trip, a fenced COMMIT and a WAL flush besides its statements, and
// many jobs each moving one step at a time (the throughput benchmark)
// otherwise pay that per step. A commit that finds no other in flight
// goes alone and at once, so a single job waits for nothing; commits that
// arrive while one is in flight queue, and the first of them writes the
// whole queue next. Each caller writes at most one transaction for others.
//
// The changes of different jobs never depend on each other, so a combined
// transaction is what committing them one after the other would give.
// When it fails for a reason that may be one job's (another server owns
// it, a constraint), each change is written again alone so that only its
// own caller sees the failure; when the store is unavailable all fail as
// they would have alone.
type batcher struct {
	store store.Store
	mu    sync.Mutex
	busy  bool
	queue []*batchItem
}

type batchItem struct {
	ctx  context.Context
	fn   func(store.Tx) error
	err  error
	done chan struct{} // closed when written (or failed)
	lead chan struct{} // closed when this item is to write the queue
}

// update is store.Update through the batcher.
func (b *batcher) update(ctx context.Context, fn func(store.Tx) error) error {
	it := &batchItem{ctx: ctx, fn: fn, done: make(chan struct{}), lead: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, it)
	if b.busy {
		b.mu.Unlock()
		select {
		case <-it.done:
			return it.err
		case <-it.lead:
		}
		b.mu.Lock()
	} else {
		b.busy = true
	}
	batch := b.queue
	b.queue = nil
	b.mu.Unlock()

	b.write(batch)

	b.mu.Lock()
	if len(b.queue) > 0 {
		close(b.queue[0].lead)
	} else {
		b.busy = false
	}
	b.mu.Unlock()
	return it.err
}

func (b *batcher) write(batch []*batchItem) {
	defer func() {
		for _, it := range batch {
			close(it.done)
		}
	}()
	if len(batch) == 1 {
		batch[0].err = b.store.Update(batch[0].ctx, batch[0].fn)
		return
	}
	ctx := batch[0].ctx
	err := b.store.Update(ctx, func(tx store.Tx) error {
		for _, it := range batch {
			if err := it.fn(tx); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		return
	}
	if errors.Is(err, store.ErrUnavailable) && ctx.Err() == nil {
		for _, it := range batch {
			it.err = err
		}
		return
	}
	for _, it := range batch {
		it.err = b.store.Update(it.ctx, it.fn)
	}
}
