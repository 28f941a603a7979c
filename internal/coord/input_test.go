package coord

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/schedule"
)

const hourlyDS = `<dataset name="a" frequency="${coord:hours(1)}" initial-instance="2009-01-01T00:00Z" timezone="UTC"><uri-template>hdfs://nn/a/${YEAR}${MONTH}${DAY}${HOUR}</uri-template></dataset>`

func inputApp(t *testing.T, timeout string) (*App, *ActionPlan) {
	t.Helper()
	xml := app("0.2", `name="c" frequency="${coord:hours(1)}" start="2009-01-01T10:00Z" end="2009-01-01T12:00Z" timezone="UTC"`,
		`<controls><timeout>`+timeout+`</timeout></controls><datasets>`+hourlyDS+`</datasets>
<input-events>
 <data-in name="in" dataset="a"><instance>${coord:latest(0)}</instance></data-in>
 <data-in name="r" dataset="a"><start-instance>${coord:current(-2)}</start-instance><end-instance>${coord:current(0)}</end-instance></data-in>
</input-events>
<action><workflow><app-path>${nn}/wf</app-path><configuration>
 <property><name>inA</name><value>${coord:dataIn('in')}</value></property>
 <property><name>inR</name><value>${coord:dataIn('r')}</value></property>
 <property><name>hour</name><value>${coord:formatTime(coord:nominalTime(), 'yyyy/MM/dd HH')}</value></property>
 <property><name>tomorrow</name><value>${coord:dateOffset(coord:nominalTime(), 1, 'DAY')}</value></property>
 <property><name>who</name><value>${coord:user()}-${coord:conf('x.y')}</value></property>
 <property><name>id</name><value>${coord:actionId()}</value></property>
 <property><name>created</name><value>${coord:actualTime()}</value></property>
</configuration></workflow></action>`)
	a, job, err := submit(t, xml, map[string]string{"nn": "hdfs://nn", "x.y": "z", PropACL: "ops"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.Materialize(PlanState{}, PlanOptions{Now: mustTime(t, "2009-01-01T10:30Z"), Window: time.Hour}, job)
	if err != nil || len(p.Actions) != 1 {
		t.Fatalf("%v %v", p, err)
	}
	act := p.Actions[0]
	act.ID = "0000001-090101000000000-gozie-C@1"
	if !slices.Equal(act.Unresolved, []string{"${coord:latestRange(0,0)}"}) || len(act.Dependencies) != 3 {
		t.Fatalf("unresolved %v dependencies %v", act.Unresolved, act.Dependencies)
	}
	// The stored action shows what materialization resolves; the data,
	// latest/future and actionId functions wait for the start.
	for _, want := range []string{
		"<unresolved-instances>${coord:latestRange(0,0)}</unresolved-instances>",
		"<uris>hdfs://nn/a/2009010110#hdfs://nn/a/2009010109#hdfs://nn/a/2009010108</uris>",
		"<value>${coord:dataIn('in')}</value>",
		"<value>2009/01/01 10</value>",
		"<value>2009-01-02T10:00Z</value>",
		"<value>joe-z</value>",
		"<value>${coord:actionId()}</value>",
		"<app-path>hdfs://nn/wf</app-path>",
	} {
		if !strings.Contains(act.ActionXML, want) {
			t.Errorf("action XML lacks %s:\n%s", want, act.ActionXML)
		}
	}
	return a, act
}

func existing(uris ...string) func(string) (bool, error) {
	return func(u string) (bool, error) { return slices.Contains(uris, u), nil }
}

func TestCheckInputs(t *testing.T) {
	flag := func(h string) string { return "hdfs://nn/a/20090101" + h + "/_SUCCESS" }
	created := "2009-01-01T10:30Z"
	rows := []struct {
		name, timeout, now string
		exists             []string
		missing            []string
		ready, timedOut    bool
	}{
		{"all there", "10", created, []string{flag("08"), flag("09"), flag("10")}, nil, true, false},
		// latest(0) finds 10:00; the range stops at the first missing (09)
		// and reports everything after it.
		{"stop at first missing", "10", created, []string{flag("07"), flag("08"), flag("10")}, []string{flag("09"), flag("08")}, false, false},
		{"latest unresolved", "10", created, nil, []string{flag("10"), flag("09"), flag("08"), "${coord:latestRange(0,0)}"}, false, false},
		{"waited 10 minutes", "10", "2009-01-01T10:40Z", nil, nil, false, false},
		{"waited 11 minutes", "10", "2009-01-01T10:41Z", nil, nil, false, true},
		{"timeout 0", "0", created, nil, nil, false, true},
		{"timeout -1", "-1", "2010-01-01T00:00Z", nil, nil, false, false},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			a, p := inputApp(t, r.timeout)
			res, err := a.CheckInputs(p, nil, existing(r.exists...), mustTime(t, r.now))
			if err != nil {
				t.Fatal(err)
			}
			if r.missing != nil && !slices.Equal(res.Missing, r.missing) {
				t.Errorf("missing %v, want %v", res.Missing, r.missing)
			}
			if res.Ready != r.ready || res.TimedOut != r.timedOut {
				t.Errorf("ready %v timed out %v, want %v %v", res.Ready, res.TimedOut, r.ready, r.timedOut)
			}
			if len(p.Unresolved) != 1 {
				t.Errorf("CheckInputs changed the caller's plan")
			}
		})
	}
}

func TestRunConf(t *testing.T) {
	a, p := inputApp(t, "10")
	props := submitProps(t)
	res, err := a.CheckInputs(p, props, existing("hdfs://nn/a/2009010109/_SUCCESS"), mustTime(t, "2009-01-01T10:31Z"))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Plan.InputURIs["in"]; !slices.Equal(got, []string{"hdfs://nn/a/2009010109"}) {
		t.Fatalf("latest(0) resolved to %v, want the 09:00 instance", got)
	}
	rc, err := a.RunConf(res.Plan, props)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		PropWfAppPath: "hdfs://nn/wf",
		"inA":         "hdfs://nn/a/2009010109",
		"inR":         "hdfs://nn/a/2009010110,hdfs://nn/a/2009010109,hdfs://nn/a/2009010108",
		"hour":        "2009/01/01 10",
		"tomorrow":    "2009-01-02T10:00Z",
		"who":         "joe-z",
		"id":          "0000001-090101000000000-gozie-C@1",
		"created":     "2009-01-01T10:30Z",
		PropUser:      "joe",
		PropACL:       "ops",
	}
	for k, v := range want {
		if got, _ := rc.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	// Before resolution coord:dataIn of a latest input stays as EL.
	rc, err = a.RunConf(p, props)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := rc.Get("inA"); got != "${coord:dataIn('in')}" {
		t.Errorf("unresolved inA = %q", got)
	}
}

func submitProps(t *testing.T) *conf.Config {
	t.Helper()
	return conf.FromMap(map[string]string{PropUser: "joe", "nn": "hdfs://nn", "x.y": "z", PropACL: "ops"})
}

func TestCheckInputsExistsError(t *testing.T) {
	a, p := inputApp(t, "10")
	boom := errors.New("namenode down")
	_, err := a.CheckInputs(p, nil, func(string) (bool, error) { return false, boom }, mustTime(t, "2009-01-01T10:31Z"))
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want the file system's", err)
	}
}

func TestDecide(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2009, 1, 1, h, 0, 0, 0, time.UTC) }
	acts := []ActionState{
		{1, at(0), StatusWaiting}, {2, at(1), StatusReady}, {3, at(2), StatusReady},
		{4, at(3), "RUNNING"}, {5, at(4), StatusReady},
	}
	rows := []struct {
		exec        string
		concurrency int
		running     int
		now         time.Time
		submit      []int
		skip        []int
	}{
		{FIFO, 2, 1, at(5), []int{2}, nil},
		{FIFO, 1, 1, at(5), nil, nil},
		{LIFO, 2, 0, at(5), []int{5, 3}, nil},
		{FIFO, -1, 1, at(5), []int{2, 3, 5}, nil},
		// LAST_ONLY: an action is skipped once the next one is due.
		{LastOnly, 3, 0, at(2).Add(30 * time.Minute), []int{3, 5}, []int{1, 2}},
		// NONE: skipped one minute after the nominal time.
		{None, 3, 0, at(4).Add(time.Minute), []int{5}, []int{1, 2, 3}},
		{None, 3, 0, at(4).Add(time.Minute + time.Second), nil, []int{1, 2, 3, 5}},
	}
	for _, r := range rows {
		a := &App{Start: at(0), End: at(10), Location: time.UTC, Execution: r.exec, Concurrency: r.concurrency}
		a.Freq = schedule.Frequency{N: 60, Unit: schedule.Minute}
		d := a.Decide(acts, r.running, r.now)
		if !slices.Equal(d.Submit, r.submit) || !slices.Equal(d.Skip, r.skip) {
			t.Errorf("%s c=%d running=%d now=%v: submit %v skip %v, want %v %v", r.exec, r.concurrency, r.running, r.now, d.Submit, d.Skip, r.submit, r.skip)
		}
	}
}

func TestDryRunText(t *testing.T) {
	res, err := dryRunXML(t, app("0.2", `name="c" frequency="${coord:days(1)}" start="2009-01-01T00:00Z" end="2009-01-03T00:00Z" timezone="UTC"`, ""), nil, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	text := DryRunText(res)
	parts := strings.Split(text, "action for new instance")
	if len(parts) != 3 || parts[0] != res.App.Definition+"\n***actions for instance***" {
		t.Fatalf("dry-run text:\n%s", text)
	}
	for i, p := range parts[1:] {
		if !strings.HasPrefix(p, "<coordinator-app") || !strings.Contains(p, `instance-number="`+string(rune('1'+i))+`"`) {
			t.Errorf("action %d:\n%s", i+1, p)
		}
	}
}
