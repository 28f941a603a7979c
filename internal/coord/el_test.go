package coord

import (
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/schedule"
)

func testContext(t *testing.T) *ELContext {
	la, _ := schedule.LoadZone("America/Los_Angeles")
	return &ELContext{
		Dataset: &Dataset{Name: "logs", Frequency: 1, Unit: schedule.Day, InitialInstance: parse(t, "2009-09-01T23:59Z"), Location: la,
			URITemplate: "file:///data/${YEAR}/${MONTH}/${DAY}"},
		Action: &Action{NominalTime: parse(t, "2009-09-09T23:59Z"), ActualTime: parse(t, "2009-09-10T23:59Z"), Location: la, ID: "0000001-C@3", Name: "app"},
		Vars:   el.MapVars{"user.name": "joe", "date": "2009-09-08T23:59Z", "queue": "default"},
	}
}

func TestPhases(t *testing.T) {
	tests := []struct {
		phase Phase
		text  string
		want  string
	}{
		{PhaseSubmitInstances, "${coord:current(-1)}", "${coord:current(-1)}"},
		{PhaseSubmitInstances, "${coord:currentRange(-2, 0)}", "${coord:currentRange(-2, 0)}"},
		{PhaseSubmitInstances, "${coord:offset(-1, 'DAY')}", "${coord:offset(-1, 'DAY')}"},
		{PhaseSubmitInstances, "${coord:latest(0)}", "${coord:latest(0)}"},
		{PhaseSubmitInstances, "${coord:current(-(coord:hoursInDay(0) - 1))}", "${coord:current(-23)}"},
		{PhaseSubmitInstances, "${coord:current(coord:tzOffset())}", "${coord:current(3)}"},
		{PhaseSubmitInstances, "${coord:daysInMonth(0)}", "30"},
		{PhaseSubmitData, "${coord:dataIn('input')}", "${coord:dataIn('input')}"},
		{PhaseSubmitData, "${coord:nominalTime()}", "${coord:nominalTime()}"},
		{PhaseSubmitNoFuncs, "/data/${YEAR}/${MONTH}/${queue}", "/data/${YEAR}/${MONTH}/default"},
		{PhaseActionCreate, "${coord:current(0)}#${coord:current(-8)}#${coord:current(-9)}", "2009-09-09T23:59Z#2009-09-01T23:59Z#"},
		{PhaseActionCreate, "${coord:currentRange(-9, -7)}", "2009-09-02T23:59Z#2009-09-01T23:59Z"},
		{PhaseActionCreate, "${coord:latest(0)}", "${coord:latest(0)}"},
		{PhaseActionCreate, "${coord:tzOffset()}", "0"},
		{PhaseActionCreate, "${coord:hoursInDay(0)}", "24"},
		{PhaseActionCreate, "${coord:actionId()} ${coord:name()} ${coord:user()} ${coord:conf('queue')}", "0000001-C@3 app joe default"},
		{PhaseActionCreate, "${coord:endOfDays(-1)}", "2009-09-09T07:00Z"},
		{PhaseActionCreate, `${coord:formatTime(coord:current(0), "EEE, d MMM yyyy")}`, "Wed, 9 Sep 2009"},
		{PhaseActionCreateInst, "${coord:dateOffset(date, 2, 'MONTH')}", "2009-11-08T23:59Z"},
		{PhaseActionCreateInst, "${coord:current(0)}", "${coord:current(0)}"},
		{PhaseActionStart, `${coord:dateTzOffset(date, "Asia/Kolkata")}`, "2009-09-09T05:29Z"},
		{PhaseActionStart, `${coord:epochTime(date, "true")}`, "1252454340000"},
		{PhaseActionStart, "${coord:nominalTime()} ${coord:actualTime()}", "2009-09-09T23:59Z 2009-09-10T23:59Z"},
		{PhaseSLACreate, "${coord:nominalTime()}", "2009-09-09T23:59Z"},
	}
	for _, tc := range tests {
		got, err := EvalAndWrap(tc.phase, testContext(t), tc.text)
		if err != nil || got != tc.want {
			t.Errorf("%s %s = %q, %v; want %q", tc.phase, tc.text, got, err, tc.want)
		}
	}
}

func TestPhaseErrors(t *testing.T) {
	tests := []struct {
		phase Phase
		text  string
		msg   string
	}{
		{PhaseSubmitFreq, "${coord:current(0)}", "coord:current"},
		{PhaseActionStart, "${coord:current(0)}", "coord:current"},
		{PhaseActionCreate, `${coord:offset(1, "WEEKS")}`, "Unable to evaluate"},
		{PhaseActionCreate, `${coord:formatTime("2009-13-01T00:00Z", "yyyy")}`, "month"},
		{PhaseActionCreate, `${coord:formatTime("2009-01-01T00:00Z", "yyyy-bb")}`, "Illegal pattern character"},
		{PhaseActionStart, "${coord:latest(1)}", "n should be <= 0"},
		{PhaseActionStart, "${coord:future(-1, 3)}", "n should be >= 0"},
		{PhaseActionStart, `${coord:dateTzOffset("2009-01-01T00:00Z", "Nowhere/City")}`, "invalid time zone"},
	}
	for _, tc := range tests {
		if got, err := EvalAndWrap(tc.phase, testContext(t), tc.text); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s %s = %q, %v; want an error with %q", tc.phase, tc.text, got, err, tc.msg)
		}
	}
	// Without a dataset, instance functions fail instead of panicking.
	if _, err := Eval(PhaseActionCreate, &ELContext{}, "${coord:current(0)}"); err == nil {
		t.Error("current without a dataset: no error")
	}
}

func TestLatestFutureRanges(t *testing.T) {
	existing := map[string]bool{}
	for _, d := range []string{"2009/09/10", "2009/09/08", "2009/09/07", "2009/09/11", "2009/09/13"} {
		existing["file:///data/"+d+"/_SUCCESS"] = true
	}
	tests := []struct {
		text, want string
		unresolved bool
	}{
		{"${coord:latest(0)}", "2009-09-10T23:59Z", false},
		{"${coord:latest(-2)}", "2009-09-07T23:59Z", false},
		{"${coord:latestRange(-2, 0)}", "2009-09-10T23:59Z#2009-09-08T23:59Z#2009-09-07T23:59Z", false},
		{"${coord:latestRange(-5, 0)}", "${coord:latestRange(-5,0)}", true},
		{"${coord:future(0, 3)}", "2009-09-10T23:59Z", false},
		{"${coord:future(2, 4)}", "2009-09-13T23:59Z", false},
		{"${coord:future(2, 3)}", "${coord:future(2, 3)}", true},
		{"${coord:futureRange(0, 1, 5)}", "2009-09-11T23:59Z#2009-09-10T23:59Z", false},
		{"${coord:futureRange(0, 4, 5)}", "${coord:futureRange(0,4,'5')}", true},
	}
	for _, tc := range tests {
		ctx := testContext(t)
		ctx.Exists = func(uri string) bool { return existing[uri] }
		got, err := EvalAndWrap(PhaseActionStart, ctx, tc.text)
		if err != nil || got != tc.want || ctx.Unresolved != tc.unresolved {
			t.Errorf("%s = %q (unresolved %v), %v; want %q (%v)", tc.text, got, ctx.Unresolved, err, tc.want, tc.unresolved)
		}
	}
}

func TestResolveRangeForms(t *testing.T) {
	tests := []struct {
		start, end string
		want       string
		err        string
	}{
		{"${coord:current(-2)}", "${coord:current(0)}", "2009-09-09T23:59Z#2009-09-08T23:59Z#2009-09-07T23:59Z", ""},
		{"${coord:current(0)}", "${coord:current(0)}", "2009-09-09T23:59Z", ""},
		{"${coord:current(-20)}", "${coord:current(-7)}", "2009-09-02T23:59Z#2009-09-01T23:59Z", ""},
		{"${coord:current(1)}", "${coord:current(0)}", "", "start-instance should be equal or earlier"},
		{"${coord:latest(-1)}", "${coord:latest(0)}", "${coord:latestRange(-1,0)}", ""},
		{"${coord:future(0, 5)}", "${coord:future(1, 5)}", "${coord:futureRange(0,1,'5')}", ""},
		{"${coord:current(-1)}", "${coord:latest(0)}", "", "both should be either latest or current"},
		{"coord:absolute(2009-09-07T23:59Z)", "coord:current(0)", "2009-09-09T23:59Z#2009-09-08T23:59Z#2009-09-07T23:59Z", ""},
		{"coord:absolute(2009-09-07T22:59Z)", "coord:current(0)", "", "not in phase"},
		{"${coord:current(-(coord:hoursInDay(0) - 22))}", "${coord:current(0)}", "2009-09-09T23:59Z#2009-09-08T23:59Z#2009-09-07T23:59Z", ""},
		{"${coord:offset(-36, 'HOUR')}", "${coord:offset(0, 'DAY')}", "2009-09-09T23:59Z#2009-09-08T23:59Z", ""},
		{"${coord:bogus(1)}", "${coord:current(0)}", "", "coord:bogus"},
	}
	for _, tc := range tests {
		res, err := ResolveRange(testContext(t), tc.start, tc.end)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s..%s: error %v, want %q", tc.start, tc.end, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s..%s: %v", tc.start, tc.end, err)
			continue
		}
		got := res.Unresolved
		if got == "" {
			got = joinTimes(res.Instances, schedule.UTC)
		}
		if got != tc.want {
			t.Errorf("%s..%s = %s, want %s", tc.start, tc.end, got, tc.want)
		}
	}
}

func TestParseFrequencyEL(t *testing.T) {
	tests := []struct {
		text string
		want string
		n    int
		unit schedule.Unit
		end  schedule.EndOfDuration
	}{
		{"${coord:days(1)}", "${coord:days(1)}", 1, schedule.Day, schedule.NoEnd},
		{"${coord:hours(2) * 3}", "360", 360, schedule.Minute, schedule.NoEnd},
		{"${coord:endOfMonths(n)}", "${coord:endOfMonths(2)}", 2, schedule.Month, schedule.EndOfMonth},
		{"${coord:endOfWeeks(1)}", "${coord:endOfWeeks(1)}", 1, schedule.Week, schedule.EndOfWeek},
		{"1440", "1440", 1440, schedule.Minute, schedule.NoEnd},
		{"${cron}", "0 10 * * *", 0, schedule.CronUnit, schedule.NoEnd},
	}
	vars := el.MapVars{"n": "2", "cron": "0 10 * * *"}
	for _, tc := range tests {
		f, err := ParseFrequency(tc.text, vars)
		if err != nil || f.N != tc.n || f.Unit != tc.unit || f.End != tc.end || f.String() != tc.want {
			t.Errorf("ParseFrequency(%q) = %+v (%s), %v", tc.text, f, f, err)
		}
	}
	for _, bad := range []string{"${coord:days(0)}", "${coord:daysInMonth(1)}", "abc", "0 10 30 2 *", "${'x'}"} {
		if f, err := ParseFrequency(bad, vars); err == nil {
			t.Errorf("ParseFrequency(%q) = %+v, want an error", bad, f)
		}
	}
}

// With a GMT-offset processing zone, datetimes are read and printed with
// the offset (spec: coord 4.1), and URI templates use the processing zone's fields.
func TestProcessingZoneOffset(t *testing.T) {
	pz, err := schedule.ParseProcessingZone("GMT+0530")
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	ctx.Processing = pz
	got, err := EvalAndWrap(PhaseActionCreate, ctx, `${coord:current(0)} ${coord:formatTime("2009-09-09T05:29+0530", "HH:mm")}`)
	if err != nil || got != "2009-09-10T05:29+0530 05:29" {
		t.Errorf("got %q, %v", got, err)
	}
	res, err := ResolveRange(ctx, "${coord:current(0)}", "${coord:current(0)}")
	if err != nil || len(res.URIs) != 1 || res.URIs[0] != "file:///data/2009/09/10" {
		t.Errorf("URIs %v, %v", res.URIs, err)
	}
}
