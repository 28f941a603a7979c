package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func runCmd(t *testing.T, run func([]string, *bytes.Buffer, *bytes.Buffer) int, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func times(args []string, out, errb *bytes.Buffer) int { return runTimes(args, out, errb) }
func info(args []string, out, errb *bytes.Buffer) int  { return runInfo(args, out, errb) }

func TestTimesJSONAcrossDST(t *testing.T) {
	code, out, errs := runCmd(t, times, "-frequency", "${coord:days(1)}", "-start", "2009-03-07T08:00Z",
		"-timezone", "America/Los_Angeles", "-n", "3", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Times []struct {
			UTC           string `json:"utc"`
			Local         string `json:"local"`
			OffsetMinutes int    `json:"offsetMinutes"`
			DST           bool   `json:"dst"`
		} `json:"times"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := []struct {
		utc, local string
		off        int
	}{
		{"2009-03-07T08:00Z", "2009-03-07T00:00-0800", -480},
		{"2009-03-08T08:00Z", "2009-03-08T00:00-0800", -480},
		{"2009-03-09T07:00Z", "2009-03-09T00:00-0700", -420},
	}
	if len(got.Times) != len(want) {
		t.Fatalf("got %d times: %s", len(got.Times), out)
	}
	for i, w := range want {
		g := got.Times[i]
		if g.UTC != w.utc || g.Local != w.local || g.OffsetMinutes != w.off {
			t.Errorf("time %d = %+v, want %+v", i, g, w)
		}
	}
	if !got.Times[2].DST || got.Times[0].DST {
		t.Errorf("DST flags wrong: %s", out)
	}
}

func TestTimesText(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"-frequency", "${coord:endOfMonths(1)}", "-start", "2009-01-15T08:00Z", "-timezone", "America/Los_Angeles", "-end", "2009-05-01T00:00Z"},
			[]string{"2009-02-01T08:00Z  2009-02-01T00:00-0800 PST (America/Los_Angeles)", "2009-03-01T08:00Z  2009-03-01T00:00-0800 PST (America/Los_Angeles)", "2009-04-01T07:00Z  2009-04-01T00:00-0700 PDT (America/Los_Angeles)  DST"}},
		{[]string{"-frequency", "0 10,13 * * MON-FRI", "-start", "2013-01-01T00:00Z", "-n", "2"},
			[]string{"2013-01-01T10:00Z  2013-01-01T10:00+0000 UTC (UTC)", "2013-01-01T13:00Z  2013-01-01T13:00+0000 UTC (UTC)"}},
		{[]string{"-frequency", "60", "-start", "2009-01-01T00:00Z", "-n", "2", "-timezone", "GMT+05:30"},
			[]string{"2009-01-01T00:00Z  2009-01-01T05:30+0530 GMT+05:30 (GMT+05:30)", "2009-01-01T01:00Z  2009-01-01T06:30+0530 GMT+05:30 (GMT+05:30)"}},
		{[]string{"-convert", "2009-03-08T10:00Z", "-timezone", "America/Los_Angeles"},
			[]string{"2009-03-08T10:00Z  2009-03-08T03:00-0700 PDT (America/Los_Angeles)  daylight saving time in effect"}},
		{[]string{"-convert", "2009-08-10T13:10+0530", "-processing-timezone", "GMT+0530", "-timezone", "UTC"},
			[]string{"2009-08-10T07:40Z  2009-08-10T07:40+0000 UTC (UTC)  standard time"}},
	}
	for _, tc := range tests {
		code, out, errs := runCmd(t, times, tc.args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", tc.args, code, errs)
			continue
		}
		if got := strings.Split(strings.TrimSpace(out), "\n"); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%v:\n got  %q\n want %q", tc.args, got, tc.want)
		}
	}
}

func TestTimesErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-start", "2009-01-01T00:00Z"}, exitUsage, "-frequency and -start are required"},
		{[]string{"-frequency", "60", "-start", "2009-02-30T00:00Z"}, exitUsage, "day must be"},
		{[]string{"-frequency", "0 10 30 2 *", "-start", "2009-01-01T00:00Z"}, exitFail, "never fires"},
		{[]string{"-frequency", "0 10 * * *", "-start", "2013-10-18T21:00Z", "-end", "2013-10-18T22:00Z"}, exitFail, "materializes no actions"},
		{[]string{"-frequency", "${coord:days(0)}", "-start", "2009-01-01T00:00Z"}, exitFail, "must be positive"},
		{[]string{"-frequency", "60", "-start", "2009-01-01T00:00Z", "-timezone", "Mars/Olympus"}, exitUsage, "invalid time zone"},
		{[]string{"-convert", "2009-01-01T00:00Z", "-frequency", "60"}, exitUsage, "cannot be combined"},
	}
	for _, tc := range tests {
		code, _, errs := runCmd(t, times, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d with %q", tc.args, code, errs, tc.code, tc.msg)
		}
	}
}

func TestInfoTimezones(t *testing.T) {
	code, out, errs := runCmd(t, info, "-timezones")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{`The format is "SHORT_NAME (ID)"`, "Available Time Zones:", "      PST (America/Los_Angeles)", "(Asia/Kolkata)", "      GMT+05:00 (GMT+05:00)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out, "(Etc/GMT") {
		t.Error("Etc/GMT* zones listed")
	}
	if code, _, _ := runCmd(t, info); code != exitUsage {
		t.Errorf("info without -timezones: exit %d", code)
	}
}
