package server

import (
	"reflect"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// TestParseJobsFilter follows rest-api.md 7.1.
func TestParseJobsFilter(t *testing.T) {
	now := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		filter, kind string
		want         store.JobFilter
		bad          bool
	}{
		{"", "wf", store.JobFilter{}, false},
		{"user=joe", "wf", store.JobFilter{Users: []string{"joe"}}, false},
		{"user=joe;user=ann", "wf", store.JobFilter{Users: []string{"joe", "ann"}}, false},
		{"USER=joe;Name=app", "wf", store.JobFilter{Users: []string{"joe"}, Names: []string{"app"}}, false},
		{"status=RUNNING;status=SUSPENDED", "wf", store.JobFilter{Statuses: []string{"RUNNING", "SUSPENDED"}}, false},
		{"status=running", "wf", store.JobFilter{}, true},
		{"status=PREPPAUSED", "wf", store.JobFilter{}, true},
		{"status=PREPPAUSED", "coord", store.JobFilter{Statuses: []string{"PREPPAUSED"}}, false},
		{"id=0000001-260101000000000-oozie-joe-W", "wf", store.JobFilter{IDs: []string{"0000001-260101000000000-oozie-joe-W"}}, false},
		{"group=users", "wf", store.JobFilter{}, false},
		{"startcreatedtime=2026-01-02T03:04Z", "wf", store.JobFilter{CreatedAfter: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)}, false},
		{"startcreatedtime=-2d;endcreatedtime=-3h", "wf", store.JobFilter{CreatedAfter: now.AddDate(0, 0, -2), CreatedBefore: now.Add(-3 * time.Hour)}, false},
		{"endcreatedtime=-30m", "wf", store.JobFilter{CreatedBefore: now.Add(-30 * time.Minute)}, false},
		{"startcreatedtime=2d", "wf", store.JobFilter{}, true},
		{"startcreatedtime=yesterday", "wf", store.JobFilter{}, true},
		{"sortby=lastModifiedTime", "wf", store.JobFilter{}, false},
		{"sortby=name", "wf", store.JobFilter{}, true},
		{"user", "wf", store.JobFilter{}, true},
		{"user=a=b", "wf", store.JobFilter{}, true},
		{"colour=red", "wf", store.JobFilter{}, true},
	}
	for _, c := range cases {
		got, err := parseJobsFilter(c.filter, c.kind, now)
		if c.bad {
			if err == nil || toAPIError(err).code != "E0420" {
				t.Errorf("%q: err %v, want E0420", c.filter, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.filter, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q = %+v, want %+v", c.filter, got, c.want)
		}
	}
}

// TestParseActionRange follows rest-api.md 7.3 (type=action).
func TestParseActionRange(t *testing.T) {
	cases := []struct {
		scope string
		want  []int
	}{
		{"1", []int{1}},
		{"1,3-4,7", []int{1, 3, 4, 7}},
		{"2-2", []int{2}},
		{"4-3", nil},
		{"0", nil},
		{"x", nil},
		{"1-60", nil}, // more than 50 actions
		{"1,2-51", nil},
		{"1-9223372036854775807", nil},  // refused before any slice is built
		{"1-99999999999999999999", nil}, // not an int
		{"9223372036854775806-9223372036854775807", []int{9223372036854775806, 9223372036854775807}}, // the loop must stop at the largest int
	}
	for _, c := range cases {
		got, err := parseActionRange(c.scope)
		if c.want == nil {
			if err == nil {
				t.Errorf("%q: accepted %v", c.scope, got)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q = %v, %v; want %v", c.scope, got, err, c.want)
		}
	}
}

// TestParseCoordActionFilter follows rest-api.md 7.2 (status terms).
func TestParseCoordActionFilter(t *testing.T) {
	cases := []struct {
		filter string
		want   []string
	}{
		{"status=RUNNING", []string{"RUNNING"}},
		{"status=running;status=WAITING", []string{"RUNNING", "WAITING"}},
		{"status!=SUCCEEDED", []string{"!SUCCEEDED"}},
		{"status=BOGUS", nil},
		{"nominaltime>=2009-01-01T01:00Z", nil},
		{"colour=red", nil},
		{"status", nil},
	}
	for _, c := range cases {
		got, err := parseCoordActionFilter(c.filter)
		if c.want == nil {
			if err == nil || toAPIError(err).code != "E0421" {
				t.Errorf("%q: %v, %v; want E0421", c.filter, got, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q = %v, %v; want %v", c.filter, got, err, c.want)
		}
	}
}
