package events

import (
	"encoding/json"
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/sla"
	"github.com/gozie/gozie/internal/store"
)

func ms(n int64) time.Time { return time.UnixMilli(n).UTC() }

// jsonMap decodes a JSON object, for comparisons that ignore key order.
func jsonMap(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not a JSON object: %v: %s", err, s)
	}
	return m
}

// The samples are DG_JMSNotifications' "Message Body for Job
// Notifications". Oozie's coordinator action bodies also carry nominalTime
// and missingDependency, which JobMessage is not given (docs/events.md):
// drop lists those keys of the sample.
func TestJobMessage(t *testing.T) {
	const wf42, wf39 = "0000042-130618221729631-oozie-oozi-W", "0000039-130618221729631-oozie-oozi-W"
	const coord, ca = "0000025-130618221729631-oozie-oozi-C", "0000025-130618221729631-oozie-oozi-C@1"
	tests := []struct {
		name                string
		appType, id, parent string
		status              string
		start, end          time.Time
		code, msg           string
		sample              string
		drop                []string
		event               string
		exact               bool
	}{
		{name: "workflow RUNNING", appType: "WORKFLOW_JOB", id: wf42, status: "RUNNING", start: ms(1342915200000),
			sample: `{"status":"RUNNING","id":"0000042-130618221729631-oozie-oozi-W","startTime":1342915200000}`,
			event:  "STARTED", exact: true},
		{name: "workflow FAILED", appType: "WORKFLOW_JOB", id: wf42, status: "FAILED", start: ms(1342915200000),
			end: ms(1366672183543), code: "EL_ERROR", msg: "variable [dummyvalue] cannot be resolved",
			sample: `{"status":"FAILED","errorCode":"EL_ERROR","errorMessage":"variable [dummyvalue] cannot be resolved",` +
				`"id":"0000042-130618221729631-oozie-oozi-W","startTime":1342915200000,"endTime":1366672183543}`,
			event: "FAILURE", exact: true},
		{name: "workflow SUCCEEDED", appType: "WORKFLOW_JOB", id: wf39, parent: ca, status: "SUCCEEDED",
			start: ms(1342915200000), end: ms(1366676224154),
			sample: `{"status":"SUCCEEDED","id":"0000039-130618221729631-oozie-oozi-W","startTime":1342915200000,` +
				`"parentId":"0000025-130618221729631-oozie-oozi-C@1","endTime":1366676224154}`,
			event: "SUCCESS", exact: true},
		{name: "workflow SUSPENDED", appType: "WORKFLOW_JOB", id: wf39, parent: ca, status: "SUSPENDED",
			start: ms(1342915200000),
			sample: `{"status":"SUSPENDED","id":"0000039-130618221729631-oozie-oozi-W","startTime":1342915200000,` +
				`"parentId":"0000025-130618221729631-oozie-oozi-C@1"}`,
			event: "SUSPEND", exact: true},
		{name: "workflow KILLED", appType: "WORKFLOW_JOB", id: wf39, status: "KILLED", start: ms(1342915200000),
			end: ms(1366676224154), sample: `{"status":"KILLED","id":"0000039-130618221729631-oozie-oozi-W",` +
				`"startTime":1342915200000,"endTime":1366676224154}`, event: "FAILURE", exact: true},
		{name: "coordinator action WAITING", appType: "COORDINATOR_ACTION", id: ca, parent: coord, status: "WAITING",
			start: ms(1342915200000),
			sample: `{"status":"WAITING","nominalTime":1310342400000,"missingDependency":"hdfs://gsbl90107.blue.com:8020/user/john/dir1/file1",` +
				`"id":"0000025-130618221729631-oozie-oozi-C@1","startTime":1342915200000,"parentId":"0000025-130618221729631-oozie-oozi-C"}`,
			drop: []string{"nominalTime", "missingDependency"}, event: "WAITING"},
		{name: "coordinator action RUNNING", appType: "COORDINATOR_ACTION", id: ca, parent: coord, status: "RUNNING",
			start: ms(1342915200000),
			sample: `{"status":"RUNNING","nominalTime":1310342400000,"id":"0000025-130618221729631-oozie-oozi-C@1",` +
				`"startTime":1342915200000,"parentId":"0000025-130618221729631-oozie-oozi-C"}`,
			drop: []string{"nominalTime"}, event: "STARTED"},
		{name: "coordinator action SUCCEEDED", appType: "COORDINATOR_ACTION", id: ca, parent: coord, status: "SUCCEEDED",
			start: ms(1342915200000), end: ms(1366677082799),
			sample: `{"status":"SUCCEEDED","nominalTime":1310342400000,"id":"0000025-130618221729631-oozie-oozi-C@1",` +
				`"startTime":1342915200000,"parentId":"0000025-130618221729631-oozie-oozi-C","endTime":1366677082799}`,
			drop: []string{"nominalTime"}, event: "SUCCESS"},
		{name: "coordinator action FAILED", appType: "COORDINATOR_ACTION", id: ca, parent: coord, status: "FAILED",
			start: ms(1342915200000), end: ms(1366677140818), code: "E0101", msg: "dummyError",
			sample: `{"status":"FAILED","errorCode":"E0101","errorMessage":"dummyError","nominalTime":1310342400000,` +
				`"id":"0000025-130618221729631-oozie-oozi-C@1","startTime":1342915200000,` +
				`"parentId":"0000025-130618221729631-oozie-oozi-C","endTime":1366677140818}`,
			drop: []string{"nominalTime"}, event: "FAILURE"},
		{name: "coordinator action TIMEDOUT", appType: "COORDINATOR_ACTION", id: ca, parent: coord, status: "TIMEDOUT",
			start: ms(1342915200000), end: ms(1366677140818),
			sample: `{"status":"TIMEDOUT","id":"0000025-130618221729631-oozie-oozi-C@1","startTime":1342915200000,` +
				`"parentId":"0000025-130618221729631-oozie-oozi-C","endTime":1366677140818}`, event: "FAILURE"},
		{name: "coordinator action SUSPENDED", appType: "COORDINATOR_ACTION", id: ca, parent: coord, status: "SUSPENDED",
			start: ms(1342915200000), sample: `{"status":"SUSPENDED","id":"0000025-130618221729631-oozie-oozi-C@1",` +
				`"startTime":1342915200000,"parentId":"0000025-130618221729631-oozie-oozi-C"}`, event: "SUSPEND"},
		// No event in Oozie's JobEvent.EventStatus for these.
		{name: "workflow PREP", appType: "WORKFLOW_JOB", id: wf42, status: "PREP"},
		{name: "coordinator action READY", appType: "COORDINATOR_ACTION", id: ca, status: "READY"},
		{name: "coordinator action SUBMITTED", appType: "COORDINATOR_ACTION", id: ca, status: "SUBMITTED"},
		{name: "coordinator action SKIPPED", appType: "COORDINATOR_ACTION", id: ca, status: "SKIPPED"},
		{name: "coordinator action IGNORED", appType: "COORDINATOR_ACTION", id: ca, status: "IGNORED"},
		{name: "coordinator action TIMEDOUT is no workflow status", appType: "WORKFLOW_JOB", id: wf42, status: "TIMEDOUT"},
		{name: "workflow action: not published", appType: "WORKFLOW_ACTION", id: wf42 + "@a", status: "RUNNING"},
		{name: "unknown app type", appType: "BUNDLE_JOB", id: "x", status: "RUNNING"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := JobMessage(tt.appType, tt.id, tt.parent, "map-reduce-wf", "john", tt.status, tt.start, tt.end, tt.code, tt.msg)
			if ok != (tt.event != "") {
				t.Fatalf("ok = %v, want %v", ok, tt.event != "")
			}
			if !ok {
				return
			}
			if tt.exact && m.Body != tt.sample {
				t.Errorf("body\n got %s\nwant %s", m.Body, tt.sample)
			}
			want := jsonMap(t, tt.sample)
			for _, k := range tt.drop {
				delete(want, k)
			}
			if got := jsonMap(t, m.Body); !reflect.DeepEqual(got, want) {
				t.Errorf("body\n got %v\nwant %v", got, want)
			}
			// The properties of DG_JMSNotifications' ActiveMQ sample.
			wantProps := map[string]string{"appName": "map-reduce-wf", "msgType": "JOB", "appType": tt.appType,
				"user": "john", "msgFormat": "json", "eventStatus": tt.event}
			if !maps.Equal(m.Properties, wantProps) {
				t.Errorf("properties %v, want %v", m.Properties, wantProps)
			}
			if m.Kind != tt.appType || m.User != "john" || m.AppName != "map-reduce-wf" {
				t.Errorf("kind, user, app = %q %q %q", m.Kind, m.User, m.AppName)
			}
		})
	}
}

func TestSLAMessage(t *testing.T) {
	tests := []struct {
		name      string
		rec       store.SLA
		ev        sla.Event
		want      string
		wantProps map[string]string
	}{{
		// DG_JMSNotifications' "Workflow Job in sla END_MISS state".
		name: "END_MISS of a coordinator action",
		rec: store.SLA{ID: "0000000-000000000000001-oozie-wrkf-C@1", ParentID: "0000000-000000000000001-oozie-wrkf-C",
			AppType: "COORDINATOR_ACTION", AppName: "test-coord", User: "john",
			ExpectedStart: ms(1356998400000), ActualStart: ms(1357002000000), ExpectedDurationMs: -1,
			ActualDurationMs: 3600, ExpectedEnd: ms(1356998400000), ActualEnd: ms(1357002000000),
			NotificationMsg: "notification of start miss", SLAStatus: "MISS"},
		ev: sla.Event{Status: "END_MISS", SLAStatus: "MISS"},
		want: `{"id":"0000000-000000000000001-oozie-wrkf-C@1","parentId":"0000000-000000000000001-oozie-wrkf-C",
			"expectedStartTime":1356998400000,"notificationMessage":"notification of start miss","actualStartTime":1357002000000,
			"expectedDuration":-1, "actualDuration":3600,"expectedEndTime":1356998400000,"actualEndTime":1357002000000}`,
		wantProps: map[string]string{"eventStatus": "END_MISS", "slaStatus": "MISS", "appType": "COORDINATOR_ACTION",
			"msgType": "SLA", "appName": "test-coord", "user": "john", "msgFormat": "json"},
	}, {
		name: "START_MET of a workflow action, still running",
		rec: store.SLA{ID: "0000001-000000000000001-oozie-wrkf-W@mr", ParentID: "0000001-000000000000001-oozie-wrkf-W",
			AppType: "WORKFLOW_ACTION", AppName: "mr", User: "ann", NominalTime: ms(1356998400000),
			ExpectedStart: ms(1356998400000), ActualStart: ms(1356998300000), ExpectedDurationMs: 600000,
			ActualDurationMs: -1, UpstreamApps: "ingest", SLAStatus: "IN_PROCESS"},
		ev: sla.Event{Status: "START_MET", SLAStatus: "IN_PROCESS"},
		want: `{"id":"0000001-000000000000001-oozie-wrkf-W@mr","parentId":"0000001-000000000000001-oozie-wrkf-W",
			"nominalTime":1356998400000,"expectedStartTime":1356998400000,"actualStartTime":1356998300000,
			"expectedDuration":600000,"actualDuration":-1,"upstreamApps":"ingest"}`,
		wantProps: map[string]string{"eventStatus": "START_MET", "slaStatus": "IN_PROCESS", "appType": "WORKFLOW_ACTION",
			"msgType": "SLA", "appName": "mr", "user": "ann", "msgFormat": "json"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := SLAMessage(&tt.rec, tt.ev)
			if got, want := jsonMap(t, m.Body), jsonMap(t, tt.want); !reflect.DeepEqual(got, want) {
				t.Errorf("body\n got %v\nwant %v", got, want)
			}
			if !maps.Equal(m.Properties, tt.wantProps) {
				t.Errorf("properties %v, want %v", m.Properties, tt.wantProps)
			}
			if m.Kind != "SLA" || m.User != tt.rec.User || m.AppName != tt.rec.AppName {
				t.Errorf("kind, user, app = %q %q %q", m.Kind, m.User, m.AppName)
			}
		})
	}
}

// The effect carries the message whole: what Perform decodes is what the
// engine built.
func TestNewEffect(t *testing.T) {
	now := ms(1366677140818)
	m, _ := JobMessage("WORKFLOW_JOB", "0000042-130618221729631-oozie-oozi-W", "", "wf", "john", "RUNNING", now, time.Time{}, "", "")
	ef := NewEffect("0000042-130618221729631-oozie-oozi-W", m, now)
	if ef.Kind != EffectPublish || ef.JobID != "0000042-130618221729631-oozie-oozi-W" || !ef.CreatedTime.Equal(now) {
		t.Fatalf("effect %+v", ef)
	}
	var back Message
	if err := json.Unmarshal([]byte(ef.Payload), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, m) {
		t.Errorf("payload decodes to %+v, want %+v", back, m)
	}
}
