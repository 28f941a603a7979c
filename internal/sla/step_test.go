package sla

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// record returns a registered workflow job record, nominal 05:00, with
// the given <sla:info> minutes ("" leaves a field out).
func record(t *testing.T, shouldStart, shouldEnd, maxDuration string) *store.SLA {
	t.Helper()
	f := map[string]string{"nominal-time": "2013-06-22T05:00Z", "should-end": shouldEnd}
	if shouldStart != "" {
		f["should-start"] = shouldStart
	}
	if maxDuration != "" {
		f["max-duration"] = maxDuration
	}
	s := &store.SLA{ID: "0000056-1238791320234-oozie-joe-W", AppType: AppTypeWorkflowJob, AppName: "my-sla-app"}
	if err := Expect(s, NS02, f); err != nil {
		t.Fatal(err)
	}
	return s
}

// timeline is the life of a tracked job: when it started and ended (zero:
// never), and how it ended.
type timeline struct {
	start, end time.Time
	succeeded  bool
}

// at returns what a caller knows of the job at now.
func (l timeline) at(now time.Time) JobState {
	j := JobState{Status: "PREP"}
	if !l.start.IsZero() && !now.Before(l.start) {
		j.Start, j.Status = l.start, "RUNNING"
	}
	if !l.end.IsZero() && !now.Before(l.end) {
		j.End, j.Ended, j.Succeeded, j.Status = l.end, true, l.succeeded, "KILLED"
		if l.succeeded {
			j.Status = "SUCCEEDED"
		}
	}
	return j
}

// evs renders events as "STATUS@hh:mm/SLASTATUS".
func evs(es []Event) string {
	var b []string
	for _, e := range es {
		b = append(b, fmt.Sprintf("%s@%s/%s", e.Status, e.At.UTC().Format("15:04"), e.SLAStatus))
	}
	return strings.Join(b, " ")
}

func hm(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("15:04")
}

func TestStep(t *testing.T) {
	type step struct {
		now  time.Time
		want string // events
	}
	tests := []struct {
		name                   string
		start, end, maxDur     string // <sla:info> minutes
		life                   timeline
		steps                  []step
		slaStatus, eventStatus string
		proc                   int
		next                   string // NextCheck hh:mm, "-" zero
		actualDurationMs       int64
	}{{
		name: "all met", start: "10", end: "40", maxDur: "15",
		life: timeline{at(5, 5), at(5, 15), true},
		steps: []step{
			{at(5, 0), ""},
			{at(5, 5), "START_MET@05:05/IN_PROCESS"},
			{at(5, 15), "DURATION_MET@05:15/IN_PROCESS END_MET@05:15/MET"},
		},
		slaStatus: Met, eventStatus: EndMet, proc: ProcDone, next: "-", actualDurationMs: 600000,
	}, {
		// Scenario 1 of the doc: started 20 minutes late, still running.
		name: "doc scenario 1: start miss", start: "10", end: "40", maxDur: "15",
		life: timeline{start: at(5, 30)},
		steps: []step{
			{at(5, 9), ""},
			{at(5, 10), "START_MISS@05:10/NOT_STARTED"},
			{at(5, 30), ""},
		},
		slaStatus: InProcess, eventStatus: StartMiss, proc: ProcStart, next: "05:40", actualDurationMs: -1,
	}, {
		// Scenario 2: ended 20 minutes after the expected end, within its
		// duration.
		name: "doc scenario 2: end miss", start: "10", end: "40", maxDur: "60",
		life: timeline{at(5, 5), at(6, 0), true},
		steps: []step{
			{at(5, 5), "START_MET@05:05/IN_PROCESS"},
			{at(5, 40), "END_MISS@05:40/MISS"},
			{at(6, 0), "DURATION_MET@06:00/MISS"},
		},
		slaStatus: Miss, eventStatus: DurationMet, proc: ProcDone, next: "-", actualDurationMs: 3300000,
	}, {
		// Scenario 3: ran 25 minutes for 15 expected, ended in time: MET.
		name: "doc scenario 3: duration miss, SLA met", start: "10", end: "40", maxDur: "15",
		life: timeline{at(5, 5), at(5, 30), true},
		steps: []step{
			{at(5, 5), "START_MET@05:05/IN_PROCESS"},
			{at(5, 20), "DURATION_MISS@05:20/IN_PROCESS"},
			{at(5, 30), "END_MET@05:30/MET"},
		},
		slaStatus: Met, eventStatus: EndMet, proc: ProcDone, next: "-", actualDurationMs: 1500000,
	}, {
		name: "never started", start: "10", end: "40", maxDur: "15",
		steps: []step{
			{at(5, 10), "START_MISS@05:10/NOT_STARTED"},
			{at(5, 39), ""},
			{at(5, 40), "END_MISS@05:40/MISS"},
			{at(9, 0), ""},
		},
		// The duration stays open, with no deadline until a start.
		slaStatus: Miss, eventStatus: EndMiss, proc: ProcStart | ProcEnd, next: "-", actualDurationMs: -1,
	}, {
		name: "failed while running, in time", start: "10", end: "40", maxDur: "15",
		life: timeline{at(5, 5), at(5, 8), false},
		steps: []step{
			{at(5, 5), "START_MET@05:05/IN_PROCESS"},
			{at(5, 8), "DURATION_MISS@05:08/IN_PROCESS END_MISS@05:08/MISS"},
		},
		slaStatus: Miss, eventStatus: EndMiss, proc: ProcDone, next: "-", actualDurationMs: 180000,
	}, {
		name: "failed, no duration expected", start: "", end: "40",
		life: timeline{at(5, 5), at(5, 8), false},
		steps: []step{
			{at(5, 5), ""},
			{at(5, 8), "END_MISS@05:08/MISS"},
		},
		slaStatus: Miss, eventStatus: EndMiss, proc: ProcDone, next: "-", actualDurationMs: 180000,
	}, {
		name: "killed before its expected start, never started", start: "10", end: "40", maxDur: "15",
		life: timeline{end: at(5, 5)},
		steps: []step{
			{at(5, 5), "END_MISS@05:05/MISS"},
		},
		slaStatus: Miss, eventStatus: EndMiss, proc: ProcDone, next: "-", actualDurationMs: -1,
	}, {
		name: "killed after its expected start, never started", start: "10", end: "40", maxDur: "15",
		life: timeline{end: at(5, 20)},
		steps: []step{
			{at(5, 20), "START_MISS@05:10/NOT_STARTED END_MISS@05:20/MISS"},
		},
		slaStatus: Miss, eventStatus: EndMiss, proc: ProcDone, next: "-", actualDurationMs: -1,
	}, {
		name: "end criterion only, succeeded", start: "", end: "40",
		life: timeline{at(5, 5), at(5, 35), true},
		steps: []step{
			{at(5, 0), ""},
			{at(5, 35), "END_MET@05:35/MET"},
		},
		slaStatus: Met, eventStatus: EndMet, proc: ProcDone, next: "-", actualDurationMs: 1800000,
	}, {
		name: "succeeded exactly at the deadlines: met", start: "10", end: "40", maxDur: "30",
		life: timeline{at(5, 10), at(5, 40), true},
		steps: []step{
			{at(5, 10), "START_MET@05:10/IN_PROCESS"},
			{at(5, 40), "DURATION_MET@05:40/IN_PROCESS END_MET@05:40/MET"},
		},
		slaStatus: Met, eventStatus: EndMet, proc: ProcDone, next: "-", actualDurationMs: 1800000,
	}, {
		name: "end missed while running, then succeeded", start: "10", end: "40", maxDur: "60",
		life: timeline{at(5, 5), at(5, 50), true},
		steps: []step{
			{at(5, 5), "START_MET@05:05/IN_PROCESS"},
			{at(5, 41), "END_MISS@05:40/MISS"},
			{at(5, 50), "DURATION_MET@05:50/MISS"},
		},
		slaStatus: Miss, eventStatus: DurationMet, proc: ProcDone, next: "-", actualDurationMs: 2700000,
	}, {
		// The server was down from 05:00 to 07:00: one late step gives
		// every event once, each at its time, in time order.
		name: "server down: late step", start: "10", end: "40", maxDur: "15",
		life: timeline{start: at(5, 30)},
		steps: []step{
			{at(7, 0), "START_MISS@05:10/NOT_STARTED END_MISS@05:40/MISS DURATION_MISS@05:45/MISS"},
			{at(7, 5), ""},
		},
		slaStatus: Miss, eventStatus: DurationMiss, proc: procAll, next: "-", actualDurationMs: -1,
	}, {
		name: "server down: late step after a late success", start: "10", end: "40", maxDur: "15",
		life: timeline{at(5, 30), at(6, 30), true},
		steps: []step{
			{at(7, 0), "START_MISS@05:10/NOT_STARTED END_MISS@05:40/MISS DURATION_MISS@05:45/MISS"},
		},
		slaStatus: Miss, eventStatus: DurationMiss, proc: ProcDone, next: "-", actualDurationMs: 3600000,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := record(t, tt.start, tt.end, tt.maxDur)
			for _, st := range tt.steps {
				job := tt.life.at(st.now)
				if got := evs(Step(s, job, st.now)); got != st.want {
					t.Errorf("step at %s: events %q, want %q", hm(st.now), got, st.want)
				}
				// Idempotent: the same input again changes nothing.
				before := *s
				if got := Step(s, job, st.now); len(got) != 0 || *s != before {
					t.Errorf("re-step at %s: events %q, record changed %v", hm(st.now), evs(got), *s != before)
				}
			}
			if s.SLAStatus != tt.slaStatus || s.EventStatus != tt.eventStatus || s.EventProcessed != tt.proc {
				t.Errorf("record: sla %s event %s proc %d, want %s %s %d",
					s.SLAStatus, s.EventStatus, s.EventProcessed, tt.slaStatus, tt.eventStatus, tt.proc)
			}
			if hm(s.NextCheck) != tt.next {
				t.Errorf("NextCheck %s, want %s", hm(s.NextCheck), tt.next)
			}
			if s.ActualDurationMs != tt.actualDurationMs {
				t.Errorf("ActualDurationMs %d, want %d", s.ActualDurationMs, tt.actualDurationMs)
			}
		})
	}
}

// TestStepLateEqualsSteady checks that one step after a long outage gives
// the events that a step every minute gives, for many job lives.
func TestStepLateEqualsSteady(t *testing.T) {
	var lives []timeline
	for _, start := range []time.Time{{}, at(5, 3), at(5, 10), at(5, 25), at(5, 50)} {
		lives = append(lives, timeline{start: start})
		for _, end := range []time.Time{at(5, 9), at(5, 20), at(5, 40), at(5, 55), at(6, 30)} {
			if !start.IsZero() && end.Before(start) {
				continue
			}
			lives = append(lives, timeline{start, end, true}, timeline{start, end, false})
		}
	}
	infos := [][3]string{{"10", "40", "15"}, {"", "40", ""}, {"10", "40", ""}, {"0", "30", "45"}}
	for _, info := range infos {
		for _, l := range lives {
			name := fmt.Sprintf("sla%v start %s end %s ok %v", info, hm(l.start), hm(l.end), l.succeeded)
			steady := record(t, info[0], info[1], info[2])
			var got []Event
			for now := at(4, 55); !now.After(at(7, 0)); now = now.Add(time.Minute) {
				got = append(got, Step(steady, l.at(now), now)...)
			}
			late := record(t, info[0], info[1], info[2])
			want := Step(late, l.at(at(7, 0)), at(7, 0))
			if evs(got) != evs(want) {
				t.Errorf("%s:\nsteady %s\n  late %s", name, evs(got), evs(want))
			}
			if steady.SLAStatus != late.SLAStatus || steady.EventProcessed != late.EventProcessed ||
				steady.NextCheck != late.NextCheck {
				t.Errorf("%s: steady %s/%d/%s, late %s/%d/%s", name, steady.SLAStatus, steady.EventProcessed,
					hm(steady.NextCheck), late.SLAStatus, late.EventProcessed, hm(late.NextCheck))
			}
			seen := map[string]bool{}
			for _, e := range want {
				if seen[e.Status[:strings.Index(e.Status, "_")]] {
					t.Errorf("%s: two events for one criterion: %s", name, evs(want))
				}
				seen[e.Status[:strings.Index(e.Status, "_")]] = true
			}
		}
	}
}

// TestStepRecord checks what Step records of the job besides events.
func TestStepRecord(t *testing.T) {
	s := record(t, "10", "40", "15")
	s.LastModTime = at(4, 0)
	Step(s, JobState{Status: "PREP"}, at(5, 1))
	if s.JobStatus != "PREP" || s.LastModTime != at(4, 0) || s.SLAStatus != NotStarted || hm(s.NextCheck) != "05:10" {
		t.Errorf("unchanged record touched: %+v", s)
	}
	Step(s, JobState{Status: "RUNNING", Start: at(5, 2)}, at(5, 3))
	if s.JobStatus != "RUNNING" || s.ActualStart != at(5, 2) || s.LastModTime != at(5, 3) ||
		s.SLAStatus != InProcess || hm(s.NextCheck) != "05:17" {
		t.Errorf("after start: %+v", s)
	}
	// A caller that no longer knows the start: the recorded one counts.
	evs := Step(s, JobState{Status: "SUCCEEDED", End: at(5, 12), Ended: true, Succeeded: true}, at(5, 13))
	if len(evs) != 2 || s.ActualDurationMs != 600000 || s.ActualEnd != at(5, 12) || s.EventProcessed != ProcDone {
		t.Errorf("after end: %v %+v", evs, s)
	}
	// A done record still follows the job (a rerun's status) without events.
	if evs := Step(s, JobState{Status: "RUNNING", Start: at(6, 0)}, at(6, 1)); len(evs) != 0 ||
		s.JobStatus != "RUNNING" || s.ActualStart != at(6, 0) {
		t.Errorf("done record: %v %+v", evs, s)
	}
	// An end time unknown to the caller is taken as now.
	s = record(t, "", "40", "")
	Step(s, JobState{Status: "KILLED", Ended: true}, at(5, 7))
	if s.ActualEnd != at(5, 7) || s.EventStatus != EndMiss {
		t.Errorf("unknown end: %+v", s)
	}
}
