package sla

import (
	"testing"

	"github.com/gozie/gozie/internal/vocab"
)

func TestParseChangeErrors(t *testing.T) {
	tests := []struct {
		value, code string
	}{
		{"", "E1015"},
		{"  ", "E1015"},
		{"sla-should-end", "E1015"},
		{"sla-should-end=1=2", "E1015"},
		{"sla-should-end=10;sla-should-end=20", "E1015"},
		{"should-end=10;sla-should-end=20", "E1015"},
		{"sla-should-end=10;non-valid-param=10", "E1027"},
		{"endtime=2013-06-22T05:00Z", "E1027"},
	}
	for _, tt := range tests {
		if _, err := ParseChange(tt.value); vocab.CodeOf(err) != tt.code {
			t.Errorf("ParseChange(%q) = %v, want code %s", tt.value, err, tt.code)
		}
	}
}

func TestChange(t *testing.T) {
	tests := []struct {
		name                string
		shouldStart, maxDur string // the record's <sla:info>; should-end is 40
		value               string
		nominal, start, end string // hh:mm after the change, "-" none
		durationMs          int64
		next                string
	}{
		{"should-end", "10", "15", "sla-should-end=60", "05:00", "05:10", "06:00", 15 * 60000, "05:10"},
		{"names without sla- prefix", "10", "15", "should-start=20;max-duration=5", "05:00", "05:20", "05:40", 5 * 60000, "05:20"},
		{"nominal with deadlines: counted from the new nominal", "10", "15",
			"sla-nominal-time=2013-06-22T06:00Z;sla-should-start=10;sla-should-end=40", "06:00", "06:10", "06:40", 15 * 60000, "06:10"},
		{"nominal alone moves no deadline (as Oozie)", "10", "15",
			"sla-nominal-time=2013-06-22T06:00Z", "06:00", "05:10", "05:40", 15 * 60000, "05:10"},
		{"derived duration follows start and end", "10", "",
			"sla-should-end=70", "05:00", "05:10", "06:10", 60 * 60000, "05:10"},
		{"explicit duration stays", "10", "25",
			"sla-should-end=70", "05:00", "05:10", "06:10", 25 * 60000, "05:10"},
		{"max-duration 0 removes the duration criterion", "10", "15",
			"sla-max-duration=0", "05:00", "05:10", "05:40", -1, "05:10"},
		{"empty max-duration derives it", "10", "15",
			"sla-max-duration=", "05:00", "05:10", "05:40", 30 * 60000, "05:10"},
		{"trailing semicolon", "", "", "sla-should-end=5;", "05:00", "-", "05:05", -1, "05:05"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := record(t, tt.shouldStart, "40", tt.maxDur)
			if err := Change(s, tt.value, at(4, 30)); err != nil {
				t.Fatal(err)
			}
			if hm(s.NominalTime) != tt.nominal || hm(s.ExpectedStart) != tt.start || hm(s.ExpectedEnd) != tt.end ||
				s.ExpectedDurationMs != tt.durationMs || hm(s.NextCheck) != tt.next || s.LastModTime != at(4, 30) {
				t.Errorf("got nominal %s start %s end %s duration %d next %s",
					hm(s.NominalTime), hm(s.ExpectedStart), hm(s.ExpectedEnd), s.ExpectedDurationMs, hm(s.NextCheck))
			}
		})
	}
}

func TestChangeBadValues(t *testing.T) {
	for _, v := range []string{"sla-should-start=-1", "sla-should-end=abc", "sla-nominal-time=tomorrow",
		"sla-max-duration=x", "sla-should-start=", "sla-should-end=10;bogus=1"} {
		s := record(t, "10", "40", "15")
		before := *s
		err := Change(s, v, at(4, 30))
		if code := vocab.CodeOf(err); code != "E0302" && code != "E1027" {
			t.Errorf("Change(%q) = %v, want E0302 or E1027", v, err)
		}
		if *s != before {
			t.Errorf("Change(%q) changed the record on error", v)
		}
	}
}

// TestChangeMidFlight: a change applies to the criteria still open; the
// decided ones keep their events.
func TestChangeMidFlight(t *testing.T) {
	s := record(t, "10", "40", "15")
	life := timeline{start: at(5, 5)}
	if got := evs(Step(s, life.at(at(5, 6)), at(5, 6))); got != "START_MET@05:05/IN_PROCESS" {
		t.Fatalf("before change: %s", got)
	}
	// Move the start later (decided already) and the end earlier than now.
	if err := Change(s, "sla-should-start=2;sla-should-end=8;sla-max-duration=60", at(5, 9)); err != nil {
		t.Fatal(err)
	}
	if hm(s.NextCheck) != "05:08" {
		t.Errorf("NextCheck %s, want 05:08 (the new end, already passed)", hm(s.NextCheck))
	}
	if got := evs(Step(s, life.at(at(5, 10)), at(5, 10))); got != "END_MISS@05:08/MISS" {
		t.Errorf("after change: %s", got)
	}
	if got := evs(Step(s, life.at(at(6, 5)), at(6, 5))); got != "DURATION_MISS@06:05/MISS" {
		t.Errorf("duration after change: %s", got)
	}
	if s.EventProcessed != procAll || !s.NextCheck.IsZero() {
		t.Errorf("proc %d next %s", s.EventProcessed, hm(s.NextCheck))
	}
}
