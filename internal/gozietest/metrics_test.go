package gozietest_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/gozietest"
)

// scrape reads a server's /metrics and parses it as Prometheus does.
func scrape(t *testing.T, srv *gozietest.Server) map[string]*dto.MetricFamily {
	t.Helper()
	res, err := http.Get(strings.TrimSuffix(srv.URL, "/oozie") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %s", res.Status)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return fams
}

// value is the value of the series of a family with the given labels
// (a subset), summed over the series that match; -1 when none does.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	f := fams[name]
	if f == nil {
		return -1
	}
	sum, found := 0.0, false
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		ok := true
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				ok = false
			}
		}
		if !ok {
			continue
		}
		found = true
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	if !found {
		return -1
	}
	return sum
}

// gozieSeries lists the gozie_ series as name{label=value,...}.
func gozieSeries(fams map[string]*dto.MetricFamily) []string {
	var out []string
	for name, f := range fams {
		if !strings.HasPrefix(name, "gozie_") {
			continue
		}
		for _, m := range f.Metric {
			var ls []string
			for _, l := range m.Label {
				ls = append(ls, l.GetName()+"="+l.GetValue())
			}
			out = append(out, name+"{"+strings.Join(ls, ",")+"}")
		}
	}
	sort.Strings(out)
	return out
}

// metricsApp writes a workflow with one fs action, and a coordinator of
// one daily action with an input on the local file system that exists.
func metricsApp(t *testing.T) string {
	dir := t.TempDir()
	wf := `<workflow-app xmlns="uri:oozie:workflow:0.5" name="${appName}">
  <start to="mk"/>
  <action name="mk"><fs><mkdir path="` + dir + `/out/${wf:id()}"/></fs><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>failed</message></kill>
  <end name="end"/>
</workflow-app>`
	coordXML := `<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="metrics-coord" frequency="${coord:days(1)}"
    start="2020-01-01T00:00Z" end="2020-01-02T00:00Z" timezone="UTC">
  <datasets><dataset name="in" frequency="${coord:days(1)}" initial-instance="2020-01-01T00:00Z" timezone="UTC">
    <uri-template>file://` + dir + `/data/${YEAR}${MONTH}${DAY}</uri-template></dataset></datasets>
  <input-events><data-in name="input" dataset="in"><instance>${coord:current(0)}</instance></data-in></input-events>
  <action><workflow><app-path>` + dir + `</app-path>
    <configuration><property><name>appName</name><value>from-coord</value></property></configuration>
  </workflow></action></coordinator-app>`
	for name, body := range map[string]string{"workflow.xml": wf, "coordinator.xml": coordXML, "data/20200101/_SUCCESS": ""} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runWorkflow submits and starts the workflow as user, named appName.
func runWorkflow(ctx context.Context, t *testing.T, url, dir, user, appName string) string {
	t.Helper()
	c := client.New(url, client.Options{User: user})
	cf := conf.New()
	cf.Set("user.name", user)
	cf.Set("oozie.wf.application.path", dir)
	cf.Set("appName", appName)
	id, _, err := c.Submit(ctx, cf, true)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// waitStatus polls a job until it reaches want.
func waitStatus(ctx context.Context, t *testing.T, url, id, want string) {
	t.Helper()
	c := client.New(url, client.Options{User: "joe"})
	for {
		st, err := c.JobStatus(ctx, id)
		if err == nil && st == want {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("job %s: status %s (%v), want %s", id, st, err, want)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestMetricsEndToEnd scrapes the metrics of a server that ran a workflow
// and a coordinator: every metric has its name, type and labels, the
// counts follow what ran, and 50 more jobs of distinct names and users
// add no series (no label takes unbounded values).
func TestMetricsEndToEnd(t *testing.T) {
	srv := gozietest.NewServer(t, gozietest.Options{DefaultUser: "joe",
		Config: map[string]string{"gozie.metrics.store.refresh.s": "0"}})
	dir := metricsApp(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	wf := runWorkflow(ctx, t, srv.URL, dir, "joe", "plain")
	c := client.New(srv.URL, client.Options{User: "joe"})
	cc := conf.New()
	cc.Set("user.name", "joe")
	cc.Set("oozie.coord.application.path", dir)
	coordID, _, err := c.Submit(ctx, cc, true)
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(ctx, t, srv.URL, wf, "SUCCEEDED")
	waitStatus(ctx, t, srv.URL, coordID, "SUCCEEDED")
	scrape(t, srv) // the scrape's own request is counted from the next one on
	fams := scrape(t, srv)

	types := map[string]dto.MetricType{
		"gozie_submissions_total": dto.MetricType_COUNTER, "gozie_job_transitions_total": dto.MetricType_COUNTER,
		"gozie_action_starts_total": dto.MetricType_COUNTER, "gozie_action_ends_total": dto.MetricType_COUNTER,
		"gozie_action_duration_seconds":            dto.MetricType_HISTOGRAM,
		"gozie_coord_materialization_lag_seconds":  dto.MetricType_HISTOGRAM,
		"gozie_store_transaction_duration_seconds": dto.MetricType_HISTOGRAM,
		"gozie_http_requests_total":                dto.MetricType_COUNTER,
		"gozie_http_request_duration_seconds":      dto.MetricType_HISTOGRAM,
		"gozie_jobs":                               dto.MetricType_GAUGE, "gozie_effects_pending": dto.MetricType_GAUGE,
		"gozie_effects_due": dto.MetricType_GAUGE, "gozie_effects_oldest_due_age_seconds": dto.MetricType_GAUGE,
		"gozie_effects_held": dto.MetricType_GAUGE, "gozie_effects_retrying": dto.MetricType_GAUGE,
		"gozie_store_stats_duration_seconds": dto.MetricType_GAUGE, "gozie_store_stats_errors_total": dto.MetricType_COUNTER,
		"gozie_input_check_requests_total": dto.MetricType_COUNTER, "gozie_input_check_unavailable_total": dto.MetricType_COUNTER,
		"go_goroutines": dto.MetricType_GAUGE,
	}
	for name, typ := range types {
		f := fams[name]
		if f == nil {
			t.Errorf("no metric %s", name)
			continue
		}
		if f.GetType() != typ {
			t.Errorf("%s: type %s, want %s", name, f.GetType(), typ)
		}
		if f.GetHelp() == "" {
			t.Errorf("%s: no help", name)
		}
	}
	labelNames := map[string]string{
		"gozie_submissions_total": "kind", "gozie_job_transitions_total": "from,kind,to",
		"gozie_action_starts_total": "type", "gozie_action_ends_total": "status,type", "gozie_action_duration_seconds": "type",
		"gozie_coord_materialization_lag_seconds": "", "gozie_store_transaction_duration_seconds": "op",
		"gozie_http_requests_total": "code,method,route", "gozie_http_request_duration_seconds": "route",
		"gozie_jobs": "kind,status", "gozie_effects_pending": "", "gozie_input_check_requests_total": "scheme",
	}
	for name, want := range labelNames {
		for _, m := range fams[name].GetMetric() {
			var got []string
			for _, l := range m.Label {
				got = append(got, l.GetName())
			}
			sort.Strings(got)
			if strings.Join(got, ",") != want {
				t.Errorf("%s labels %v, want %s", name, got, want)
				break
			}
		}
	}
	checks := []struct {
		name   string
		labels []string
		min    float64
	}{
		{"gozie_submissions_total", []string{"kind", "workflow"}, 1},
		{"gozie_submissions_total", []string{"kind", "coordinator"}, 1},
		// The standalone workflow and the coordinator's.
		{"gozie_job_transitions_total", []string{"kind", "workflow", "from", "RUNNING", "to", "SUCCEEDED"}, 2},
		{"gozie_job_transitions_total", []string{"kind", "coordinator", "to", "SUCCEEDED"}, 1},
		{"gozie_action_starts_total", []string{"type", "fs"}, 2},
		{"gozie_action_ends_total", []string{"type", "fs", "status", "OK"}, 2},
		{"gozie_action_duration_seconds", []string{"type", "fs"}, 2},
		{"gozie_coord_materialization_lag_seconds", nil, 1},
		{"gozie_store_transaction_duration_seconds", []string{"op", "update"}, 5},
		{"gozie_store_transaction_duration_seconds", []string{"op", "view"}, 1},
		{"gozie_http_requests_total", []string{"route", "/oozie/v2/jobs", "method", "POST", "code", "201"}, 2},
		{"gozie_jobs", []string{"kind", "workflow", "status", "SUCCEEDED"}, 2},
		{"gozie_jobs", []string{"kind", "coordinator", "status", "SUCCEEDED"}, 1},
		{"gozie_input_check_requests_total", []string{"scheme", "file"}, 1},
	}
	for _, c := range checks {
		if v := value(fams, c.name, c.labels...); v < c.min {
			t.Errorf("%s%v = %v, want >= %v", c.name, c.labels, v, c.min)
		}
	}
	if v := value(fams, "gozie_action_starts_total", "type", ":START:"); v != -1 {
		t.Errorf("control nodes counted as actions: %v", v)
	}
	// Route labels are patterns, never paths with ids.
	for _, m := range fams["gozie_http_requests_total"].Metric {
		for _, l := range m.Label {
			if l.GetName() == "route" && strings.Contains(l.GetValue(), wf) {
				t.Errorf("route label holds a job id: %s", l.GetValue())
			}
		}
	}

	// 50 jobs of distinct names and users: the same series, no more.
	before := gozieSeries(fams)
	var ids []string
	for i := range 50 {
		ids = append(ids, runWorkflow(ctx, t, srv.URL, dir, fmt.Sprintf("user%02d", i), fmt.Sprintf("app-%02d", i)))
	}
	for _, id := range ids {
		waitStatus(ctx, t, srv.URL, id, "SUCCEEDED")
	}
	fams = scrape(t, srv)
	after := gozieSeries(fams)
	if len(after) != len(before) {
		t.Errorf("series: %d before the 50 jobs, %d after; new: %v", len(before), len(after), added(before, after))
	}
	leak := regexp.MustCompile(`user\d\d|app-\d\d|\d{7}-\d+`)
	for _, s := range after {
		if leak.MatchString(s) {
			t.Errorf("unbounded label value: %s", s)
		}
	}
	if v := value(fams, "gozie_action_ends_total", "type", "fs", "status", "OK"); v < 52 {
		t.Errorf("fs ends after the 50 jobs: %v", v)
	}
}

func added(before, after []string) []string {
	had := map[string]bool{}
	for _, s := range before {
		had[s] = true
	}
	var out []string
	for _, s := range after {
		if !had[s] {
			out = append(out, s)
		}
	}
	return out
}
