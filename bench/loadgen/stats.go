package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"time"
)

// recorder collects the latency of every completed request of one phase.
// Requests are recorded from many goroutines; the lock is cheap next to an
// HTTP round trip.
type recorder struct {
	mu      sync.Mutex
	lat     []time.Duration
	errors  int
	dropped int   // open loop: requests never sent, the server being too slow
	first   error // kept to tell the user why requests fail
}

func (r *recorder) drop() {
	r.mu.Lock()
	r.dropped++
	r.mu.Unlock()
}

func (r *recorder) record(d time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lat = append(r.lat, d)
	if err != nil {
		r.errors++
		if r.first == nil {
			r.first = err
		}
	}
}

// summary is one row of the result table.
type summary struct {
	Name     string
	Mode     string
	Requests int
	Errors   int
	Dropped  int
	Elapsed  time.Duration
	P50, P90 time.Duration
	P99, Max time.Duration
	FirstErr error
}

// summarize sorts the latencies and reads the percentiles off them.
func (r *recorder) summarize(name, mode string, elapsed time.Duration) summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	lat := slices.Clone(r.lat)
	slices.Sort(lat)
	s := summary{Name: name, Mode: mode, Requests: len(lat), Errors: r.errors, Dropped: r.dropped, Elapsed: elapsed, FirstErr: r.first}
	s.P50, s.P90, s.P99 = percentile(lat, 50), percentile(lat, 90), percentile(lat, 99)
	if len(lat) > 0 {
		s.Max = lat[len(lat)-1]
	}
	return s
}

// percentile returns the nearest-rank percentile p (0 < p <= 100) of sorted
// latencies: the smallest value with at least p% of the samples at or below
// it. Nearest rank never invents a latency nobody saw, unlike
// interpolation, and p99 of fewer than 100 samples is simply the maximum.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	// Multiplying before dividing keeps p*n/100 exact for whole percents;
	// the epsilon guards against float noise pushing it up a rank.
	rank := int(math.Ceil(p*float64(len(sorted))/100 - 1e-9))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

// throughput is the achieved rate: completed requests per second of the
// phase's wall time.
func (s summary) throughput() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Requests) / s.Elapsed.Seconds()
}

// printTable writes the results as an aligned table.
func printTable(w io.Writer, rows []summary) {
	fmt.Fprintf(w, "%-14s %-16s %8s %7s %9s %9s %9s %9s %9s\n", "ENDPOINT", "MODE", "REQS", "ERRORS", "REQ/S", "P50", "P90", "P99", "MAX")
	for _, s := range rows {
		fmt.Fprintf(w, "%-14s %-16s %8d %7d %9.1f %9s %9s %9s %9s\n", s.Name, s.Mode, s.Requests, s.Errors, s.throughput(),
			ms(s.P50), ms(s.P90), ms(s.P99), ms(s.Max))
	}
	for _, s := range rows {
		if s.Dropped > 0 {
			fmt.Fprintf(w, "%s %s: %d requests dropped, never sent: the server fell too far behind the rate\n", s.Name, s.Mode, s.Dropped)
		}
		if s.FirstErr != nil {
			fmt.Fprintf(w, "first error of %s %s: %v\n", s.Name, s.Mode, s.FirstErr)
		}
	}
}

// ms formats a latency in milliseconds with a precision that suits it.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v < 10:
		return fmt.Sprintf("%.2fms", v)
	case v < 1000:
		return fmt.Sprintf("%.1fms", v)
	}
	return fmt.Sprintf("%.0fms", v)
}
