package effect

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// Effects that fail are performed again, never only logged: a database
// outage must not leave a job RUNNING with its next action in PREP until
// the server restarts. Two mechanisms cover the two ways an effect can be
// lost:
//
//   - An effect whose work returned an error (a transaction that did not
//     commit, a store that could not be read) is retried by its own
//     goroutine on the engine's Clock, after StoreRetryInterval doubled per
//     failure up to StoreRetryMax, until it succeeds or the engine closes.
//     It stays "held" meanwhile, so nothing else performs it.
//   - A commit whose acknowledgement was lost (the connection broke after
//     COMMIT was sent) may have stored new effects that were never
//     dispatched. The sweep (every SweepInterval) reads the pending effects
//     and dispatches those that are due and that the engine does not hold.
//
// Both rely on effects being idempotent: a start is claimed per action and
// attempt and re-checks the action's status under the job lock; coordinator
// effects re-read what they act on.

// settledSet collects the effects settled while one sweep runs. Sweeps of
// one job (after a lost acknowledgement) may run beside the periodic one.
type settledSet struct{ ids map[int64]bool }

// effectRetry is the retry state of one failing effect.
type effectRetry struct {
	failures int
	first    time.Time // clock time of the first failure
	logged   time.Time // clock time of the last log line about it
}

const (
	// retryLogInterval is how often a failing effect (or a failing poll
	// or sweep) is logged again: an outage of an hour logs a line a
	// minute per effect, not one per retry.
	retryLogInterval = time.Minute
	// maxLogKeys bounds the rate limiter's memory.
	maxLogKeys = 4096
)

// hold marks an effect as being performed (or waiting for its time or its
// retry) by this runtime. It reports false when it already was, so an
// effect dispatched twice (by a commit and by the sweep, say) runs once.
func (r *Runtime) hold(id int64) bool {
	r.fx.Lock()
	defer r.fx.Unlock()
	if r.held[id] {
		return false
	}
	r.held[id] = true
	return true
}

// settle ends an effect's performance: it is no longer held, and its retry
// state, if it failed before, is dropped with a line saying it recovered.
func (r *Runtime) settle(ef *store.Effect) {
	r.fx.Lock()
	delete(r.held, ef.ID)
	er := r.retrying[ef.ID]
	delete(r.retrying, ef.ID)
	for set := range r.settled {
		set.ids[ef.ID] = true
	}
	r.fx.Unlock()
	if er != nil {
		r.Logf("gozie: effect %s %s: performed after %d failed attempt(s) over %s",
			ef.Kind, effectSubject(ef), er.failures, r.clock.Now().Sub(er.first).Round(time.Millisecond))
	}
}

// retryEffect schedules a failed effect again after its backoff, logging
// the first failure and then at most once per retryLogInterval.
func (r *Runtime) retryEffect(ef *store.Effect, err error) {
	now := r.clock.Now()
	r.fx.Lock()
	er := r.retrying[ef.ID]
	if er == nil {
		er = &effectRetry{first: now}
		r.retrying[ef.ID] = er
	}
	er.failures++
	delay := backoff(r.opts.StoreRetryInterval, r.opts.StoreRetryMax, er.failures)
	logIt := er.failures == 1 || now.Sub(er.logged) >= retryLogInterval
	if logIt {
		er.logged = now
	}
	failures := er.failures
	r.fx.Unlock()
	if logIt {
		r.Logf("gozie: effect %s %s: %v (failed %d time(s); retrying in %s, then at most every %s)",
			ef.Kind, effectSubject(ef), err, failures, delay, r.opts.StoreRetryMax)
	}
	r.clock.AfterFunc(delay, func() { r.Go(func() { r.perform(ef) }) })
}

// backoff is the wait before retry number n (1-based): base doubled for
// each earlier failure, at most ceiling.
func backoff(base, ceiling time.Duration, n int) time.Duration {
	d := base
	for i := 1; i < n && d < ceiling; i++ {
		d *= 2
	}
	return min(d, ceiling)
}

func effectSubject(ef *store.Effect) string {
	if ef.ActionID != "" {
		return fmt.Sprintf("%s (effect %d)", ef.ActionID, ef.ID)
	}
	return fmt.Sprintf("%s (effect %d)", ef.JobID, ef.ID)
}

// logLimiter rate-limits log lines of repeated failures by key.
type logLimiter struct {
	mu     sync.Mutex
	logged map[string]time.Time // last line of each rate-limited failure
}

// LogLimited logs at most once per retryLogInterval per key: the poll loop
// and the sweep fail every round while the database is down.
func (r *Runtime) LogLimited(key, format string, args ...any) {
	now := r.clock.Now()
	l := &r.limiter
	l.mu.Lock()
	last, ok := l.logged[key]
	if ok && now.Sub(last) < retryLogInterval {
		l.mu.Unlock()
		return
	}
	if len(l.logged) >= maxLogKeys {
		// Keys of failures that stopped without a recovery line (an
		// action that ended, a job that was removed) go once stale.
		for k, t := range l.logged {
			if now.Sub(t) >= retryLogInterval {
				delete(l.logged, k)
			}
		}
	}
	l.logged[key] = now
	l.mu.Unlock()
	r.Logf(format, args...)
}

// LogRecovered logs once that a limited failure has stopped.
func (r *Runtime) LogRecovered(key, format string, args ...any) {
	l := &r.limiter
	l.mu.Lock()
	_, failed := l.logged[key]
	delete(l.logged, key)
	l.mu.Unlock()
	if failed {
		r.Logf(format, args...)
	}
}

// SweepJob performs the pending effects of one job that nothing performs
// (sweep): an engine calls it when it finds work it created already done
// (a workflow already started, a submission found by its external id),
// whose first effects a lost commit acknowledgement may have left behind.
func (r *Runtime) SweepJob(ctx context.Context, jobID string) { r.sweep(ctx, jobID) }

// sweep dispatches the pending effects that are due and not held: effects
// committed by a transaction whose acknowledgement was lost, and effects
// put aside by a performer that found another one at work. An effect that
// was held at any moment of the sweep, or that settled during it, is left
// alone: its performer has it, or has just marked it done.
// jobID "" sweeps every job.
func (r *Runtime) sweep(ctx context.Context, jobID string) {
	r.fx.Lock()
	before := make(map[int64]bool, len(r.held))
	for id := range r.held {
		before[id] = true
	}
	settled := &settledSet{ids: map[int64]bool{}}
	r.settled[settled] = true
	r.fx.Unlock()
	var pending []*store.Effect
	err := r.store.View(ctx, func(tx store.Tx) (err error) {
		pending, err = tx.PendingEffects(ctx, jobID, 0)
		return err
	})
	if err != nil {
		r.fx.Lock()
		delete(r.settled, settled)
		r.fx.Unlock()
		if ctx.Err() == nil {
			r.LogLimited("sweep", "gozie: sweep of pending effects: %v (will sweep again)", err)
		}
		return
	}
	if jobID == "" {
		r.LogRecovered("sweep", "gozie: sweep of pending effects works again")
	}
	now := r.clock.Now()
	var orphans []*store.Effect
	// The set stops collecting under the same lock the choice is made
	// in, so an effect settling at any moment until now is seen.
	r.fx.Lock()
	delete(r.settled, settled)
	for _, ef := range pending {
		if ef.NotBefore.After(now) || !r.known(ef.Kind) || before[ef.ID] || r.held[ef.ID] || settled.ids[ef.ID] {
			continue
		}
		orphans = append(orphans, ef)
	}
	r.fx.Unlock()
	if len(orphans) > 0 {
		r.Logf("gozie: sweep: performing %d pending effect(s) nothing was working on", len(orphans))
		r.Dispatch(orphans)
	}
}
