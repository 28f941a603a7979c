package server

import (
	"context"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/sla"
	"github.com/gozie/gozie/internal/store"
)

// fakeSLAs is an SLA tracker of fixed records: SLAList returns them all
// (the store filters, not the faces) and records the filter; the
// commands are recorded as text.
type fakeSLAs struct {
	mu     sync.Mutex
	recs   []*store.SLA
	filter store.SLAFilter
	calls  []string
}

func (f *fakeSLAs) SLAList(ctx context.Context, flt store.SLAFilter) ([]*store.SLA, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.filter = flt
	var out []*store.SLA
	for _, r := range f.recs {
		// Enough of the store's filter for the page tests: ids and
		// parents.
		if (len(flt.IDs) > 0 && !contains(flt.IDs, r.ID)) || (len(flt.ParentIDs) > 0 && !contains(flt.ParentIDs, r.ParentID)) {
			continue
		}
		cp := *r
		out = append(out, &cp)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (f *fakeSLAs) SLAEnable(ctx context.Context, jobID string, scope sla.Scope, enable bool) error {
	f.record("enable=%v %s %+v", enable, jobID, scope)
	return nil
}

func (f *fakeSLAs) SLAChange(ctx context.Context, jobID string, scope sla.Scope, value string) error {
	f.record("change %s %+v %s", jobID, scope, value)
	return nil
}

func (f *fakeSLAs) record(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fakeSLAs) last() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return ""
	}
	return f.calls[len(f.calls)-1]
}

// slaNow is the fake clock of the SLA tests.
var slaNow = time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC)

// slaRecords are a coordinator action that missed its end (decided), and
// a running workflow late to end (pending, no expected start).
func slaRecords() []*store.SLA {
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return []*store.SLA{
		{ID: coordOne + "@1", AppType: "COORDINATOR_ACTION", AppName: "daily", User: "joe", ParentID: coordOne,
			NominalTime: day, ExpectedStart: day.Add(10 * time.Minute), ExpectedEnd: day.Add(time.Hour), ExpectedDurationMs: 30 * 60000,
			JobStatus: "SUCCEEDED", ActualStart: day.Add(15 * time.Minute), ActualEnd: day.Add(75 * time.Minute), ActualDurationMs: 60 * 60000,
			SLAStatus: "MISS", EventStatus: "END_MISS", LastModTime: day.Add(76 * time.Minute)},
		{ID: "0000007-260101000000000-oozie-test-W", AppType: "WORKFLOW_JOB", AppName: "wf", User: "ann",
			NominalTime: day.Add(time.Hour), ExpectedEnd: day.Add(90 * time.Minute), ExpectedDurationMs: -1,
			JobStatus: "RUNNING", ActualStart: day.Add(61 * time.Minute), ActualDurationMs: -1, Disabled: true,
			SLAStatus: "IN_PROCESS", LastModTime: day.Add(61 * time.Minute)},
	}
}

// withSLAs rebuilds e's server with an SLA tracker and the fake clock.
func withSLAs(e *env, f SLAs) {
	e.srv.opts.SLAs = f
	e.srv.opts.Now = func() time.Time { return slaNow }
	e.srv.mux = e.srv.routes()
}

// TestSLAList: GET /v2/sla answers Oozie's summary JSON (rest-api.md
// 5.7): epoch milliseconds without a timezone parameter, date strings in
// the zone with one, parentId and the delays only when they exist, no
// expectedEnd key when none is expected.
func TestSLAList(t *testing.T) {
	e, _ := newBundleEnv(t)
	fs := &fakeSLAs{recs: slaRecords()}
	withSLAs(e, fs)
	r := e.do("GET", "/oozie/v2/sla?filter=app_name%3Dd%25", "", "")
	want := `{"slaSummaryList":[` +
		`{"id":"` + coordOne + `@1","parentId":"` + coordOne + `","appName":"daily","appType":"COORDINATOR_ACTION","user":"joe",` +
		`"nominalTime":1767225600000,"expectedStart":1767226200000,"actualStart":1767226500000,"startDelay":5,` +
		`"expectedEnd":1767229200000,"actualEnd":1767230100000,"endDelay":15,"expectedDuration":1800000,"actualDuration":3600000,` +
		`"durationDelay":30,"jobStatus":"SUCCEEDED","slaStatus":"MISS","eventStatus":"START_MISS,DURATION_MISS,END_MISS",` +
		`"lastModified":1767230160000,"slaAlertStatus":"Enabled"},` +
		`{"id":"0000007-260101000000000-oozie-test-W","appName":"wf","appType":"WORKFLOW_JOB","user":"ann",` +
		`"nominalTime":1767229200000,"expectedStart":null,"actualStart":1767229260000,"expectedEnd":1767231000000,"actualEnd":null,` +
		`"endDelay":30,"expectedDuration":-1,"actualDuration":-1,"jobStatus":"RUNNING","slaStatus":"IN_PROCESS","eventStatus":"END_MISS",` +
		`"lastModified":1767229260000,"slaAlertStatus":"Disabled"}]}`
	if r.status != 200 || strings.TrimSpace(string(r.body)) != want {
		t.Fatalf("%d\n got %s\nwant %s", r.status, r.body, want)
	}
	r = e.do("GET", "/oozie/v2/sla?filter=app_name%3Dx&timezone=America/Los_Angeles", "", "")
	for _, s := range []string{`"nominalTime":"Wed, 31 Dec 2025 16:00:00 PST"`, `"expectedStart":null`, `"lastModified":"Wed, 31 Dec 2025 17:16:00 PST"`} {
		if !strings.Contains(string(r.body), s) {
			t.Errorf("timezone answer lacks %s:\n%s", s, r.body)
		}
	}
	r = e.do("GET", "/oozie/v2/sla?filter=app_name%3Dx&timezone=GMT", "", "")
	if !strings.Contains(string(r.body), `"nominalTime":"Thu, 01 Jan 2026 00:00:00 GMT"`) {
		t.Errorf("timezone=GMT answers numbers:\n%s", r.body)
	}
	// A running job with an expected duration shows what it took so far.
	fs.recs = []*store.SLA{{ID: "W1", AppType: "WORKFLOW_JOB", ExpectedDurationMs: 30 * 60000, ActualStart: slaNow.Add(-45 * time.Minute),
		ActualDurationMs: -1, NominalTime: slaNow, LastModTime: slaNow}}
	r = e.do("GET", "/oozie/v2/sla?filter=id%3DW1", "", "")
	for _, s := range []string{`"actualDuration":2700000`, `"durationDelay":15`, `"eventStatus":"DURATION_MISS"`} {
		if !strings.Contains(string(r.body), s) {
			t.Errorf("running answer lacks %s:\n%s", s, r.body)
		}
	}
}

// TestSLAFilter: every filter key of DG_SLAMonitoring reaches the store
// filter, and Oozie's codes refuse what is wrong (rest-api.md 7.7).
func TestSLAFilter(t *testing.T) {
	e, _ := newBundleEnv(t)
	fs := &fakeSLAs{}
	withSLAs(e, fs)
	at := func(s string) time.Time { v, _ := time.Parse("2006-01-02T15:04Z", s); return v }
	base := func() store.SLAFilter {
		return store.SLAFilter{Limit: 1000, ActualDurationMin: -1, ActualDurationMax: -1, ExpectedDurationMin: -1,
			ExpectedDurationMax: -1, SortBy: "nominalTimeTS"}
	}
	for _, tc := range []struct {
		name, query string
		status      int
		code        string
		want        func(f *store.SLAFilter)
	}{
		{name: "doc scenario 1", query: "filter=" + url.QueryEscape("nominal_after=2013-06-18T00:01Z;nominal_before=2013-06-23T00:01Z;app_name=my-sla-app"),
			status: 200, want: func(f *store.SLAFilter) {
				f.NominalAfter, f.NominalBefore, f.AppNames = at("2013-06-18T00:01Z"), at("2013-06-23T00:01Z"), []string{"my-sla-app"}
			}},
		{name: "compat names", query: "filter=" + url.QueryEscape("nominal_start=2013-06-18T00:01Z;nominal_end=2013-06-23T00:01Z"),
			status: 200, want: func(f *store.SLAFilter) {
				f.NominalAfter, f.NominalBefore = at("2013-06-18T00:01Z"), at("2013-06-23T00:01Z")
			}},
		{name: "ids and lists", query: "filter=" + url.QueryEscape("id=A;parent_id=B;event_status=START_MET,END_MISS;sla_status=MISS;job_status=SUCC%;app_type=WORKFLOW_JOB;user_name=j_e"),
			status: 200, want: func(f *store.SLAFilter) {
				f.IDs, f.ParentIDs, f.EventStatuses, f.SLAStatuses = []string{"A"}, []string{"B"}, []string{"START_MET", "END_MISS"}, []string{"MISS"}
				f.JobStatuses, f.AppTypes, f.Users = []string{"SUCC%"}, []string{"WORKFLOW_JOB"}, []string{"j_e"}
			}},
		{name: "every range", query: "filter=" + url.QueryEscape("created_after=2026-01-01T00:00Z;created_before=2026-01-02T00:00Z;"+
			"expectedstart_after=2026-01-01T01:00Z;expectedstart_before=2026-01-01T02:00Z;expectedend_after=2026-01-01T03:00Z;expectedend_before=2026-01-01T04:00Z;"+
			"actualstart_after=2026-01-01T05:00Z;actualstart_before=2026-01-01T06:00Z;actualend_after=2026-01-01T07:00Z;actualend_before=2026-01-01T08:00Z;"+
			"actual_duration_min=1000;actual_duration_max=2000;expected_duration_min=3000;expected_duration_max=4000"),
			status: 200, want: func(f *store.SLAFilter) {
				f.CreatedAfter, f.CreatedBefore = at("2026-01-01T00:00Z"), at("2026-01-02T00:00Z")
				f.ExpectedStartAfter, f.ExpectedStartBefore = at("2026-01-01T01:00Z"), at("2026-01-01T02:00Z")
				f.ExpectedEndAfter, f.ExpectedEndBefore = at("2026-01-01T03:00Z"), at("2026-01-01T04:00Z")
				f.ActualStartAfter, f.ActualStartBefore = at("2026-01-01T05:00Z"), at("2026-01-01T06:00Z")
				f.ActualEndAfter, f.ActualEndBefore = at("2026-01-01T07:00Z"), at("2026-01-01T08:00Z")
				f.ActualDurationMin, f.ActualDurationMax, f.ExpectedDurationMin, f.ExpectedDurationMax = 1000, 2000, 3000, 4000
			}},
		{name: "bundle id", query: "filter=bundle%3D" + bundleB, status: 200, want: func(f *store.SLAFilter) { f.BundleIDs = []string{bundleB} }},
		{name: "bundle name", query: "filter=bundle%3Ddaily-bundle", status: 200, want: func(f *store.SLAFilter) { f.BundleIDs = []string{bundleA} }},
		{name: "paging and order", query: "filter=id%3DA&len=10&offset=3&sortby=expectedEndTS&order=desc", status: 200,
			want: func(f *store.SLAFilter) {
				f.IDs, f.Limit, f.Offset, f.SortBy, f.Desc = []string{"A"}, 10, 2, "expectedEndTS", true
			}},
		{name: "no filter", query: "len=3", status: 400, code: "E0305"},
		{name: "unknown name", query: "filter=color%3Dred", status: 400, code: "E0401"},
		{name: "upper-case name", query: "filter=APP_NAME%3Dx", status: 400, code: "E0401"},
		{name: "no pair", query: "filter=app_name", status: 400, code: "E0401"},
		{name: "bad date", query: "filter=nominal_after%3D2013-06-18", status: 400, code: "E0303"},
		{name: "bad status", query: "filter=sla_status%3DLATE", status: 400, code: "E0303"},
		{name: "bad event", query: "filter=event_status%3DSTART_MET,LATE", status: 400, code: "E0303"},
		{name: "bad duration", query: "filter=actual_duration_min%3Dten", status: 400, code: "E0303"},
		{name: "after after before", query: "filter=" + url.QueryEscape("created_after=2026-01-02T00:00Z;created_before=2026-01-01T00:00Z"), status: 400, code: "E0303"},
		{name: "bad order", query: "filter=id%3DA&order=up", status: 400, code: "E0303"},
		{name: "bad sortby", query: "filter=id%3DA&sortby=color", status: 400, code: "E0303"},
		{name: "bad len", query: "filter=id%3DA&len=x", status: 400, code: "E0303"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs.filter = store.SLAFilter{}
			r := e.do("GET", "/oozie/v2/sla?"+tc.query, "", "")
			if r.status != tc.status || r.header.Get("oozie-error-code") != tc.code {
				t.Fatalf("%d %s %s, want %d %s", r.status, r.header.Get("oozie-error-code"), r.body, tc.status, tc.code)
			}
			if tc.want == nil {
				return
			}
			want := base()
			tc.want(&want)
			if !reflect.DeepEqual(fs.filter, want) {
				t.Errorf("filter\n got %+v\nwant %+v", fs.filter, want)
			}
		})
	}
}

// TestSLACommands: PUT job/<id>?action=sla-enable|sla-disable|sla-change
// (rest-api.md 4.2): v2 only, the scope parameters reach the tracker,
// sla-change keys are checked (E1027), strangers are refused as for any
// job command.
func TestSLACommands(t *testing.T) {
	e, _ := newBundleEnv(t)
	fs := &fakeSLAs{}
	withSLAs(e, fs)
	const xml = "application/xml;charset=UTF-8"
	for _, tc := range []struct {
		name, id, query string
		status          int
		code            string
		call            string
	}{
		{name: "enable coordinator actions", id: coordOne, query: "action=sla-enable&action-list=1,3-4&user.name=joe", status: 200,
			call: "enable=true " + coordOne + " {Actions:1,3-4 Dates: Coordinators:}"},
		{name: "disable by dates", id: coordOne, query: "action=sla-disable&date=2026-01-01T00:00Z::2026-01-02T00:00Z&user.name=joe", status: 200,
			call: "enable=false " + coordOne + " {Actions: Dates:2026-01-01T00:00Z::2026-01-02T00:00Z Coordinators:}"},
		{name: "bundle coordinators", id: bundleA, query: "action=sla-enable&coordinators=daily&user.name=joe", status: 200,
			call: "enable=true " + bundleA + " {Actions: Dates: Coordinators:daily}"},
		{name: "change", id: coordOne, query: "action=sla-change&action-list=2&value=" + url.QueryEscape("sla-should-end=30;sla-max-duration=20") + "&user.name=joe", status: 200,
			call: "change " + coordOne + " {Actions:2 Dates: Coordinators:} sla-should-end=30;sla-max-duration=20"},
		{name: "change without sla- prefix", id: coordOne, query: "action=sla-change&value=should-end%3D30&user.name=joe", status: 400, code: "E1027"},
		{name: "change without value", id: coordOne, query: "action=sla-change&user.name=joe", status: 400, code: "E1027"},
		{name: "stranger", id: coordOne, query: "action=sla-enable&user.name=bob", status: 401, code: "E0509"},
		{name: "bundle stranger", id: bundleA, query: "action=sla-disable&user.name=bob", status: 401, code: "E0509"},
		{name: "action id", id: coordOne + "@1", query: "action=sla-enable&user.name=joe", status: 400, code: "E0303"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := fs.last()
			r := e.do("PUT", "/oozie/v2/job/"+tc.id+"?"+tc.query, xml, "")
			if r.status != tc.status || r.header.Get("oozie-error-code") != tc.code {
				t.Fatalf("%d %s %s, want %d %s", r.status, r.header.Get("oozie-error-code"), r.body, tc.status, tc.code)
			}
			if got := fs.last(); tc.call != "" && got != tc.call {
				t.Errorf("tracker call %q, want %q", got, tc.call)
			} else if tc.call == "" && got != before {
				t.Errorf("a refused command reached the tracker: %q", got)
			}
		})
	}
	if r := e.do("PUT", "/oozie/v1/job/"+coordOne+"?action=sla-enable&user.name=joe", xml, ""); r.status != 400 || r.header.Get("oozie-error-code") != "E0302" {
		t.Errorf("v1 sla-enable: %d %v %s", r.status, r.header, r.body)
	}
}

// TestNoSLATracker: a server without one refuses the SLA calls as before
// issue 28 (GET 404, the commands E1027).
func TestNoSLATracker(t *testing.T) {
	e := newEnv(t)
	if r := e.do("GET", "/oozie/v2/sla?filter=id%3DA", "", ""); r.status != 404 {
		t.Errorf("GET sla without tracker: %d %s", r.status, r.body)
	}
	r := e.do("PUT", "/oozie/v2/job/0000001-260101000000000-oozie-test-W?action=sla-enable&user.name=joe", "application/xml", "")
	if r.status != 400 || r.header.Get("oozie-error-code") != "E1027" {
		t.Errorf("sla-enable without tracker: %d %v %s", r.status, r.header, r.body)
	}
}

// TestConsoleSLA: the console's SLA tab lists the records with links to
// their jobs and filters, and the coordinator page shows its actions'
// SLA.
func TestConsoleSLA(t *testing.T) {
	e, _ := newBundleEnv(t)
	withSLAs(e, &fakeSLAs{recs: slaRecords()})
	r := e.do("GET", "/oozie/console/sla?app_name=d%25&sla_status=MISS", "", "", "Accept", "text/html")
	body := string(r.body)
	for _, s := range []string{`id="sla-list"`, `href="/oozie/console/job/` + coordOne + `@1"`, `>COORDINATOR_ACTION<`, `>MISS<`,
		`START_MISS,DURATION_MISS,END_MISS`, `<option selected>MISS</option>`, `value="d%"`, `>Disabled<`, `30m 00s / 1h 00m`} {
		if !strings.Contains(body, s) {
			t.Errorf("SLA page lacks %s", s)
		}
	}
	r = e.do("GET", "/oozie/console/job/"+coordOne, "", "", "Accept", "text/html")
	if body := string(r.body); !strings.Contains(body, `id="job-sla"`) || !strings.Contains(body, coordOne+`@1`) {
		t.Errorf("coordinator page without its SLA (%d):\n%s", r.status, body)
	}
	r = e.do("GET", "/oozie/console/job/"+coordTwo, "", "", "Accept", "text/html")
	if strings.Contains(string(r.body), `id="job-sla"`) {
		t.Errorf("coordinator page of a job without SLA shows an SLA section")
	}
}
