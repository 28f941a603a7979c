package engine

import (
	"context"
	"fmt"
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

// Defaults of the effect retries and the sweep.
const (
	DefaultStoreRetryInterval = time.Second
	DefaultStoreRetryMax      = 30 * time.Second
	DefaultSweepInterval      = 30 * time.Second
	// retryLogInterval is how often a failing effect (or a failing poll
	// or sweep) is logged again: an outage of an hour logs a line a
	// minute per effect, not one per retry.
	retryLogInterval = time.Minute
	// maxLogKeys bounds the rate limiter's memory.
	maxLogKeys = 4096
)

// hold marks an effect as being performed (or waiting for its time or its
// retry) by this engine. It reports false when it already was, so an
// effect dispatched twice (by a commit and by the sweep, say) runs once.
func (e *Engine) hold(id int64) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.held[id] {
		return false
	}
	e.held[id] = true
	return true
}

// settle ends an effect's performance: it is no longer held, and its retry
// state, if it failed before, is dropped with a line saying it recovered.
func (e *Engine) settle(ef *store.Effect) {
	e.mu.Lock()
	delete(e.held, ef.ID)
	r := e.retrying[ef.ID]
	delete(e.retrying, ef.ID)
	for set := range e.settled {
		set.ids[ef.ID] = true
	}
	e.mu.Unlock()
	if r != nil {
		e.logf("gozie: effect %s %s: performed after %d failed attempt(s) over %s",
			ef.Kind, effectSubject(ef), r.failures, e.clock.Now().Sub(r.first).Round(time.Millisecond))
	}
}

// retryEffect schedules a failed effect again after its backoff, logging
// the first failure and then at most once per retryLogInterval.
func (e *Engine) retryEffect(ef *store.Effect, err error) {
	now := e.clock.Now()
	e.mu.Lock()
	r := e.retrying[ef.ID]
	if r == nil {
		r = &effectRetry{first: now}
		e.retrying[ef.ID] = r
	}
	r.failures++
	delay := backoff(e.opts.StoreRetryInterval, e.opts.StoreRetryMax, r.failures)
	logIt := r.failures == 1 || now.Sub(r.logged) >= retryLogInterval
	if logIt {
		r.logged = now
	}
	failures := r.failures
	e.mu.Unlock()
	if logIt {
		e.logf("gozie: effect %s %s: %v (failed %d time(s); retrying in %s, then at most every %s)",
			ef.Kind, effectSubject(ef), err, failures, delay, e.opts.StoreRetryMax)
	}
	e.clock.AfterFunc(delay, func() { e.goSafe(func() { e.perform(ef) }) })
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

// logLimited logs at most once per retryLogInterval per key: the poll loop
// and the sweep fail every round while the database is down.
func (e *Engine) logLimited(key, format string, args ...any) {
	now := e.clock.Now()
	e.mu.Lock()
	last, ok := e.logged[key]
	if ok && now.Sub(last) < retryLogInterval {
		e.mu.Unlock()
		return
	}
	if len(e.logged) >= maxLogKeys {
		// Keys of failures that stopped without a recovery line (an
		// action that ended, a job that was removed) go once stale.
		for k, t := range e.logged {
			if now.Sub(t) >= retryLogInterval {
				delete(e.logged, k)
			}
		}
	}
	e.logged[key] = now
	e.mu.Unlock()
	e.logf(format, args...)
}

// logRecovered logs once that a limited failure has stopped.
func (e *Engine) logRecovered(key, format string, args ...any) {
	e.mu.Lock()
	_, failed := e.logged[key]
	delete(e.logged, key)
	e.mu.Unlock()
	if failed {
		e.logf(format, args...)
	}
}

// knownEffect reports the effect kinds perform understands, the attached
// coordinator engine's included; the sweep leaves others (written by a
// newer binary) alone. e.mu must be held.
func (e *Engine) knownEffect(kind string) bool {
	switch kind {
	case store.EffectStart, store.EffectKill, store.EffectNotify, EffectHTTPNotify, EffectCheck:
		return true
	}
	return e.coordKinds[kind]
}

// SweepJob performs the pending effects of one job that nothing performs
// (sweep): the coordinator engine calls it when a launch finds its
// workflow already started, whose first effects a lost commit
// acknowledgement may have left behind.
func (e *Engine) SweepJob(ctx context.Context, jobID string) { e.sweep(ctx, jobID) }

// sweep dispatches the pending effects that are due and not held: effects
// committed by a transaction whose acknowledgement was lost, and effects
// put aside by a performer that found another one at work. An effect that
// was held at any moment of the sweep, or that settled during it, is left
// alone: its performer has it, or has just marked it done.
// jobID "" sweeps every job.
func (e *Engine) sweep(ctx context.Context, jobID string) {
	e.mu.Lock()
	before := make(map[int64]bool, len(e.held))
	for id := range e.held {
		before[id] = true
	}
	settled := &settledSet{ids: map[int64]bool{}}
	e.settled[settled] = true
	e.mu.Unlock()
	var pending []*store.Effect
	err := e.store.View(ctx, func(tx store.Tx) (err error) {
		pending, err = tx.PendingEffects(ctx, jobID, 0)
		return err
	})
	if err != nil {
		e.mu.Lock()
		delete(e.settled, settled)
		e.mu.Unlock()
		if ctx.Err() == nil {
			e.logLimited("sweep", "gozie: sweep of pending effects: %v (will sweep again)", err)
		}
		return
	}
	if jobID == "" {
		e.logRecovered("sweep", "gozie: sweep of pending effects works again")
	}
	now := e.clock.Now()
	var orphans []*store.Effect
	// The set stops collecting under the same lock the choice is made
	// in, so an effect settling at any moment until now is seen.
	e.mu.Lock()
	delete(e.settled, settled)
	for _, ef := range pending {
		if ef.NotBefore.After(now) || !e.knownEffect(ef.Kind) || before[ef.ID] || e.held[ef.ID] || settled.ids[ef.ID] {
			continue
		}
		orphans = append(orphans, ef)
	}
	e.mu.Unlock()
	if len(orphans) > 0 {
		e.logf("gozie: sweep: performing %d pending effect(s) nothing was working on", len(orphans))
		e.dispatch(orphans)
	}
}
