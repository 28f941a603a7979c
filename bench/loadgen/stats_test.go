package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func durations(ms ...int) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m) * time.Millisecond
	}
	return out
}

func TestPercentile(t *testing.T) {
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one sample is every percentile", durations(7), 99, 7 * time.Millisecond},
		{"p50 of 1..100", durations(hundred...), 50, 50 * time.Millisecond},
		{"p90 of 1..100", durations(hundred...), 90, 90 * time.Millisecond},
		{"p99 of 1..100", durations(hundred...), 99, 99 * time.Millisecond},
		{"p100 is the maximum", durations(hundred...), 100, 100 * time.Millisecond},
		{"p50 of four rounds up to the second", durations(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p51 of four is the third", durations(1, 2, 3, 4), 51, 3 * time.Millisecond},
		{"p99 of ten is the maximum", durations(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 99, 10 * time.Millisecond},
		{"p10 of ten is the first", durations(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 10, 1 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := percentile(tt.sorted, tt.p); got != tt.want {
			t.Errorf("%s: percentile(%v) = %v, want %v", tt.name, tt.p, got, tt.want)
		}
	}
}

// TestRecorder records out of order, from several goroutines, with errors.
func TestRecorder(t *testing.T) {
	var r recorder
	done := make(chan bool)
	for g := range 4 {
		go func() {
			for i := range 25 {
				var err error
				if g == 0 && i < 2 {
					err = errors.New("HTTP 500")
				}
				r.record(time.Duration(100-(g*25+i))*time.Millisecond, err)
			}
			done <- true
		}()
	}
	for range 4 {
		<-done
	}
	r.drop()
	s := r.summarize("job info", "closed x4", 2*time.Second)
	if s.Requests != 100 || s.Errors != 2 || s.Dropped != 1 || s.FirstErr == nil {
		t.Errorf("requests %d errors %d dropped %d first %v", s.Requests, s.Errors, s.Dropped, s.FirstErr)
	}
	if s.P50 != 50*time.Millisecond || s.P90 != 90*time.Millisecond || s.P99 != 99*time.Millisecond || s.Max != 100*time.Millisecond {
		t.Errorf("percentiles %v %v %v %v", s.P50, s.P90, s.P99, s.Max)
	}
	if got := s.throughput(); got != 50 {
		t.Errorf("throughput %v, want 50 req/s", got)
	}
	var b bytes.Buffer
	printTable(&b, []summary{s})
	for _, want := range []string{"job info", "closed x4", "50.0", "50.0ms", "100.0ms", "first error of job info closed x4: HTTP 500", "1 requests dropped"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

func TestMs(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{1500 * time.Microsecond, "1.50ms"},
		{25 * time.Millisecond, "25.0ms"},
		{2 * time.Second, "2000ms"},
	}
	for _, tt := range tests {
		if got := ms(tt.d); got != tt.want {
			t.Errorf("ms(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestLoops checks the request accounting of the three load shapes with a
// request that answers at once: the open loop sends exactly rate x
// duration requests, the fixed count exactly n, with no drops.
func TestLoops(t *testing.T) {
	var calls atomic.Int64
	req := func(context.Context) error { calls.Add(1); return nil }
	r, _ := openLoop(context.Background(), 400, 50*time.Millisecond, 4, req)
	if s := r.summarize("x", "open", time.Second); s.Requests != 20 || s.Dropped != 0 || calls.Load() != 20 {
		t.Errorf("open loop: %d recorded, %d dropped, %d calls; want 20", s.Requests, s.Dropped, calls.Load())
	}
	calls.Store(0)
	r, _, out := fixedCount(context.Background(), 37, 5, func(context.Context) (string, error) {
		if calls.Add(1)%10 == 0 {
			return "", errors.New("refused")
		}
		return "id", nil
	})
	if s := r.summarize("x", "n", time.Second); s.Requests != 37 || s.Errors != 3 || len(out) != 34 {
		t.Errorf("fixed count: %d recorded, %d errors, %d ids", s.Requests, s.Errors, len(out))
	}
	calls.Store(0)
	r, _ = closedLoop(context.Background(), 3, 20*time.Millisecond, req)
	if s := r.summarize("x", "closed", time.Second); s.Requests == 0 || int64(s.Requests) != calls.Load() {
		t.Errorf("closed loop: %d recorded for %d calls", s.Requests, calls.Load())
	}
}
