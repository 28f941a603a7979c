package storetest

// The SLA part of the suite (each case on a store of its own, see Run):
// records round trip every field, the listing filters (LIKE patterns
// included), sorts by each of Oozie's sortby names and pages, and the
// calculator's scan finds the records past their next check or whose job
// or action changed status, never the decided ones.

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// sampleSLA is a record with every field set, tracking id.
func sampleSLA(id, appType string) *store.SLA {
	return &store.SLA{
		ID: id, AppType: appType, AppName: "daily-etl", User: "joe", ParentID: "0000001-260102030405123-oozie-joe-C",
		BundleID:    "0000002-260102030405123-oozie-joe-B",
		NominalTime: at(0), ExpectedStart: at(60), ExpectedEnd: at(600), ExpectedDurationMs: 300000,
		AlertEvents: "start_miss,end_miss", AlertContact: "joe@example.com", UpstreamApps: "up1,up2",
		NotificationMsg: "late again", Disabled: true,
		JobStatus: "RUNNING", ActualStart: at(70), ActualEnd: at(500), ActualDurationMs: 430000,
		SLAStatus: "MET", EventStatus: "END_MET", EventProcessed: 5, NextCheck: at(900),
		CreatedTime: at(1), LastModTime: at(2),
	}
}

func putSLAs(t *testing.T, s store.Store, slas ...*store.SLA) {
	t.Helper()
	mustUpdate(t, s, func(tx store.Tx) error {
		for _, r := range slas {
			if err := tx.PutSLA(ctx, r); err != nil {
				return err
			}
		}
		return nil
	})
}

func getSLA(t *testing.T, s store.Store, id string) (*store.SLA, error) {
	t.Helper()
	var r *store.SLA
	err := s.View(ctx, func(tx store.Tx) (err error) { r, err = tx.SLA(ctx, id); return err })
	return r, err
}

func testSLARoundTrip(t *testing.T, s store.Store) {
	r := sampleSLA("0000003-260102030405123-oozie-joe-W@etl", "WORKFLOW_ACTION")
	putSLAs(t, s, r)
	got, err := getSLA(t, s, r.ID)
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("round trip: %v\n got %+v\nwant %+v", err, got, r)
	}
	// A replace writes every field: zero times read back as zero, false
	// as false, -1 as -1.
	*r = store.SLA{ID: r.ID, AppType: "WORKFLOW_ACTION", ExpectedDurationMs: -1, ActualDurationMs: -1}
	putSLAs(t, s, r)
	if got, err = getSLA(t, s, r.ID); err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("after replace: %v\n got %+v\nwant %+v", err, got, r)
	}
	var all []*store.SLA
	if err := s.View(ctx, func(tx store.Tx) (err error) { all, err = tx.SLAs(ctx, store.SLAFilter{}); return err }); err != nil || len(all) != 1 {
		t.Fatalf("SLAs after a replace = %d records, %v; want 1", len(all), err)
	}
	if _, err := getSLA(t, s, "nope-W"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing record: %v, want ErrNotFound", err)
	}
	err = s.Update(ctx, func(tx store.Tx) error { return tx.PutSLA(ctx, &store.SLA{}) })
	if err == nil {
		t.Fatal("PutSLA without an id succeeded")
	}
}

// filterSLAs are the records testSLAFilter and testSLASort select from:
// ids s0..s5, each field varied so that every filter splits them.
func filterSLAs() []*store.SLA {
	var out []*store.SLA
	rows := []struct {
		appType, name, user, parent, bundle, jobStatus, event, sla string
	}{
		{"WORKFLOW_JOB", "etl_daily", "joe", "p1-C", "b1-B", "RUNNING", "START_MET", "IN_PROCESS"},
		{"WORKFLOW_ACTION", "etlXdaily", "joe", "p1-C", "", "SUCCEEDED", "END_MET", "MET"},
		{"COORDINATOR_ACTION", "ETL_daily", "ann", "p2-C", "b1-B", "KILLED", "END_MISS", "MISS"},
		{"COORDINATOR_ACTION", "report%", "ann", "p2-C", "b2-B", "WAITING", "", "NOT_STARTED"},
		{"WORKFLOW_JOB", `back\slash`, "bob", "", "", "RUNNING", "START_MISS", "MISS"},
		{"WORKFLOW_ACTION", "report", "joe_x", "p3-W", "", "OK", "DURATION_MET", "MET"},
	}
	for i, r := range rows {
		s := &store.SLA{
			ID: fmt.Sprintf("s%d", i), AppType: r.appType, AppName: r.name, User: r.user, ParentID: r.parent,
			BundleID: r.bundle, JobStatus: r.jobStatus, EventStatus: r.event, SLAStatus: r.sla,
			// Nominal times descend with i, so that the default order
			// differs from the ids'.
			NominalTime: at(1000 - 100*i), CreatedTime: at(10 * i),
			ExpectedDurationMs: int64(1000 * i), ActualDurationMs: int64(1500*i - 1000), EventProcessed: i % 3,
			LastModTime: at(5000 - i),
		}
		if i == 0 {
			s.ActualDurationMs = -1 // not known yet
		}
		// Some times unset, to sort and filter as NULL.
		if i%2 == 0 {
			s.ExpectedStart, s.ExpectedEnd, s.ActualStart, s.ActualEnd = at(100*i), at(100*i+50), at(100*i+5), at(100*i+70)
		}
		out = append(out, s)
	}
	return out
}

func listSLAs(t *testing.T, s store.Store, f store.SLAFilter) ([]string, error) {
	t.Helper()
	var got []*store.SLA
	var n int
	err := s.View(ctx, func(tx store.Tx) (err error) {
		if got, err = tx.SLAs(ctx, f); err != nil {
			return err
		}
		n, err = tx.CountSLAs(ctx, f)
		return err
	})
	if err == nil && f.Limit == 0 && f.Offset == 0 && n != len(got) {
		t.Errorf("CountSLAs(%+v) = %d, SLAs listed %d", f, n, len(got))
	}
	ids := []string{}
	for _, r := range got {
		ids = append(ids, r.ID)
	}
	return ids, err
}

func testSLAFilter(t *testing.T, s store.Store) {
	putSLAs(t, s, filterSLAs()...)
	// Without SortBy, records come by nominal time: s5 (earliest) .. s0.
	cases := []struct {
		name string
		f    store.SLAFilter
		want []string
	}{
		{"all", store.SLAFilter{}, []string{"s5", "s4", "s3", "s2", "s1", "s0"}},
		{"ids", store.SLAFilter{IDs: []string{"s1", "s3", "nope"}}, []string{"s3", "s1"}},
		{"parents", store.SLAFilter{ParentIDs: []string{"p2-C", "p3-W"}}, []string{"s5", "s3", "s2"}},
		{"bundles", store.SLAFilter{BundleIDs: []string{"b1-B"}}, []string{"s2", "s0"}},
		{"event statuses", store.SLAFilter{EventStatuses: []string{"END_MET", "END_MISS"}}, []string{"s2", "s1"}},
		{"sla statuses", store.SLAFilter{SLAStatuses: []string{"MISS"}}, []string{"s4", "s2"}},
		// LIKE: a literal value matches itself (and LIKE is case-sensitive
		// in both stores), _ one character, % any run.
		{"name literal", store.SLAFilter{AppNames: []string{"report"}}, []string{"s5"}},
		{"name underscore", store.SLAFilter{AppNames: []string{"etl_daily"}}, []string{"s1", "s0"}},
		{"name percent", store.SLAFilter{AppNames: []string{"report%"}}, []string{"s5", "s3"}},
		{"name backslash", store.SLAFilter{AppNames: []string{`back\slash`}}, []string{"s4"}},
		{"names ORed", store.SLAFilter{AppNames: []string{"ETL%", "back%"}}, []string{"s4", "s2"}},
		{"types", store.SLAFilter{AppTypes: []string{"COORD%"}}, []string{"s3", "s2"}},
		{"users", store.SLAFilter{Users: []string{"jo_", "b%"}}, []string{"s4", "s1", "s0"}},
		{"job statuses", store.SLAFilter{JobStatuses: []string{"RUN%", "OK"}}, []string{"s5", "s4", "s0"}},
		{"fields ANDed", store.SLAFilter{Users: []string{"joe"}, AppTypes: []string{"WORKFLOW_ACTION"}}, []string{"s1"}},
		{"nominal range", store.SLAFilter{NominalAfter: at(700), NominalBefore: at(900)}, []string{"s3", "s2", "s1"}},
		{"created range", store.SLAFilter{CreatedAfter: at(20), CreatedBefore: at(30)}, []string{"s3", "s2"}},
		{"expected start", store.SLAFilter{ExpectedStartAfter: at(100)}, []string{"s4", "s2"}},
		{"expected start before", store.SLAFilter{ExpectedStartBefore: at(200)}, []string{"s2", "s0"}},
		{"expected end", store.SLAFilter{ExpectedEndAfter: at(250), ExpectedEndBefore: at(450)}, []string{"s4", "s2"}},
		{"actual start", store.SLAFilter{ActualStartAfter: at(5), ActualStartBefore: at(205)}, []string{"s2", "s0"}},
		{"actual end", store.SLAFilter{ActualEndBefore: at(70)}, []string{"s0"}},
		{"actual duration", store.SLAFilter{ActualDurationMin: 500, ActualDurationMax: 3500}, []string{"s3", "s2", "s1"}},
		{"actual duration unknown excluded", store.SLAFilter{ActualDurationMin: -1, ActualDurationMax: 600}, []string{"s1"}},
		{"expected duration", store.SLAFilter{ExpectedDurationMin: 4000, ExpectedDurationMax: -1}, []string{"s5", "s4"}},
		{"limit", store.SLAFilter{Limit: 2}, []string{"s5", "s4"}},
		{"offset", store.SLAFilter{Offset: 4}, []string{"s1", "s0"}},
		{"page", store.SLAFilter{Offset: 1, Limit: 2}, []string{"s4", "s3"}},
	}
	for _, c := range cases {
		got, err := listSLAs(t, s, c.f)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

// slaKeys extracts the value each sortby name orders by; nil is an unset
// time, which sorts first ascending and last descending.
var slaKeys = map[string]func(r *store.SLA) any{
	"actualDuration":   func(r *store.SLA) any { return r.ActualDurationMs },
	"actualEndTS":      func(r *store.SLA) any { return msOrNil(r.ActualEnd) },
	"actualStartTS":    func(r *store.SLA) any { return msOrNil(r.ActualStart) },
	"appName":          func(r *store.SLA) any { return r.AppName },
	"appType":          func(r *store.SLA) any { return r.AppType },
	"createdTimeTS":    func(r *store.SLA) any { return msOrNil(r.CreatedTime) },
	"eventProcessed":   func(r *store.SLA) any { return int64(r.EventProcessed) },
	"eventStatus":      func(r *store.SLA) any { return r.EventStatus },
	"expectedDuration": func(r *store.SLA) any { return r.ExpectedDurationMs },
	"expectedEndTS":    func(r *store.SLA) any { return msOrNil(r.ExpectedEnd) },
	"expectedStartTS":  func(r *store.SLA) any { return msOrNil(r.ExpectedStart) },
	"jobId":            func(r *store.SLA) any { return r.ID },
	"jobStatus":        func(r *store.SLA) any { return r.JobStatus },
	"lastModifiedTS":   func(r *store.SLA) any { return msOrNil(r.LastModTime) },
	"nominalTimeTS":    func(r *store.SLA) any { return msOrNil(r.NominalTime) },
	"parentId":         func(r *store.SLA) any { return r.ParentID },
	"slaStatus":        func(r *store.SLA) any { return r.SLAStatus },
	"user":             func(r *store.SLA) any { return r.User },
}

func msOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

// compareKeys orders two keys of one sortby name, nil first.
func compareKeys(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	switch a := a.(type) {
	case string:
		return strings.Compare(a, b.(string))
	case int64:
		return cmp.Compare(a, b.(int64))
	}
	panic(fmt.Sprintf("key of type %T", a))
}

// testSLASort: every sortby name, both ways, ties by nominal time; an
// unknown name is refused with E0302 naming it.
func testSLASort(t *testing.T, s store.Store) {
	recs := filterSLAs()
	// Ties on every text key: two records share each value of s1's.
	recs[3].AppType, recs[3].JobStatus, recs[3].SLAStatus, recs[3].EventStatus = recs[1].AppType, recs[1].JobStatus, recs[1].SLAStatus, recs[1].EventStatus
	putSLAs(t, s, recs...)
	for name, key := range slaKeys {
		for _, desc := range []bool{false, true} {
			want := slices.Clone(recs)
			slices.SortStableFunc(want, func(a, b *store.SLA) int {
				c := compareKeys(key(a), key(b))
				if desc {
					c = -c
				}
				if c != 0 {
					return c
				}
				if c = a.NominalTime.Compare(b.NominalTime); c != 0 {
					return c
				}
				return strings.Compare(a.ID, b.ID)
			})
			var wantIDs []string
			for _, r := range want {
				wantIDs = append(wantIDs, r.ID)
			}
			got, err := listSLAs(t, s, store.SLAFilter{SortBy: name, Desc: desc})
			if err != nil || !slices.Equal(got, wantIDs) {
				t.Errorf("sortby %s desc=%v: got %v, %v; want %v", name, desc, got, err, wantIDs)
			}
		}
	}
	_, err := listSLAs(t, s, store.SLAFilter{SortBy: "color"})
	if vocab.CodeOf(err) != "E0302" || !strings.Contains(err.Error(), "color") {
		t.Errorf("sortby color: err = %v, want E0302 naming it", err)
	}
}

// dueIDs returns the ids DueSLAs(at, limit) lists through s.
func dueIDs(t *testing.T, s store.Store, at time.Time, limit int) []string {
	t.Helper()
	var got []*store.SLA
	if err := s.View(ctx, func(tx store.Tx) (err error) { got, err = tx.DueSLAs(ctx, at, limit); return err }); err != nil {
		t.Fatalf("DueSLAs: %v", err)
	}
	ids := []string{}
	for _, r := range got {
		ids = append(ids, r.ID)
	}
	return ids
}

// dueSLA is an undecided record of a tracked entity last seen in status,
// to be checked again at next.
func dueSLA(id, appType, status string, next time.Time) *store.SLA {
	return &store.SLA{ID: id, AppType: appType, JobStatus: status, NextCheck: next, EventProcessed: 1,
		ExpectedDurationMs: -1, ActualDurationMs: -1}
}

// testDueSLAs: past the next check, or the entity's status changed (a
// workflow job, a workflow action, a coordinator action; whether the
// record or the entity was written first), oldest next check first, up
// to the limit; decided records never.
func testDueSLAs(t *testing.T, s store.Store) {
	const wf, coord = "1-W", "2-C"
	mustUpdate(t, s, func(tx store.Tx) error {
		j := sampleJob(wf)
		j.Status = store.JobRunning
		if err := tx.PutJob(ctx, j); err != nil {
			return err
		}
		a := sampleAction(wf, "etl")
		a.Status = store.ActionRunning
		if err := tx.PutAction(ctx, a); err != nil {
			return err
		}
		return tx.PutCoordAction(ctx, sampleCoordAction(coord, 1, store.CoordActionRunning))
	})
	putSLAs(t, s,
		dueSLA(wf, "WORKFLOW_JOB", store.JobRunning, at(100)),
		dueSLA(wf+"@etl", "WORKFLOW_ACTION", store.ActionRunning, at(200)),
		dueSLA(coord+"@1", "COORDINATOR_ACTION", store.CoordActionRunning, at(300)),
		// Tracks an action written after it.
		dueSLA(wf+"@later", "WORKFLOW_ACTION", store.ActionPrep, at(400)),
		// No entity: never due on status.
		dueSLA("9-W", "WORKFLOW_JOB", "", at(500)),
		// Decided: never due, even overdue and changed.
		&store.SLA{ID: coord + "@2", AppType: "COORDINATOR_ACTION", JobStatus: "WAITING", EventProcessed: 8},
		&store.SLA{ID: "3-W", AppType: "WORKFLOW_JOB", JobStatus: "PREP", EventProcessed: 15, NextCheck: at(50)},
	)
	mustUpdate(t, s, func(tx store.Tx) error {
		if err := tx.PutCoordAction(ctx, sampleCoordAction(coord, 2, store.CoordActionRunning)); err != nil {
			return err
		}
		a := sampleAction(wf, "later")
		a.Status = store.ActionPrep
		return tx.PutAction(ctx, a)
	})
	steps := []struct {
		name   string
		change func(tx store.Tx) error
		at     time.Time
		limit  int
		want   []string
	}{
		{"nothing due yet", nil, at(99), 10, []string{}},
		{"deadline reached", nil, at(100), 10, []string{wf}},
		{"deadlines reached", nil, at(450), 10, []string{wf, wf + "@etl", coord + "@1", wf + "@later"}},
		{"limit keeps the oldest", nil, at(450), 2, []string{wf, wf + "@etl"}},
		{"coordinator action changed", func(tx store.Tx) error {
			return tx.PutCoordAction(ctx, sampleCoordAction(coord, 1, store.CoordActionSucceeded))
		}, at(0), 10, []string{coord + "@1"}},
		{"workflow action changed", func(tx store.Tx) error {
			a := sampleAction(wf, "later")
			a.Status = store.ActionOK
			return tx.PutAction(ctx, a)
		}, at(0), 10, []string{coord + "@1", wf + "@later"}},
		{"workflow job changed", func(tx store.Tx) error {
			j := sampleJob(wf)
			j.Status = store.JobSucceeded
			return tx.PutJob(ctx, j)
		}, at(0), 10, []string{wf, coord + "@1", wf + "@later"}},
		{"calculator saw the change", func(tx store.Tx) error {
			return tx.PutSLA(ctx, dueSLA(coord+"@1", "COORDINATOR_ACTION", store.CoordActionSucceeded, at(300)))
		}, at(0), 10, []string{wf, wf + "@later"}},
		{"changed and overdue listed once", nil, at(1000), 10, []string{wf, wf + "@etl", coord + "@1", wf + "@later", "9-W"}},
		{"deleted entity has no status", func(tx store.Tx) error { return tx.DeleteAction(ctx, wf+"@later") }, at(0), 10,
			[]string{wf}},
		{"decided", func(tx store.Tx) error {
			r := dueSLA(wf, "WORKFLOW_JOB", store.JobRunning, time.Time{})
			r.EventProcessed = 8
			return tx.PutSLA(ctx, r)
		}, at(1000), 0, []string{wf + "@etl", coord + "@1", wf + "@later", "9-W"}},
	}
	for _, st := range steps {
		if st.change != nil {
			mustUpdate(t, s, st.change)
		}
		if got := dueIDs(t, s, st.at, st.limit); !slices.Equal(got, st.want) {
			t.Errorf("%s: DueSLAs(%v, %d) = %v, want %v", st.name, st.at, st.limit, got, st.want)
		}
	}
}
