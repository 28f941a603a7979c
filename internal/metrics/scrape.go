package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gozie/gozie/internal/store"
)

// The metrics read at scrape time.
var (
	descJobs = prometheus.NewDesc("gozie_jobs",
		"Jobs in the store by kind and status (the whole store: every server sharing it reports the same).",
		[]string{"kind", "status"}, nil)
	descEffects = prometheus.NewDesc("gozie_effects_pending",
		"Pending effects in the store's outbox, delayed ones included.", nil, nil)
	descDue = prometheus.NewDesc("gozie_effects_due",
		"Pending effects whose delay is over: due to be performed.", nil, nil)
	descOldest = prometheus.NewDesc("gozie_effects_oldest_due_age_seconds",
		"How long the oldest due effect has been due (0 when none is).", nil, nil)
	descHeld = prometheus.NewDesc("gozie_effects_held",
		"Effects this server dispatched and has not settled: being performed or waiting for a slot or delay.", nil, nil)
	descRetrying = prometheus.NewDesc("gozie_effects_retrying",
		"Effects of this server whose last attempt failed, waiting for the next (backoff).", nil, nil)
	descStatsTime = prometheus.NewDesc("gozie_store_stats_duration_seconds",
		"Time the last count of jobs and effects took in the store.", nil, nil)
	descStatsErrors = prometheus.NewDesc("gozie_store_stats_errors_total",
		"Counts of jobs and effects that failed (the gauges are then left out of that scrape).", nil, nil)
	descInput = prometheus.NewDesc("gozie_input_check_requests_total",
		"Coordinator input-check requests to stores, by store scheme.", []string{"scheme"}, nil)
	descInputDown = prometheus.NewDesc("gozie_input_check_unavailable_total",
		"Coordinator input-check requests the store did not answer, by store scheme.", []string{"scheme"}, nil)
	descMembers = prometheus.NewDesc("gozie_cluster_members",
		"Live servers sharing the store, this one included.", nil, nil)
	descTakeOvers = prometheus.NewDesc("gozie_cluster_takeovers_total",
		"Instances whose jobs this server took: dead (another server stopped its heartbeats) or restart (this server's own earlier instance).",
		[]string{"reason"}, nil)
)

// scrape is the Collector of what has a value now rather than a count of
// events. The store is counted at most once per StatsMaxAge, one count at
// a time, so that scrapes from several Prometheus servers (or a dashboard
// refreshing often) cost the database one query set per interval.
type scrape struct {
	src Sources

	mu      sync.Mutex
	at      time.Time // when stats were read
	stats   store.Stats
	ok      bool
	took    time.Duration
	failed  int64
	counter store.Counter
}

func newScrape(src Sources) *scrape {
	src.StatsMaxAge = max(src.StatsMaxAge, 0)
	if src.StatsTimeout <= 0 {
		src.StatsTimeout = 5 * time.Second
	}
	if src.Now == nil {
		src.Now = time.Now
	}
	s := &scrape{src: src}
	s.counter, _ = src.Store.(store.Counter)
	return s
}

// Describe implements prometheus.Collector.
func (s *scrape) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descJobs, descEffects, descDue, descOldest, descHeld, descRetrying,
		descStatsTime, descStatsErrors, descInput, descInputDown, descMembers, descTakeOvers} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (s *scrape) Collect(ch chan<- prometheus.Metric) {
	s.collectStore(ch)
	if rt := s.src.Runtime; rt != nil {
		st := rt.Stats()
		ch <- prometheus.MustNewConstMetric(descHeld, prometheus.GaugeValue, float64(st.Held))
		ch <- prometheus.MustNewConstMetric(descRetrying, prometheus.GaugeValue, float64(st.Retrying))
	}
	if f := s.src.InputChecks; f != nil {
		for scheme, c := range f() {
			ch <- prometheus.MustNewConstMetric(descInput, prometheus.CounterValue, float64(c.Requests), scheme)
			ch <- prometheus.MustNewConstMetric(descInputDown, prometheus.CounterValue, float64(c.Unavailable), scheme)
		}
	}
	if c := s.src.Cluster; c != nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.src.StatsTimeout)
		live, err := c.Live(ctx)
		cancel()
		if err == nil {
			ch <- prometheus.MustNewConstMetric(descMembers, prometheus.GaugeValue, float64(len(live)))
		}
		dead, restarts := c.TakeOvers()
		ch <- prometheus.MustNewConstMetric(descTakeOvers, prometheus.CounterValue, float64(dead), "dead")
		ch <- prometheus.MustNewConstMetric(descTakeOvers, prometheus.CounterValue, float64(restarts), "restart")
	}
}

// collectStore reports the store's counts, read again when older than
// StatsMaxAge. A failed count leaves the gauges out rather than report
// stale values as current.
func (s *scrape) collectStore(ch chan<- prometheus.Metric) {
	if s.counter == nil {
		return
	}
	s.mu.Lock()
	now := s.src.Now()
	if !s.ok || now.Sub(s.at) >= s.src.StatsMaxAge || now.Before(s.at) {
		ctx, cancel := context.WithTimeout(context.Background(), s.src.StatsTimeout)
		start := time.Now()
		st, err := s.counter.Stats(ctx, now)
		cancel()
		s.took = time.Since(start)
		s.at, s.ok, s.stats = now, err == nil, st
		if err != nil {
			s.failed++
		}
	}
	st, ok, took, failed := s.stats, s.ok, s.took, s.failed
	s.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(descStatsTime, prometheus.GaugeValue, took.Seconds())
	ch <- prometheus.MustNewConstMetric(descStatsErrors, prometheus.CounterValue, float64(failed))
	if !ok {
		return
	}
	for _, c := range st.Jobs {
		ch <- prometheus.MustNewConstMetric(descJobs, prometheus.GaugeValue, float64(c.N), c.Kind, c.Status)
	}
	ch <- prometheus.MustNewConstMetric(descEffects, prometheus.GaugeValue, float64(st.Effects))
	ch <- prometheus.MustNewConstMetric(descDue, prometheus.GaugeValue, float64(st.Due))
	age := 0.0
	if !st.OldestDue.IsZero() && now.After(st.OldestDue) {
		age = now.Sub(st.OldestDue).Seconds()
	}
	ch <- prometheus.MustNewConstMetric(descOldest, prometheus.GaugeValue, age)
}
