package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/store"
)

// fakeStore counts its Stats calls; it is a store.Counter and nothing else
// of a store that the metrics use.
type fakeStore struct {
	store.Store
	mu    sync.Mutex
	calls int
	err   error
	stats store.Stats
}

func (f *fakeStore) Stats(ctx context.Context, now time.Time) (store.Stats, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return f.stats, f.err
}

type fakeRuntime struct{}

func (fakeRuntime) Stats() effect.Stats { return effect.Stats{Held: 2, Retrying: 1} }

type fakeCluster struct{}

func (fakeCluster) Live(context.Context) ([]store.ServerInfo, error) {
	return []store.ServerInfo{{ID: "a"}, {ID: "b"}}, nil
}
func (fakeCluster) TakeOvers() (int64, int64) { return 3, 1 }

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// exercised returns metrics with every source set and every event
// reported once, so that every family has a series.
func exercised(t *testing.T) (*Metrics, *fakeStore, *fakeClock) {
	clock := &fakeClock{now: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	st := &fakeStore{stats: store.Stats{
		Jobs:    []store.StatusCount{{Kind: "workflow", Status: "RUNNING", N: 4}, {Kind: "coordinator", Status: "RUNNING", N: 1}},
		Effects: 7, Due: 3, OldestDue: clock.now.Add(-90 * time.Second)}}
	m := New(Sources{Store: st, Runtime: fakeRuntime{}, Cluster: fakeCluster{}, StatsMaxAge: 15 * time.Second, Now: clock.Now,
		InputChecks: func() map[string]fsys.SchemeCounts {
			return map[string]fsys.SchemeCounts{"hdfs": {Requests: 10, Unavailable: 2}}
		}})
	m.Submitted("workflow")
	m.JobStatus("workflow", "RUNNING", "SUCCEEDED")
	m.ActionStarted("shell")
	m.ActionEnded("shell", "OK", 3*time.Second)
	m.Materialized(2 * time.Second)
	m.StoreTransaction("update", time.Millisecond, nil)
	m.StoreTransaction("update", time.Millisecond, &store.UnavailableError{Err: errors.New("refused")})
	m.Request("/oozie/v2/jobs", "POST", 201, time.Millisecond)
	return m, st, clock
}

func gather(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

func gaugeOf(fams map[string]*dto.MetricFamily, name string) float64 {
	f := fams[name]
	if f == nil || len(f.Metric) == 0 {
		return -1
	}
	m := f.Metric[0]
	if m.Gauge != nil {
		return m.Gauge.GetValue()
	}
	return m.Counter.GetValue()
}

// TestScrapeValues: the values read at scrape time, and the store counted
// at most once per StatsMaxAge; a failed count leaves its gauges out.
func TestScrapeValues(t *testing.T) {
	m, st, clock := exercised(t)
	fams := gather(t, m)
	for name, want := range map[string]float64{
		"gozie_effects_pending": 7, "gozie_effects_due": 3, "gozie_effects_oldest_due_age_seconds": 90,
		"gozie_effects_held": 2, "gozie_effects_retrying": 1, "gozie_cluster_members": 2,
	} {
		if got := gaugeOf(fams, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if n := len(fams["gozie_jobs"].GetMetric()); n != 2 {
		t.Errorf("gozie_jobs series: %d", n)
	}
	gather(t, m)
	clock.add(14 * time.Second)
	gather(t, m)
	if st.calls != 1 {
		t.Errorf("store counted %d times within StatsMaxAge", st.calls)
	}
	clock.add(time.Second)
	st.err = &store.UnavailableError{Err: errors.New("refused")}
	fams = gather(t, m)
	if st.calls != 2 || fams["gozie_jobs"] != nil || fams["gozie_effects_pending"] != nil {
		t.Errorf("after a failed count: calls %d, jobs %v", st.calls, fams["gozie_jobs"])
	}
	if got := gaugeOf(fams, "gozie_store_stats_errors_total"); got != 1 {
		t.Errorf("stats errors %v", got)
	}
}

// TestBoundedLabels: label values folded into bounded sets.
func TestBoundedLabels(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{store.ErrNotFound, ""},
		{context.Canceled, ""},
		{errors.New("E0604: job not found"), ""}, // the caller's, not the store's
		{&store.UnavailableError{Err: errors.New("x")}, "unavailable"},
		{fmt.Errorf("commit: %w", store.ErrNotOwner), "not_owner"},
		{store.ErrDiskFull, "disk_full"},
		{store.Errorf("postgres: %w", errors.New("syntax")), "error"},
	} {
		if got := storeReason(c.err); got != c.want {
			t.Errorf("storeReason(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	for in, want := range map[string]string{"GET": "GET", "PROPFIND": "OTHER", "get": "OTHER", "": "OTHER"} {
		if got := boundedMethod(in); got != want {
			t.Errorf("boundedMethod(%q) = %q", in, got)
		}
	}
	for in, want := range map[int]string{200: "200", 503: "503", 0: "other", 1000: "other"} {
		if got := codeLabel(in); got != want {
			t.Errorf("codeLabel(%d) = %q", in, got)
		}
	}
}

// TestDashboard: every expression of the Grafana dashboard names metrics
// this package exports (or Prometheus's own), and selects them only by
// labels they have.
func TestDashboard(t *testing.T) {
	b, err := os.ReadFile("../../deploy/grafana/gozie-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []panel `json:"panels"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	m, _, _ := exercised(t)
	labels := map[string]map[string]bool{"up": {"job": true, "instance": true}}
	for name, f := range gather(t, m) {
		ls := map[string]bool{"job": true, "instance": true} // added by Prometheus
		for _, s := range f.Metric {
			for _, l := range s.Label {
				ls[l.GetName()] = true
			}
		}
		names := []string{name}
		if f.GetType() == dto.MetricType_HISTOGRAM {
			names = []string{name + "_bucket", name + "_sum", name + "_count"}
			ls["le"] = true
		}
		for _, n := range names {
			labels[n] = ls
		}
	}
	metricRef := regexp.MustCompile(`\b((?:gozie|go|process)_[a-z_]+|up)\b(\{([^}]*)\})?`)
	matcher := regexp.MustCompile(`([a-z_]+)\s*(=~|!~|!=|=)`)
	exprs := 0
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			walk(p.Panels)
			for _, tg := range p.Targets {
				exprs++
				refs := metricRef.FindAllStringSubmatch(tg.Expr, -1)
				if len(refs) == 0 {
					t.Errorf("panel %q: %q names no metric", p.Title, tg.Expr)
				}
				for _, r := range refs {
					have, ok := labels[r[1]]
					if !ok {
						t.Errorf("panel %q: %s is not a metric of gozie's /metrics", p.Title, r[1])
						continue
					}
					for _, lm := range matcher.FindAllStringSubmatch(r[3], -1) {
						if !have[lm[1]] {
							t.Errorf("panel %q: %s has no label %s", p.Title, r[1], lm[1])
						}
					}
				}
			}
		}
	}
	walk(dash.Panels)
	if exprs < 20 {
		t.Errorf("only %d expressions in the dashboard", exprs)
	}
}

type panel struct {
	Title   string  `json:"title"`
	Panels  []panel `json:"panels"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}

// TestHandler: the page is the text exposition.
func TestHandler(t *testing.T) {
	m, _, _ := exercised(t)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "# TYPE gozie_jobs gauge") {
		t.Fatalf("page: %d %.500s", rec.Code, rec.Body.String())
	}
}
