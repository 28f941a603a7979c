package coord

import (
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/schedule"
)

// app builds a coordinator.xml around body with the given root attributes.
func app(ns, attrs, body string) string {
	if attrs == "" {
		attrs = `name="c" frequency="${coord:days(1)}" start="2009-01-01T00:00Z" end="2009-01-05T00:00Z" timezone="UTC"`
	}
	if !strings.Contains(body, "<action>") {
		body += `<action><workflow><app-path>hdfs://nn/wf</app-path></workflow></action>`
	}
	return `<coordinator-app xmlns="uri:oozie:coordinator:` + ns + `" ` + attrs + ">\n" + body + "\n</coordinator-app>"
}

const dsDaily = `<dataset name="%s" frequency="${coord:days(1)}" initial-instance="2009-01-01T00:00Z" timezone="UTC"><uri-template>%s</uri-template></dataset>`

func ds(name, uri string) string {
	return strings.Replace(strings.Replace(dsDaily, "%s", name, 1), "%s", uri, 1)
}

func submit(t *testing.T, xml string, props map[string]string, files map[string]string) (*App, *conf.Config, error) {
	t.Helper()
	all := map[string]string{"/app/coordinator.xml": xml}
	for k, v := range files {
		all[k] = v
	}
	c := conf.FromMap(props)
	if !c.Has(PropUser) {
		c.Set(PropUser, "joe")
	}
	if !c.Has(PropAppPath) {
		c.Set(PropAppPath, "hdfs://nn:8020/app")
	}
	return Submit(c, SubmitOptions{ReadFile: memFiles(all), Now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
}

func TestSubmitErrors(t *testing.T) {
	in := `<input-events><data-in name="in" dataset="a"><instance>${coord:current(0)}</instance></data-in></input-events>`
	tests := []struct {
		name, xml string
		props     map[string]string
		code      string
		msg       string
	}{
		{"not xml", "<coordinator-app", nil, CodeSchema, "XML schema error"},
		{"unknown namespace", `<coordinator-app xmlns="uri:oozie:coordinator:9.9" name="c"/>`, nil, CodeSchema, "unknown namespace"},
		{"workflow root", `<workflow-app xmlns="uri:oozie:workflow:0.4" name="w"/>`, nil, CodeSchema, "'workflow-app'"},
		{"missing attribute", `<coordinator-app xmlns="uri:oozie:coordinator:0.2" name="c" frequency="60" start="2009-01-01T00:00Z" end="2009-01-02T00:00Z"><action/></coordinator-app>`, nil, CodeSchema, "Attribute 'timezone' must appear on element 'coordinator-app'"},
		{"no action", `<coordinator-app xmlns="uri:oozie:coordinator:0.2" name="c" frequency="60" start="2009-01-01T00:00Z" end="2009-01-02T00:00Z" timezone="UTC"></coordinator-app>`, nil, CodeSchema, "The content of element 'coordinator-app' is not complete"},
		{"controls order", app("0.2", "", "<controls><execution>FIFO</execution><timeout>1</timeout></controls>"), nil, CodeSchema, "element 'timeout'. No child element is expected at this point. (line 2, column 38)"},
		{"two data-out instances", app("0.2", "", "<datasets>"+ds("a", "/a")+`</datasets><output-events><data-out name="o" dataset="a"><instance>${coord:current(0)}</instance><instance>${coord:current(0)}</instance></data-out></output-events>`), nil, CodeSchema, "No child element is expected at this point"},
		{"no user", app("0.2", "", ""), map[string]string{PropUser: " "}, "E0401", "[user.name]"},
		{"app missing", app("0.2", "", ""), map[string]string{PropAppPath: "hdfs://nn/elsewhere"}, CodeReadApp, "File does not exist, hdfs://nn/elsewhere/coordinator.xml"},
		{"undefined variable", app("0.2", `name="c" frequency="60" start="${startTime}" end="2009-01-02T00:00Z" timezone="UTC"`, ""), nil, CodeEL, "variable [startTime] cannot be resolved"},
		{"bad start", app("0.2", `name="c" frequency="60" start="2009-01-01" end="2009-01-02T00:00Z" timezone="UTC"`, ""), nil, CodeInvalidAttrs, "parameter [start] = [2009-01-01]"},
		{"bad timezone", app("0.2", `name="c" frequency="60" start="2009-01-01T00:00Z" end="2009-01-02T00:00Z" timezone="Mars/Base"`, ""), nil, CodeInvalidAttrs, "timezone [Mars/Base]"},
		{"start after end", app("0.2", `name="c" frequency="60" start="2009-01-03T00:00Z" end="2009-01-02T00:00Z" timezone="UTC"`, ""), nil, CodeInvalidAttrs, "Coordinator Start Time must be earlier than End Time."},
		{"too frequent", app("0.2", `name="c" frequency="${coord:minutes(4)}" start="2009-01-01T00:00Z" end="2009-01-02T00:00Z" timezone="UTC"`, ""), nil, CodeInvalidAttrs, "faster than allowed maximum of 5 minutes"},
		{"zero frequency", app("0.2", `name="c" frequency="0" start="2009-01-01T00:00Z" end="2009-01-02T00:00Z" timezone="UTC"`, ""), nil, CodeInvalidAttrs, "frequency"},
		{"cron outside window", app("0.2", `name="c" frequency="0 10 * * *" start="2009-01-01T11:00Z" end="2009-01-01T12:00Z" timezone="UTC"`, ""), nil, CodeInvalidAttrs, "materializes no actions between start and end time"},
		{"bad execution", app("0.2", "", "<controls><execution>RANDOM</execution></controls>"), nil, CodeInvalidAttrs, "execution [RANDOM]"},
		{"bad concurrency", app("0.2", "", "<controls><concurrency>two</concurrency></controls>"), nil, CodeInvalidAttrs, "concurrency [two]"},
		{"unknown dataset", app("0.2", "", in), nil, CodeUnsupportedApp, "Dataset [a] referenced by input-events [in] is not defined"},
		{"comma instance", app("0.2", "", "<datasets>"+ds("a", "/a")+`</datasets><input-events><data-in name="in" dataset="a"><instance>${coord:current(0)},${coord:current(-1)}</instance></data-in></input-events>`), nil, CodeUnsupportedApp, "should not have multiple instances in input-events [in]"},
		{"dataset before 1970", app("0.2", "", `<datasets><dataset name="a" frequency="60" initial-instance="1969-12-31T00:00Z" timezone="UTC"><uri-template>/a</uri-template></dataset></datasets>`), nil, CodeUnsupportedApp, "initial-instance should be later than 1970"},
		{"cron dataset", app("0.2", "", `<datasets><dataset name="a" frequency="0 * * * *" initial-instance="2009-01-01T00:00Z" timezone="UTC"><uri-template>/a</uri-template></dataset></datasets>`), nil, CodeInvalidAttrs, "datasets do not take cron frequencies"},
		{"duplicate inline datasets", app("0.2", "", "<datasets>"+ds("a", "/a")+ds("a", "/b")+"</datasets>"), nil, CodeUnsupportedApp, "duplicate dataset name [a]"},
		{"missing parameter", app("0.4", "", "<parameters><property><name>x</name></property><property><name>y</name></property><property><name>z</name><value>1</value></property></parameters>"), nil, CodeMissingParam, "no default values are available: x, y"},
		{"input-logic naming no input event", app("0.5", "", "<input-logic><and><data-in dataset=\"a\"/></and></input-logic>"), nil, CodeInputLogic, "Data set not found : a"},
		{"EL in configuration", app("0.2", "", `<action><workflow><app-path>/wf</app-path><configuration><property><name>a</name><value>${undefinedVar}</value></property></configuration></workflow></action>`), nil, CodeEL, "property a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := submit(t, tt.xml, tt.props, nil)
			if ErrorCode(err) != tt.code || err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %v; want %s containing %q", err, tt.code, tt.msg)
			}
		})
	}
}

func TestSubmitResolves(t *testing.T) {
	xml := app("0.4", `name="${appName}" frequency="${coord:endOfMonths(1)}" start="${start}" end="2010-01-01T00:00Z" timezone="America/Los_Angeles"`,
		`<parameters><property><name>start</name><value>2009-01-15T00:00Z</value></property><property><name>appName</name></property></parameters>
<controls><timeout>${coord:hours(2)}</timeout><concurrency>${conc}</concurrency><execution>LAST_ONLY</execution><throttle>3</throttle></controls>
<datasets>`+ds("a", "${root}/a/${YEAR}")+`</datasets>`)
	files := map[string]string{"/app/config-default.xml": `<configuration><property><name>conc</name><value>4</value></property><property><name>appName</name><value>from-default</value></property></configuration>`}
	a, job, err := submit(t, xml, map[string]string{"appName": "from-job", "root": "hdfs://nn"}, files)
	if err != nil {
		t.Fatal(err)
	}
	la, _ := schedule.LoadZone("America/Los_Angeles")
	if a.Name != "from-job" || !a.Start.Equal(mustTime(t, "2009-01-15T00:00Z")) || a.Location.String() != la.String() {
		t.Errorf("name %q start %v zone %v", a.Name, a.Start, a.Location)
	}
	if a.Frequency != "1" || a.TimeUnit != "END_OF_MONTH" {
		t.Errorf("frequency %s %s, want 1 END_OF_MONTH", a.Frequency, a.TimeUnit)
	}
	if a.Timeout != 120 || a.Concurrency != 4 || a.Execution != LastOnly || a.Throttle != 3 {
		t.Errorf("controls %d %d %s %d", a.Timeout, a.Concurrency, a.Execution, a.Throttle)
	}
	if got := a.Datasets["a"].URITemplate; got != "hdfs://nn/a/${YEAR}" {
		t.Errorf("uri-template %q", got)
	}
	if v, _ := job.Get("conc"); v != "4" {
		t.Errorf("config-default.xml not merged: conc=%q", v)
	}
	if v, _ := job.Get("start"); v != "2009-01-15T00:00Z" {
		t.Errorf("parameter default not applied: start=%q", v)
	}
	// The persisted definition restores the same app with the job conf.
	b, err := Load(a.Definition, job)
	if err != nil {
		t.Fatalf("%v\n%s", err, a.Definition)
	}
	if b.definitionXML() != a.Definition || b.Frequency != a.Frequency || b.TimeUnit != a.TimeUnit || !b.Start.Equal(a.Start) {
		t.Errorf("Load differs:\n%s\n---\n%s", a.Definition, b.definitionXML())
	}
}

// spec: coord 10.1.1: dataset name collisions.
func TestDatasetIncludes(t *testing.T) {
	file := func(dss ...string) string {
		return `<datasets xmlns="uri:oozie:coordinator:0.2">` + strings.Join(dss, "") + `</datasets>`
	}
	inc := func(paths ...string) string {
		var b strings.Builder
		for _, p := range paths {
			b.WriteString("<include>" + p + "</include>")
		}
		return b.String()
	}
	uses := `<input-events><data-in name="in" dataset="a"><instance>${coord:current(0)}</instance></data-in></input-events>`
	tests := []struct {
		name     string
		datasets string
		files    map[string]string
		wantURI  string
		wantErr  string
	}{
		{"included", inc("/shared/ds.xml"), map[string]string{"/shared/ds.xml": file(ds("a", "/inc"))}, "/inc", ""},
		{"relative include", inc("ds.xml"), map[string]string{"/app/ds.xml": file(ds("a", "/rel"))}, "/rel", ""},
		{"inline wins", inc("/shared/ds.xml") + ds("a", "/inline"), map[string]string{"/shared/ds.xml": file(ds("a", "/inc"))}, "/inline", ""},
		{"twice in one file", inc("/shared/ds.xml"), map[string]string{"/shared/ds.xml": file(ds("a", "/1"), ds("a", "/2"))}, "", "duplicate dataset name [a] in included files /shared/ds.xml and /shared/ds.xml"},
		{"in two files", inc("/x.xml", "/y.xml"), map[string]string{"/x.xml": file(ds("a", "/x")), "/y.xml": file(ds("a", "/y"))}, "", "in included files /x.xml and /y.xml"},
		{"missing file", inc("/nope.xml"), nil, "", "E0505: File does not exist, /nope.xml"},
		{"bad file", inc("/bad.xml"), map[string]string{"/bad.xml": "<datasets"}, "", "/bad.xml: XML schema error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _, err := submit(t, app("0.2", "", "<datasets>"+tt.datasets+"</datasets>"+uses), nil, tt.files)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Inputs[0].DS.URITemplate; got != tt.wantURI {
				t.Errorf("dataset a from %q, want %q", got, tt.wantURI)
			}
			if strings.Contains(a.Definition, "<include>") || strings.Count(a.Definition, "<dataset ") != 1 {
				t.Errorf("definition does not inline exactly one dataset:\n%s", a.Definition)
			}
		})
	}
}

func TestTimeoutUnits(t *testing.T) {
	rows := []struct {
		text string
		want int
	}{
		{"", DefaultTimeout}, {"-1", -1}, {"0", 0}, {"30", 30},
		{"${coord:minutes(10)}", 10}, {"${coord:hours(2)}", 120}, {"${coord:days(1)}", 1440}, {"${coord:months(1)}", 30 * 1440},
	}
	for _, r := range rows {
		body := ""
		if r.text != "" {
			body = "<controls><timeout>" + r.text + "</timeout></controls>"
		}
		a, _, err := submit(t, app("0.2", "", body), nil, nil)
		if err != nil || a.Timeout != r.want {
			t.Errorf("timeout %q = %v, %v; want %d", r.text, a, err, r.want)
		}
	}
}

// A job materialized over several runs gets the same actions as in one.
func TestMaterializeResumes(t *testing.T) {
	a, job, err := submit(t, app("0.2", `name="c" frequency="${coord:hours(1)}" start="2009-01-01T00:00Z" end="2009-01-02T00:00Z" timezone="UTC"`,
		"<controls><throttle>5</throttle></controls><datasets>"+ds("a", "/a/${YEAR}${MONTH}${DAY}")+`</datasets><input-events><data-in name="in" dataset="a"><instance>${coord:current(0)}</instance></data-in></input-events>`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := mustTime(t, "2009-01-01T00:00Z")
	var st PlanState
	var all []*ActionPlan
	for runs := 0; runs < 100; runs++ {
		p, err := a.Materialize(st, PlanOptions{Now: now, Window: 3 * time.Hour}, job)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, p.Actions...)
		st.LastActionNumber, st.NextMaterializedTime = p.LastActionNumber, p.NextMaterializedTime
		st.WaitingActions = 0 // they all started
		if p.Done {
			break
		}
		now = p.NextMaterializedTime
	}
	if len(all) != 24 {
		t.Fatalf("%d actions, want 24", len(all))
	}
	for i, p := range all {
		if p.Number != i+1 || !p.NominalTime.Equal(now.Truncate(24*time.Hour).Add(time.Duration(i)*time.Hour)) {
			t.Errorf("action %d: number %d nominal %v", i+1, p.Number, p.NominalTime)
		}
	}
	if got := all[5].Dependencies; len(got) != 1 || got[0] != "/a/20090101/_SUCCESS" {
		t.Errorf("dependencies %v", got)
	}
	if !strings.Contains(all[5].ActionXML, `instance-number="6"`) || !strings.Contains(all[5].ActionXML, "<uris>/a/20090101</uris>") {
		t.Errorf("action XML:\n%s", all[5].ActionXML)
	}
	// Throttle: 5 WAITING actions already, nothing more.
	p, err := a.Materialize(PlanState{WaitingActions: 5}, PlanOptions{Now: mustTime(t, "2009-01-01T00:00Z"), Window: 24 * time.Hour}, job)
	if err != nil || len(p.Actions) != 0 {
		t.Errorf("with the throttle reached: %v, %v", p, err)
	}
}

// With oozie.processing.timezone, datetimes are read and written in that
// zone and URI templates resolve in it (spec: coord 4.1).
func TestProcessingZone(t *testing.T) {
	xml := app("0.2", `name="c" frequency="${coord:hours(1)}" start="2009-01-01T05:30+0530" end="2009-01-01T07:30+0530" timezone="UTC"`,
		`<datasets><dataset name="a" frequency="${coord:hours(1)}" initial-instance="2009-01-01T05:30+0530" timezone="UTC"><uri-template>/a/${YEAR}${MONTH}${DAY}${HOUR}${MINUTE}</uri-template></dataset></datasets>
<input-events><data-in name="in" dataset="a"><instance>${coord:current(0)}</instance></data-in></input-events>
<action><workflow><app-path>/wf</app-path><configuration><property><name>t</name><value>${coord:nominalTime()}</value></property></configuration></workflow></action>`)
	a, job, err := submit(t, xml, map[string]string{PropProcessing: "GMT+0530"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Start.Equal(mustTime(t, "2009-01-01T00:00Z")) {
		t.Fatalf("start %v", a.Start)
	}
	p, err := a.Materialize(PlanState{}, PlanOptions{Now: a.Start, Window: 3 * time.Hour}, job)
	if err != nil || len(p.Actions) != 2 {
		t.Fatalf("%v %v", p, err)
	}
	act := p.Actions[1]
	if got := act.InputURIs["in"]; len(got) != 1 || got[0] != "/a/200901010630" {
		t.Errorf("URI %v, want the local 06:30 instance", got)
	}
	if !strings.Contains(act.ActionXML, `action-nominal-time="2009-01-01T06:30+0530"`) {
		t.Errorf("action XML:\n%s", act.ActionXML)
	}
	rc, err := a.RunConf(act, job)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := rc.Get("t"); v != "2009-01-01T06:30+0530" {
		t.Errorf("coord:nominalTime() = %q", v)
	}
	b, err := Load(a.Definition, job)
	if err != nil || !b.Start.Equal(a.Start) {
		t.Errorf("Load: %v %v", b, err)
	}
}

// SLA blocks (sla 0.1/0.2) are kept, EL-checked and copied into actions.
func TestSLA(t *testing.T) {
	xml := `<coordinator-app xmlns="uri:oozie:coordinator:0.4" xmlns:sla="uri:oozie:sla:0.2" name="c" frequency="${coord:days(1)}" start="2009-01-01T00:00Z" end="2009-01-02T00:00Z" timezone="UTC">
<action><workflow><app-path>/wf</app-path></workflow>
<sla:info><sla:nominal-time>${coord:nominalTime()}</sla:nominal-time><sla:should-end>${10 * MINUTES}</sla:should-end><sla:alert-contact>${who}</sla:alert-contact></sla:info>
</action></coordinator-app>`
	if _, _, err := submit(t, xml, nil, nil); ErrorCode(err) != CodeEL || !strings.Contains(err.Error(), "sla:alert-contact") {
		t.Fatalf("undefined ${who}: %v, want E1004", err)
	}
	a, job, err := submit(t, xml, map[string]string{"who": "ops@example.com"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.SLA == nil || len(a.SLA.Fields) != 3 || a.SLA.Fields[2].Value != "${who}" {
		t.Fatalf("SLA %+v", a.SLA)
	}
	p, err := a.Materialize(PlanState{}, PlanOptions{Now: a.Start}, job)
	if err != nil || len(p.Actions) != 1 {
		t.Fatal(p, err)
	}
	// The action's SLA values are resolved at materialization.
	for _, want := range []string{`xmlns:sla="uri:oozie:sla:0.2"`, "<sla:nominal-time>2009-01-01T00:00Z</sla:nominal-time>",
		"<sla:should-end>10</sla:should-end>", "<sla:alert-contact>ops@example.com</sla:alert-contact>"} {
		if !strings.Contains(p.Actions[0].ActionXML, want) {
			t.Errorf("action XML lacks %s:\n%s", want, p.Actions[0].ActionXML)
		}
	}
	if b, err := Load(a.Definition, job); err != nil || b.SLA == nil {
		t.Errorf("Load lost the SLA: %v", err)
	}
}
