package server

import (
	"sync/atomic"
	"time"
)

// metrics are hand-kept counters of the REST layer, shown by
// admin/instrumentation and admin/metrics.
type metrics struct {
	requests  atomic.Int64
	errors    atomic.Int64
	totalNano atomic.Int64
	maxNano   atomic.Int64
	submitted atomic.Int64
	callbacks atomic.Int64
	// forwarded counts commands passed to the server owning the job.
	forwarded atomic.Int64
}

func newMetrics() *metrics { return &metrics{} }

func (m *metrics) observe(d time.Duration) {
	m.totalNano.Add(int64(d))
	for {
		cur := m.maxNano.Load()
		if int64(d) <= cur || m.maxNano.CompareAndSwap(cur, int64(d)) {
			return
		}
	}
}

// counters returns the counters by name.
func (m *metrics) counters() map[string]int64 {
	return map[string]int64{
		"webservices.requests":    m.requests.Load(),
		"webservices.errors":      m.errors.Load(),
		"jobs.submitted":          m.submitted.Load(),
		"callback.requests":       m.callbacks.Load(),
		"forwarded.requests":      m.forwarded.Load(),
		"webservices.time.max.ms": m.maxNano.Load() / int64(time.Millisecond),
	}
}
