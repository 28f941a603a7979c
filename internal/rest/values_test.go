package rest

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// TestStrBytes: a set Str is written byte for byte as a plain string
// field, by json.Marshal and by an Encoder that does not escape HTML.
func TestStrBytes(t *testing.T) {
	for _, s := range []string{"plain", `<a href="x">&</a>`, "tab\tnl\nbs\\ \b\f\r\x01\x7f", "\u2028\u2029é\xff", "日本"} {
		type plain struct{ A string }
		type bean struct{ A Str }
		want, _ := json.Marshal(plain{s})
		got, _ := json.Marshal(bean{Str(s)})
		if !bytes.Equal(got, want) {
			t.Errorf("Marshal %q: %s, want %s", s, got, want)
		}
		var w1, w2 bytes.Buffer
		for _, c := range []struct {
			buf *bytes.Buffer
			v   any
		}{{&w1, plain{s}}, {&w2, bean{Str(s)}}} {
			enc := json.NewEncoder(c.buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(c.v)
		}
		if w1.String() != w2.String() {
			t.Errorf("Encoder %q: %s, want %s", s, w2.String(), w1.String())
		}
	}
	if b, _ := json.Marshal(struct{ A Str }{}); string(b) != `{"A":null}` {
		t.Errorf("empty Str: %s", b)
	}
}

// TestTimeForms: GMT by default, the zone's short name after In (the
// timezone parameter), null when zero; decoding reads only GMT.
func TestTimeForms(t *testing.T) {
	at := Date(time.Date(2009, 1, 1, 0, 0, 0, 0, time.FixedZone("X", 3600)))
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	for _, c := range []struct {
		v    Time
		want string
	}{
		{at, `"Wed, 31 Dec 2008 23:00:00 GMT"`},
		{at.In(la), `"Wed, 31 Dec 2008 15:00:00 PST"`},
		{at.In(nil), `"Wed, 31 Dec 2008 23:00:00 GMT"`},
		{Date(time.Time{}), `null`},
	} {
		if b, _ := json.Marshal(c.v); string(b) != c.want {
			t.Errorf("%v: %s, want %s", c.v.Time, b, c.want)
		}
	}
	var back struct{ A, B, C Time }
	if err := json.Unmarshal([]byte(`{"A":"Wed, 31 Dec 2008 23:00:00 GMT","B":"Wed, 31 Dec 2008 15:00:00 PST","C":7}`), &back); err != nil {
		t.Fatal(err)
	}
	if !back.A.Equal(at.Time) || !back.B.IsZero() || !back.C.IsZero() {
		t.Errorf("decoded %v %v %v", back.A, back.B, back.C)
	}
}

// TestTextDecodes: the frequency may come as a number.
func TestTextDecodes(t *testing.T) {
	var v struct{ A, B, C Text }
	if err := json.Unmarshal([]byte(`{"A":"60","B":60,"C":null}`), &v); err != nil || v.A != "60" || v.B != "60" || v.C != "" {
		t.Errorf("%+v %v", v, err)
	}
}

// TestErrorBodyBytes: the error body is written as the map it replaced
// was (keys sorted, errorCode only when there is one).
func TestErrorBodyBytes(t *testing.T) {
	for _, c := range []struct {
		v   ErrorBody
		old map[string]any
	}{
		{ErrorBody{HTTPStatusCode: 400, ErrorMessage: "E0303: <x>", ErrorCode: "E0303"},
			map[string]any{"httpStatusCode": 400, "errorMessage": "E0303: <x>", "errorCode": "E0303"}},
		{ErrorBody{HTTPStatusCode: 401, ErrorMessage: "no"}, map[string]any{"httpStatusCode": 401, "errorMessage": "no"}},
	} {
		got, _ := json.Marshal(c.v)
		want, _ := json.Marshal(c.old)
		if !bytes.Equal(got, want) {
			t.Errorf("%s, want %s", got, want)
		}
	}
}

// TestAdminBeanBytes: the admin beans are written as the maps they
// replaced were.
func TestAdminBeanBytes(t *testing.T) {
	for _, c := range []struct{ v, old any }{
		{SystemStatus{SystemMode: "NORMAL"}, map[string]string{"systemMode": "NORMAL"}},
		{SafeModeStatus{SafeMode: true}, map[string]bool{"safeMode": true}},
		{Timezones{Zones: []Timezone{{DisplayName: "UTC (UTC)", ID: "UTC"}}},
			map[string]any{"available-timezones": []map[string]string{{"timezoneDisplayName": "UTC (UTC)", "timezoneId": "UTC"}}}},
		{Timezones{Zones: []Timezone{}}, map[string]any{"available-timezones": []map[string]string{}}},
		{QueueDump{Queue: []QueueEntry{}, UniqueMap: []UniqueEntry{}}, map[string]any{"queueDump": []any{}, "uniqueMapDump": []any{}}},
		{ShareLibs{ShareLib: []ShareLib{}}, map[string]any{"sharelib": []any{}}},
	} {
		got, _ := json.Marshal(c.v)
		want, _ := json.Marshal(c.old)
		if !bytes.Equal(got, want) {
			t.Errorf("%s, want %s", got, want)
		}
	}
}

// TestJobListBytes: the jobs list is written as the map it replaced was
// (keys sorted, only the list asked for, [] when empty).
func TestJobListBytes(t *testing.T) {
	wf := []*WorkflowJob{{ID: "W1", Status: "RUNNING", Actions: []*WorkflowAction{}, ToString: "<x>"}}
	for _, c := range []struct {
		v   JobList
		old map[string]any
	}{
		{JobList{Workflows: wf, Total: 1, Offset: 1, Len: 50}, map[string]any{"workflows": wf, "total": 1, "offset": 1, "len": 50}},
		{JobList{Workflows: []*WorkflowJob{}, Offset: 1, Len: 50, IDs: []string{}},
			map[string]any{"workflows": []*WorkflowJob{}, "total": 0, "offset": 1, "len": 50, "ids": []string{}}},
		{JobList{CoordinatorJobs: []*CoordJob{}, Total: 0, Offset: 3, Len: 2},
			map[string]any{"coordinatorjobs": []*CoordJob{}, "total": 0, "offset": 3, "len": 2}},
		{JobList{BundleJobs: []*BundleJob{}, Offset: 1, Len: 50}, map[string]any{"bundlejobs": []any{}, "total": 0, "offset": 1, "len": 50}},
	} {
		got, err := json.Marshal(c.v)
		want, _ := json.Marshal(c.old)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s (%v), want %s", got, err, want)
		}
		var back JobList
		if err := json.Unmarshal(got, &back); err != nil || back.Len != c.v.Len || len(back.Workflows) != len(c.v.Workflows) {
			t.Errorf("round trip of %s: %+v %v", got, back, err)
		}
	}
}

// A bundle asked for in another zone shows its own dates and those of its
// coordinators there; nil keeps GMT (rest-api.md 0.6: timezone applies to
// show=info of every id kind).
func TestBundleJobIn(t *testing.T) {
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Skip(err)
	}
	at := Date(time.Date(2009, 1, 1, 0, 0, 0, 0, time.UTC))
	for _, tc := range []struct {
		loc  *time.Location
		want string
	}{
		{nil, "Thu, 01 Jan 2009 00:00:00 GMT"},
		{la, "Wed, 31 Dec 2008 16:00:00 PST"},
	} {
		b := &BundleJob{KickoffTime: at, StartTime: at, EndTime: at, PauseTime: at, CreatedTime: at,
			BundleCoordJobs: []*CoordJob{{StartTime: at, NextMaterializedTime: at}}}
		b.In(tc.loc)
		for name, got := range map[string]Time{"kickoff": b.KickoffTime, "start": b.StartTime, "end": b.EndTime,
			"pause": b.PauseTime, "created": b.CreatedTime, "coord start": b.BundleCoordJobs[0].StartTime,
			"coord next": b.BundleCoordJobs[0].NextMaterializedTime} {
			if got.String() != tc.want {
				t.Errorf("%v: %s = %q, want %q", tc.loc, name, got, tc.want)
			}
		}
		empty := &BundleJob{}
		empty.In(tc.loc)
		if !empty.KickoffTime.IsZero() {
			t.Errorf("%v: a null kickoff became %v", tc.loc, empty.KickoffTime)
		}
	}
}
