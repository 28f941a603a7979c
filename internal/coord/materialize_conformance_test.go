package coord

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/schedule"
)

// vectorNowRE reads a vector "now" such as "2025-01-15T12:00Z (+1000 ms)".
var vectorNowRE = regexp.MustCompile(`^(\S+)(?:\s*\(\+(\d+) ms\))?$`)

func vectorNow(t *testing.T, s string) time.Time {
	m := vectorNowRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		t.Fatalf("vector now %q", s)
	}
	now := mustTime(t, m[1])
	if m[2] != "" {
		ms, _ := strconv.Atoi(m[2])
		now = now.Add(time.Duration(ms) * time.Millisecond)
	}
	return now
}

// vectorApp builds the job of a materialization vector: an integer
// frequency counts time_unit units, anything else is a cron expression.
func vectorApp(t *testing.T, job map[string]any) *App {
	t.Helper()
	loc := zone(t, str(job, "timezone"))
	a := &App{
		Name: "vector", Namespace: "uri:oozie:coordinator:0.4",
		Start: mustTime(t, str(job, "start")), End: mustTime(t, str(job, "end")),
		TimeZone: str(job, "timezone"), Location: loc,
		Timeout: DefaultTimeout, Concurrency: DefaultConcurrency, Throttle: DefaultThrottle,
		Execution: FIFO, Datasets: map[string]*Dataset{}, AppPath: "file:///wf",
	}
	if n, ok := job["mat_throttling"].(float64); ok {
		a.Throttle = int(n)
	}
	if e := str(job, "execution"); e != "" {
		a.Execution = e
	}
	freq := str(job, "frequency")
	if n, err := strconv.Atoi(freq); err == nil {
		u, err := schedule.ParseUnit(str(job, "time_unit"))
		if err != nil {
			t.Fatal(err)
		}
		e, err := schedule.ParseEndOfDuration(str(job, "end_of_duration"))
		if err != nil {
			t.Fatal(err)
		}
		a.Freq = schedule.Frequency{N: n, Unit: u, End: e}
	} else {
		c, err := schedule.ParseCron(freq)
		if err != nil {
			t.Fatal(err)
		}
		a.Freq = schedule.Frequency{Unit: schedule.CronUnit, Cron: c}
	}
	a.Frequency, a.TimeUnit = restFrequency(a.Freq)
	return a
}

func optTime(t *testing.T, m map[string]any, k string) time.Time {
	if s, ok := m[k].(string); ok && s != "" {
		return mustTime(t, s)
	}
	return time.Time{}
}

func runMaterialize(t *testing.T, v map[string]any) {
	job := v["job"].(map[string]any)
	a := vectorApp(t, job)
	st := PlanState{
		LastActionNumber:     int(job["last_action_number"].(float64)),
		NextMaterializedTime: optTime(t, job, "next_materialized_time"),
		PauseTime:            optTime(t, job, "pause_time"),
	}
	if n, ok := v["num_waiting_actions_before"].(float64); ok {
		st.WaitingActions = int(n)
	}
	opts := PlanOptions{Now: vectorNow(t, str(v, "now")), Window: time.Duration(v["materialization_window_s"].(float64)) * time.Second}
	if b, ok := v["action_batch_size"].(float64); ok {
		opts.BatchSize = int(b)
	}
	runs := 1
	if r, ok := v["materialization_runs"].(float64); ok {
		runs = int(r)
	}
	var nominals []string
	var plan *Plan
	for range runs {
		p, err := a.Materialize(st, opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		plan = p
		for _, act := range p.Actions {
			nominals = append(nominals, schedule.FormatTime(act.NominalTime))
			if act.Number != st.LastActionNumber+len(nominals) && runs == 1 {
				t.Errorf("action %d numbered %d", len(nominals), act.Number)
			}
		}
		st.LastActionNumber, st.NextMaterializedTime = p.LastActionNumber, p.NextMaterializedTime
		st.WaitingActions += len(p.Actions)
	}
	exp := v["expected"].(map[string]any)
	if want, ok := exp["action_nominal_times"].([]any); ok {
		w := make([]string, len(want))
		for i, x := range want {
			w[i] = x.(string)
		}
		if strings.Join(nominals, " ") != strings.Join(w, " ") {
			t.Errorf("nominal times:\n got  %v\n want %v", nominals, w)
		}
	}
	if n, ok := exp["action_count"].(float64); ok && len(nominals) != int(n) {
		t.Errorf("action count = %d, want %d", len(nominals), int(n))
	}
	if s := str(exp, "first_nominal_time"); s != "" && (len(nominals) == 0 || nominals[0] != s) {
		t.Errorf("first nominal time = %v, want %s", first(nominals), s)
	}
	if s := str(exp, "last_nominal_time"); s != "" && (len(nominals) == 0 || nominals[len(nominals)-1] != s) {
		t.Errorf("last nominal time = %v, want %s", nominals[len(nominals)-1], s)
	}
	if n, ok := exp["last_action_number"].(float64); ok && plan.LastActionNumber != int(n) {
		t.Errorf("last action number = %d, want %d", plan.LastActionNumber, int(n))
	}
	if s := str(exp, "next_materialized_time"); s != "" && schedule.FormatTime(plan.NextMaterializedTime) != s {
		t.Errorf("next materialized time = %s, want %s", schedule.FormatTime(plan.NextMaterializedTime), s)
	}
	if d, ok := exp["done_materialization"].(bool); ok && plan.Done != d {
		t.Errorf("done = %v, want %v", plan.Done, d)
	}
	if strings.Contains(str(exp, "asserted"), "WAITING actions <= mat_throttling") && len(nominals) > a.Throttle {
		t.Errorf("%d actions exceed the throttle %d", len(nominals), a.Throttle)
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func runMaterializeFailure(t *testing.T, v map[string]any) {
	a := vectorApp(t, v["job"].(map[string]any))
	din := v["data_in"].(map[string]any)
	ds := datasetOf(t, din["dataset"].(map[string]any))
	a.Datasets[ds.Name] = ds
	a.Inputs = []*DataEvent{{Name: str(din, "name"), Dataset: ds.Name, DS: ds,
		StartInstance: str(din, "start_instance"), EndInstance: str(din, "end_instance")}}
	props := conf.FromMap(map[string]string{"hcatNode": "hcat://h:1", "db": "db", "table": "t", "region": "us"})
	plan, err := a.Materialize(PlanState{}, PlanOptions{Now: mustTime(t, "2025-01-01T00:00Z")}, props)
	exp := v["expected"].(map[string]any)
	if err == nil {
		t.Fatalf("materialized %d actions, want a failure", len(plan.Actions))
	}
	checkMessage(t, err, exp["error_message_contains"])
}

// coordXML writes the coordinator-app a submit vector describes.
func coordXML(c map[string]any) string {
	var b strings.Builder
	esc := func(s string) string { return xmlText(strings.ReplaceAll(s, "{TESTDIR_URI}", testDirURI)) }
	fmt.Fprintf(&b, "<coordinator-app xmlns=%q name=%s frequency=%s start=%s end=%s timezone=%s>\n",
		str(c, "namespace"), attrQuote(str(c, "name")), attrQuote(str(c, "frequency")),
		attrQuote(str(c, "start")), attrQuote(str(c, "end")), attrQuote(str(c, "timezone")))
	if ctl, ok := c["controls"].(map[string]any); ok && len(ctl) > 0 {
		b.WriteString("<controls>")
		for _, k := range []string{"timeout", "concurrency", "execution", "throttle"} {
			if s := str(ctl, k); s != "" {
				fmt.Fprintf(&b, "<%s>%s</%s>", k, esc(s), k)
			}
		}
		b.WriteString("</controls>\n")
	}
	if dss, _ := c["datasets"].([]any); len(dss) > 0 {
		b.WriteString("<datasets>\n")
		for _, x := range dss {
			d := x.(map[string]any)
			fmt.Fprintf(&b, "<dataset name=%s frequency=%s initial-instance=%s timezone=%s><uri-template>%s</uri-template>",
				attrQuote(str(d, "name")), attrQuote(str(d, "frequency")), attrQuote(str(d, "initial_instance")),
				attrQuote(str(d, "timezone")), esc(str(d, "uri_template")))
			if f, ok := d["done_flag"].(string); ok {
				fmt.Fprintf(&b, "<done-flag>%s</done-flag>", esc(f))
			}
			b.WriteString("</dataset>\n")
		}
		b.WriteString("</datasets>\n")
	}
	events := func(key, group, kind string) {
		evs, _ := c[key].([]any)
		if len(evs) == 0 {
			return
		}
		b.WriteString("<" + group + ">")
		for _, x := range evs {
			e := x.(map[string]any)
			fmt.Fprintf(&b, "<%s name=%s dataset=%s>", kind, attrQuote(str(e, "name")), attrQuote(str(e, "dataset")))
			ins, _ := e["instances"].([]any)
			for _, in := range ins {
				fmt.Fprintf(&b, "<instance>%s</instance>", esc(in.(string)))
			}
			if s, ok := e["start_instance"].(string); ok {
				fmt.Fprintf(&b, "<start-instance>%s</start-instance><end-instance>%s</end-instance>", esc(s), esc(str(e, "end_instance")))
			}
			b.WriteString("</" + kind + ">")
		}
		b.WriteString("</" + group + ">\n")
	}
	events("input_events", "input-events", "data-in")
	events("output_events", "output-events", "data-out")
	wf := c["action"].(map[string]any)["workflow"].(map[string]any)
	fmt.Fprintf(&b, "<action><workflow><app-path>%s</app-path>", esc(str(wf, "app_path")))
	if cfg, _ := wf["configuration"].(map[string]any); len(cfg) > 0 {
		b.WriteString("<configuration>")
		for _, k := range sortedKeys(cfg) {
			fmt.Fprintf(&b, "<property><name>%s</name><value>%s</value></property>", esc(k), esc(cfg[k].(string)))
		}
		b.WriteString("</configuration>")
	}
	b.WriteString("</workflow></action>\n</coordinator-app>\n")
	return b.String()
}

func sortedKeys(m map[string]any) []string {
	c := conf.New()
	for k := range m {
		c.Set(k, "")
	}
	return c.SortedNames()
}

// memFiles is a ReadFile over an in-memory file set.
// memFiles serves files by path; a URI (hdfs://nn/app/x, file:///app/x)
// names the file at its path, whatever the store.
func memFiles(files map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if i := strings.Index(p, "://"); i >= 0 {
			rest := p[i+3:]
			if j := strings.IndexByte(rest, '/'); j >= 0 {
				p = rest[j:]
			}
		}
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}
}

func runSubmit(t *testing.T, v map[string]any) {
	c := v["coordinator"].(map[string]any)
	exp := v["expected"].(map[string]any)
	props := conf.New()
	for k, x := range v["job_configuration"].(map[string]any) {
		props.Set(k, strings.ReplaceAll(x.(string), "{TEST_USER}", "test"))
	}
	if strings.Contains(str(exp, "notes"), "user.name missing") {
		props.Delete("user.name")
	}
	props.Set(PropAppPath, "file:///app")
	files := map[string]string{"/app/coordinator.xml": coordXML(c)}
	a, _, err := Submit(props, SubmitOptions{ReadFile: memFiles(files), Now: mustTime(t, "2025-01-01T00:00Z")})
	if exp["accepted"] == false {
		if err == nil {
			t.Fatalf("accepted, want a rejection\n%s", files["/app/coordinator.xml"])
		}
		if code := str(exp, "error_code"); code != "" && ErrorCode(err) != code {
			t.Errorf("code %q (%v), want %s", ErrorCode(err), err, code)
		}
		checkMessage(t, err, exp["message_contains"])
		return
	}
	if err != nil {
		t.Fatalf("rejected: %v\n%s", err, files["/app/coordinator.xml"])
	}
	if u := str(exp, "time_unit"); u != "" && a.TimeUnit != u {
		t.Errorf("time unit %s, want %s", a.TimeUnit, u)
	}
	if n := str(exp, "app_name"); n != "" && a.Name != n {
		t.Errorf("name %q, want %q", a.Name, n)
	}
	if m, ok := exp["timeout_minutes"].(float64); ok && a.Timeout != int(m) {
		t.Errorf("timeout %d, want %d", a.Timeout, int(m))
	}
	// The persisted definition must restore the same app.
	b, err := Load(a.Definition, props)
	if err != nil {
		t.Fatalf("Load: %v\n%s", err, a.Definition)
	}
	if b.Definition != a.Definition || b.definitionXML() != a.Definition {
		t.Errorf("Load does not round-trip:\n%s\n---\n%s", a.Definition, b.definitionXML())
	}
}

func runInputCheck(t *testing.T, v map[string]any) {
	now := mustTime(t, "2025-01-01T00:00Z")
	created := now.Add(-time.Duration(v["action_created_minutes_ago"].(float64)) * time.Minute)
	a := &App{Timeout: int(v["action_timeout_min"].(float64)), Location: time.UTC}
	p := &ActionPlan{Number: 1, NominalTime: created, CreatedTime: created,
		Dependencies: strings.Split(str(v, "missing_dependencies_before"), "#")}
	res, err := a.CheckInputs(p, conf.New(), func(string) (bool, error) { return false, nil }, now)
	if err != nil {
		t.Fatal(err)
	}
	exp := v["expected"].(map[string]any)
	status := "WAITING"
	switch {
	case res.Ready:
		status = "READY"
	case res.TimedOut:
		status = "TIMEDOUT"
	}
	if status != str(exp, "status") {
		t.Errorf("status %s, want %s", status, str(exp, "status"))
	}
	if got := strings.Join(res.Missing, "#"); got != str(exp, "missing_dependencies") {
		t.Errorf("missing %q, want %q", got, str(exp, "missing_dependencies"))
	}
}
