package effect

import (
	"context"
	"errors"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// Dispatch performs committed effects, each on its own goroutine except
// those of the kinds registered InOrder, which share one per job and kind;
// delayed ones (retry intervals) wait on the clock first. An effect the
// runtime already holds (performing, waiting or retrying) is not
// dispatched again.
func (r *Runtime) Dispatch(effects []*store.Effect) {
	// Effects of an ordered kind of one job are performed one after the
	// other, in the order they were committed: goroutines of their own
	// would race for the job's lock and perform them in any order.
	r.kinds.RLock()
	inOrder := r.inOrder
	r.kinds.RUnlock()
	var chains [][]*store.Effect
	chain := map[string]int{} // job id and kind -> index in chains
	for _, ef := range effects {
		if !r.hold(ef.ID) {
			continue
		}
		if d := ef.NotBefore.Sub(r.clock.Now()); d > 0 {
			stop := r.clock.AfterFunc(d, func() { r.Go(func() { r.perform(ef) }) })
			// The clock may have moved on between reading it and arming
			// the timer (a test's clock jumps hours at once): the timer
			// then fires that much later than the effect is due. An
			// effect due by now is performed now, if its timer had not
			// fired yet.
			if !ef.NotBefore.After(r.clock.Now()) && stop() {
				r.Go(func() { r.perform(ef) })
			}
			continue
		}
		if inOrder[ef.Kind] {
			key := ef.JobID + " " + ef.Kind
			i, ok := chain[key]
			if !ok {
				i = len(chains)
				chain[key] = i
				chains = append(chains, nil)
			}
			chains[i] = append(chains[i], ef)
			continue
		}
		r.Go(func() { r.perform(ef) })
	}
	for _, efs := range chains {
		r.Go(func() {
			for _, ef := range efs {
				r.perform(ef)
			}
		})
	}
}

// perform performs one effect; one whose work failed is retried after a
// backoff (retry.go) until it succeeds or the runtime closes.
func (r *Runtime) perform(ef *store.Effect) {
	ctx := r.ctx
	err := r.performJournaled(ctx, ef)
	if err != nil && ctx.Err() == nil && r.opts.CodeOf(err) == vocab.CodeJobNotFound {
		// The job is gone (deleted, or never committed): nothing to do.
		err = r.MarkDone(ctx, ef)
	}
	if ctx.Err() != nil {
		return // shutting down: still pending in the store for the next start
	}
	if errors.Is(err, store.ErrNotOwner) {
		// Another server took the job over (fencing.go): the effect is
		// its to perform now.
		r.LostJob(ef.JobID, err)
		r.settle(ef)
		return
	}
	if err != nil {
		r.retryEffect(ef, err)
		return
	}
	r.settle(ef)
}

// PerformAgain performs ef on the caller's goroutine as a dispatch does
// (journal, retries, settle), whether or not it is held: for an effect
// whose handler put it aside, having found another of the same work in
// flight, and takes it up again when that one ends.
func (r *Runtime) PerformAgain(ef *store.Effect) { r.perform(ef) }

// Perform performs ef with the handler of its kind, as dispatch does but
// on the caller's goroutine and without hold, journal or retry: for a
// handler that passes an effect it received on to another kind.
func (r *Runtime) Perform(ctx context.Context, ef *store.Effect) error {
	return r.performEffect(ctx, ef)
}

func (r *Runtime) performEffect(ctx context.Context, ef *store.Effect) error {
	h := r.handler(ef)
	if h == nil {
		r.Logf("gozie: unknown effect %q of job %s; leaving it", ef.Kind, ef.JobID)
		return nil
	}
	return h.Perform(ctx, ef)
}
