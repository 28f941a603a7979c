package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
)

func TestJobJSON(t *testing.T) {
	at := time.Date(2009, 1, 1, 0, 0, 0, 0, time.FixedZone("PST", -8*3600))
	j := &store.Job{ID: "0000001-090101000000000-oozie-joe-W", AppName: "app", Status: store.JobRunning,
		User: "joe", CreatedTime: at}
	acts := []*store.Action{{ID: j.ID + "@:start:", Name: ":start:", Type: TypeStart, Status: store.ActionOK, Transition: "a"}}
	b, err := json.Marshal(NewJobJSON(j, acts, "http://h:11000/oozie"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{
		`"createdTime":"Thu, 01 Jan 2009 08:00:00 GMT"`, // dates in GMT
		`"endTime":null`, `"parentId":null`, `"run":0`,
		`"consoleUrl":"http://h:11000/oozie?job=` + j.ID + `"`,
		`"toString":"Workflow id[` + j.ID + `] status[RUNNING]"`,
		`"type":":START:"`, `"transition":"a"`, `"errorCode":null`,
		`"toString":"Action name[:start:] status[OK]"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("JSON lacks %s:\n%s", want, s)
		}
	}
	empty, _ := json.Marshal(NewJobJSON(j, nil, ""))
	if !strings.Contains(string(empty), `"actions":[]`) {
		t.Errorf("actions must be [] (the Java client NPEs on null): %s", empty)
	}
}

func TestFormatJobID(t *testing.T) {
	start := time.Date(2025, 1, 27, 9, 18, 57, 123e6, time.UTC)
	if got, want := formatJobID(1, start, "oozie-oozi", "W"), "0000001-250127091857123-oozie-oozi-W"; got != want {
		t.Fatalf("formatJobID = %q, want %q", got, want)
	}
	if got := formatJobID(12345678, start, "x", "W"); !strings.HasPrefix(got, "12345678-") {
		t.Fatalf("wide counter: %q", got)
	}
}
