package coord

import (
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/schedule"
)

// The example tables of coordinator spec sections 5 and 6.6, row by row.

func parse(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := schedule.ParseTime(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func dailyDS(t *testing.T, freqDays int, init string) *Dataset {
	return &Dataset{Name: "ds", Frequency: freqDays, Unit: schedule.Day, InitialInstance: parse(t, init), Location: time.UTC}
}

// specDatasets are the 'logs' and 'weeklySiteAccessStats' datasets of the
// 6.6.1 and 6.6.4 examples, and the action created at 2009-05-29T24:00Z.
func specDatasets(t *testing.T) (logs, weekly *Dataset, act *Action) {
	act = &Action{NominalTime: parse(t, "2009-05-29T24:00Z"), ActualTime: parse(t, "2009-05-29T24:00Z"), Location: time.UTC}
	return dailyDS(t, 1, "2009-01-01T24:00Z"), dailyDS(t, 7, "2009-01-07T24:00Z"), act
}

// spec: coord 6.6.1: coord:current(int n) datetime calculation.
func TestSpecCurrentTable(t *testing.T) {
	logs, weekly, act := specDatasets(t)
	rows := []struct {
		n            int
		logs, weekly string
	}{
		{0, "2009-05-29T24:00Z", "2009-05-27T24:00Z"},
		{1, "2009-05-30T24:00Z", "2009-06-03T24:00Z"},
		{-1, "2009-05-28T24:00Z", "2009-05-20T24:00Z"},
		{-3, "2009-05-26T24:00Z", "2009-05-06T24:00Z"},
	}
	for _, r := range rows {
		for _, c := range []struct {
			ds   *Dataset
			want string
		}{{logs, r.logs}, {weekly, r.weekly}} {
			tm, ok, err := Instances{DS: c.ds, Action: act}.Current(r.n)
			if got := format(tm); err != nil || !ok || got != format(parse(t, c.want)) {
				t.Errorf("current(%d) on %d-day dataset = %q, %v; want %s", r.n, c.ds.Frequency, got, err, c.want)
			}
		}
	}
}

// spec: coord 6.6.4: coord:offset(int n, String timeUnit) datetime calculation;
// every spelling of a row resolves the same.
func TestSpecOffsetTable(t *testing.T) {
	logs, weekly, act := specDatasets(t)
	type call struct {
		n    int
		unit string
	}
	rows := []struct {
		calls        []call
		logs, weekly string
	}{
		{[]call{{0, "MINUTE"}, {0, "HOUR"}, {0, "DAY"}, {0, "MONTH"}, {0, "YEAR"}}, "2009-05-29T24:00Z", "2009-05-27T24:00Z"},
		{[]call{{1440, "MINUTE"}, {24, "HOUR"}, {1, "DAY"}}, "2009-05-30T24:00Z", "2009-05-27T24:00Z"},
		{[]call{{-1440, "MINUTE"}, {-24, "HOUR"}, {-1, "DAY"}}, "2009-05-28T24:00Z", "2009-05-20T24:00Z"},
		{[]call{{-4320, "MINUTE"}, {-72, "HOUR"}, {-3, "DAY"}}, "2009-05-26T24:00Z", "2009-05-20T24:00Z"},
		{[]call{{11520, "MINUTE"}, {192, "HOUR"}, {8, "DAY"}}, "2009-06-06T24:00Z", "2009-06-03T24:00Z"},
		{[]call{{10, "MINUTE"}}, "2009-05-29T24:00Z", "2009-05-27T24:00Z"},
	}
	for _, r := range rows {
		for _, c := range r.calls {
			for _, d := range []struct {
				ds   *Dataset
				want string
			}{{logs, r.logs}, {weekly, r.weekly}} {
				tm, ok, err := Instances{DS: d.ds, Action: act}.Offset(c.n, c.unit)
				if got := format(tm); err != nil || !ok || got != format(parse(t, d.want)) {
					t.Errorf("offset(%d, %s) on %d-day dataset = %q, %v; want %s", c.n, c.unit, d.ds.Frequency, got, err, d.want)
				}
			}
		}
	}
}

// spec: coord 6.6.4 example 2: an offset start-instance is fast-forwarded, an
// offset instance rewound. offset(-90, "MINUTE") on an hourly dataset is
// current(-1) as a start-instance.
func TestSpecOffsetFastForward(t *testing.T) {
	ds := &Dataset{Name: "logs", Frequency: 60, Unit: schedule.Minute, InitialInstance: parse(t, "2009-01-01T01:00Z"),
		Location: time.UTC, URITemplate: "hdfs://bar:8020/app/logs/${YEAR}/${MONTH}/${DAY}/${HOUR}"}
	act := &Action{NominalTime: parse(t, "2009-01-02T24:00Z"), ActualTime: parse(t, "2009-01-03T00:00Z"), Location: time.UTC}
	ctx := &ELContext{Dataset: ds, Action: act, Vars: el.MapVars{}}
	res, err := ResolveRange(ctx, `${coord:offset(-90, "MINUTE")}`, `${coord:offset(0, "DAY")}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.URIs, "#"); got != "hdfs://bar:8020/app/logs/2009/01/03/00#hdfs://bar:8020/app/logs/2009/01/02/23" {
		t.Errorf("range = %s", got)
	}
	if tm, _, _ := (Instances{DS: ds, Action: act}).Offset(-90, "MINUTE"); format(tm) != "2009-01-02T22:00Z" {
		t.Errorf("offset(-90, MINUTE) as an instance = %s, want the rewound 2009-01-02T22:00Z", format(tm))
	}
}

// spec: coord 6.6.2: coord:hoursInDay(int n).
func TestSpecHoursInDay(t *testing.T) {
	rows := []struct {
		nominal, zone string
		end           schedule.EndOfDuration
		n, want       int
	}{
		{"2009-01-01T08:00Z", "UTC", schedule.NoEnd, 0, 24},
		{"2009-01-01T08:00Z", "America/Los_Angeles", schedule.NoEnd, 0, 24},
		{"2009-01-01T08:00Z", "America/Los_Angeles", schedule.NoEnd, -1, 24},
		{"2009-03-08T08:00Z", "UTC", schedule.NoEnd, 0, 24},
		{"2009-03-08T08:00Z", "Europe/London", schedule.NoEnd, 0, 24},
		{"2009-03-08T08:00Z", "America/Los_Angeles", schedule.NoEnd, 0, 23},
		{"2009-03-08T08:00Z", "America/Los_Angeles", schedule.NoEnd, 1, 24},
		{"2009-03-07T08:00Z", "America/Los_Angeles", schedule.EndOfDay, 0, 24},
		{"2009-03-07T08:00Z", "America/Los_Angeles", schedule.EndOfDay, 1, 23},
	}
	for i, r := range rows {
		loc, _ := schedule.LoadZone(r.zone)
		ds := &Dataset{Frequency: 1, Unit: schedule.Day, End: r.end, InitialInstance: parse(t, "2008-06-01T00:00Z"), Location: loc}
		act := &Action{NominalTime: parse(t, r.nominal), Location: loc}
		got, err := Instances{DS: ds, Action: act}.HoursInDay(r.n)
		if err != nil || got != r.want {
			t.Errorf("row %d: hoursInDay(%d) at %s in %s = %d, %v; want %d", i+1, r.n, r.nominal, r.zone, got, err, r.want)
		}
	}
}

// spec: coord 6.6.3: coord:daysInMonth(int n). The table writes the zone
// "Americas/Los_Angeles", a typo for America/Los_Angeles.
func TestSpecDaysInMonth(t *testing.T) {
	rows := []struct {
		nominal, zone string
		end           schedule.EndOfDuration
		n, want       int
	}{
		{"2008-02-01T00:00Z", "UTC", schedule.NoEnd, 0, 29},
		{"2009-02-01T00:00Z", "UTC", schedule.NoEnd, 0, 28},
		{"2009-02-01T00:00Z", "UTC", schedule.NoEnd, -1, 31},
		{"2009-03-01T00:00Z", "UTC", schedule.NoEnd, 1, 30},
		{"2009-02-01T00:00Z", "America/Los_Angeles", schedule.NoEnd, 0, 31},
		{"2008-02-01T00:00Z", "UTC", schedule.EndOfMonth, 0, 29},
		{"2008-02-01T00:00Z", "UTC", schedule.EndOfMonth, -1, 31},
		{"2009-02-01T00:00Z", "UTC", schedule.EndOfMonth, 0, 28},
		{"2009-02-01T00:00Z", "UTC", schedule.EndOfMonth, -1, 31},
		{"2009-03-01T00:00Z", "UTC", schedule.EndOfMonth, 1, 30},
		{"2009-02-01T00:00Z", "America/Los_Angeles", schedule.EndOfMonth, 0, 31},
	}
	for i, r := range rows {
		loc, _ := schedule.LoadZone(r.zone)
		ds := &Dataset{Frequency: 1, Unit: schedule.Month, End: r.end, InitialInstance: parse(t, "2007-01-01T00:00Z"), Location: loc}
		act := &Action{NominalTime: parse(t, r.nominal), Location: loc}
		got, err := Instances{DS: ds, Action: act}.DaysInMonth(r.n)
		if err != nil || got != r.want {
			t.Errorf("row %d: daysInMonth(%d) at %s in %s = %d, %v; want %d", i+1, r.n, r.nominal, r.zone, got, err, r.want)
		}
	}
}

// spec: coord 5.1: the URI template constants table, and the dataset examples 1-4.
func TestSpecURITemplates(t *testing.T) {
	v := URIVars(parse(t, "2009-02-05T07:09Z"), schedule.UTC)
	want := map[string]string{"YEAR": "2009", "MONTH": "02", "DAY": "05", "HOUR": "07", "MINUTE": "09"}
	for k, w := range want {
		if v[k] != w {
			t.Errorf("%s = %q, want %q", k, v[k], w)
		}
	}
	la, _ := schedule.LoadZone("America/Los_Angeles")
	empty, trigger := "", "trigger.dat"
	examples := []struct {
		ds   Dataset
		want []string
	}{
		// Example 1 lists its URIs in another layout than its template
		// (.../usr/app/[market]/2009/02/15/data); the template is what counts.
		{Dataset{Frequency: 1, Unit: schedule.Day, InitialInstance: parse(t, "2009-02-15T08:15Z"), Location: la, DoneFlag: &empty,
			URITemplate: "hdfs://foo:8020/app/logs/${market}/${YEAR}${MONTH}/${DAY}/data"},
			[]string{"hdfs://foo:8020/app/logs/teens/200902/15/data", "hdfs://foo:8020/app/logs/teens/200902/16/data", "hdfs://foo:8020/app/logs/teens/200902/17/data"}},
		{Dataset{Frequency: 1, Unit: schedule.Month, InitialInstance: parse(t, "2009-01-10T10:00Z"), Location: la,
			URITemplate: "hdfs://foo:8020/usr/app/stats/${YEAR}/${MONTH}/data"},
			[]string{"hdfs://foo:8020/usr/app/stats/2009/01/data/_SUCCESS", "hdfs://foo:8020/usr/app/stats/2009/02/data/_SUCCESS", "hdfs://foo:8020/usr/app/stats/2009/03/data/_SUCCESS"}},
		{Dataset{Frequency: 3, Unit: schedule.Month, InitialInstance: parse(t, "2009-01-31T20:00Z"), Location: la, DoneFlag: &trigger,
			URITemplate: "hdfs://foo:8020/usr/app/stats/${YEAR}/${MONTH}/data"},
			[]string{"hdfs://foo:8020/usr/app/stats/2009/01/data/trigger.dat", "hdfs://foo:8020/usr/app/stats/2009/04/data/trigger.dat", "hdfs://foo:8020/usr/app/stats/2009/07/data/trigger.dat"}},
		{Dataset{Frequency: 1, Unit: schedule.Day, InitialInstance: parse(t, "2009-01-01T10:30Z"), Location: la, DoneFlag: &empty,
			URITemplate: "hdfs://foo:8020/usr/app/logs/${YEAR}/${MONTH}/${DAY}/data"},
			[]string{"hdfs://foo:8020/usr/app/logs/2009/01/01/data", "hdfs://foo:8020/usr/app/logs/2009/01/02/data", "hdfs://foo:8020/usr/app/logs/2009/01/03/data"}},
	}
	for i, ex := range examples {
		in := Instances{DS: &ex.ds}
		for k, w := range ex.want {
			uri, err := ResolveURI(ex.ds.URITemplate, in.At(k), schedule.UTC, el.MapVars{"market": "teens"})
			if err != nil {
				t.Fatal(err)
			}
			if got := DoneFlagURI(uri, ex.ds.DoneFlag); got != w {
				t.Errorf("example %d instance %d: %s, want %s", i+1, k, got, w)
			}
		}
	}
}
