package coordengine

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/engine"
)

func TestCoordMissingDependencies(t *testing.T) {
	start := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	h := newCoordHarness(t, start.Add(3*time.Hour+time.Minute), Options{InputCheckInterval: time.Minute})
	props := h.coordProps(fsWorkflow, "start", "2026-03-02T00:00Z", "end", "2026-03-02T03:00Z")
	h.publish(start.Add(time.Hour)) // action 2's input is there; 1 and 3 wait
	id, err := h.e.Run(context.Background(), props)
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	flag := func(hour int) string {
		return "file://" + h.dataDir(start.Add(time.Duration(hour)*time.Hour)) + "/_SUCCESS"
	}
	want := func(n, hour int) MissingDependencies {
		return MissingDependencies{ID: n, BlockedOn: flag(hour),
			DataSets: []DatasetMissingDeps{{DataSet: "logs", MissingDependencies: []string{flag(hour)}}}}
	}
	ctx := context.Background()
	cases := []struct {
		name                 string
		id, rangeType, scope string
		want                 []MissingDependencies
	}{
		{"job: every WAITING action", id, "", "", []MissingDependencies{want(1, 0), want(3, 2)}},
		{"job: action list", id, "action", "2-3", []MissingDependencies{want(3, 2)}},
		{"job: dates", id, "date", "2026-03-02T00:00Z::2026-03-02T01:00Z", []MissingDependencies{want(1, 0)}},
		{"one action", id + "@1", "", "", []MissingDependencies{want(1, 0)}},
		{"an action with nothing missing", id + "@2", "", "", []MissingDependencies{}},
	}
	for _, tc := range cases {
		got, err := h.e.CoordMissingDependencies(ctx, tc.id, tc.rangeType, tc.scope)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct{ id, code string }{
		{id + "@9", engine.CodeActionNotFound},
		{"0000099-260101000000000-oozie-test-C", "E0604"},
	} {
		if _, err := h.e.CoordMissingDependencies(ctx, tc.id, "", ""); engine.ErrorCode(err) != tc.code {
			t.Errorf("%s: %v, want %s", tc.id, err, tc.code)
		}
	}
}
