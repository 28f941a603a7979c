// Package metrics is gozie's Prometheus exposition: the /metrics page of a
// server, on a registry of its own (tests start many servers in one
// process, so nothing goes to the global default registry).
//
// The lower layers do not import Prometheus. They count in plain Go and
// this package reads them: the engines tell an effect.Observer (this
// package's Metrics) of each committed status change, the store an
// observer of each transaction (store.Observed), the server an observer of
// each request; what has a current value (jobs by status, the outbox, the
// input checks' requests, the cluster) is read at scrape time by a
// Collector from the store, the effect runtime, the coordinator engine's
// prober and the cluster member.
//
// Every label value is bounded: job kinds, statuses, action types, route
// patterns, HTTP methods and codes, store schemes. No job id, user or
// application name is ever a label.
package metrics

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/store"
)

// Sources are the parts of a server the scrape reads. Any may be nil (a
// server without coordinators, a server of its own).
type Sources struct {
	// Store is counted (store.Counter) for the job and outbox gauges.
	Store store.Store
	// Runtime gives the effects held and retrying in this process.
	Runtime interface{ Stats() effect.Stats }
	// InputChecks gives the coordinator input checks' requests by scheme.
	InputChecks func() map[string]fsys.SchemeCounts
	// Cluster is this server's membership of servers sharing a store.
	Cluster Cluster
	// StatsMaxAge is how long one count of the store serves scrapes
	// (gozie.metrics.store.refresh.s, 15s); 0 counts at every scrape.
	StatsMaxAge time.Duration
	// StatsTimeout bounds that count; default 5s.
	StatsTimeout time.Duration
	// Now is the clock of the outbox's ages; default time.Now.
	Now func() time.Time
}

// Cluster is what the metrics read of a cluster member.
type Cluster interface {
	Live(ctx context.Context) ([]store.ServerInfo, error)
	TakeOvers() (dead, restarts int64)
}

// Metrics holds a server's metrics. Its methods are safe for concurrent
// use; it implements effect.Observer.
type Metrics struct {
	reg     *prometheus.Registry
	handler http.Handler

	submissions  *prometheus.CounterVec
	transitions  *prometheus.CounterVec
	actionStarts *prometheus.CounterVec
	actionEnds   *prometheus.CounterVec
	actionTime   *prometheus.HistogramVec
	matLag       prometheus.Histogram
	storeTime    *prometheus.HistogramVec
	storeErrors  *prometheus.CounterVec
	httpRequests *prometheus.CounterVec
	httpTime     *prometheus.HistogramVec
}

var _ effect.Observer = (*Metrics)(nil)

// New returns the metrics of one server, reading src at each scrape.
func New(src Sources) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.submissions = counterVec("gozie_submissions_total",
		"Jobs submitted through the REST API, by kind.", "kind")
	m.transitions = counterVec("gozie_job_transitions_total",
		"Job status changes committed by this server, by job kind and statuses.", "kind", "from", "to")
	m.actionStarts = counterVec("gozie_action_starts_total",
		"Workflow actions started (left PREP for a run), by action type.", "type")
	m.actionEnds = counterVec("gozie_action_ends_total",
		"Workflow actions ended, by action type and terminal status.", "type", "status")
	m.actionTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gozie_action_duration_seconds",
		Help:    "Time from an action's start to its end, by action type.",
		Buckets: []float64{0.1, 0.5, 1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 21600}}, []string{"type"})
	m.matLag = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "gozie_coord_materialization_lag_seconds",
		Help:    "How late coordinator actions were materialized: now less the time the window first reached their nominal time.",
		Buckets: []float64{1, 5, 15, 60, 300, 900, 3600, 21600, 86400}})
	m.storeTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gozie_store_transaction_duration_seconds",
		Help:    "Store transactions, read-write (update) and read-only (view), by their time including retries.",
		Buckets: []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5}}, []string{"op"})
	m.storeErrors = counterVec("gozie_store_transaction_errors_total",
		"Store transactions that failed in the store, by op and reason (unavailable, not_owner, disk_full, error).", "op", "reason")
	m.httpRequests = counterVec("gozie_http_requests_total",
		"HTTP requests answered, by route pattern, method and status code.", "route", "method", "code")
	m.httpTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gozie_http_request_duration_seconds",
		Help:    "HTTP request handling time, by route pattern.",
		Buckets: []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10}}, []string{"route"})
	m.reg.MustRegister(m.submissions, m.transitions, m.actionStarts, m.actionEnds, m.actionTime, m.matLag,
		m.storeTime, m.storeErrors, m.httpRequests, m.httpTime,
		newScrape(src),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Made once: HandlerOpts.Registry registers the handler's own error
	// counter in the registry, which a second handler would register again.
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
	return m
}

func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

// Handler serves the metrics in the Prometheus text format (or
// OpenMetrics, when the scraper asks for it).
func (m *Metrics) Handler() http.Handler { return m.handler }

// Registry is the server's registry (tests gather from it).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// JobStatus implements effect.Observer.
func (m *Metrics) JobStatus(kind, from, to string) {
	m.transitions.WithLabelValues(kind, from, to).Inc()
}

// ActionStarted implements effect.Observer.
func (m *Metrics) ActionStarted(typ string) { m.actionStarts.WithLabelValues(typ).Inc() }

// ActionEnded implements effect.Observer.
func (m *Metrics) ActionEnded(typ, status string, took time.Duration) {
	m.actionEnds.WithLabelValues(typ, status).Inc()
	m.actionTime.WithLabelValues(typ).Observe(took.Seconds())
}

// Materialized implements effect.Observer.
func (m *Metrics) Materialized(lag time.Duration) { m.matLag.Observe(lag.Seconds()) }

// Submitted counts a job submitted through the REST API; kind is
// "workflow", "coordinator" or "bundle".
func (m *Metrics) Submitted(kind string) { m.submissions.WithLabelValues(kind).Inc() }

// StoreTransaction observes one store transaction (store.Observed). Only
// the store's own failures count as errors: an error of the caller's
// function (a job not found, a refused command) says nothing of the store.
func (m *Metrics) StoreTransaction(op string, took time.Duration, err error) {
	m.storeTime.WithLabelValues(op).Observe(took.Seconds())
	if reason := storeReason(err); reason != "" {
		m.storeErrors.WithLabelValues(op, reason).Inc()
	}
}

func storeReason(err error) string {
	switch {
	case err == nil, errors.Is(err, store.ErrNotFound), errors.Is(err, context.Canceled):
		return ""
	case errors.Is(err, store.ErrUnavailable):
		return "unavailable"
	case errors.Is(err, store.ErrNotOwner):
		return "not_owner"
	case errors.Is(err, store.ErrDiskFull):
		return "disk_full"
	case errors.Is(err, store.ErrStore):
		return "error"
	}
	return ""
}

// Request observes one HTTP request: route is the pattern that served it
// ("" when none did: the Host check refused it first), never the path.
func (m *Metrics) Request(route, method string, code int, took time.Duration) {
	if route == "" {
		route = "none"
	}
	m.httpRequests.WithLabelValues(route, boundedMethod(method), codeLabel(code)).Inc()
	m.httpTime.WithLabelValues(route).Observe(took.Seconds())
}

// boundedMethod keeps the methods HTTP defines and folds any other
// (a client may send any token) into OTHER.
func boundedMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "OTHER"
}

// codeLabel is the status code as text; net/http only writes 100-999.
func codeLabel(code int) string {
	if code < 100 || code > 999 {
		return "other"
	}
	return itoa3(code)
}

func itoa3(n int) string {
	return string([]byte{byte('0' + n/100), byte('0' + n/10%10), byte('0' + n%10)})
}
