package coordengine

import (
	"context"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// TestSubmitMaterializeFrom: a coordinator submitted with
// gozie.coord.materialize.from materializes from the first nominal time
// at or after it, numbered as the job run from its start would number it,
// with its start (and so its dataset instances) unchanged; with a pause
// time and suspended as the properties say; bad values are E1003.
func TestSubmitMaterializeFrom(t *testing.T) {
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		kv         []string
		wantCode   string
		wantStatus string
		wantFirst  int // the first action materialized (0: none) with the clock at start+8h
	}{
		{"from 05:30", []string{vocab.PropCoordMaterializeFrom, "2026-03-01T05:30Z"}, "", store.CoordRunning, 7},
		{"from before the start", []string{vocab.PropCoordMaterializeFrom, "2026-02-01T00:00Z"}, "", store.CoordRunning, 1},
		{"from the end", []string{vocab.PropCoordMaterializeFrom, "2026-03-02T00:00Z"}, "", store.CoordSucceeded, 0},
		{"with a pause time", []string{vocab.PropCoordMaterializeFrom, "2026-03-01T05:30Z", vocab.PropCoordPauseTime, "2026-03-01T07:00Z"}, "", store.CoordPrepPaused, 0},
		{"suspended", []string{vocab.PropCoordMaterializeFrom, "2026-03-01T05:30Z", vocab.PropCoordSubmitSuspended, "true"}, "", store.CoordPrepSuspended, 0},
		{"bad from", []string{vocab.PropCoordMaterializeFrom, "yesterday"}, "E1003", "", 0},
		{"bad pause", []string{vocab.PropCoordPauseTime, "2026-03-01"}, "E1003", "", 0},
		{"bad suspended", []string{vocab.PropCoordSubmitSuspended, "yes"}, "E1003", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newCoordHarness(t, start.Add(8*time.Hour), Options{})
			props := h.coordProps(fsWorkflow, append([]string{"start", "2026-03-01T00:00Z", "end", "2026-03-02T00:00Z"}, tt.kv...)...)
			id, err := h.e.Submit(context.Background(), props)
			if tt.wantCode != "" {
				if vocab.CodeOf(err) != tt.wantCode {
					t.Fatalf("submission: %v, want %s", err, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			h.settle()
			j := h.coordJob(id)
			if j.Status != tt.wantStatus || !j.StartTime.Equal(start) {
				t.Errorf("status %s start %s, want %s start %s", j.Status, j.StartTime, tt.wantStatus, start)
			}
			acts := h.actions(id)
			if tt.wantFirst == 0 {
				if len(acts) != 0 {
					t.Fatalf("%d actions, want none", len(acts))
				}
				return
			}
			if len(acts) == 0 || acts[0].Number != tt.wantFirst {
				t.Fatalf("%d actions, the first %v, want %d first", len(acts), acts, tt.wantFirst)
			}
			for i, a := range acts {
				if a.Number != tt.wantFirst+i || a.ID != vocab.CoordActionID(id, a.Number) {
					t.Errorf("action %d: %s number %d", i, a.ID, a.Number)
				}
				if want := start.Add(time.Duration(a.Number-1) * time.Hour); !a.NominalTime.Equal(want) {
					t.Errorf("action %d at %s, want %s", a.Number, a.NominalTime, want)
				}
			}
		})
	}
}
