package sla

import (
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// TestMailSample rebuilds the sample alert of the SLA monitoring doc
// ("Sample Email Alert") from its record.
func TestMailSample(t *testing.T) {
	day := func(h, m, sec int) time.Time { return time.Date(2013, 6, 10, h, m, sec, 0, time.UTC) }
	s := &store.SLA{
		ID: "0000004-130610225200680-oozie-oozi-W", AppType: AppTypeWorkflowJob, AppName: "wf-sla-job",
		User: "strat_ci", UpstreamApps: "wf-sla-up-app", NotificationMsg: "Missed SLA for Data Pipeline job",
		NominalTime: day(23, 33, 0), ExpectedStart: day(23, 35, 0), ExpectedEnd: day(23, 38, 0),
		ExpectedDurationMs: 5 * 60000, JobStatus: "RUNNING", ActualStart: day(23, 34, 4),
		ActualDurationMs: -1, AlertContact: "ops@example.com",
	}
	subject, body := Mail(s, Event{Status: EndMiss, SLAStatus: Miss, At: day(23, 38, 0)},
		"http://host.domain.com:4080/oozie//?job=")
	wantSubject := "OOZIE - SLA END_MISS (AppName=wf-sla-job, JobID=0000004-130610225200680-oozie-oozi-W)"
	wantBody := `Status:
  SLA Status - END_MISS
  Job Status - RUNNING
  Notification Message - Missed SLA for Data Pipeline job
Job Details:
  App Name - wf-sla-job
  App Type - WORKFLOW_JOB
  User - strat_ci
  Job ID - 0000004-130610225200680-oozie-oozi-W
  Job URL - http://host.domain.com:4080/oozie//?job=0000004-130610225200680-oozie-oozi-W
  Parent Job ID - N/A
  Parent Job URL - N/A
  Upstream Apps - wf-sla-up-app
SLA Details:
  Nominal Time - Mon Jun 10 23:33:00 UTC 2013
  Expected Start Time - Mon Jun 10 23:35:00 UTC 2013
  Actual Start Time - Mon Jun 10 23:34:04 UTC 2013
  Expected End Time - Mon Jun 10 23:38:00 UTC 2013
  Expected Duration (in mins) - 5
  Actual Duration (in mins) - -1
`
	if subject != wantSubject {
		t.Errorf("subject\n got %q\nwant %q", subject, wantSubject)
	}
	if body != wantBody {
		t.Errorf("body\n got:\n%s\nwant:\n%s", body, wantBody)
	}
}

// TestMailParentAndEnd covers the lines the sample leaves out: a parent,
// an actual end, and no message, upstream apps or expected start.
func TestMailParentAndEnd(t *testing.T) {
	s := &store.SLA{
		ID: "0000001-130622000000000-oozie-joe-C@2", ParentID: "0000001-130622000000000-oozie-joe-C",
		AppType: AppTypeCoordAction, AppName: "my-coord-app", User: "joe", JobStatus: "KILLED",
		NominalTime: at(5, 0), ExpectedEnd: at(5, 40), ActualStart: at(5, 5), ActualEnd: at(5, 30),
		ExpectedDurationMs: -1, ActualDurationMs: 1500000 + 59999,
	}
	_, body := Mail(s, Event{Status: EndMiss}, "http://h:11000/oozie/?job=")
	want := `Status:
  SLA Status - END_MISS
  Job Status - KILLED
Job Details:
  App Name - my-coord-app
  App Type - COORDINATOR_ACTION
  User - joe
  Job ID - 0000001-130622000000000-oozie-joe-C@2
  Job URL - http://h:11000/oozie/?job=0000001-130622000000000-oozie-joe-C@2
  Parent Job ID - 0000001-130622000000000-oozie-joe-C
  Parent Job URL - http://h:11000/oozie/?job=0000001-130622000000000-oozie-joe-C
SLA Details:
  Nominal Time - Sat Jun 22 05:00:00 UTC 2013
  Actual Start Time - Sat Jun 22 05:05:00 UTC 2013
  Expected End Time - Sat Jun 22 05:40:00 UTC 2013
  Actual End Time - Sat Jun 22 05:30:00 UTC 2013
  Expected Duration (in mins) - -1
  Actual Duration (in mins) - 25
`
	if body != want {
		t.Errorf("body\n got:\n%s\nwant:\n%s", body, want)
	}
}

func TestMailed(t *testing.T) {
	tests := []struct {
		name     string
		events   string
		contact  string
		disabled bool
		ev       string
		want     bool
	}{
		{"listed miss", "START_MISS,END_MISS", "joe@example.com", false, StartMiss, true},
		{"miss not listed", "START_MISS,END_MISS", "joe@example.com", false, DurationMiss, false},
		{"no alert-events: END_MISS only", "", "joe@example.com", false, EndMiss, true},
		{"no alert-events: no START_MISS", "", "joe@example.com", false, StartMiss, false},
		{"met events are never mailed", "START_MET,END_MET,DURATION_MET", "joe@example.com", false, EndMet, false},
		{"no contact", "END_MISS", " ", false, EndMiss, false},
		{"disabled", "END_MISS", "joe@example.com", true, EndMiss, false},
		{"any case and spaces", " duration_miss ", "joe@example.com", false, DurationMiss, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &store.SLA{AlertEvents: tt.events, AlertContact: tt.contact, Disabled: tt.disabled}
			if got := Mailed(s, Event{Status: tt.ev}); got != tt.want {
				t.Errorf("Mailed = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDisabledStillComputes: sla-disable stops the mail, not the events.
func TestDisabledStillComputes(t *testing.T) {
	s := record(t, "10", "40", "")
	s.AlertContact, s.AlertEvents, s.Disabled = "joe@example.com", "START_MISS,END_MISS", true
	got := Step(s, JobState{Status: "PREP"}, at(6, 0))
	if evs(got) != "START_MISS@05:10/NOT_STARTED END_MISS@05:40/MISS" {
		t.Fatalf("events %s", evs(got))
	}
	for _, e := range got {
		if Mailed(s, e) {
			t.Errorf("%s mailed for a disabled record", e.Status)
		}
	}
	s.Disabled = false
	if !Mailed(s, got[0]) || !Mailed(s, got[1]) {
		t.Error("enabled record's misses not mailed")
	}
}

func TestRecipients(t *testing.T) {
	got := Recipients(&store.SLA{AlertContact: " a@x, ,b@y,"})
	if len(got) != 2 || got[0] != "a@x" || got[1] != "b@y" {
		t.Errorf("Recipients = %q", got)
	}
}
