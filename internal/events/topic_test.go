package events

import (
	"testing"
	"time"

	"github.com/gozie/gozie/internal/sla"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

func TestTopic(t *testing.T) {
	const wf, coord, ca = "0000001-200101000000000-gozie-W", "0000002-200101000000000-gozie-C", "0000002-200101000000000-gozie-C@3"
	start := ms(1342915200000)
	wfMsg, _ := JobMessage("WORKFLOW_JOB", wf, ca, "wf-app", "john", "RUNNING", start, time.Time{}, "", "")
	caMsg, _ := JobMessage("COORDINATOR_ACTION", ca, coord, "coord-app", "john", "RUNNING", start, time.Time{}, "", "")
	slaWfAction := SLAMessage(&store.SLA{ID: wf + "@mr", ParentID: wf, AppType: "WORKFLOW_ACTION", User: "john"},
		sla.Event{Status: "END_MISS", SLAStatus: "MISS"})
	slaWf := SLAMessage(&store.SLA{ID: wf, ParentID: ca, AppType: "WORKFLOW_JOB", User: "john"},
		sla.Event{Status: "END_MET", SLAStatus: "MET"})
	slaCA := SLAMessage(&store.SLA{ID: ca, ParentID: coord, AppType: "COORDINATOR_ACTION", User: "john"},
		sla.Event{Status: "START_MISS", SLAStatus: "IN_PROCESS"})
	const typed = "WORKFLOW=workflow,COORDINATOR=coordinator,default=${username}"
	tests := []struct {
		name, pattern, prefix string
		m                     Message
		want                  string
	}{
		{"unset: the user", "", "", wfMsg, "john"},
		{"default user, workflow", "default=${username}", "", wfMsg, "john"},
		{"default user, coordinator action", "default=${username}", "", caMsg, "john"},
		{"default user, sla", "default=${username}", "", slaCA, "john"},
		{"typed, workflow", typed, "", wfMsg, "workflow"},
		{"typed, coordinator action", typed, "", caMsg, "coordinator"},
		{"typed, sla of a workflow action", typed, "", slaWfAction, "workflow"},
		{"typed, sla of a workflow job", typed, "", slaWf, "workflow"},
		{"typed, sla of a coordinator action", typed, "", slaCA, "coordinator"},
		{"default job id, workflow: itself", "default=${jobId}", "", wfMsg, wf},
		{"default job id, coordinator action: its coordinator", "default=${jobId}", "", caMsg, coord},
		{"default job id, sla of a workflow action: its workflow", "default=${jobId}", "", slaWfAction, wf},
		{"default job id, sla of a workflow: itself", "default=${jobId}", "", slaWf, wf},
		{"default job id, sla of a coordinator action: its coordinator", "default=${jobId}", "", slaCA, coord},
		{"one type mapped, the other by default", "WORKFLOW=wf-events,default=${jobId}", "", caMsg, coord},
		{"a type mapped to a variable", "COORDINATOR=${jobId}", "", caMsg, coord},
		{"a type mapped to a variable, another type", "COORDINATOR=${jobId}", "", wfMsg, "john"},
		{"prefix", "default=${username}", "oozie.", wfMsg, "oozie.john"},
		{"prefix and constant", typed, "prod.", caMsg, "prod.coordinator"},
		{"spaces around", " WORKFLOW = wf , default = ${jobId} ", "", wfMsg, "wf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp, err := parseTopics(tt.pattern, tt.prefix)
			if err != nil {
				t.Fatal(err)
			}
			if got := tp.topic(tt.m); got != tt.want {
				t.Errorf("topic = %q, want %q", got, tt.want)
			}
		})
	}
}

// Malformed topic settings are refused as Oozie's JMSTopicService refuses
// them, with E0100.
func TestParseTopicsErrors(t *testing.T) {
	for _, pattern := range []string{
		"default=workflow",              // default must be a variable
		"default=${user}",               // not a known variable
		"ACTION=workflow",               // unknown job type
		"WORKFLOW=${user}",              // a $ that is no known variable
		"WORKFLOW",                      // no pair
		"WORKFLOW=a=b",                  // two =
		"WORKFLOW=wf,,default=${jobId}", // an empty pair
	} {
		t.Run(pattern, func(t *testing.T) {
			_, err := parseTopics(pattern, "")
			if vocab.CodeOf(err) != "E0100" {
				t.Errorf("error %v, want E0100", err)
			}
		})
	}
}
