package coord

import (
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/schedule"
)

// The coordinator application examples of spec sections 6.1.4, 6.6.3 and 7,
// submitted and dry-run end to end.

// dryRunXML dry-runs coordinator.xml text (plus extra files) with props.
func dryRunXML(t *testing.T, xml string, props map[string]string, files map[string]string, exists func(string) (bool, error), limit int) (*DryRunResult, error) {
	t.Helper()
	all := map[string]string{"/app/coordinator.xml": xml}
	for k, v := range files {
		all[k] = v
	}
	c := conf.FromMap(props)
	c.Set(PropUser, "joe")
	c.Set(PropAppPath, "hdfs://foo:8020/app")
	return DryRun(c, SubmitOptions{ReadFile: memFiles(all), Now: mustTime(t, "2025-01-01T00:00Z")}, exists, limit)
}

func runConfOf(t *testing.T, da DryRunAction) *conf.Config {
	t.Helper()
	c, err := conf.ParseXML(strings.NewReader(da.RunConf), "runConf")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func get(c *conf.Config, name string) string { v, _ := c.Get(name); return v }

const helloDatasets = `<datasets>
 <dataset name="logs" frequency="${coord:days(1)}" initial-instance="2009-01-02T08:00Z" timezone="America/Los_Angeles">
  <uri-template>hdfs://bar:8020/app/logs/${YEAR}${MONTH}/${DAY}/data</uri-template>
 </dataset>
 <dataset name="siteAccessStats" frequency="${coord:days(1)}" initial-instance="2009-01-02T08:00Z" timezone="America/Los_Angeles">
  <uri-template>hdfs://bar:8020/app/stats/${YEAR}/${MONTH}/${DAY}/data</uri-template>
 </dataset>
</datasets>`

const helloAction = `<action><workflow>
 <app-path>hdfs://bar:8020/usr/joe/logsprocessor-wf</app-path>
 <configuration>
  <property><name>wfInput</name><value>${coord:dataIn('input')}</value></property>
  <property><name>wfOutput</name><value>${coord:dataOut('output')}</value></property>
 </configuration>
</workflow></action>`

// spec: coord 6.1.4 example 1: a single action with literal instances. The spec
// writes end equal to start, which section 11 (and Oozie) reject, so the
// job here ends a day later.
func TestSpecHelloCoordSingleAction(t *testing.T) {
	xml := func(end string) string {
		return `<coordinator-app name="hello-coord" frequency="${coord:days(1)}" start="2009-01-02T08:00Z" end="` + end + `" timezone="America/Los_Angeles" xmlns="uri:oozie:coordinator:0.1">` +
			helloDatasets + `<input-events><data-in name="input" dataset="logs"><instance>2009-01-02T08:00Z</instance></data-in></input-events>
<output-events><data-out name="output" dataset="siteAccessStats"><instance>2009-01-02T08:00Z</instance></data-out></output-events>` + helloAction + `</coordinator-app>`
	}
	if _, err := dryRunXML(t, xml("2009-01-02T08:00Z"), nil, nil, nil, 0); ErrorCode(err) != CodeInvalidAttrs {
		t.Fatalf("start == end: %v, want E1003", err)
	}
	res, err := dryRunXML(t, xml("2009-01-03T08:00Z"), nil, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Actions) != 1 {
		t.Fatalf("%d actions, want 1", len(res.Actions))
	}
	rc := runConfOf(t, res.Actions[0])
	for name, want := range map[string]string{
		PropWfAppPath: "hdfs://bar:8020/usr/joe/logsprocessor-wf",
		"wfInput":     "hdfs://bar:8020/app/logs/200901/02/data",
		"wfOutput":    "hdfs://bar:8020/app/stats/2009/01/02/data",
		PropUser:      "joe",
	} {
		if got := get(rc, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if res.Actions[0].Status != StatusWaiting || strings.Join(res.Actions[0].Missing, "#") != "hdfs://bar:8020/app/logs/200901/02/data/_SUCCESS" {
		t.Errorf("status %s missing %v, want WAITING on the _SUCCESS flag", res.Actions[0].Status, res.Actions[0].Missing)
	}
}

// spec: coord 6.1.4 example 2: a year of daily actions at 00:00 Los Angeles.
func TestSpecHelloCoordYear(t *testing.T) {
	xml := `<coordinator-app name="hello-coord" frequency="${coord:days(1)}" start="2009-01-02T08:00Z" end="2010-01-02T08:00Z" timezone="America/Los_Angeles" xmlns="uri:oozie:coordinator:0.1">` +
		helloDatasets + `<input-events><data-in name="input" dataset="logs"><instance>${coord:current(0)}</instance></data-in></input-events>
<output-events><data-out name="output" dataset="siteAccessStats"><instance>${coord:current(0)}</instance></data-out></output-events>` + helloAction + `</coordinator-app>`
	res, err := dryRunXML(t, xml, nil, nil, func(string) (bool, error) { return true, nil }, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Actions) != 365 {
		t.Fatalf("%d actions, want 365", len(res.Actions))
	}
	rows := []struct {
		i                int
		nominal, in, out string
	}{
		{0, "2009-01-02T08:00Z", "hdfs://bar:8020/app/logs/200901/02/data", "hdfs://bar:8020/app/stats/2009/01/02/data"},
		{1, "2009-01-03T08:00Z", "hdfs://bar:8020/app/logs/200901/03/data", "hdfs://bar:8020/app/stats/2009/01/03/data"},
		// After the spring-forward the action stays at local midnight.
		{70, "2009-03-13T07:00Z", "hdfs://bar:8020/app/logs/200903/13/data", "hdfs://bar:8020/app/stats/2009/03/13/data"},
		{364, "2010-01-01T08:00Z", "hdfs://bar:8020/app/logs/201001/01/data", "hdfs://bar:8020/app/stats/2010/01/01/data"},
	}
	for _, r := range rows {
		da := res.Actions[r.i]
		rc := runConfOf(t, da)
		if got := schedule.FormatTime(da.Plan.NominalTime); got != r.nominal || get(rc, "wfInput") != r.in || get(rc, "wfOutput") != r.out {
			t.Errorf("action %d: %s %s %s, want %s %s %s", r.i+1, got, get(rc, "wfInput"), get(rc, "wfOutput"), r.nominal, r.in, r.out)
		}
		if da.Status != StatusReady {
			t.Errorf("action %d: %s with everything present", r.i+1, da.Status)
		}
	}
}

// spec: coord 6.1.4 example 3: weekly actions over the last 7 daily instances.
// The spec prints its dataset names inconsistently (siteAccessStats for
// weeklySiteAccessStats) and dates in 24:00 notation (2009-01-07T24:00Z is
// 2009-01-08T00:00Z, whose URI says day 08); coord:dataIn lists the range
// newest first, as Oozie does.
func TestSpecWeeklySevenInstances(t *testing.T) {
	xml := `<coordinator-app name="hello2-coord" frequency="${coord:days(7)}" start="2009-01-07T24:00Z" end="2009-12-12T24:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.1">
<datasets>
 <dataset name="logs" frequency="${coord:days(1)}" initial-instance="2009-01-01T24:00Z" timezone="UTC"><uri-template>hdfs://bar:8020/app/logs/${YEAR}${MONTH}/${DAY}</uri-template></dataset>
 <dataset name="weeklySiteAccessStats" frequency="${coord:days(7)}" initial-instance="2009-01-07T24:00Z" timezone="UTC"><uri-template>hdfs://bar:8020/app/weeklystats/${YEAR}/${MONTH}/${DAY}</uri-template></dataset>
</datasets>
<input-events><data-in name="input" dataset="logs"><start-instance>${coord:current(-6)}</start-instance><end-instance>${coord:current(0)}</end-instance></data-in></input-events>
<output-events><data-out name="output" dataset="weeklySiteAccessStats"><instance>${coord:current(0)}</instance></data-out></output-events>` + helloAction + `</coordinator-app>`
	res, err := dryRunXML(t, xml, nil, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	week := func(days ...string) string {
		var out []string
		for i := len(days) - 1; i >= 0; i-- {
			out = append(out, "hdfs://bar:8020/app/logs/"+days[i])
		}
		return strings.Join(out, ",")
	}
	want := []struct{ in, out string }{
		{week("200901/02", "200901/03", "200901/04", "200901/05", "200901/06", "200901/07", "200901/08"), "hdfs://bar:8020/app/weeklystats/2009/01/08"},
		{week("200901/09", "200901/10", "200901/11", "200901/12", "200901/13", "200901/14", "200901/15"), "hdfs://bar:8020/app/weeklystats/2009/01/15"},
	}
	for i, w := range want {
		rc := runConfOf(t, res.Actions[i])
		if get(rc, "wfInput") != w.in || get(rc, "wfOutput") != w.out {
			t.Errorf("action %d:\n got  %s -> %s\n want %s -> %s", i+1, get(rc, "wfInput"), get(rc, "wfOutput"), w.in, w.out)
		}
		if n := len(res.Actions[i].Missing); n != 7 {
			t.Errorf("action %d: %d missing, want all 7", i+1, n)
		}
	}
}

// spec: coord 6.6.3 example: the hourly -> daily pipeline sharing an included
// datasets.xml (the spec's initial instances carry seconds, which the
// datetime format does not allow; they are written without them here).
func TestSpecPipelineWithIncludes(t *testing.T) {
	datasets := `<datasets xmlns="uri:oozie:coordinator:0.1">
 <dataset name="15MinLogs" frequency="${coord:minutes(15)}" initial-instance="2009-01-01T00:15Z" timezone="UTC"><uri-template>hdfs://bar:8020/app/logs/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}</uri-template></dataset>
 <dataset name="1HourLogs" frequency="${coord:hours(1)}" initial-instance="2009-01-01T01:00Z" timezone="UTC"><uri-template>hdfs://bar:8020/app/logs/${YEAR}/${MONTH}/${DAY}/${HOUR}</uri-template></dataset>
 <dataset name="1DayLogs" frequency="${coord:hours(24)}" initial-instance="2009-01-01T24:00Z" timezone="UTC"><uri-template>hdfs://bar:8020/app/logs/${YEAR}/${MONTH}/${DAY}</uri-template></dataset>
</datasets>`
	files := map[string]string{"/app/dataset-definitions/datasets.xml": datasets}
	app := func(name, freq, start, in, from, out string) string {
		return `<coordinator-app name="` + name + `" frequency="` + freq + `" start="` + start + `" end="2009-12-31T24:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.1">
<datasets><include>hdfs://foo:8020/app/dataset-definitions/datasets.xml</include></datasets>
<input-events><data-in name="input" dataset="` + in + `"><start-instance>${coord:current(` + from + `)}</start-instance><end-instance>${coord:current(0)}</end-instance></data-in></input-events>
<output-events><data-out name="output" dataset="` + out + `"><instance>${coord:current(0)}</instance></data-out></output-events>` + helloAction + `</coordinator-app>`
	}
	hourly, err := dryRunXML(t, app("app-coord-hourly", "${coord:hours(1)}", "2009-01-01T01:00Z", "15MinLogs", "-3", "1HourLogs"), nil, files, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	rc := runConfOf(t, hourly.Actions[0])
	if w := "hdfs://bar:8020/app/logs/2009/01/01/01/00,hdfs://bar:8020/app/logs/2009/01/01/00/45,hdfs://bar:8020/app/logs/2009/01/01/00/30,hdfs://bar:8020/app/logs/2009/01/01/00/15"; get(rc, "wfInput") != w {
		t.Errorf("hourly input %s, want 4 quarter-hours %s", get(rc, "wfInput"), w)
	}
	if w := "hdfs://bar:8020/app/logs/2009/01/01/01"; get(rc, "wfOutput") != w {
		t.Errorf("hourly output %s, want %s", get(rc, "wfOutput"), w)
	}
	daily, err := dryRunXML(t, app("app-coord-daily", "${coord:days(1)}", "2009-01-01T24:00Z", "1HourLogs", "-23", "1DayLogs"), nil, files, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := daily.Actions[0].Plan
	// The daily action consumes exactly the outputs of the hourly job's
	// first 24 actions: 01:00 .. 24:00 of 2009-01-01.
	if n := len(p.InputURIs["input"]); n != 24 {
		t.Fatalf("daily input has %d instances, want 24", n)
	}
	if first, last := p.InputURIs["input"][23], p.InputURIs["input"][0]; first != "hdfs://bar:8020/app/logs/2009/01/01/01" || last != "hdfs://bar:8020/app/logs/2009/01/02/00" {
		t.Errorf("daily input from %s to %s", first, last)
	}
	if got := p.OutputURIs["output"]; len(got) != 1 || got[0] != "hdfs://bar:8020/app/logs/2009/01/02" {
		t.Errorf("daily output %v", got)
	}
}

// spec: coord 7 use case 1: daily processing at 00:00 New York of the previous
// day's hourly logs; coord:hoursInDay makes the range 23 or 25 instances
// on DST switch days.
func TestSpecDSTEastCoast(t *testing.T) {
	xml := `<coordinator-app name="eastcoast-processing" frequency="${coord:days(1)}" start="2009-01-02T05:00Z" end="2010-01-02T05:00Z" timezone="America/New_York" xmlns="uri:oozie:coordinator:0.1">
<datasets><dataset name="eastlogs" frequency="${coord:hours(1)}" initial-instance="2009-01-01T06:00Z" timezone="America/New_York"><uri-template>hdfs://bar:8020/app/logs/eastcoast/${YEAR}/${MONTH}/${DAY}/${HOUR}</uri-template></dataset></datasets>
<input-events><data-in name="EC" dataset="eastlogs"><start-instance>${coord:current( -(coord:hoursInDay(0) - 1) )}</start-instance><end-instance>${coord:current(0)}</end-instance></data-in></input-events>
<action><workflow><app-path>hdfs://bar:8020/usr/joe/logsaggretor-wf</app-path><configuration><property><name>wfInput</name><value>${coord:dataIn('EC')}</value></property></configuration></workflow></action>
</coordinator-app>`
	res, err := dryRunXML(t, xml, nil, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	byNominal := map[string]*ActionPlan{}
	for _, da := range res.Actions {
		byNominal[schedule.FormatTime(da.Plan.NominalTime)] = da.Plan
	}
	rows := []struct {
		nominal   string // 00:00 New York: 05:00Z in winter, 04:00Z in summer
		instances int
	}{
		{"2009-01-02T05:00Z", 24},
		{"2009-03-08T05:00Z", 23}, // spring forward day
		{"2009-03-09T04:00Z", 24},
		{"2009-11-01T04:00Z", 25}, // fall back day
		{"2009-11-02T05:00Z", 24},
	}
	for _, r := range rows {
		p := byNominal[r.nominal]
		if p == nil {
			t.Errorf("no action at %s", r.nominal)
			continue
		}
		if n := len(p.InputURIs["EC"]); n != r.instances {
			t.Errorf("%s: %d instances, want %d", r.nominal, n, r.instances)
		}
	}
	if len(res.Actions) != 365 {
		t.Errorf("%d actions, want 365", len(res.Actions))
	}
}

// spec: coord 6.1.2: the done flag — absent means _SUCCESS, empty the directory
// itself, else that file.
func TestDoneFlagDependencies(t *testing.T) {
	rows := []struct{ flag, want string }{
		{"", "hdfs://nn/data/2009/01/01/_SUCCESS"},
		{"<done-flag></done-flag>", "hdfs://nn/data/2009/01/01"},
		{"<done-flag>trigger.dat</done-flag>", "hdfs://nn/data/2009/01/01/trigger.dat"},
	}
	for _, r := range rows {
		xml := `<coordinator-app name="d" frequency="${coord:days(1)}" start="2009-01-01T00:00Z" end="2009-01-02T00:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.2">
<datasets><dataset name="d" frequency="${coord:days(1)}" initial-instance="2009-01-01T00:00Z" timezone="UTC"><uri-template>hdfs://nn/data/${YEAR}/${MONTH}/${DAY}</uri-template>` + r.flag + `</dataset></datasets>
<input-events><data-in name="in" dataset="d"><instance>${coord:current(0)}</instance></data-in></input-events>
<action><workflow><app-path>hdfs://nn/wf</app-path></workflow></action></coordinator-app>`
		res, err := dryRunXML(t, xml, nil, nil, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(res.Actions[0].Plan.Dependencies, "#"); got != r.want {
			t.Errorf("flag %q: dependency %s, want %s", r.flag, got, r.want)
		}
	}
}

// spec: coord 7 use case 3: East coast and continental Europe; coord:tzOffset()
// shifts the European range by 6 hours in winter and by 5 between the US
// and the EU spring switches. (The spec's EU event names dataset eastlogs;
// it means europelogs.)
func TestSpecDSTEastCoastEurope(t *testing.T) {
	xml := `<coordinator-app name="eastcoast-europe-processing" frequency="${coord:days(1)}" start="2009-01-02T05:00Z" end="2010-01-02T05:00Z" timezone="America/New_York" xmlns="uri:oozie:coordinator:0.1">
<datasets>
 <dataset name="eastlogs" frequency="${coord:hours(1)}" initial-instance="2009-01-01T06:00Z" timezone="America/New_York"><uri-template>hdfs://bar:8020/app/logs/eastcoast/${YEAR}/${MONTH}/${DAY}/${HOUR}</uri-template></dataset>
 <dataset name="europelogs" frequency="${coord:hours(1)}" initial-instance="2009-01-01T01:00Z" timezone="Europe/Berlin"><uri-template>hdfs://bar:8020/app/logs/europe/${YEAR}/${MONTH}/${DAY}/${HOUR}</uri-template></dataset>
</datasets>
<input-events>
 <data-in name="EC" dataset="eastlogs"><start-instance>${coord:current( -(coord:hoursInDay(0) - 1) )}</start-instance><end-instance>${coord:current(-1)}</end-instance></data-in>
 <data-in name="EU" dataset="europelogs"><start-instance>${coord:current( -(coord:hoursInDay(0) -1) - coord:tzOffset()/60)}</start-instance><end-instance>${coord:current( - coord:tzOffset()/60)}</end-instance></data-in>
</input-events>
<action><workflow><app-path>hdfs://bar:8020/usr/joe/logsaggretor-wf</app-path><configuration><property><name>wfInput</name><value>${coord:dataIn('EC')}</value></property></configuration></workflow></action>
</coordinator-app>`
	res, err := dryRunXML(t, xml, nil, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	byNominal := map[string]*ActionPlan{}
	for _, da := range res.Actions {
		byNominal[schedule.FormatTime(da.Plan.NominalTime)] = da.Plan
	}
	rows := []struct {
		nominal         string
		euFirst, euLast string // oldest and newest European instance
		n               int
	}{
		// Winter: New York 00:00 is 06:00 Berlin; the range ends 6 hours back.
		{"2009-01-10T05:00Z", "hdfs://bar:8020/app/logs/europe/2009/01/09/00", "hdfs://bar:8020/app/logs/europe/2009/01/09/23", 24},
		// 2009-03-10: New York is on EDT, Berlin not yet: 5 hours.
		{"2009-03-10T04:00Z", "hdfs://bar:8020/app/logs/europe/2009/03/09/00", "hdfs://bar:8020/app/logs/europe/2009/03/09/23", 24},
	}
	for _, r := range rows {
		p := byNominal[r.nominal]
		if p == nil {
			t.Fatalf("no action at %s", r.nominal)
		}
		eu := p.InputURIs["EU"]
		if len(eu) != r.n || eu[len(eu)-1] != r.euFirst || eu[0] != r.euLast {
			t.Errorf("%s: EU %d instances %s .. %s, want %d %s .. %s", r.nominal, len(eu), eu[len(eu)-1], eu[0], r.n, r.euFirst, r.euLast)
		}
	}
}
