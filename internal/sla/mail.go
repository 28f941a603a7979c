package sla

import (
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// DefaultAlertEvents are the events mailed for a record whose
// <sla:info> names no alert-events (Oozie's server default).
const DefaultAlertEvents = EndMiss

// mailable are the events an alert mail exists for: only misses, met
// events being news no one is woken up for.
var mailable = map[string]bool{StartMiss: true, DurationMiss: true, EndMiss: true}

// Mailed reports whether ev is mailed for s: a miss named in s's
// alert-events (END_MISS when it names none), for a record with an
// alert-contact whose alerts are not disabled. Met events are never
// mailed, even when listed.
func Mailed(s *store.SLA, ev Event) bool {
	if s.Disabled || strings.TrimSpace(s.AlertContact) == "" || !mailable[ev.Status] {
		return false
	}
	events := s.AlertEvents
	if strings.TrimSpace(events) == "" {
		events = DefaultAlertEvents
	}
	for _, e := range strings.Split(events, ",") {
		if strings.EqualFold(strings.TrimSpace(e), ev.Status) {
			return true
		}
	}
	return false
}

// Recipients returns the addresses of s's alert-contact, trimmed, empty
// entries dropped.
func Recipients(s *store.SLA) []string {
	var out []string
	for _, a := range strings.Split(s.AlertContact, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// mailTimeLayout is how the mail prints times: Java's Date.toString form
// (EEE MMM dd HH:mm:ss zzz yyyy), in UTC, which readers of Oozie's alerts
// already parse.
const mailTimeLayout = "Mon Jan 02 15:04:05 MST 2006"

// Mail returns the alert mail of ev for s in Oozie's layout: a subject
// naming the event, the app and the id, and a body of three headed blocks
// (Status, Job Details, SLA Details) of "  Name - value" lines, a line
// left out when its value is unknown (no notification message, no
// expected or actual start, no actual end, no upstream apps). jobURL is
// the console link base the id is appended to (for example
// http://host:11000/oozie/?job=).
func Mail(s *store.SLA, ev Event, jobURL string) (subject, body string) {
	subject = "OOZIE - SLA " + ev.Status + " (AppName=" + s.AppName + ", JobID=" + s.ID + ")"
	var b strings.Builder
	line := func(name, value string) {
		if value != "" {
			b.WriteString("  " + name + " - " + value + "\n")
		}
	}
	when := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(mailTimeLayout)
	}
	parent, parentURL := "N/A", "N/A"
	if s.ParentID != "" {
		parent, parentURL = s.ParentID, jobURL+s.ParentID
	}

	b.WriteString("Status:\n")
	line("SLA Status", ev.Status)
	line("Job Status", s.JobStatus)
	line("Notification Message", s.NotificationMsg)
	b.WriteString("Job Details:\n")
	line("App Name", s.AppName)
	line("App Type", s.AppType)
	line("User", s.User)
	line("Job ID", s.ID)
	line("Job URL", jobURL+s.ID)
	line("Parent Job ID", parent)
	line("Parent Job URL", parentURL)
	line("Upstream Apps", s.UpstreamApps)
	b.WriteString("SLA Details:\n")
	line("Nominal Time", when(s.NominalTime))
	line("Expected Start Time", when(s.ExpectedStart))
	line("Actual Start Time", when(s.ActualStart))
	line("Expected End Time", when(s.ExpectedEnd))
	line("Actual End Time", when(s.ActualEnd))
	line("Expected Duration (in mins)", mins(s.ExpectedDurationMs))
	line("Actual Duration (in mins)", mins(s.ActualDurationMs))
	return subject, b.String()
}

// mins prints a duration in whole minutes; a negative one (unknown) is
// printed as it is, -1.
func mins(ms int64) string {
	if ms < 0 {
		return strconv.FormatInt(ms, 10)
	}
	return strconv.FormatInt(ms/60000, 10)
}
