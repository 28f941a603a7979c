package effect

import "errors"

// Fencing. With several servers on one store every job has an owner, and
// a commit touching a job another server owns fails with
// store.ErrNotOwner (the store's fenced commit). The runtime turns that
// into "the job is gone": LostJob gives back its action slots and tells
// the engines (OnLost) to drop their cached state; the effect is left to
// the new owner. The lease closes the remaining gap: a server whose
// heartbeat is late starts no action, since a watcher may be about to
// take its jobs and start them too.

// ErrLeaseExpired delays an action start until the lease is renewed.
var ErrLeaseExpired = errors.New("engine: this server's lease on its jobs has expired; the start waits for the next heartbeat")

// LeaseValid reports whether this server may start actions now: its last
// heartbeat is recent enough (Options.LeaseValid), or it is alone.
func (r *Runtime) LeaseValid() bool {
	return r.opts.LeaseValid == nil || r.opts.LeaseValid()
}

// LostJob drops what the server holds of a job another server owns now.
func (r *Runtime) LostJob(jobID string, err error) {
	r.kinds.RLock()
	lost := r.onLost
	r.kinds.RUnlock()
	for _, f := range lost {
		f(jobID)
	}
	r.slots.ReleaseJob(jobID)
	r.LogLimited("lost "+jobID, "gozie: job %s is worked by another server now; leaving it (%v)", jobID, err)
}
