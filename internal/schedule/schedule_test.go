package schedule

import (
	"slices"
	"testing"
	"time"
)

func collect(s Schedule, max int) []string {
	var out []string
	for _, t := range s.Times() {
		out = append(out, FormatTime(t))
		if len(out) == max {
			break
		}
	}
	return out
}

// Cron materialization across DST switches, as the coordinator engine will
// use it (cases from materialization.json's materialize vectors, which are
// otherwise the engine's to run).
func TestCronScheduleDST(t *testing.T) {
	tests := []struct {
		expr, zone, start, end string
		want                   []string
	}{
		{"10 23 1 1-12 *", "America/Los_Angeles", "2016-03-01T23:10Z", "2016-12-03T00:00Z", []string{"2016-03-01T23:10Z", "2016-04-01T22:10Z", "2016-05-01T22:10Z", "2016-06-01T22:10Z", "2016-07-01T22:10Z", "2016-08-01T22:10Z", "2016-09-01T22:10Z", "2016-10-01T22:10Z", "2016-11-01T22:10Z", "2016-12-01T23:10Z"}},
		{"10 23 * * *", "America/Los_Angeles", "2016-03-11T23:10Z", "2016-03-15T02:00Z", []string{"2016-03-11T23:10Z", "2016-03-12T23:10Z", "2016-03-13T22:10Z", "2016-03-14T22:10Z"}},
		{"10 */20 12-14 3 *", "America/Los_Angeles", "2016-01-01T13:10Z", "2016-12-03T00:00Z", []string{"2016-03-12T00:10Z", "2016-03-12T20:10Z", "2016-03-13T00:10Z", "2016-03-13T20:10Z", "2016-03-14T00:10Z", "2016-03-14T20:10Z"}},
		{"0 * * * *", "America/Los_Angeles", "2013-03-10T08:00Z", "2013-03-10T10:01Z", []string{"2013-03-10T08:00Z", "2013-03-10T09:00Z", "2013-03-10T10:00Z"}},
		{"0 * * * *", "America/Los_Angeles", "2012-11-04T07:00Z", "2012-11-04T11:00Z", []string{"2012-11-04T07:00Z", "2012-11-04T08:00Z", "2012-11-04T09:00Z", "2012-11-04T10:00Z"}},
		{"30 1 * * *", "Europe/London", "2009-03-26T01:30Z", "2009-04-01T00:00Z", []string{"2009-03-26T01:30Z", "2009-03-27T01:30Z", "2009-03-28T01:30Z", "2009-03-29T00:30Z", "2009-03-30T00:30Z", "2009-03-31T00:30Z"}},
	}
	for _, tc := range tests {
		f, err := ParseFrequency(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		s := Schedule{Start: mustParse(t, tc.start), End: mustParse(t, tc.end), Freq: f, Loc: mustZone(tc.zone)}
		if got := collect(s, 100); !slices.Equal(got, tc.want) {
			t.Errorf("%s in %s:\n got  %v\n want %v", tc.expr, tc.zone, got, tc.want)
		}
	}
}

// Unit frequencies: days keep the local wall clock across DST, hours do not,
// months clamp without drifting, end-of frequencies start at the boundary.
func TestScheduleUnits(t *testing.T) {
	tests := []struct {
		freq, zone, start, end string
		want                   []string
	}{
		{"${coord:days(1)}", "America/Los_Angeles", "2009-03-07T08:00Z", "2009-03-11T00:00Z", []string{"2009-03-07T08:00Z", "2009-03-08T08:00Z", "2009-03-09T07:00Z", "2009-03-10T07:00Z"}},
		{"${coord:hours(24)}", "America/Los_Angeles", "2009-03-07T08:00Z", "2009-03-11T00:00Z", []string{"2009-03-07T08:00Z", "2009-03-08T08:00Z", "2009-03-09T08:00Z", "2009-03-10T08:00Z"}},
		{"${coord:months(1)}", "UTC", "2009-01-31T00:00Z", "2009-06-01T00:00Z", []string{"2009-01-31T00:00Z", "2009-02-28T00:00Z", "2009-03-31T00:00Z", "2009-04-30T00:00Z", "2009-05-31T00:00Z"}},
		{"${coord:endOfMonths(1)}", "America/Los_Angeles", "2009-01-15T08:00Z", "2009-05-01T00:00Z", []string{"2009-02-01T08:00Z", "2009-03-01T08:00Z", "2009-04-01T07:00Z"}},
		{"${coord:endOfWeeks(1)}", "UTC", "2017-01-04T08:00Z", "2017-01-30T00:00Z", []string{"2017-01-08T00:00Z", "2017-01-15T00:00Z", "2017-01-22T00:00Z", "2017-01-29T00:00Z"}},
		{"60", "Asia/Kolkata", "2009-01-01T00:00Z", "2009-01-01T03:00Z", []string{"2009-01-01T00:00Z", "2009-01-01T01:00Z", "2009-01-01T02:00Z"}},
	}
	for _, tc := range tests {
		f, err := ParseFrequency(tc.freq)
		if err != nil {
			t.Fatal(err)
		}
		s := Schedule{Start: mustParse(t, tc.start), End: mustParse(t, tc.end), Freq: f, Loc: mustZone(tc.zone)}
		if got := collect(s, 100); !slices.Equal(got, tc.want) {
			t.Errorf("%s in %s:\n got  %v\n want %v", tc.freq, tc.zone, got, tc.want)
		}
		for i, w := range tc.want {
			if got := FormatTime(s.Nominal(i)); got != w {
				t.Errorf("%s Nominal(%d) = %s, want %s", tc.freq, i, got, w)
			}
		}
	}
}

// The two Java resolutions of local times in gaps and overlaps.
func TestCalendarResolution(t *testing.T) {
	la := mustZone("America/Los_Angeles")
	tests := []struct {
		name string
		got  time.Time
		want string
	}{
		{"set fields, gap: standard time", DateTime(2009, 3, 8, 2, 30, la), "2009-03-08T10:30Z"},
		{"set fields, overlap: second occurrence", DateTime(2009, 11, 1, 1, 30, la), "2009-11-01T09:30Z"},
		{"set fields, normal", DateTime(2009, 7, 1, 12, 0, la), "2009-07-01T19:00Z"},
		{"add days into gap: post-switch offset", AddDays(mustParse(t, "2009-03-06T10:00Z"), 2, la), "2009-03-08T09:00Z"},
		{"add days into overlap from DST: first occurrence", AddDays(mustParse(t, "2009-10-30T08:00Z"), 2, la), "2009-11-01T08:00Z"},
		{"add days into overlap from standard: second occurrence", AddDays(mustParse(t, "2009-11-03T09:00Z"), -2, la), "2009-11-01T09:00Z"},
		{"add months clamps", AddMonths(mustParse(t, "2009-01-31T00:00Z"), 1, time.UTC), "2009-02-28T00:00Z"},
		{"add months backwards across years", AddMonths(mustParse(t, "2009-01-15T00:00Z"), -13, time.UTC), "2007-12-15T00:00Z"},
		{"end of day from midnight moves a whole day", MoveToEnd(mustParse(t, "2009-03-09T07:00Z"), EndOfDay, la), "2009-03-10T07:00Z"},
		{"end of week from Sunday moves a whole week", MoveToEnd(mustParse(t, "2017-01-08T00:00Z"), EndOfWeek, time.UTC), "2017-01-15T00:00Z"},
	}
	for _, tc := range tests {
		if got := FormatTime(tc.got); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if h := HoursInDay(mustParse(t, "2009-11-01T12:00Z"), la); h != 25 {
		t.Errorf("hours in 2009-11-01 LA = %d, want 25", h)
	}
}

func TestParseErrors(t *testing.T) {
	bad := []string{"", "2009-02-30T00:00Z", "2009-13-01T00:00Z", "2009-01-01T24:01Z", "2009-01-01T10:60Z",
		"2009-01-01 10:00Z", "2009-01-01T10:00", "2009-01-01T10:00+0530", "2009-01-01T10:00Zx", "abcd-01-01T10:00Z"}
	for _, s := range bad {
		if _, err := ParseTime(s); err == nil {
			t.Errorf("ParseTime(%q) accepted", s)
		}
	}
	if _, err := ParseProcessingZone("GMT+05:30"); err == nil {
		t.Error("processing zone GMT+05:30 accepted; Oozie wants GMT+0530")
	}
	for _, id := range []string{"GMT+5:30", "America/Nowhere", "../etc/passwd", "GMT+24:00"} {
		if _, err := LoadZone(id); err == nil {
			t.Errorf("LoadZone(%q) accepted", id)
		}
	}
	for _, id := range []string{"PST", "EST", "GMT", "UTC", "GMT-0700", "GMT+05:30", "Asia/Kolkata"} {
		if _, err := LoadZone(id); err != nil {
			t.Errorf("LoadZone(%q): %v", id, err)
		}
	}
}

// Every listed zone loads from the embedded tzdata.
func TestAvailableZones(t *testing.T) {
	zs := AvailableZones(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	if len(zs) < 500 {
		t.Fatalf("only %d zones", len(zs))
	}
	seen := map[string]string{}
	for _, z := range zs {
		if _, err := LoadZone(z.ID); err != nil {
			t.Errorf("%s: %v", z.ID, err)
		}
		seen[z.ID] = z.DisplayName
	}
	if seen["America/Los_Angeles"] != "PST (America/Los_Angeles)" {
		t.Errorf("LA display name %q", seen["America/Los_Angeles"])
	}
	if _, ok := seen["Etc/GMT+5"]; ok {
		t.Error("Etc/GMT* zones must not be listed")
	}
	if _, ok := seen["GMT+00:00"]; ok || seen["GMT+12:00"] == "" || seen["GMT-12:00"] == "" {
		t.Error("GMT-12:00..GMT+12:00 without GMT+00:00 expected")
	}
}
