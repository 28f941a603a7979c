package coord

import (
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/conf"

	"github.com/gozie/gozie/internal/schedule"
)

// Issue 13 point 1: coord:hoursInDay(n) and coord:daysInMonth(n) step n
// times the dataset's frequency in the dataset's unit, as Oozie does, not n
// days or n months.
func TestHoursInDayDaysInMonthStepByDatasetFrequency(t *testing.T) {
	la, _ := schedule.LoadZone("America/Los_Angeles")
	rows := []struct {
		name    string
		freq    int
		unit    schedule.Unit
		nominal string
		n       int
		hours   int // hoursInDay(n)
		days    int // daysInMonth(n)
	}{
		// An hourly dataset (60 minutes): -1 is the previous hour, still
		// 2009-03-08 local (the 23-hour DST day), not 2009-03-07.
		{"hourly -1", 60, schedule.Minute, "2009-03-08T20:00Z", -1, 23, 31},
		// Daily with frequency 2: n=1 is two days later.
		{"2 days +1", 2, schedule.Day, "2009-03-06T20:00Z", 1, 23, 31},
		// Monthly with frequency 3: n=-1 is three months earlier (2008-12).
		{"3 months -1", 3, schedule.Month, "2009-03-15T20:00Z", -1, 24, 31},
		// Monthly with frequency 1: n=-1 is the month before (2009-02).
		{"1 month -1", 1, schedule.Month, "2009-03-15T20:00Z", -1, 24, 28},
	}
	for _, r := range rows {
		ds := &Dataset{Frequency: r.freq, Unit: r.unit, InitialInstance: parse(t, "2008-01-01T08:00Z"), Location: la}
		act := &Action{NominalTime: parse(t, r.nominal), Location: la}
		in := Instances{DS: ds, Action: act}
		h, err := in.HoursInDay(r.n)
		if err != nil || h != r.hours {
			t.Errorf("%s: hoursInDay(%d) = %d, %v; want %d", r.name, r.n, h, err, r.hours)
		}
		d, err := in.DaysInMonth(r.n)
		if err != nil || d != r.days {
			t.Errorf("%s: daysInMonth(%d) = %d, %v; want %d", r.name, r.n, d, err, r.days)
		}
	}
}

// firstAction submits xml with props and materializes its first action.
func firstAction(t *testing.T, xml string, props map[string]string) (*ActionPlan, error) {
	t.Helper()
	a, job, err := submit(t, xml, props, nil)
	if err != nil {
		return nil, err
	}
	plan, err := a.Materialize(PlanState{}, PlanOptions{Now: a.Start}, job)
	if err != nil {
		return nil, err
	}
	if len(plan.Actions) == 0 {
		t.Fatal("no action materialized")
	}
	return plan.Actions[0], nil
}

const hourDayDS = `<datasets><dataset name="h" frequency="${coord:hours(1)}" initial-instance="2009-01-01T00:00Z" timezone="UTC"><uri-template>hdfs://nn/h/${YEAR}${MONTH}${DAY}${HOUR}${MINUTE}</uri-template></dataset>
<dataset name="d" frequency="${coord:days(1)}" initial-instance="2009-01-01T00:00Z" timezone="UTC"><uri-template>hdfs://nn/d/${YEAR}${MONTH}${DAY}</uri-template></dataset></datasets>`

// instanceApp is a job starting 2009-01-02T10:30Z (not on an hourly
// boundary of dataset h) with one data-in and one data-out.
func instanceApp(in, out string) string {
	return app("0.4", `name="c" frequency="${coord:days(1)}" start="2009-01-02T10:30Z" end="2009-01-05T00:00Z" timezone="UTC"`,
		hourDayDS+`<input-events><data-in name="in" dataset="h">`+in+`</data-in></input-events>`+
			`<output-events><data-out name="out" dataset="d">`+out+`</data-out></output-events>`)
}

// Issue 13 points 2, 3 and 4: single <instance>s that fall between
// instances round down; instance text given through a property is parsed
// like literal text; coord:dateOffset/dateTzOffset nest in coord:absolute.
func TestSingleInstanceForms(t *testing.T) {
	rows := []struct {
		name     string
		in, out  string
		props    map[string]string
		wantIn   string
		wantOut  string
		wantCode string
	}{
		{name: "offset rounds down (data-in)",
			in:     `<instance>${coord:offset(-90, "MINUTE")}</instance>`,
			out:    `<instance>${coord:current(0)}</instance>`,
			wantIn: "hdfs://nn/h/200901020800", wantOut: "hdfs://nn/d/20090102"},
		{name: "offset rounds down (data-out)",
			in:     `<instance>${coord:current(0)}</instance>`,
			out:    `<instance>${coord:offset(30, "HOUR")}</instance>`,
			wantIn: "hdfs://nn/h/200901021000", wantOut: "hdfs://nn/d/20090103"},
		{name: "offset on a boundary",
			in:     `<instance>${coord:offset(-60, "MINUTE")}</instance>`,
			out:    `<instance>${coord:current(0)}</instance>`,
			wantIn: "hdfs://nn/h/200901020900", wantOut: "hdfs://nn/d/20090102"},
		{name: "range ends through properties",
			in:     `<start-instance>${startInst}</start-instance><end-instance>${endInst}</end-instance>`,
			out:    `<instance>${outInst}</instance>`,
			props:  map[string]string{"startInst": "coord:offset(-2,HOUR)", "endInst": "${coord:current(0)}", "outInst": "coord:offset(-1,DAY)"},
			wantIn: "hdfs://nn/h/200901021000#hdfs://nn/h/200901020900#hdfs://nn/h/200901020800", wantOut: "hdfs://nn/d/20090101"},
		{name: "absolute through a property",
			in:     `<start-instance>${startInst}</start-instance><end-instance>${coord:current(-9)}</end-instance>`,
			out:    `<instance>${outInst}</instance>`,
			props:  map[string]string{"startInst": "coord:absolute('2009-01-02T00:00Z')", "outInst": "coord:endOfMonths(-1)"},
			wantIn: "hdfs://nn/h/200901020100#hdfs://nn/h/200901020000", wantOut: "hdfs://nn/d/20090101"},
		{name: "datetime through a property",
			in:     `<instance>${inInst}</instance>`,
			out:    `<instance>${coord:current(0)}</instance>`,
			props:  map[string]string{"inInst": "2009-01-01T05:00Z"},
			wantIn: "hdfs://nn/h/200901010500", wantOut: "hdfs://nn/d/20090102"},
		{name: "dateOffset nested in absolute",
			in:     `<start-instance>${coord:absolute(coord:dateOffset(coord:nominalTime(), -150, 'MINUTE'))}</start-instance><end-instance>${coord:current(-1)}</end-instance>`,
			out:    `<instance>${coord:absolute(coord:dateTzOffset('2009-01-01T00:00Z', 'Asia/Kolkata'))}</instance>`,
			wantIn: "hdfs://nn/h/200901020900#hdfs://nn/h/200901020800", wantOut: "hdfs://nn/d/2009010105"},
		{name: "a marker never leaks into an error",
			in:       `<instance>${coord:absolute(coord:current(0))}</instance>`,
			out:      `<instance>${coord:current(0)}</instance>`,
			wantCode: "E1010"},
		{name: "a marker never leaks into an error (text around a call)",
			in:       `<instance>${coord:current(0)}/x</instance>`,
			out:      `<instance>${coord:current(0)}</instance>`,
			wantCode: "E1010"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			x := instanceApp(r.in, r.out)
			if r.name == "dateOffset nested in absolute" {
				x = strings.Replace(x, "${DAY}</uri-template></dataset></datasets>", "${DAY}${HOUR}</uri-template></dataset></datasets>", 1)
			}
			p, err := firstAction(t, x, r.props)
			if r.wantCode != "" {
				if ErrorCode(err) != r.wantCode || strings.ContainsAny(err.Error(), "\x00\x01") || strings.Contains(err.Error(), `\x00`) {
					t.Fatalf("err = %q, want code %s and no marker", err, r.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(p.InputURIs["in"], "#"); got != r.wantIn {
				t.Errorf("in = %s, want %s", got, r.wantIn)
			}
			if got := strings.Join(p.OutputURIs["out"], "#"); got != r.wantOut {
				t.Errorf("out = %s, want %s", got, r.wantOut)
			}
		})
	}
}

// Issue 13 points 4 (initial-instance), 5 and 7: coord:dateOffset and
// coord:dateTzOffset in a dataset's initial-instance (Oozie's
// coord-job-submit-initial-instance group), EL in the dataset attribute of
// an event, and include files without a namespace.
func TestSubmitDatasetForms(t *testing.T) {
	inc := `<datasets><dataset name="x" frequency="${coord:days(1)}" initial-instance="2009-01-01T00:00Z" timezone="UTC"><uri-template>hdfs://nn/x/${YEAR}${MONTH}${DAY}</uri-template></dataset></datasets>`
	rows := []struct {
		name     string
		body     string
		props    map[string]string
		files    map[string]string
		ds       string // dataset of event "in"
		initial  string // its initial instance
		wantCode string
	}{
		{name: "dateOffset in initial-instance",
			body:  `<datasets><dataset name="a" frequency="${coord:days(1)}" initial-instance="${coord:dateOffset(startTime, -2, 'DAY')}" timezone="UTC"><uri-template>hdfs://nn/a</uri-template></dataset></datasets><input-events><data-in name="in" dataset="a"><instance>${coord:current(0)}</instance></data-in></input-events>`,
			props: map[string]string{"startTime": "2009-01-01T00:00Z"}, ds: "a", initial: "2008-12-30T00:00Z"},
		{name: "dateTzOffset in initial-instance",
			body: `<datasets><dataset name="a" frequency="${coord:days(1)}" initial-instance="${coord:dateTzOffset('2009-01-01T00:00Z', 'America/New_York')}" timezone="UTC"><uri-template>hdfs://nn/a</uri-template></dataset></datasets><input-events><data-in name="in" dataset="a"><instance>${coord:current(0)}</instance></data-in></input-events>`,
			ds:   "a", initial: "2008-12-31T19:00Z"},
		{name: "EL in the dataset attribute",
			body:  `<datasets><dataset name="a-1" frequency="${coord:days(1)}" initial-instance="2009-01-01T00:00Z" timezone="UTC"><uri-template>hdfs://nn/a</uri-template></dataset></datasets><input-events><data-in name="in" dataset="${dsName}-1"><instance>${coord:current(0)}</instance></data-in></input-events>`,
			props: map[string]string{"dsName": "a"}, ds: "a-1", initial: "2009-01-01T00:00Z"},
		{name: "include without a namespace",
			body:  `<datasets><include>ds.xml</include></datasets><input-events><data-in name="in" dataset="x"><instance>${coord:current(0)}</instance></data-in></input-events>`,
			files: map[string]string{"/app/ds.xml": inc}, ds: "x", initial: "2009-01-01T00:00Z"},
		{name: "include with a foreign root still refused",
			body:     `<datasets><include>ds.xml</include></datasets>`,
			files:    map[string]string{"/app/ds.xml": `<datasets xmlns="uri:other"/>`},
			wantCode: "E0701"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			a, _, err := submit(t, app("0.4", "", r.body), r.props, r.files)
			if r.wantCode != "" {
				if ErrorCode(err) != r.wantCode {
					t.Fatalf("err = %v, want %s", err, r.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Inputs) != 1 || a.Inputs[0].DS == nil || a.Inputs[0].DS.Name != r.ds {
				t.Fatalf("input dataset = %+v, want %s", a.Inputs, r.ds)
			}
			if got := format(a.Inputs[0].DS.InitialInstance); got != r.initial {
				t.Errorf("initial-instance = %s, want %s", got, r.initial)
			}
			if _, err := Load(a.Definition, conf.FromMap(r.props)); err != nil {
				t.Errorf("Load(definition): %v", err)
			}
		})
	}
}

// Issue 13 point 9: reserved names as job properties (or in
// config-default.xml, with user.name) are refused with E0808.
func TestSubmitDisallowedProperties(t *testing.T) {
	rows := []struct {
		props    map[string]string
		files    map[string]string
		wantCode string
	}{
		{props: map[string]string{"HOUR": "1"}, wantCode: "E0808"},
		{props: map[string]string{"YEAR": "2009"}, wantCode: "E0808"},
		{props: map[string]string{"MINUTES": "1"}, wantCode: "E0808"},
		{props: map[string]string{"GB": "1"}, wantCode: "E0808"},
		{props: map[string]string{"REDUCE_OUT": "1"}, wantCode: "E0808"},
		{files: map[string]string{"/app/config-default.xml": `<configuration><property><name>DAY</name><value>1</value></property></configuration>`}, wantCode: "E0808"},
		{files: map[string]string{"/app/config-default.xml": `<configuration><property><name>user.name</name><value>x</value></property></configuration>`}, wantCode: "E0808"},
		{props: map[string]string{"hour": "1", "HOURLY": "1"}},
	}
	for _, r := range rows {
		_, _, err := submit(t, app("0.4", "", ""), r.props, r.files)
		if ErrorCode(err) != r.wantCode || (r.wantCode != "" && !strings.Contains(err.Error(), "Disallowed user property")) {
			t.Errorf("props %v files %v: err = %v, want code %q", r.props, r.files, err, r.wantCode)
		}
	}
}

// Issue 13 point 6 (coord:latest/coord:future in an output event) is
// TestOutputLatestFuture in conform26_test.go: issue 26 point 6 follows
// Oozie's input check more closely.

// Issue 13 point 10: missingDependencies put Oozie's "!!" between the
// absent URIs and the unresolved latest/future instances.
func TestMissingDependenciesMarker(t *testing.T) {
	rows := []struct {
		in   string
		want string
	}{
		{`<instance>${coord:current(0)}</instance><instance>${coord:latest(0)}</instance>`,
			"hdfs://nn/h/200901021000/_SUCCESS!!${coord:latestRange(0,0)}"},
		{`<instance>${coord:latest(-1)}</instance>`, "!!${coord:latestRange(-1,-1)}"},
		{`<instance>${coord:current(0)}</instance>`, "hdfs://nn/h/200901021000/_SUCCESS"},
	}
	for _, r := range rows {
		a, job, err := submit(t, instanceApp(r.in, `<instance>${coord:current(0)}</instance>`), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := a.Materialize(PlanState{}, PlanOptions{Now: a.Start}, job)
		if err != nil {
			t.Fatal(err)
		}
		res, err := a.CheckInputs(plan.Actions[0], job, nil, a.Start)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.MissingDependencies(); got != r.want {
			t.Errorf("%s: missingDependencies = %q, want %q", r.in, got, r.want)
		}
	}
}

// Issue 13 point 10: demark turns internal markers back into calls,
// nested ones too, and leaves no marker byte.
func TestDemark(t *testing.T) {
	rows := []struct{ in, want string }{
		{"invalid datetime \"" + markStart + "current" + markSep + "0" + markEnd + "\"", `invalid datetime "coord:current(0)"`},
		{markStart + "absolute" + markSep + markStart + "current" + markSep + "0" + markEnd + markEnd + "/x", "coord:absolute(coord:current(0))/x"},
		{markStart + "offset" + markSep + "-1" + markSep + "DAY" + markEnd, "coord:offset(-1, DAY)"},
		{"stray " + markStart + "x" + markSep, "stray x"},
	}
	for _, r := range rows {
		if got := demark(r.in); got != r.want {
			t.Errorf("demark(%q) = %q, want %q", r.in, got, r.want)
		}
	}
}
