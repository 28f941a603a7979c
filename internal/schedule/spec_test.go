package schedule

import (
	"testing"
	"time"
)

// The tables of coordinator spec sections 4.1-4.4, row by row. Where a row
// contradicts the spec's own definition, the test asserts the definition and
// the row's note says why.

func mustParse(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := ParseTime(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// spec: coord 4.1 and 4.1.1: datetime examples.
func TestSpecDatetimes(t *testing.T) {
	ist, err := ParseProcessingZone("GMT+0530")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		zone ProcessingZone
		in   string
		utc  string
	}{
		{UTC, "2009-08-10T13:10Z", "2009-08-10T13:10Z"},
		{ist, "2009-08-10T13:10+0530", "2009-08-10T07:40Z"},
		{UTC, "2012-08-12T00:00Z", "2012-08-12T00:00Z"},
		{ist, "2012-08-12T05:30+0530", "2012-08-12T00:00Z"},
		{UTC, "2009-08-10T24:00Z", "2009-08-11T00:00Z"},
	}
	for _, tc := range tests {
		got, err := tc.zone.Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if FormatTime(got) != tc.utc {
			t.Errorf("Parse(%q) = %s, want %s", tc.in, FormatTime(got), tc.utc)
		}
		if back := tc.zone.Format(got); tc.in[11:13] != "24" && back != tc.in {
			t.Errorf("Format(Parse(%q)) = %s", tc.in, back)
		}
	}
}

// spec: coord 4.4: the frequency EL constants table.
func TestSpecFrequencyTable(t *testing.T) {
	tests := []struct {
		text string
		n    int
		unit Unit
	}{
		{"${coord:minutes(45)}", 45, Minute},
		{"${coord:hours(3)}", 180, Minute},
		{"${coord:days(2)}", 2, Day},
		{"${coord:months(1)}", 1, Month},
	}
	for _, tc := range tests {
		f, err := ParseFrequency(tc.text)
		if err != nil || f.N != tc.n || f.Unit != tc.unit {
			t.Errorf("ParseFrequency(%q) = %+v, %v; want %d %s", tc.text, f, err, tc.n, tc.unit)
		}
	}
	// ${0,10 15 * * 2-6}: every weekday at 15:00 and 15:10 UTC.
	f, err := ParseFrequency("0,10 15 * * 2-6")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"2013-01-01T15:00Z", "2013-01-01T15:10Z", "2013-01-02T15:00Z", "2013-01-02T15:10Z",
		"2013-01-03T15:00Z", "2013-01-03T15:10Z", "2013-01-04T15:00Z", "2013-01-04T15:10Z", "2013-01-07T15:00Z"}
	checkFires(t, f.Cron, "2013-01-01T00:00Z", want)
}

func checkFires(t *testing.T, c *Cron, after string, want []string) {
	t.Helper()
	cur := mustParse(t, after)
	for i, w := range want {
		next, ok := c.Next(cur, time.UTC)
		if !ok || FormatTime(next) != w {
			t.Fatalf("%s: fire %d = %s, want %s", c, i, FormatTime(next), w)
		}
		cur = next
	}
}

// freqRow is one row of the tables of 4.4.1-4.4.3.
type freqRow struct {
	start, zone string
	fn          string
	n           int
	value       int    // minutes, as computed by the definition
	first       string // first occurrence
	note        string // why a value differs from the printed table, if it does
}

func runFreqRows(t *testing.T, rows []freqRow) {
	t.Helper()
	for i, r := range rows {
		f, err := FrequencyOf(r.fn, r.n)
		if err != nil {
			t.Fatal(err)
		}
		loc := mustZone(r.zone)
		first := f.FirstOccurrence(mustParse(t, r.start), loc)
		if got := FormatTime(first); got != r.first {
			t.Errorf("row %d %s(%d) from %s in %s: first occurrence %s, want %s %s", i+1, r.fn, r.n, r.start, r.zone, got, r.first, r.note)
		}
		if got := PeriodMinutes(f.Unit, f.N, first, loc); got != r.value {
			t.Errorf("row %d %s(%d) from %s in %s: %d minutes, want %d %s", i+1, r.fn, r.n, r.start, r.zone, got, r.value, r.note)
		}
	}
}

// spec: coord 4.4.1.1, coord:days(n).
func TestSpecDays(t *testing.T) {
	runFreqRows(t, []freqRow{
		{"2009-01-01T08:00Z", "UTC", "days", 1, 1440, "2009-01-01T08:00Z", ""},
		{"2009-01-01T08:00Z", "America/Los_Angeles", "days", 1, 1440, "2009-01-01T08:00Z", ""},
		{"2009-01-01T08:00Z", "America/Los_Angeles", "days", 2, 2880, "2009-01-01T08:00Z", ""},
		{"2009-03-08T08:00Z", "UTC", "days", 1, 1440, "2009-03-08T08:00Z", ""},
		{"2009-03-08T08:00Z", "Europe/London", "days", 1, 1440, "2009-03-08T08:00Z", ""},
		{"2009-03-08T08:00Z", "America/Los_Angeles", "days", 1, 1380, "2009-03-08T08:00Z", ""},
		{"2009-03-08T08:00Z", "UTC", "days", 2, 2880, "2009-03-08T08:00Z", ""},
		{"2009-03-08T08:00Z", "America/Los_Angeles", "days", 2, 2820, "2009-03-08T08:00Z", ""},
		// Row 9 prints first occurrence 2009-03-09T07:00Z for a start of
		// 08:00Z: it is the tick of the daily series that began at PST
		// midnight (2009-03-08T08:00Z), which moves to 07:00Z once DST is on.
		{"2009-03-09T08:00Z", "America/Los_Angeles", "days", 1, 1440, "2009-03-09T08:00Z", "(see the row note)"},
	})
	s := Schedule{Start: mustParse(t, "2009-03-08T08:00Z"), End: mustParse(t, "2009-03-12T00:00Z"),
		Freq: Frequency{N: 1, Unit: Day}, Loc: mustZone("America/Los_Angeles")}
	if got := FormatTime(s.Nominal(1)); got != "2009-03-09T07:00Z" {
		t.Errorf("row 9: daily tick after the DST switch = %s, want 2009-03-09T07:00Z", got)
	}
}

// spec: coord 4.4.1.2, coord:endOfDays(n).
func TestSpecEndOfDays(t *testing.T) {
	runFreqRows(t, []freqRow{
		{"2009-01-01T08:00Z", "UTC", "endOfDays", 1, 1440, "2009-01-02T00:00Z", ""},
		{"2009-01-01T08:00Z", "America/Los_Angeles", "endOfDays", 1, 1440, "2009-01-02T08:00Z", ""},
		{"2009-01-01T08:01Z", "America/Los_Angeles", "endOfDays", 1, 1440, "2009-01-02T08:00Z", ""},
		{"2009-01-01T18:00Z", "America/Los_Angeles", "endOfDays", 1, 1440, "2009-01-02T08:00Z", ""},
		{"2009-03-07T09:00Z", "America/Los_Angeles", "endOfDays", 1, 1380, "2009-03-08T08:00Z", ""},
		// The table prints 1440, but its first occurrence is the same as the
		// previous row's (2009MAR08 00:00 PST), a 23-hour day that row
		// counts as 1380; the definition gives 1380.
		{"2009-03-08T07:00Z", "America/Los_Angeles", "endOfDays", 1, 1380, "2009-03-08T08:00Z", "(table prints 1440, inconsistent with row 5)"},
		{"2009-03-09T07:00Z", "America/Los_Angeles", "endOfDays", 1, 1440, "2009-03-10T07:00Z", ""},
	})
}

// spec: coord 4.4.2.1, coord:months(n).
func TestSpecMonths(t *testing.T) {
	runFreqRows(t, []freqRow{
		{"2009-01-01T08:00Z", "UTC", "months", 1, 44640, "2009-01-01T08:00Z", ""},
		{"2009-01-01T08:00Z", "America/Los_Angeles", "months", 1, 44640, "2009-01-01T08:00Z", ""},
		{"2009-01-01T08:00Z", "America/Los_Angeles", "months", 2, 84960, "2009-01-01T08:00Z", ""},
		{"2009-03-08T08:00Z", "UTC", "months", 1, 44640, "2009-03-08T08:00Z", ""},
		{"2009-03-08T08:00Z", "Europe/London", "months", 1, 44580, "2009-03-08T08:00Z", ""},
		{"2009-03-08T08:00Z", "America/Los_Angeles", "months", 1, 44580, "2009-03-08T08:00Z", ""},
		{"2009-03-08T08:00Z", "UTC", "months", 2, 87840, "2009-03-08T08:00Z", ""},
		{"2009-03-08T08:00Z", "America/Los_Angeles", "months", 2, 87780, "2009-03-08T08:00Z", ""},
	})
}

// spec: coord 4.4.2.2, coord:endOfMonths(n).
func TestSpecEndOfMonths(t *testing.T) {
	runFreqRows(t, []freqRow{
		{"2009-01-01T00:00Z", "UTC", "endOfMonths", 1, 40320, "2009-02-01T00:00Z", ""},
		{"2009-01-01T08:00Z", "UTC", "endOfMonths", 1, 40320, "2009-02-01T00:00Z", ""},
		{"2009-01-31T08:00Z", "UTC", "endOfMonths", 1, 40320, "2009-02-01T00:00Z", ""},
		{"2009-01-01T08:00Z", "America/Los_Angeles", "endOfMonths", 1, 40320, "2009-02-01T08:00Z", ""},
		{"2009-02-02T08:00Z", "America/Los_Angeles", "endOfMonths", 1, 44580, "2009-03-01T08:00Z", ""},
		{"2009-02-01T08:00Z", "America/Los_Angeles", "endOfMonths", 1, 44580, "2009-03-01T08:00Z", ""},
	})
}

// spec: coord 4.4.3, coord:endOfWeeks(n): weeks start on Sunday.
func TestSpecEndOfWeeks(t *testing.T) {
	const utcNote = "(the table prints 08:00Z, the Los Angeles value; the start of a UTC week is 00:00Z, as row 1 shows)"
	runFreqRows(t, []freqRow{
		{"2017-01-04T00:00Z", "UTC", "endOfWeeks", 1, 10080, "2017-01-08T00:00Z", ""},
		{"2017-01-04T08:00Z", "UTC", "endOfWeeks", 1, 10080, "2017-01-08T00:00Z", utcNote},
		{"2017-01-06T08:00Z", "UTC", "endOfWeeks", 1, 10080, "2017-01-08T00:00Z", utcNote},
		{"2017-01-04T08:00Z", "America/Los_Angeles", "endOfWeeks", 1, 10080, "2017-01-08T08:00Z", ""},
		{"2017-01-06T08:00Z", "America/Los_Angeles", "endOfWeeks", 1, 10080, "2017-01-08T08:00Z", ""},
	})
}

// spec: coord 4.4.4: the cron examples table (meanings checked through the first
// fire times after 2013-01-01T00:00Z) and the two rejection examples.
func TestSpecCronTable(t *testing.T) {
	tests := []struct {
		expr string
		want []string
	}{
		{"10 9 * * *", []string{"2013-01-01T09:10Z", "2013-01-02T09:10Z"}},
		{"10,30,45 9 * * *", []string{"2013-01-01T09:10Z", "2013-01-01T09:30Z", "2013-01-01T09:45Z", "2013-01-02T09:10Z"}},
		// Weekdays every hour, and January 30th (a Wednesday in 2013; in 2016 a Saturday).
		{"0 * 30 JAN 2-6", []string{"2013-01-01T01:00Z", "2013-01-01T02:00Z"}},
		{"0/20 9-17 * * 2-5", []string{"2013-01-01T09:00Z", "2013-01-01T09:20Z", "2013-01-01T09:40Z", "2013-01-01T10:00Z"}},
		{"1 2 L-3 * *", []string{"2013-01-28T02:01Z", "2013-02-25T02:01Z"}},
		{"1 2 6W 3 ?", []string{"2013-03-06T02:01Z", "2014-03-06T02:01Z", "2015-03-06T02:01Z", "2016-03-07T02:01Z"}},
		{"1 2 * 3 3#2", []string{"2013-03-12T02:01Z", "2014-03-11T02:01Z"}},
		{"0 10,13 * * MON-FRI", []string{"2013-01-01T10:00Z", "2013-01-01T13:00Z", "2013-01-02T10:00Z"}},
		{"0 14-6 ? * FRI-MON", []string{"2013-01-04T00:00Z", "2013-01-04T01:00Z"}},
	}
	for _, tc := range tests {
		c, err := ParseCron(tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		checkFires(t, c, "2013-01-01T00:00Z", tc.want)
	}
	c30, _ := parseCronFields("0 * 30 JAN 2-6")
	if next, _ := c30.Next(mustParse(t, "2016-01-29T23:59Z"), time.UTC); FormatTime(next) != "2016-01-30T00:00Z" {
		t.Errorf("0 * 30 JAN 2-6 must fire on Saturday 2016-01-30: got %s", FormatTime(next))
	}
	if _, err := ParseCron("0 10 30 2 *"); err == nil {
		t.Error("0 10 30 2 * (February 30th) must be rejected")
	}
	c, _ := ParseCron("0 10 * * *")
	if err := CheckCronWindow(c, mustParse(t, "2013-10-18T21:00Z"), mustParse(t, "2013-10-18T22:00Z"), UTC); err == nil {
		t.Error("a job whose window holds no fire time must be rejected")
	}
}
