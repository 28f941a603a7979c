// Package slatrack runs SLA monitoring in the server: the calculation pass
// that turns what happened to the tracked jobs and actions (and the
// deadlines that passed) into SLA events, the alerts those events send,
// and the commands on SLA records (enable, disable, change, list).
//
// The pass reads its work from the store (store.Tx.DueSLAs: records whose
// deadline came or whose job changed status) and writes each record's new
// state with the alert effects of its new events in one transaction, so an
// event is decided once and its alert sent at least once, whether the
// server was up at the deadline or started after it. Registration is the
// engines' part: a workflow job, a workflow action or a coordinator action
// with an <sla:info> writes its record in the commit that creates it.
package slatrack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/events"
	"github.com/gozie/gozie/internal/sla"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// EffectSLAMail is an alert mail to send: JobID is the job of the tracked
// record, Payload the mail (JSON: to, subject, body).
const EffectSLAMail = "sla-mail"

// Options tune the tracker; zero values take the defaults.
type Options struct {
	// Interval is the time between two passes (Oozie's SLA service
	// checks every 30 s): a deadline's miss is reported at most this late.
	Interval time.Duration
	// Batch bounds the records one transaction of a pass decides.
	Batch int
	// JobURL starts the console link of a job in alert mails
	// (http://host:11000/oozie/?job=).
	JobURL string
	// Send delivers an alert mail; nil sends none (the events are still
	// recorded and notified).
	Send func(ctx context.Context, to, subject, body string) error
	// NotifyURL, when set, is fetched (HTTP GET) for every SLA event, its
	// tokens replaced: $jobId, $appName, $appType, $eventStatus,
	// $slaStatus, $jobStatus, $nominalTime.
	NotifyURL string
	// Logf logs what goes wrong in a pass.
	Logf func(format string, args ...any)
	// Events publishes every SLA event to the message broker (package
	// events) from the pass's commit.
	Events bool
}

func (o Options) withDefaults() Options {
	if o.Interval <= 0 {
		o.Interval = 30 * time.Second
	}
	if o.Batch <= 0 {
		o.Batch = 500
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return o
}

// Tracker runs SLA monitoring on an effect runtime.
type Tracker struct {
	rt    *effect.Runtime
	store store.Store
	clock effect.Clock
	opts  Options

	mu      sync.Mutex
	stop    func() bool
	closed  bool
	running sync.WaitGroup
	// tracked counts the records not yet decided at the last pass
	// (Oozie's sla-calculator.sla-map counter).
	tracked atomic.Int64
	kick    chan struct{}
}

// New returns a tracker on rt and registers its effect kind there; Start
// begins its passes.
func New(rt *effect.Runtime, opts Options) *Tracker {
	t := &Tracker{rt: rt, store: rt.Store(), clock: rt.Clock(), opts: opts.withDefaults(), kick: make(chan struct{}, 1)}
	rt.Register(EffectSLAMail, mailHandler{t})
	return t
}

// Start runs a pass now and then every Interval until Close.
func (t *Tracker) Start(ctx context.Context) {
	t.schedule(0)
}

// schedule arranges the next pass after d.
func (t *Tracker) schedule(d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	t.stop = t.clock.AfterFunc(d, t.tick)
}

func (t *Tracker) tick() {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	t.running.Add(1)
	t.mu.Unlock()
	defer t.running.Done()
	if err := t.Pass(context.Background()); err != nil {
		t.opts.Logf("gozie: sla pass: %v", err)
	}
	t.schedule(t.opts.Interval)
}

// Close stops the passes and waits for one under way.
func (t *Tracker) Close() {
	t.mu.Lock()
	t.closed = true
	if t.stop != nil {
		t.stop()
	}
	t.mu.Unlock()
	t.running.Wait()
}

// Tracked is the number of records not decided yet at the last pass
// (the instrumentation counter sla-calculator.sla-map).
func (t *Tracker) Tracked() int64 { return t.tracked.Load() }

// Pass decides what can be decided now: every record whose deadline came
// or whose job changed status, batch by batch.
func (t *Tracker) Pass(ctx context.Context) error {
	now := t.clock.Now().Truncate(time.Millisecond)
	seen := map[string]bool{}
	for {
		var due []*store.SLA
		err := t.store.View(ctx, func(tx store.Tx) (err error) {
			due, err = tx.DueSLAs(ctx, now, t.opts.Batch)
			return err
		})
		if err != nil {
			return err
		}
		fresh := due[:0]
		for _, s := range due {
			if !seen[s.ID] {
				seen[s.ID] = true
				fresh = append(fresh, s)
			}
		}
		if len(fresh) == 0 {
			break
		}
		if err := t.decide(ctx, fresh, now); err != nil {
			return err
		}
		if len(due) < t.opts.Batch {
			break
		}
	}
	return t.count(ctx)
}

// count refreshes the tracked counter.
func (t *Tracker) count(ctx context.Context) error {
	var n int
	err := t.store.View(ctx, func(tx store.Tx) error {
		var err error
		n, err = tx.CountSLAs(ctx, noDurations(store.SLAFilter{SLAStatuses: []string{sla.NotStarted, sla.InProcess}}))
		return err
	})
	if err == nil {
		t.tracked.Store(int64(n))
	}
	return err
}

// decide steps a batch of records and commits their new states with the
// alerts of their events.
func (t *Tracker) decide(ctx context.Context, batch []*store.SLA, now time.Time) error {
	var effects []*store.Effect
	var logs []*store.LogEntry
	err := t.store.View(ctx, func(tx store.Tx) error {
		for _, s := range batch {
			js, err := jobState(ctx, tx, s)
			if err != nil {
				return err
			}
			for _, ev := range sla.Step(s, js, now) {
				effects = append(effects, t.alerts(s, ev, now)...)
				if t.opts.Events {
					effects = append(effects, events.NewEffect(vocab.JobOf(s.ID), events.SLAMessage(s, ev), now))
				}
				logs = append(logs, &store.LogEntry{JobID: vocab.JobOf(s.ID), ActionID: actionOf(s.ID), Time: now,
					Level: "INFO", Message: fmt.Sprintf("SLA %s of %s [%s], SLA status %s", ev.Status, s.AppType, s.ID, ev.SLAStatus)})
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = t.rt.Update(ctx, func(tx store.Tx) error {
		for _, s := range batch {
			if err := tx.PutSLA(ctx, s); err != nil {
				return err
			}
		}
		for _, ef := range effects {
			if err := tx.AddEffect(ctx, ef); err != nil {
				return err
			}
		}
		for _, l := range logs {
			if err := tx.AppendLog(ctx, l); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	t.rt.Dispatch(effects)
	return nil
}

// actionOf is the action part of a tracked id for its log line: the id
// itself for an action, "" for a job.
func actionOf(id string) string {
	if strings.Contains(id, "@") {
		return id
	}
	return ""
}

// alerts are the effects an event sends: the mail its record asks for
// and the HTTP notification of the server.
func (t *Tracker) alerts(s *store.SLA, ev sla.Event, now time.Time) []*store.Effect {
	var out []*store.Effect
	job := vocab.JobOf(s.ID)
	if t.opts.Send != nil && sla.Mailed(s, ev) {
		subject, body := sla.Mail(s, ev, t.opts.JobURL)
		b, _ := json.Marshal(mailPayload{To: s.AlertContact, Subject: subject, Body: body})
		out = append(out, &store.Effect{JobID: job, ActionID: actionOf(s.ID), Kind: EffectSLAMail, Payload: string(b), CreatedTime: now})
	}
	if t.opts.NotifyURL != "" {
		out = append(out, &store.Effect{JobID: job, ActionID: actionOf(s.ID), Kind: effect.EffectHTTPNotify,
			Payload: notifyURL(t.opts.NotifyURL, s, ev), CreatedTime: now})
	}
	return out
}

// notifyURL replaces the tokens of the notification URL, each value
// escaped for a query.
func notifyURL(u string, s *store.SLA, ev sla.Event) string {
	nominal := ""
	if !s.NominalTime.IsZero() {
		nominal = s.NominalTime.UTC().Format("2006-01-02T15:04Z")
	}
	r := strings.NewReplacer("$jobId", url.QueryEscape(s.ID), "$appName", url.QueryEscape(s.AppName),
		"$appType", s.AppType, "$eventStatus", ev.Status, "$slaStatus", ev.SLAStatus,
		"$jobStatus", url.QueryEscape(s.JobStatus), "$nominalTime", nominal)
	return r.Replace(u)
}

// mailPayload is an EffectSLAMail's payload.
type mailPayload struct {
	To      string `json:"to"`
	Subject string `json:"subject"`
	Body    string `json:"body"`
}

// mailHandler performs EffectSLAMail.
type mailHandler struct{ t *Tracker }

// Perform sends the mail; a failure the SMTP server gave is logged on the
// job and the mail dropped (as Oozie's listener does), a transient one is
// tried again by the runtime.
func (h mailHandler) Perform(ctx context.Context, ef *store.Effect) error {
	var p mailPayload
	if err := json.Unmarshal([]byte(ef.Payload), &p); err != nil || h.t.opts.Send == nil {
		return h.t.rt.MarkDone(ctx, ef)
	}
	err := h.t.opts.Send(ctx, p.To, p.Subject, p.Body)
	if err != nil && vocab.CodeOf(err) == "" {
		return err
	}
	return h.t.store.Update(ctx, func(tx store.Tx) error {
		if err := tx.DoneEffect(ctx, ef.ID); err != nil {
			return err
		}
		msg, level := "SLA alert sent to ["+p.To+"]: "+p.Subject, "INFO"
		if err != nil {
			msg, level = "SLA alert to ["+p.To+"] not sent: "+err.Error(), "WARN"
		}
		return tx.AppendLog(ctx, &store.LogEntry{JobID: ef.JobID, ActionID: ef.ActionID, Time: h.t.clock.Now(), Level: level, Message: msg})
	})
}

// Quarantine drops a mail that kept killing the server.
func (h mailHandler) Quarantine(ctx context.Context, ef *store.Effect, _ int, msg string) error {
	return h.t.rt.MarkDone(ctx, ef)
}

// jobState reads what the calculator needs of the tracked job or action.
func jobState(ctx context.Context, tx store.Tx, s *store.SLA) (sla.JobState, error) {
	switch s.AppType {
	case sla.AppTypeWorkflowJob:
		j, err := tx.Job(ctx, s.ID)
		if err != nil {
			return gone(err)
		}
		return sla.JobState{Status: j.Status, Start: j.StartTime, End: endOf(store.Terminal(j.Status), j.EndTime),
			Ended: store.Terminal(j.Status), Succeeded: j.Status == store.JobSucceeded}, nil
	case sla.AppTypeWorkflowAction:
		a, err := tx.Action(ctx, s.ID)
		if err != nil {
			return gone(err)
		}
		ended := actionEnded(a.Status)
		return sla.JobState{Status: a.Status, Start: a.StartTime, End: endOf(ended, a.EndTime), Ended: ended,
			Succeeded: a.Status == store.ActionOK}, nil
	case sla.AppTypeCoordAction:
		return coordActionState(ctx, tx, s.ID)
	}
	return sla.JobState{}, fmt.Errorf("sla record %s: unknown app type %q", s.ID, s.AppType)
}

// gone is the state of a job or action no longer in the store (purged):
// ended, not succeeded, so that its record is decided rather than due
// for ever.
func gone(err error) (sla.JobState, error) {
	if errors.Is(err, store.ErrNotFound) {
		return sla.JobState{Status: "UNKNOWN", Ended: true}, nil
	}
	return sla.JobState{}, err
}

func endOf(ended bool, t time.Time) time.Time {
	if !ended {
		return time.Time{}
	}
	return t
}

// actionEnded reports whether a workflow action status is an end.
func actionEnded(s string) bool {
	switch s {
	case store.ActionOK, store.ActionError, store.ActionKilled, store.ActionFailed:
		return true
	}
	return false
}

// coordActionState is a coordinator action's state: it starts when its
// workflow starts and ends with it (or with the action, for one that
// never ran: timed out, skipped, killed while waiting).
func coordActionState(ctx context.Context, tx store.Tx, id string) (sla.JobState, error) {
	a, err := tx.CoordAction(ctx, id)
	if err != nil {
		return gone(err)
	}
	js := sla.JobState{Status: a.Status}
	switch a.Status {
	case store.CoordActionSucceeded, store.CoordActionKilled, store.CoordActionFailed, store.CoordActionTimedOut,
		store.CoordActionSkipped, store.CoordActionIgnored:
		js.Ended, js.Succeeded = true, a.Status == store.CoordActionSucceeded
		js.End = a.LastModTime
	}
	if a.ExternalID != "" {
		if wf, err := tx.Job(ctx, a.ExternalID); err == nil {
			js.Start = wf.StartTime
			if js.Ended && !wf.EndTime.IsZero() {
				js.End = wf.EndTime
			}
		} else if !errors.Is(err, store.ErrNotFound) {
			return js, err
		}
	}
	return js, nil
}
