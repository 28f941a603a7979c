package coord

import (
	"testing"
	"time"

	"github.com/gozie/gozie/internal/schedule"
)

// TestMaterializeFrom: a job submitted with a first materialization time
// materializes, as its first action, the first nominal time at or after
// it, numbered as the same action of the job run from its start, for unit
// frequencies (with DST and month ends) and cron.
func TestMaterializeFrom(t *testing.T) {
	utc := func(s string) time.Time {
		v, err := schedule.ParseTime(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name, attrs string
		from        string
		wantNext    string // the first nominal time the job materializes
		wantNumber  int    // its action number
		wantDone    bool
	}{
		{"hourly, between nominal times", `frequency="${coord:hours(1)}" start="2030-01-01T00:00Z" end="2030-01-02T00:00Z" timezone="UTC"`,
			"2030-01-01T05:30Z", "2030-01-01T06:00Z", 7, false},
		{"hourly, on a nominal time", `frequency="${coord:hours(1)}" start="2030-01-01T00:00Z" end="2030-01-02T00:00Z" timezone="UTC"`,
			"2030-01-01T06:00Z", "2030-01-01T06:00Z", 7, false},
		{"before the start: unchanged", `frequency="${coord:hours(1)}" start="2030-01-01T00:00Z" end="2030-01-02T00:00Z" timezone="UTC"`,
			"2029-12-31T06:00Z", "2030-01-01T00:00Z", 1, false},
		{"at the start: unchanged", `frequency="${coord:hours(1)}" start="2030-01-01T00:00Z" end="2030-01-02T00:00Z" timezone="UTC"`,
			"2030-01-01T00:00Z", "2030-01-01T00:00Z", 1, false},
		{"at the end: done", `frequency="${coord:hours(1)}" start="2030-01-01T00:00Z" end="2030-01-02T00:00Z" timezone="UTC"`,
			"2030-01-02T00:00Z", "", 0, true},
		{"after the end: done", `frequency="${coord:hours(1)}" start="2030-01-01T00:00Z" end="2030-01-02T00:00Z" timezone="UTC"`,
			"2031-01-01T00:00Z", "", 0, true},
		{"every 5 minutes, years later", `frequency="${coord:minutes(5)}" start="2020-01-01T00:00Z" end="2040-01-01T00:00Z" timezone="UTC"`,
			"2030-06-15T10:02Z", "2030-06-15T10:05Z", 1099706, false},
		{"daily across DST", `frequency="${coord:days(1)}" start="2030-03-01T08:00Z" end="2030-04-01T08:00Z" timezone="America/Los_Angeles"`,
			"2030-03-12T00:00Z", "2030-03-12T07:00Z", 12, false},
		{"monthly from the 31st", `frequency="${coord:months(1)}" start="2030-01-31T00:00Z" end="2031-01-01T00:00Z" timezone="UTC"`,
			"2030-03-01T00:00Z", "2030-03-31T00:00Z", 3, false},
		{"end of month", `frequency="${coord:endOfMonths(1)}" start="2030-01-10T00:00Z" end="2031-01-01T00:00Z" timezone="UTC"`,
			"2030-03-15T00:00Z", "2030-04-01T00:00Z", 3, false},
		{"cron", `frequency="30 */6 * * *" start="2030-01-01T00:00Z" end="2030-01-05T00:00Z" timezone="UTC"`,
			"2030-01-02T07:00Z", "2030-01-02T12:30Z", 7, false},
		{"cron, on a fire time", `frequency="30 */6 * * *" start="2030-01-01T00:00Z" end="2030-01-05T00:00Z" timezone="UTC"`,
			"2030-01-02T12:30Z", "2030-01-02T12:30Z", 7, false},
		{"cron past its last fire: done", `frequency="30 */6 * * *" start="2030-01-01T00:00Z" end="2030-01-05T00:00Z" timezone="UTC"`,
			"2030-01-04T19:00Z", "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, props, err := submit(t, app("0.4", `name="c" `+tt.attrs, ""), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			f := a.MaterializeFrom(utc(tt.from))
			if f.Done != tt.wantDone {
				t.Fatalf("done %v, want %v (%+v)", f.Done, tt.wantDone, f)
			}
			// What the engine does with it: materialize from that state.
			plan, err := a.Materialize(PlanState{LastActionNumber: f.LastActionNumber, NextMaterializedTime: f.NextMaterializedTime},
				PlanOptions{Now: f.NextMaterializedTime}, props)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantDone {
				if !plan.Done || len(plan.Actions) != 0 {
					t.Fatalf("plan %d actions, done %v", len(plan.Actions), plan.Done)
				}
				return
			}
			if len(plan.Actions) == 0 {
				t.Fatalf("nothing materialized from %+v", f)
			}
			first := plan.Actions[0]
			if !first.NominalTime.Equal(utc(tt.wantNext)) || first.Number != tt.wantNumber {
				t.Errorf("first action %d at %s, want %d at %s", first.Number, schedule.FormatTime(first.NominalTime), tt.wantNumber, tt.wantNext)
			}
			// The same action of the job run from its start.
			s := schedule.Schedule{Start: a.Start, End: a.End, Freq: a.Freq, Loc: a.Location, Processing: a.Processing}
			for i, nominal := range s.Times() {
				if i+1 == first.Number && !nominal.Equal(first.NominalTime) {
					t.Errorf("action %d is at %s from the start, %s from %s", first.Number, schedule.FormatTime(nominal), schedule.FormatTime(first.NominalTime), tt.from)
				}
				if i+1 == first.Number-1 && !nominal.Before(utc(tt.from)) {
					t.Errorf("the action before, %d at %s, is not before %s", i+1, schedule.FormatTime(nominal), tt.from)
				}
				if i+1 >= first.Number {
					break
				}
			}
		})
	}
}
