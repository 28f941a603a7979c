// Package events publishes Oozie's job and SLA event messages (Oozie's JMS
// notifications) to the user's message broker, AMQP 0-9-1 or STOMP, through
// the effect outbox: an event is an effect committed with the job change it
// reports and published after it, retried while the broker is unreachable,
// so no event is lost (delivery is at least once). See docs/events.md.
package events

import (
	"encoding/json"
	"time"

	"github.com/gozie/gozie/internal/sla"
	"github.com/gozie/gozie/internal/store"
)

// Message is one event to publish: its JMS-style properties (selectors) and
// its JSON body.
type Message struct {
	// Kind is "WORKFLOW_JOB", "COORDINATOR_ACTION" or "SLA".
	Kind    string
	User    string
	AppName string
	// Properties are the selector properties (appType, msgType, user,
	// appName, eventStatus, slaStatus, msgFormat), sent as headers.
	Properties map[string]string
	// Body is the JSON body, in Oozie's format.
	Body string
}

// EffectPublish is the effect kind of a message to publish.
const EffectPublish = "event-publish"

// The message kinds and app types.
const (
	KindWorkflowJob = "WORKFLOW_JOB"
	KindCoordAction = "COORDINATOR_ACTION"
	KindSLA         = "SLA"
	appTypeWfAction = "WORKFLOW_ACTION"
	msgFormatJSON   = "json"
	propAppType     = "appType"
	propMsgType     = "msgType"
	propUser        = "user"
	propAppName     = "appName"
	propEventStatus = "eventStatus"
	propSLAStatus   = "slaStatus"
	propMsgFormat   = "msgFormat"
	msgTypeJob      = "JOB"
	msgTypeSLA      = "SLA"
	eventWaiting    = "WAITING"
	eventStarted    = "STARTED"
	eventSuccess    = "SUCCESS"
	eventSuspend    = "SUSPEND"
	eventFailure    = "FAILURE"
	statusRunning   = "RUNNING"
	statusSucceeded = "SUCCEEDED"
	statusSuspended = "SUSPENDED"
	statusKilled    = "KILLED"
	statusFailed    = "FAILED"
	statusTimedOut  = "TIMEDOUT"
	statusCAWaiting = "WAITING"
)

// eventStatuses maps a status to the coarse event status Oozie puts in the
// eventStatus selector, per app type; a status absent gives no event (PREP,
// READY, SUBMITTED, SKIPPED, IGNORED: Oozie's JobEvent.EventStatus has no
// value for them).
var eventStatuses = map[string]map[string]string{
	KindWorkflowJob: {
		statusRunning: eventStarted, statusSucceeded: eventSuccess, statusSuspended: eventSuspend,
		statusKilled: eventFailure, statusFailed: eventFailure,
	},
	KindCoordAction: {
		statusCAWaiting: eventWaiting, statusRunning: eventStarted, statusSucceeded: eventSuccess,
		statusSuspended: eventSuspend, statusKilled: eventFailure, statusFailed: eventFailure,
		statusTimedOut: eventFailure,
	},
}

// jobBody is the JSON body of a job message; the field order is the one of
// Oozie's documented samples, absent values are left out as Oozie's
// serializer leaves out nulls.
type jobBody struct {
	Status       string `json:"status"`
	ErrorCode    string `json:"errorCode,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	ID           string `json:"id"`
	StartTime    *int64 `json:"startTime,omitempty"`
	ParentID     string `json:"parentId,omitempty"`
	EndTime      *int64 `json:"endTime,omitempty"`
}

// slaBody is the JSON body of an SLA message (Oozie's SLAMessage fields).
type slaBody struct {
	ID                  string `json:"id"`
	ParentID            string `json:"parentId,omitempty"`
	NominalTime         *int64 `json:"nominalTime,omitempty"`
	ExpectedStartTime   *int64 `json:"expectedStartTime,omitempty"`
	ActualStartTime     *int64 `json:"actualStartTime,omitempty"`
	ExpectedEndTime     *int64 `json:"expectedEndTime,omitempty"`
	ActualEndTime       *int64 `json:"actualEndTime,omitempty"`
	ExpectedDuration    int64  `json:"expectedDuration"`
	ActualDuration      int64  `json:"actualDuration"`
	NotificationMessage string `json:"notificationMessage,omitempty"`
	UpstreamApps        string `json:"upstreamApps,omitempty"`
}

// millis is a time as Oozie's JSON dates are (milliseconds since the
// epoch), nil for none.
func millis(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	ms := t.UnixMilli()
	return &ms
}

// JobMessage is the message of a workflow job's or coordinator action's
// status change to status (appType "WORKFLOW_JOB" or "COORDINATOR_ACTION"),
// with Oozie's eventStatus mapping (RUNNING STARTED, SUCCEEDED SUCCESS,
// SUSPENDED SUSPEND, KILLED/FAILED/TIMEDOUT FAILURE, a coordinator action's
// WAITING WAITING); ok false when the status gives no event in Oozie. start
// is a workflow's start time or a coordinator action's creation time (what
// Oozie sends), zero times are left out of the body.
func JobMessage(appType, id, parentID, appName, user, status string, start, end time.Time, errCode, errMsg string) (m Message, ok bool) {
	ev, ok := eventStatuses[appType][status]
	if !ok {
		return Message{}, false
	}
	body := encode(jobBody{Status: status, ErrorCode: errCode, ErrorMessage: errMsg, ID: id,
		StartTime: millis(start), ParentID: parentID, EndTime: millis(end)})
	return Message{Kind: appType, User: user, AppName: appName, Body: body, Properties: map[string]string{
		propAppType: appType, propMsgType: msgTypeJob, propEventStatus: ev,
		propAppName: appName, propUser: user, propMsgFormat: msgFormatJSON,
	}}, true
}

// SLAMessage is the message of an SLA event of the record s.
func SLAMessage(s *store.SLA, ev sla.Event) Message {
	body := encode(slaBody{ID: s.ID, ParentID: s.ParentID, NominalTime: millis(s.NominalTime),
		ExpectedStartTime: millis(s.ExpectedStart), ActualStartTime: millis(s.ActualStart),
		ExpectedEndTime: millis(s.ExpectedEnd), ActualEndTime: millis(s.ActualEnd),
		ExpectedDuration: s.ExpectedDurationMs, ActualDuration: s.ActualDurationMs,
		NotificationMessage: s.NotificationMsg, UpstreamApps: s.UpstreamApps})
	slaStatus := ev.SLAStatus
	if slaStatus == "" {
		slaStatus = s.SLAStatus
	}
	return Message{Kind: KindSLA, User: s.User, AppName: s.AppName, Body: body, Properties: map[string]string{
		propAppType: s.AppType, propMsgType: msgTypeSLA, propEventStatus: ev.Status, propSLAStatus: slaStatus,
		propAppName: s.AppName, propUser: s.User, propMsgFormat: msgFormatJSON,
	}}
}

// NewEffect returns the effect publishing m, for the caller's commit (jobID
// is the job the event is about).
func NewEffect(jobID string, m Message, now time.Time) *store.Effect {
	return &store.Effect{JobID: jobID, Kind: EffectPublish, Payload: encode(m), CreatedTime: now}
}

// encode is v in JSON. The values encoded here are strings, integers and
// maps of strings, which always encode: the error cannot happen.
func encode(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
