// Package effect is the effect runtime (the outbox) both engines run on.
//
// A change of a job is committed to the store together with the effects it
// calls for (start this action, launch that workflow, tell a parent job);
// only after the commit are the effects performed, each by the handler
// registered for its kind, and each marked done in the transaction of its
// outcome. A crash at any point therefore leaves either the old state or
// the new state with its effects still pending, and Start performs them
// again. Handlers must be idempotent.
//
// The runtime owns what is the same for every kind: dispatch (on a
// goroutine of its own, or in commit order per job for kinds that ask),
// delayed effects, hold and settle (an effect runs once however often it is
// dispatched), retries with backoff when the store is out of reach
// (retry.go), the sweep for effects a lost commit acknowledgement left
// behind, group commit across jobs (batch.go), action slots (slots.go),
// the server's lease and the loss of a job to another server (fencing.go),
// the crash journal and quarantine (journal.go, quarantine.go), and the
// per-job lock and state cache (cache.go). It imports neither engine: the
// workflow engine and the coordinator engine register their kinds on one
// *Runtime as peers.
package effect

import (
	"context"
	"errors"
	"log"
	"sync"
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// Handler performs the effects of one kind. Perform is called after the
// commit that created the effect, again after a crash, and again after a
// failure (an error retries it after a backoff; store.ErrNotOwner gives the
// job up to its new owner; an error with code E0604, the job gone, marks
// the effect done). It must be idempotent.
type Handler interface {
	Perform(ctx context.Context, ef *store.Effect) error
}

// HandlerFunc is a Handler of one function.
type HandlerFunc func(ctx context.Context, ef *store.Effect) error

// Perform calls f.
func (f HandlerFunc) Perform(ctx context.Context, ef *store.Effect) error { return f(ctx, ef) }

// Quarantiner is a Handler that knows what its job needs when one of its
// effects is quarantined (the server died performing it QuarantineDeaths
// times): Quarantine marks the effect done instead of performing it, with
// a job log line saying msg. Handlers without it get a log line and the
// effect marked done.
type Quarantiner interface {
	Quarantine(ctx context.Context, ef *store.Effect, deaths int, msg string) error
}

// Router is a Handler that hands some of its kind's effects to the handler
// of another kind: the workflow engine's notify effect of a workflow whose
// parent is not a workflow goes to the parent engine's kind. Route returns
// that kind, or "" to perform the effect itself.
type Router interface {
	Route(ef *store.Effect) string
}

// Options configure a Runtime.
type Options struct {
	Store store.Store // required
	Clock Clock       // default SystemClock
	Logf  func(format string, args ...any)
	// StoreRetryInterval is the first wait before a failed effect is
	// performed again, doubled per failure up to StoreRetryMax.
	StoreRetryInterval time.Duration
	StoreRetryMax      time.Duration
	// SweepInterval is how often pending effects nothing performs are
	// looked for (Start runs the sweep).
	SweepInterval time.Duration
	// MaxRunningActions bounds the slots (slots.go); 0 is unbounded.
	MaxRunningActions int
	// CrashJournal is the crash journal's path; "" runs without one.
	CrashJournal string
	// LeaseValid, when set, reports whether this server's lease on its
	// jobs is current (fencing.go).
	LeaseValid func() bool
	// CodeOf returns the Oozie code of an error; an effect failing with
	// E0604 (its job is gone) is marked done. Default vocab.CodeOf.
	CodeOf func(error) string
}

// Defaults of the effect retries and the sweep.
const (
	DefaultStoreRetryInterval = time.Second
	DefaultStoreRetryMax      = 30 * time.Second
	DefaultSweepInterval      = 30 * time.Second
)

// Runtime performs the effects of the engines registered on it.
type Runtime struct {
	opts  Options
	store store.Store
	clock Clock
	batch *batcher // several jobs' commits in one transaction
	slots *Slots

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// life guards closed: goroutines are not started once Close began.
	life   sync.Mutex
	closed bool

	// kinds guards the registry, written before Start.
	kinds    sync.RWMutex
	handlers map[string]Handler
	inOrder  map[string]bool
	onLost   []func(jobID string)

	// fx guards the effects' bookkeeping (retry.go).
	fx       sync.Mutex
	held     map[int64]bool         // effects dispatched and not settled
	retrying map[int64]*effectRetry // effects whose last attempt failed
	settled  map[*settledSet]bool   // one set per sweep in progress

	limiter logLimiter

	journal *crashJournal // nil without Options.CrashJournal
	suspect chan struct{} // held while an effect in flight at a death is performed

	obs observers // observe.go
}

// New returns a runtime; it performs nothing until Start.
func New(opts Options) (*Runtime, error) {
	if opts.Store == nil {
		return nil, errors.New("effect: Store is required")
	}
	if opts.Clock == nil {
		opts.Clock = SystemClock
	}
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	if opts.StoreRetryInterval <= 0 {
		opts.StoreRetryInterval = DefaultStoreRetryInterval
	}
	if opts.StoreRetryMax <= 0 {
		opts.StoreRetryMax = DefaultStoreRetryMax
	}
	opts.StoreRetryMax = max(opts.StoreRetryMax, opts.StoreRetryInterval)
	if opts.SweepInterval <= 0 {
		opts.SweepInterval = DefaultSweepInterval
	}
	if opts.CodeOf == nil {
		opts.CodeOf = vocab.CodeOf
	}
	r := &Runtime{
		opts: opts, store: opts.Store, clock: opts.Clock,
		batch:    &batcher{store: opts.Store},
		slots:    NewSlots(opts.MaxRunningActions),
		handlers: map[string]Handler{}, inOrder: map[string]bool{},
		held: map[int64]bool{}, retrying: map[int64]*effectRetry{}, settled: map[*settledSet]bool{},
		limiter: logLimiter{logged: map[string]time.Time{}},
		suspect: make(chan struct{}, 1),
	}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	return r, nil
}

// RegisterOption modifies a registration.
type RegisterOption func(kind string, r *Runtime)

// InOrder has the effects of the kind of one job, dispatched together,
// performed one after the other in commit order instead of each on a
// goroutine of its own (a coordinator's workflow launches, which its
// execution policy ordered).
func InOrder() RegisterOption {
	return func(kind string, r *Runtime) { r.inOrder[kind] = true }
}

// Register has h perform the effects of kind. Register every kind before
// Start: pending effects of kinds nobody registered (a newer binary's) are
// left alone.
func (r *Runtime) Register(kind string, h Handler, opts ...RegisterOption) {
	r.kinds.Lock()
	defer r.kinds.Unlock()
	r.handlers[kind] = h
	for _, o := range opts {
		o(kind, r)
	}
}

// OnLost adds f to what runs when a job turns out to be another server's
// (a commit failed with store.ErrNotOwner): the engines drop their cached
// state of it.
func (r *Runtime) OnLost(f func(jobID string)) {
	r.kinds.Lock()
	r.onLost = append(r.onLost, f)
	r.kinds.Unlock()
}

// handler returns the handler of ef, following a Router.
func (r *Runtime) handler(ef *store.Effect) Handler {
	r.kinds.RLock()
	defer r.kinds.RUnlock()
	h := r.handlers[ef.Kind]
	if rt, ok := h.(Router); ok {
		// A kind nobody registered (no such engine here) leaves the
		// effect to its own kind's handler.
		if to := r.handlers[rt.Route(ef)]; to != nil {
			h = to
		}
	}
	return h
}

// known reports whether an effect kind has a handler.
func (r *Runtime) known(kind string) bool {
	r.kinds.RLock()
	defer r.kinds.RUnlock()
	return r.handlers[kind] != nil
}

// Store is the runtime's store.
func (r *Runtime) Store() store.Store { return r.store }

// Clock is the runtime's clock.
func (r *Runtime) Clock() Clock { return r.clock }

// Logf writes a line to the server log.
func (r *Runtime) Logf(format string, args ...any) { r.opts.Logf(format, args...) }

// Context is the runtime's context, done once Close begins.
func (r *Runtime) Context() context.Context { return r.ctx }

// Slots are the action slots of the server.
func (r *Runtime) Slots() *Slots { return r.slots }

// Update is store.Update through group commit (batch.go): commits of
// different jobs ready together share a transaction.
func (r *Runtime) Update(ctx context.Context, fn func(store.Tx) error) error {
	return r.batch.update(ctx, fn)
}

// MarkDone records an effect performed when nothing else changes.
func (r *Runtime) MarkDone(ctx context.Context, ef *store.Effect) error {
	return r.store.Update(ctx, func(tx store.Tx) error { return tx.DoneEffect(ctx, ef.ID) })
}

// Start opens the crash journal and performs every pending effect of the
// store, then runs the sweep every SweepInterval until Close.
func (r *Runtime) Start(ctx context.Context) error {
	r.startJournal()
	pending, err := r.adopt(ctx)
	if err != nil {
		return err
	}
	r.keepJournal(pending)
	r.Every(r.opts.SweepInterval, func() { r.sweep(r.ctx, "") })
	return nil
}

// Adopt performs the pending effects the store lists as this server's
// (delayed ones when due): a server that took another's jobs over calls
// it. Effects already under way are not repeated.
func (r *Runtime) Adopt(ctx context.Context) error {
	_, err := r.adopt(ctx)
	return err
}

func (r *Runtime) adopt(ctx context.Context) ([]*store.Effect, error) {
	var effects []*store.Effect
	err := r.store.View(ctx, func(tx store.Tx) (err error) {
		effects, err = tx.PendingEffects(ctx, "", 0)
		return err
	})
	if err != nil {
		return nil, err
	}
	r.Dispatch(effects)
	return effects, nil
}

// Every calls f every interval (a wall-clock ticker) until Close.
func (r *Runtime) Every(interval time.Duration, f func()) {
	r.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-r.ctx.Done():
				return
			case <-t.C:
			}
			f()
		}
	})
}

// Go runs f on a goroutine Close waits for; after Close began, not at all.
func (r *Runtime) Go(f func()) {
	r.life.Lock()
	if r.closed {
		r.life.Unlock()
		return
	}
	r.wg.Add(1)
	r.life.Unlock()
	go func() {
		defer r.wg.Done()
		f()
	}()
}

// Closed reports whether Close has begun.
func (r *Runtime) Closed() bool {
	r.life.Lock()
	defer r.life.Unlock()
	return r.closed
}

// Close stops the runtime and waits for its goroutines. Pending effects
// stay in the store; a later Start performs them.
func (r *Runtime) Close() error {
	r.life.Lock()
	r.closed = true
	r.life.Unlock()
	r.cancel()
	r.wg.Wait()
	if r.journal != nil {
		// Every effect has ended or been abandoned: the journal keeps
		// only the counts of deaths.
		return r.journal.Close()
	}
	return nil
}
