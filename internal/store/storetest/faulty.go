package storetest

import (
	"context"
	"errors"
	"sync"

	"github.com/gozie/gozie/internal/store"
)

// ErrInjected is the failure a Faulty store injects. It is classified as
// store.ErrUnavailable, like a dropped database connection.
var ErrInjected = &store.UnavailableError{Err: errors.New("storetest: injected outage")}

// Faulty wraps a store and makes chosen Update calls fail, to test what the
// engine and the server do when the database goes away.
type Faulty struct {
	store.Store

	mu       sync.Mutex
	skip     int  // Update calls to let through before failing
	fail     int  // Update calls to fail after those
	lostAck  bool // commit the failing calls, then report the failure
	failView bool // fail View calls too while fail > 0
	failed   int  // Update calls failed so far
	onFail   func()
}

// NewFaulty wraps s; it passes everything through until FailUpdates.
func NewFaulty(s store.Store) *Faulty { return &Faulty{Store: s} }

// FailUpdates makes the Update calls after the next skip ones fail, n of
// them, with ErrInjected. With lostAck the failing calls do commit, as
// when a connection breaks after COMMIT was sent and its answer is lost.
func (f *Faulty) FailUpdates(skip, n int, lostAck bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.skip, f.fail, f.lostAck = skip, n, lostAck
}

// FailViews makes View calls fail as well while Update calls are failing.
func (f *Faulty) FailViews(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failView = on
}

// Failed returns how many Update calls failed.
func (f *Faulty) Failed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

// OnFail sets a function called after each injected Update failure.
func (f *Faulty) OnFail(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onFail = fn
}

// next decides the fate of one Update: pass, fail, or commit and fail.
func (f *Faulty) next() (fail, commit bool, onFail func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.skip > 0 {
		f.skip--
		return false, true, nil
	}
	if f.fail == 0 {
		return false, true, nil
	}
	f.fail--
	f.failed++
	return true, f.lostAck, f.onFail
}

// Update implements store.Store.
func (f *Faulty) Update(ctx context.Context, fn func(store.Tx) error) error {
	fail, commit, onFail := f.next()
	if !fail {
		return f.Store.Update(ctx, fn)
	}
	if commit {
		if err := f.Store.Update(ctx, fn); err != nil {
			return err
		}
	}
	if onFail != nil {
		onFail()
	}
	return ErrInjected
}

// View implements store.Store.
func (f *Faulty) View(ctx context.Context, fn func(store.Tx) error) error {
	f.mu.Lock()
	down := f.failView && f.fail > 0
	f.mu.Unlock()
	if down {
		return ErrInjected
	}
	return f.Store.View(ctx, fn)
}
