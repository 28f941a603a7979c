package rest

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// SLASummaryList is the answer of GET /v2/sla (rest-api.md 5.7).
type SLASummaryList struct {
	SLASummaryList []*SLASummary `json:"slaSummaryList"`
}

// SLASummary is one SLA record as GET /v2/sla answers it (rest-api.md
// 5.7, DG_SLAMonitoring "Accessing SLA Information"). parentId is absent
// when the record has no parent, the three delays when they cannot be
// computed yet, and expectedEnd when the record expects no end (Oozie
// writes no expectedEnd key then).
type SLASummary struct {
	ID               string  `json:"id"`
	ParentID         string  `json:"parentId,omitempty"`
	AppName          Str     `json:"appName"`
	AppType          Str     `json:"appType"`
	User             Str     `json:"user"`
	NominalTime      SLATime `json:"nominalTime"`
	ExpectedStart    SLATime `json:"expectedStart"`
	ActualStart      SLATime `json:"actualStart"`
	StartDelay       *int64  `json:"startDelay,omitempty"`
	ExpectedEnd      SLATime `json:"expectedEnd,omitzero"`
	ActualEnd        SLATime `json:"actualEnd"`
	EndDelay         *int64  `json:"endDelay,omitempty"`
	ExpectedDuration int64   `json:"expectedDuration"`
	ActualDuration   int64   `json:"actualDuration"`
	DurationDelay    *int64  `json:"durationDelay,omitempty"`
	JobStatus        Str     `json:"jobStatus"`
	SLAStatus        Str     `json:"slaStatus"`
	EventStatus      string  `json:"eventStatus"`
	LastModified     SLATime `json:"lastModified"`
	SLAAlertStatus   string  `json:"slaAlertStatus"`
}

// In writes every date of the summary as a date string in loc (nil: GMT)
// instead of epoch milliseconds: the form of an answer asked for with a
// timezone parameter.
func (s *SLASummary) In(loc *time.Location) {
	for _, p := range []*SLATime{&s.NominalTime, &s.ExpectedStart, &s.ActualStart, &s.ExpectedEnd, &s.ActualEnd, &s.LastModified} {
		*p = p.In(loc)
	}
}

// Compute fills what the summary derives from its times at now, as the
// REST answer shows it (rest-api.md 5.7): the start and end delays in
// minutes (actual, or now while it has not happened, minus expected; a
// pending one only once late), the duration delay in minutes, the
// elapsed duration of a running job, and eventStatus, the comma list of
// the events these delays amount to (START, DURATION, END; MET when not
// late). A delay whose expectation is unset stays nil.
func (s *SLASummary) Compute(now time.Time) {
	s.StartDelay, s.EndDelay, s.DurationDelay = nil, nil, nil
	var events []string
	add := func(kind string, late int64, decided bool) *int64 {
		if !decided && late <= 0 {
			return nil
		}
		if late > 0 {
			events = append(events, kind+"_MISS")
		} else {
			events = append(events, kind+"_MET")
		}
		return &late
	}
	if !s.ExpectedStart.IsZero() {
		at, decided := now, !s.ActualStart.IsZero()
		if decided {
			at = s.ActualStart.Time
		}
		s.StartDelay = add("START", minutes(at.Sub(s.ExpectedStart.Time)), decided)
	}
	if s.ExpectedDuration >= 0 {
		dur, decided := s.ActualDuration, s.ActualDuration >= 0
		if !decided && !s.ActualStart.IsZero() {
			// Running: what it has taken so far, shown as its duration.
			dur = now.Sub(s.ActualStart.Time).Milliseconds()
			s.ActualDuration = dur
		}
		if decided || !s.ActualStart.IsZero() {
			s.DurationDelay = add("DURATION", minutes(time.Duration(dur-s.ExpectedDuration)*time.Millisecond), decided)
		}
	}
	if !s.ExpectedEnd.IsZero() {
		at, decided := now, !s.ActualEnd.IsZero()
		if decided {
			at = s.ActualEnd.Time
		}
		s.EndDelay = add("END", minutes(at.Sub(s.ExpectedEnd.Time)), decided)
	}
	s.EventStatus = strings.Join(events, ",")
}

// minutes is d in whole minutes, truncated toward zero as Oozie's integer
// division of milliseconds is.
func minutes(d time.Duration) int64 { return int64(d / time.Minute) }

// SLATime is a date of an SLA summary. Oozie writes these as epoch
// milliseconds (a JSON number) unless the request names a timezone, and
// then as date strings in that zone: Text selects the string. The zero
// time is JSON null. Decoding accepts a number, a GMT date string or null;
// anything else reads as the zero time.
type SLATime struct {
	time.Time
	Text bool
}

// SLADate is the summary date of t in epoch milliseconds form.
func SLADate(t time.Time) SLATime {
	if t.IsZero() {
		return SLATime{}
	}
	return SLATime{Time: t.UTC()}
}

// In returns t as a date string in loc (nil: GMT).
func (t SLATime) In(loc *time.Location) SLATime {
	if t.IsZero() {
		return SLATime{Text: true}
	}
	if loc == nil {
		loc = time.UTC
	}
	return SLATime{Time: t.Time.In(loc), Text: true}
}

// IsZero reports an unset date (omitzero uses it).
func (t SLATime) IsZero() bool { return t.Time.IsZero() }

// MarshalJSON writes null, the milliseconds or the date string.
func (t SLATime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	if t.Text {
		return Time{t.Time}.MarshalJSON()
	}
	return strconv.AppendInt(nil, t.UnixMilli(), 10), nil
}

// UnmarshalJSON reads null, epoch milliseconds or a DateLayout string.
func (t *SLATime) UnmarshalJSON(b []byte) error {
	*t = SLATime{}
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var ms int64
	if err := json.Unmarshal(b, &ms); err == nil {
		t.Time = time.UnixMilli(ms).UTC()
		return nil
	}
	var d Time
	_ = d.UnmarshalJSON(b) // never fails: other text reads as zero
	*t = SLATime{Time: d.Time, Text: !d.IsZero()}
	return nil
}
