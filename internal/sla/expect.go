package sla

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/schedule"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// The kinds of tracked things (store.SLA.AppType).
const (
	AppTypeWorkflowJob    = "WORKFLOW_JOB"
	AppTypeWorkflowAction = "WORKFLOW_ACTION"
	AppTypeCoordAction    = "COORDINATOR_ACTION"
)

// The SLA statuses of a record (store.SLA.SLAStatus): the job has not
// started, it runs, or its end criterion was met or missed.
const (
	NotStarted = "NOT_STARTED"
	InProcess  = "IN_PROCESS"
	Met        = "MET"
	Miss       = "MISS"
)

// The event statuses: each of the three criteria (start, duration, end)
// ends in one met or one missed event.
const (
	StartMet     = "START_MET"
	StartMiss    = "START_MISS"
	DurationMet  = "DURATION_MET"
	DurationMiss = "DURATION_MISS"
	EndMet       = "END_MET"
	EndMiss      = "END_MISS"
)

// The SLA namespaces an <sla:info> may be written in.
const (
	NS01 = "uri:oozie:sla:0.1"
	NS02 = "uri:oozie:sla:0.2"
)

// The bits of store.SLA.EventProcessed, as Oozie stores them: one per
// decided criterion, and Done once every criterion is decided and the
// job's end is recorded (nothing is left to do for the record).
const (
	ProcStart    = 1
	ProcDuration = 2
	ProcEnd      = 4
	procAll      = ProcStart | ProcDuration | ProcEnd
	ProcDone     = 8
)

// eventNames are the valid alert-events values, upper case.
var eventNames = map[string]bool{
	StartMet: true, StartMiss: true, DurationMet: true, DurationMiss: true, EndMet: true, EndMiss: true,
}

// Expect fills the expectations of s (NominalTime, ExpectedStart,
// ExpectedEnd, ExpectedDurationMs, AlertEvents, AlertContact,
// UpstreamApps, NotificationMsg; AppName for 0.1's app-name) from the
// child elements of a resolved <sla:info>: fields maps each child's local
// name to its text after EL. ns is the element's namespace (NS01 or NS02).
//
// nominal-time is a UTC Oozie datetime (yyyy-MM-ddTHH:mmZ); should-start,
// should-end and max-duration are numbers of minutes (the EL constants
// MINUTES, HOURS and DAYS are 1, 60 and 1440), the first two counted from
// the nominal time. Without max-duration, and with should-start, the
// expected duration is should-end minus should-start; a max-duration of 0
// or less sets no duration criterion. alert-events is a comma list of
// event statuses in any case; an unknown name counts as END_MISS, as
// Oozie reads it.
//
// Expect then initializes the summary: SLA status NOT_STARTED, no event,
// actual times unknown (ActualDurationMs -1), the job status the tracked
// kind starts in, and NextCheck at the first deadline. Bad values give an
// E0302 (missing required ones E0305) naming the field; s is left as it
// was.
func Expect(s *store.SLA, ns string, fields map[string]string) error {
	if ns != NS01 && ns != NS02 {
		return vocab.Errorf("E0302", "Invalid parameter [sla namespace %q: expected %s or %s]", ns, NS01, NS02)
	}
	get := func(name string) (string, bool) {
		v, ok := fields[name]
		return strings.TrimSpace(v), ok
	}
	r := *s
	nominal, ok := get("nominal-time")
	if !ok || nominal == "" {
		return vocab.Errorf("E0305", "Missing parameter [nominal-time]")
	}
	t, err := schedule.ParseTime(nominal)
	if err != nil {
		return vocab.Errorf("E0302", "Invalid parameter [nominal-time %q: %v]", nominal, err)
	}
	r.NominalTime = t
	r.ExpectedStart = time.Time{}
	if v, ok := get("should-start"); ok {
		if r.ExpectedStart, err = offsetFrom(t, "should-start", v); err != nil {
			return err
		}
	}
	v, ok := get("should-end")
	if !ok {
		return vocab.Errorf("E0305", "Missing parameter [should-end]")
	}
	if r.ExpectedEnd, err = offsetFrom(t, "should-end", v); err != nil {
		return err
	}
	r.ExpectedDurationMs = -1
	maxDur, _ := get("max-duration")
	if ns == NS01 {
		// 0.1 has no max-duration nor alert-events; it names the app.
		maxDur = ""
		if name, ok := get("app-name"); ok && name != "" {
			r.AppName = name
		}
	}
	if r.ExpectedDurationMs, err = duration(&r, maxDur); err != nil {
		return err
	}
	r.AlertEvents = ""
	if ev, ok := get("alert-events"); ok && ns == NS02 {
		r.AlertEvents = alertEvents(ev)
	}
	r.AlertContact, _ = get("alert-contact")
	r.UpstreamApps, _ = get("upstream-apps")
	r.NotificationMsg, _ = get("notification-msg")

	r.JobStatus = initialJobStatus(r.AppType)
	r.ActualStart, r.ActualEnd, r.ActualDurationMs = time.Time{}, time.Time{}, -1
	r.SLAStatus, r.EventStatus, r.EventProcessed = NotStarted, "", 0
	r.NextCheck = nextCheck(&r)
	*s = r
	return nil
}

// initialJobStatus is the status a tracked kind is registered with: a
// coordinator action waits, workflow jobs and actions are in PREP.
func initialJobStatus(appType string) string {
	if appType == AppTypeCoordAction {
		return string(vocab.CoordActionWaiting)
	}
	return string(vocab.JobPrep)
}

// maxMinutes bounds the numbers of minutes accepted (about 10,000 years),
// so that every deadline stays a valid time.
const maxMinutes = 10000 * 366 * 24 * 60

// minutes reads a number of minutes (decimals allowed, as Oozie reads a
// float) and returns it in milliseconds, truncated as Oozie truncates.
func minutes(field, v string) (int64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, vocab.Errorf("E0302", "Invalid parameter [%s %q: not a number of minutes]", field, v)
	}
	if f > maxMinutes || f < -maxMinutes {
		return 0, vocab.Errorf("E0302", "Invalid parameter [%s %q: out of range]", field, v)
	}
	return int64(math.Trunc(f * 60 * 1000)), nil
}

// offsetFrom reads should-start or should-end: minutes after nominal,
// never negative.
func offsetFrom(nominal time.Time, field, v string) (time.Time, error) {
	ms, err := minutes(field, v)
	if err != nil {
		return time.Time{}, err
	}
	if ms < 0 {
		return time.Time{}, vocab.Errorf("E0302", "Invalid parameter [%s %q: must not be negative]", field, v)
	}
	return nominal.Add(time.Duration(ms) * time.Millisecond), nil
}

// duration returns the expected duration of r from a max-duration value
// ("" when absent): the value when positive, -1 (none) when 0 or less,
// and without one the time between the expected start and end when r has
// an expected start (-1 otherwise, or when the end comes first).
func duration(r *store.SLA, maxDur string) (int64, error) {
	if maxDur != "" {
		ms, err := minutes("max-duration", maxDur)
		if err != nil {
			return 0, err
		}
		if ms <= 0 {
			return -1, nil
		}
		return ms, nil
	}
	if r.ExpectedStart.IsZero() || r.ExpectedEnd.Before(r.ExpectedStart) {
		return -1, nil
	}
	return r.ExpectedEnd.Sub(r.ExpectedStart).Milliseconds(), nil
}

// alertEvents normalizes an alert-events list: trimmed, upper case, an
// unknown name replaced by END_MISS (Oozie's default, with a warning
// there; a typo must not silence the alerts).
func alertEvents(v string) string {
	parts := strings.Split(v, ",")
	for i, p := range parts {
		p = strings.ToUpper(strings.TrimSpace(p))
		if !eventNames[p] {
			p = EndMiss
		}
		parts[i] = p
	}
	return strings.Join(parts, ",")
}
