package rest

import (
	"encoding/json"
	"testing"
	"time"
)

// TestSLATimeForms: epoch milliseconds by default, a date string once In
// a zone, null when unset; decoding takes all three back.
func TestSLATimeForms(t *testing.T) {
	at := time.Date(2013, 6, 22, 5, 0, 0, 0, time.UTC)
	la, _ := time.LoadLocation("America/Los_Angeles")
	for _, tc := range []struct {
		name string
		v    SLATime
		want string
	}{
		{"ms", SLADate(at), "1371877200000"},
		{"gmt", SLADate(at).In(nil), `"Sat, 22 Jun 2013 05:00:00 GMT"`},
		{"zone", SLADate(at).In(la), `"Fri, 21 Jun 2013 22:00:00 PDT"`},
		{"unset", SLADate(time.Time{}), "null"},
		{"unset in a zone", SLADate(time.Time{}).In(la), "null"},
	} {
		b, err := json.Marshal(tc.v)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s: %s %v, want %s", tc.name, b, err, tc.want)
		}
	}
	for in, want := range map[string]time.Time{"1371877200000": at, `"Sat, 22 Jun 2013 05:00:00 GMT"`: at, "null": {}, `"soon"`: {}} {
		var v SLATime
		if err := json.Unmarshal([]byte(in), &v); err != nil || !v.Time.Equal(want) {
			t.Errorf("decode %s: %v %v, want %v", in, v.Time, err, want)
		}
	}
}

// TestSLASummaryCompute: the delays and events of rest-api.md 5.7 from
// the times at now: decided criteria are MET or MISS, pending ones only
// MISS once late; unset expectations give no delay.
func TestSLASummaryCompute(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0.Add(2 * time.Hour)
	ptr := func(n int64) *int64 { return &n }
	for _, tc := range []struct {
		name            string
		s               SLASummary
		start, dur, end *int64
		events          string
		actualDuration  int64
	}{
		{name: "all met", s: SLASummary{ExpectedStart: SLADate(t0), ActualStart: SLADate(t0.Add(-time.Minute)), ExpectedEnd: SLADate(t0.Add(time.Hour)),
			ActualEnd: SLADate(t0.Add(50 * time.Minute)), ExpectedDuration: 3600000, ActualDuration: 3060000},
			start: ptr(-1), dur: ptr(-9), end: ptr(-10), events: "START_MET,DURATION_MET,END_MET", actualDuration: 3060000},
		{name: "pending, not late", s: SLASummary{ExpectedStart: SLADate(now.Add(time.Minute)), ExpectedEnd: SLADate(now.Add(time.Hour)),
			ExpectedDuration: -1, ActualDuration: -1}, events: "", actualDuration: -1},
		{name: "pending and late", s: SLASummary{ExpectedStart: SLADate(t0), ExpectedEnd: SLADate(t0.Add(time.Hour)), ExpectedDuration: 1800000,
			ActualDuration: -1}, start: ptr(120), end: ptr(60), events: "START_MISS,END_MISS", actualDuration: -1},
		{name: "running past its duration", s: SLASummary{ActualStart: SLADate(t0.Add(time.Hour)), ExpectedDuration: 1800000, ActualDuration: -1},
			dur: ptr(30), events: "DURATION_MISS", actualDuration: 3600000},
		{name: "running within its duration", s: SLASummary{ActualStart: SLADate(t0.Add(time.Hour)), ExpectedDuration: 7200000, ActualDuration: -1},
			events: "", actualDuration: 3600000},
	} {
		s := tc.s
		s.Compute(now)
		eq := func(a, b *int64) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }
		if !eq(s.StartDelay, tc.start) || !eq(s.DurationDelay, tc.dur) || !eq(s.EndDelay, tc.end) || s.EventStatus != tc.events || s.ActualDuration != tc.actualDuration {
			t.Errorf("%s: start %v dur %v end %v events %q actual %d", tc.name, show(s.StartDelay), show(s.DurationDelay), show(s.EndDelay), s.EventStatus, s.ActualDuration)
		}
	}
}

func show(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
