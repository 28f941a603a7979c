package sla

import (
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// at is a UTC time on 2013-06-22 (the doc's scenarios' day).
func at(hh, mm int) time.Time { return time.Date(2013, 6, 22, hh, mm, 0, 0, time.UTC) }

func TestExpect(t *testing.T) {
	nominal := at(5, 0)
	tests := []struct {
		name   string
		ns     string
		typ    string
		fields map[string]string
		want   store.SLA // expectations and initial summary
	}{{
		// The workflow example of the SLA monitoring doc, nominal 05:00.
		name: "doc workflow example",
		ns:   NS02, typ: AppTypeWorkflowJob,
		fields: map[string]string{
			"nominal-time": "2013-06-22T05:00Z", "should-start": "10", "should-end": "30",
			"max-duration": "30", "alert-events": "start_miss,end_miss,duration_miss",
			"alert-contact": "joe@example.com",
		},
		want: store.SLA{
			NominalTime: nominal, ExpectedStart: at(5, 10), ExpectedEnd: at(5, 30),
			ExpectedDurationMs: 30 * 60000, AlertEvents: "START_MISS,END_MISS,DURATION_MISS",
			AlertContact: "joe@example.com", JobStatus: "PREP", NextCheck: at(5, 10),
		},
	}, {
		name: "no should-start: no start criterion, no derived duration",
		ns:   NS02, typ: AppTypeCoordAction,
		fields: map[string]string{"nominal-time": "2013-06-22T05:00Z", "should-end": " 40 ",
			"notification-msg": " hi ", "upstream-apps": "a, b"},
		want: store.SLA{
			NominalTime: nominal, ExpectedEnd: at(5, 40), ExpectedDurationMs: -1,
			NotificationMsg: "hi", UpstreamApps: "a, b", JobStatus: "WAITING", NextCheck: at(5, 40),
		},
	}, {
		name: "without max-duration the duration is should-end minus should-start",
		ns:   NS02, typ: AppTypeWorkflowAction,
		fields: map[string]string{"nominal-time": "2013-06-22T05:00Z", "should-start": "5", "should-end": "65"},
		want: store.SLA{
			NominalTime: nominal, ExpectedStart: at(5, 5), ExpectedEnd: at(6, 5),
			ExpectedDurationMs: 3600000, JobStatus: "PREP", NextCheck: at(5, 5),
		},
	}, {
		name: "max-duration 0 sets no duration criterion",
		ns:   NS02, typ: AppTypeWorkflowJob,
		fields: map[string]string{"nominal-time": "2013-06-22T05:00Z", "should-start": "5",
			"should-end": "65", "max-duration": "0"},
		want: store.SLA{
			NominalTime: nominal, ExpectedStart: at(5, 5), ExpectedEnd: at(6, 5),
			ExpectedDurationMs: -1, JobStatus: "PREP", NextCheck: at(5, 5),
		},
	}, {
		name: "decimal minutes truncate to the millisecond; HOURS and DAYS are 60 and 1440",
		ns:   NS02, typ: AppTypeWorkflowJob,
		fields: map[string]string{"nominal-time": "2013-06-22T05:00Z", "should-start": "1.5",
			"should-end": "1440", "max-duration": "60"},
		want: store.SLA{
			NominalTime: nominal, ExpectedStart: nominal.Add(90 * time.Second),
			ExpectedEnd: nominal.Add(24 * time.Hour), ExpectedDurationMs: 3600000,
			JobStatus: "PREP", NextCheck: nominal.Add(90 * time.Second),
		},
	}, {
		name: "unknown alert events count as END_MISS",
		ns:   NS02, typ: AppTypeWorkflowJob,
		fields: map[string]string{"nominal-time": "2013-06-22T05:00Z", "should-end": "30",
			"alert-events": "Start_Met, startmiss"},
		want: store.SLA{
			NominalTime: nominal, ExpectedEnd: at(5, 30), ExpectedDurationMs: -1,
			AlertEvents: "START_MET,END_MISS", JobStatus: "PREP", NextCheck: at(5, 30),
		},
	}, {
		name: "0.1: app-name names the app; max-duration and alert-events are not its own",
		ns:   NS01, typ: AppTypeWorkflowJob,
		fields: map[string]string{"app-name": "legacy", "nominal-time": "2013-06-22T05:00Z",
			"should-start": "10", "should-end": "30", "max-duration": "99", "alert-events": "start_miss",
			"alert-contact": "a@x", "dev-contact": "d@x", "qa-contact": "q@x", "se-contact": "s@x"},
		want: store.SLA{
			AppName: "legacy", NominalTime: nominal, ExpectedStart: at(5, 10), ExpectedEnd: at(5, 30),
			ExpectedDurationMs: 20 * 60000, AlertContact: "a@x", JobStatus: "PREP", NextCheck: at(5, 10),
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := store.SLA{ID: "0000001-130622000000000-oozie-joe-W", AppType: tt.typ,
				EventProcessed: 3, EventStatus: "END_MET", SLAStatus: Met}
			if err := Expect(&s, tt.ns, tt.fields); err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.ID, want.AppType = s.ID, tt.typ
			want.SLAStatus, want.ActualDurationMs = NotStarted, -1
			if s != want {
				t.Errorf("Expect:\n got %+v\nwant %+v", s, want)
			}
		})
	}
}

func TestExpectErrors(t *testing.T) {
	base := func(kv ...string) map[string]string {
		m := map[string]string{"nominal-time": "2013-06-22T05:00Z", "should-end": "30"}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "<absent>" {
				delete(m, kv[i])
				continue
			}
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name   string
		ns     string
		fields map[string]string
		code   string
		names  string // the field the message names
	}{
		{"unknown namespace", "uri:oozie:sla:0.3", base(), "E0302", "namespace"},
		{"missing nominal-time", NS02, base("nominal-time", "<absent>"), "E0305", "nominal-time"},
		{"empty nominal-time", NS02, base("nominal-time", " "), "E0305", "nominal-time"},
		{"nominal-time not a datetime", NS02, base("nominal-time", "2013-06-22 05:00"), "E0302", "nominal-time"},
		{"nominal-time in an offset", NS02, base("nominal-time", "2013-06-22T05:00+0100"), "E0302", "nominal-time"},
		{"negative should-start", NS02, base("should-start", "-5"), "E0302", "should-start"},
		{"should-start not a number", NS02, base("should-start", "${10 * MINUTES}"), "E0302", "should-start"},
		{"missing should-end", NS02, base("should-end", "<absent>"), "E0305", "should-end"},
		{"empty should-end", NS02, base("should-end", ""), "E0302", "should-end"},
		{"should-end NaN", NS02, base("should-end", "NaN"), "E0302", "should-end"},
		{"should-end out of range", NS02, base("should-end", "1e300"), "E0302", "should-end"},
		{"max-duration not a number", NS02, base("max-duration", "10m"), "E0302", "max-duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := store.SLA{ID: "x", AppName: "keep", ExpectedDurationMs: 7}
			orig := s
			err := Expect(&s, tt.ns, tt.fields)
			if vocab.CodeOf(err) != tt.code {
				t.Fatalf("Expect: %v, want code %s", err, tt.code)
			}
			if !strings.Contains(err.Error(), tt.names) {
				t.Errorf("error %q does not name %s", err, tt.names)
			}
			if s != orig {
				t.Errorf("record changed on error: %+v", s)
			}
		})
	}
}
