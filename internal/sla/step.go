package sla

import (
	"sort"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// JobState is what the calculator knows of the tracked job or action now.
type JobState struct {
	// Status is the job's or action's status (RUNNING, SUCCEEDED, OK, ...).
	Status string
	// Start and End are the actual times; zero: not yet (or unknown).
	Start, End time.Time
	// Ended reports a terminal status; Succeeded that it is a successful
	// one (SUCCEEDED, OK), any other end (FAILED, KILLED, TIMEDOUT, ERROR,
	// SKIPPED...) being a failure.
	Ended     bool
	Succeeded bool
}

// Event is one SLA event to send.
type Event struct {
	// Status is the event status (START_MET ... END_MISS).
	Status string
	// SLAStatus is the record's SLA status right after the event.
	SLAStatus string
	// At is when the outcome became certain: the deadline for a miss
	// found by passing it (also when the job started or ended late), the
	// actual start or end for a met or for a failure before the deadline.
	At time.Time
}

// verdict is the decision about one criterion: decided, and the event it
// gives ("" for a criterion decided without one: no expectation, or a job
// that ended without ever starting).
type verdict struct {
	decided bool
	status  string
	at      time.Time
}

// Step decides what can be decided at now about s, given the tracked job
// as it is: it records the job's status and actual times, decides the
// start, duration and end criteria that now allows, and returns their
// events ordered by At (ties in start, duration, end order).
//
// Step reasons on the timeline, not on when it is called: a criterion is
// decided as a calculator running without pause would have decided it, so
// a call long after the deadlines (the server was down) gives each event
// once, with the time it belongs to. A deadline is passed at its own
// instant: the job state is read at now, so a job not started at the
// expected start cannot meet it any more. A criterion decided stays
// decided (EventProcessed guards it): calling Step again with the same
// input returns no event and changes nothing.
//
// As Oozie's calculator: a job ending in failure misses its end (and its
// duration, if one is expected and not yet decided); a job that ends
// without having started gives END_MISS only, plus START_MISS if its
// expected start had passed by then. An END_MISS decided while the job
// still runs leaves the start and duration criteria open.
func Step(s *store.SLA, job JobState, now time.Time) []Event {
	before := *s
	observe(s, job, now)
	// A start seen by an earlier step counts even if the caller no longer
	// knows it.
	job.Start = s.ActualStart
	if s.EventProcessed >= ProcDone {
		touch(s, before, now)
		return nil
	}
	type found struct {
		verdict
		bit int
	}
	var fs []found
	for _, c := range []struct {
		bit    int
		decide func(*store.SLA, JobState, time.Time) verdict
	}{{ProcStart, decideStart}, {ProcDuration, decideDuration}, {ProcEnd, decideEnd}} {
		if s.EventProcessed&c.bit != 0 {
			continue
		}
		if v := c.decide(s, job, now); v.decided {
			s.EventProcessed |= c.bit
			if v.status != "" {
				fs = append(fs, found{v, c.bit})
			}
		}
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].at.Before(fs[j].at) })

	status := s.SLAStatus
	var evs []Event
	for _, f := range fs {
		switch {
		case f.status == EndMet:
			status = Met
		case f.status == EndMiss:
			status = Miss
		case status == NotStarted && !job.Start.IsZero() && !job.Start.After(f.at):
			status = InProcess
		}
		evs = append(evs, Event{Status: f.status, SLAStatus: status, At: f.at})
		s.EventStatus = f.status
	}
	if status == NotStarted && !s.ActualStart.IsZero() {
		status = InProcess
	}
	s.SLAStatus = status
	if s.EventProcessed&procAll == procAll && job.Ended {
		s.EventProcessed = ProcDone
	}
	s.NextCheck = nextCheck(s)
	touch(s, before, now)
	return evs
}

// touch sets LastModTime when Step changed the record, so that an
// unchanged record need not be written.
func touch(s *store.SLA, before store.SLA, now time.Time) {
	if *s != before {
		s.LastModTime = now
	}
}

// observe records the job's status and actual times in s.
func observe(s *store.SLA, job JobState, now time.Time) {
	if job.Status != "" {
		s.JobStatus = job.Status
	}
	if !job.Start.IsZero() {
		s.ActualStart = job.Start
	}
	if job.Ended {
		s.ActualEnd = endOf(job, now)
		if !s.ActualStart.IsZero() {
			s.ActualDurationMs = s.ActualEnd.Sub(s.ActualStart).Milliseconds()
		}
	}
}

// endOf is the job's end time, now when the job ended at an unknown time.
func endOf(job JobState, now time.Time) time.Time {
	if job.End.IsZero() {
		return now
	}
	return job.End
}

// decideStart decides the start criterion: met when the job started at or
// before the expected start, missed at the expected start otherwise.
func decideStart(s *store.SLA, job JobState, now time.Time) verdict {
	es := s.ExpectedStart
	switch {
	case es.IsZero():
		return verdict{decided: true}
	case !job.Start.IsZero():
		if job.Start.After(es) {
			return verdict{true, StartMiss, es}
		}
		return verdict{true, StartMet, job.Start}
	case job.Ended:
		if endOf(job, now).After(es) {
			return verdict{true, StartMiss, es}
		}
		return verdict{decided: true} // ended before it was due to start
	case !now.Before(es):
		return verdict{true, StartMiss, es}
	}
	return verdict{}
}

// decideDuration decides the duration criterion of a job that started:
// missed once it has run longer than expected, or when it fails; met when
// it succeeds within the expected duration.
func decideDuration(s *store.SLA, job JobState, now time.Time) verdict {
	d := time.Duration(s.ExpectedDurationMs) * time.Millisecond
	if s.ExpectedDurationMs < 0 {
		return verdict{decided: true}
	}
	if job.Start.IsZero() {
		// Never started: nothing to measure once it has ended.
		return verdict{decided: job.Ended}
	}
	due := job.Start.Add(d)
	if job.Ended {
		end := endOf(job, now)
		switch {
		case end.Sub(job.Start) > d:
			return verdict{true, DurationMiss, due}
		case !job.Succeeded:
			return verdict{true, DurationMiss, end}
		}
		return verdict{true, DurationMet, end}
	}
	if !now.Before(due) {
		return verdict{true, DurationMiss, due}
	}
	return verdict{}
}

// decideEnd decides the end criterion: met when the job succeeded at or
// before the expected end; missed at the expected end when it had not,
// or when it failed (at its end if that came first).
func decideEnd(s *store.SLA, job JobState, now time.Time) verdict {
	ee := s.ExpectedEnd
	if job.Ended {
		end := endOf(job, now)
		late := !ee.IsZero() && end.After(ee)
		switch {
		case late:
			return verdict{true, EndMiss, ee}
		case job.Succeeded:
			return verdict{true, EndMet, end}
		}
		return verdict{true, EndMiss, end}
	}
	if !ee.IsZero() && !now.Before(ee) {
		return verdict{true, EndMiss, ee}
	}
	return verdict{}
}

// nextCheck is the earliest deadline of the criteria s still has open:
// the expected start of a job not started, the expected duration after
// its start, the expected end. Zero when none is open, or when the only
// one left is the duration of a job not started yet (its start, a status
// change, brings the record back).
func nextCheck(s *store.SLA) time.Time {
	if s.EventProcessed >= ProcDone {
		return time.Time{}
	}
	var next time.Time
	consider := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	if s.EventProcessed&ProcStart == 0 && s.ActualStart.IsZero() {
		consider(s.ExpectedStart)
	}
	if s.EventProcessed&ProcDuration == 0 && s.ExpectedDurationMs >= 0 && !s.ActualStart.IsZero() {
		consider(s.ActualStart.Add(time.Duration(s.ExpectedDurationMs) * time.Millisecond))
	}
	if s.EventProcessed&ProcEnd == 0 {
		consider(s.ExpectedEnd)
	}
	return next
}
