package effect

import (
	"sync/atomic"
	"time"
)

// Observer is told what the engines on a runtime did, after the commit
// that did it: the server's metrics count it. The engines call it with
// bounded values only (job kinds, statuses, action types), never ids or
// names, and it must neither block nor fail.
type Observer interface {
	// JobStatus reports a job whose status changed from one status to
	// another; kind is "workflow", "coordinator" or "bundle".
	JobStatus(kind, from, to string)
	// ActionStarted reports an action of the type that left PREP for a
	// run (its executor's Start was called and answered).
	ActionStarted(typ string)
	// ActionEnded reports an action of the type that reached a terminal
	// status (OK, ERROR, KILLED, FAILED), with the time since its start
	// (zero when it never started).
	ActionEnded(typ, status string, took time.Duration)
	// Materialized reports a coordinator action materialized by a tick,
	// with how late the tick that made it ran: now less the time the
	// action was due to be materialized (never negative).
	Materialized(lag time.Duration)
}

// nopObserver is the observer of a runtime nobody watches.
type nopObserver struct{}

func (nopObserver) JobStatus(string, string, string)          {}
func (nopObserver) ActionStarted(string)                      {}
func (nopObserver) ActionEnded(string, string, time.Duration) {}
func (nopObserver) Materialized(time.Duration)                {}

// observers holds a runtime's observer, per runtime rather than per
// process: tests run several servers in one process. The Observer sits in
// a box because atomic.Pointer needs one concrete type.
type observers struct{ p atomic.Pointer[observerBox] }

type observerBox struct{ o Observer }

// SetObserver has o told of what the engines on this runtime do (nil:
// nobody). The assembly sets the server's metrics before Start.
func (r *Runtime) SetObserver(o Observer) {
	if o == nil {
		r.obs.p.Store(nil)
		return
	}
	r.obs.p.Store(&observerBox{o})
}

// Observer returns the runtime's observer, a no-op one when none is set,
// so that the engines call it unconditionally.
func (r *Runtime) Observer() Observer {
	if b := r.obs.p.Load(); b != nil {
		return b.o
	}
	return nopObserver{}
}

// Stats are the runtime's own counts of effects in this process.
type Stats struct {
	// Held are effects dispatched and not yet settled: being performed,
	// waiting for a slot, or waiting for their delay.
	Held int
	// Retrying are effects whose last attempt failed and that wait for
	// their next one (backoff).
	Retrying int
}

// Stats returns the runtime's counts now.
func (r *Runtime) Stats() Stats {
	r.fx.Lock()
	defer r.fx.Unlock()
	return Stats{Held: len(r.held), Retrying: len(r.retrying)}
}
