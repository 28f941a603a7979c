// Package purge removes old jobs from the store, as Oozie's PurgeService
// does: periodically, ended workflow jobs older than a number of days,
// coordinators and bundles older than theirs, each with everything it
// started, in small transactions so that the engines never wait long
// (docs/operations.md, "Retention (purge)").
package purge

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/store"
)

// The keys of Oozie's PurgeService, read by the server with their Oozie
// names and defaults.
const (
	KeyPrefix          = "oozie.service.PurgeService."
	KeyOlderThan       = KeyPrefix + "older.than"
	KeyCoordOlderThan  = KeyPrefix + "coord.older.than"
	KeyBundleOlderThan = KeyPrefix + "bundle.older.than"
	KeyLimit           = KeyPrefix + "purge.limit"
	KeyInterval        = KeyPrefix + "purge.interval"
	KeyOldCoordAction  = KeyPrefix + "purge.old.coord.action"
)

// Keys lists the keys with their defaults and meaning, for the server's
// documented configuration.
var Keys = []struct{ Name, Default, Doc string }{
	{KeyOlderThan, "30", "purge: ended workflow jobs whose end is more than this many days ago are deleted (with their actions, logs, SLA records)"},
	{KeyCoordOlderThan, "7", "purge: ended coordinator jobs last changed more than this many days ago are deleted with their actions and the workflows these ran, when those may go too"},
	{KeyBundleOlderThan, "7", "purge: ended bundle jobs last changed more than this many days ago are deleted with their coordinators, when those may go too"},
	{KeyLimit, "100", "purge: most jobs deleted in one transaction (the engines wait for one such transaction at most)"},
	{KeyInterval, "3600", "purge: seconds between purges; 0 or negative: no periodic purge (PUT /v2/admin/purge still runs one)"},
	{KeyOldCoordAction, "false", "purge: also delete the ended actions (and their workflows) of coordinators still running, by the workflow age"},
}

// Config is what a purge removes and how often it runs.
type Config struct {
	// WorkflowDays, CoordDays and BundleDays are the ages, in days, past
	// which ended jobs of each kind go.
	WorkflowDays, CoordDays, BundleDays int
	// Limit is how many jobs one transaction deletes at most.
	Limit int
	// Interval is the time between periodic purges; <= 0 for none.
	Interval time.Duration
	// OldCoordActions deletes the ended actions of running coordinators.
	OldCoordActions bool
}

// DefaultConfig is Oozie's defaults.
var DefaultConfig = Config{WorkflowDays: 30, CoordDays: 7, BundleDays: 7, Limit: 100, Interval: time.Hour}

// ConfigFrom reads the keys through get (a site configuration); a blank
// key takes its default, a malformed one is an error naming it.
func ConfigFrom(get func(key string) string) (Config, error) {
	c := DefaultConfig
	ints := []struct {
		key      string
		dst      *int
		positive bool
	}{
		{KeyOlderThan, &c.WorkflowDays, false}, {KeyCoordOlderThan, &c.CoordDays, false},
		{KeyBundleOlderThan, &c.BundleDays, false}, {KeyLimit, &c.Limit, true},
	}
	for _, k := range ints {
		v := strings.TrimSpace(get(k.key))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || (k.positive && n == 0) {
			return c, fmt.Errorf("%s: want a whole number (of days; of jobs for the limit, at least 1), got %q", k.key, v)
		}
		*k.dst = n
	}
	if v := strings.TrimSpace(get(KeyInterval)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return c, fmt.Errorf("%s: want a whole number of seconds, got %q", KeyInterval, v)
		}
		c.Interval = time.Duration(n) * time.Second
	}
	switch v := strings.ToLower(strings.TrimSpace(get(KeyOldCoordAction))); v {
	case "":
	case "true", "false":
		c.OldCoordActions = v == "true"
	default:
		return c, fmt.Errorf("%s: want true or false, got %q", KeyOldCoordAction, v)
	}
	return c, nil
}

// Report is what one purge round did.
type Report struct {
	store.PurgeCount
	// Freed is the bytes given back to the file system (SQLite; 0 on
	// PostgreSQL, whose autovacuum makes the space reusable by itself).
	Freed int64
	// Batches counts the transactions; Longest is the longest one, the
	// most an engine commit waited for the purge.
	Batches int
	Longest time.Duration
	// Took is the whole round, reclaiming space included.
	Took time.Duration
	// Skipped says another server held the purge lock: it purges now.
	Skipped bool
}

// String is the round's log line.
func (r Report) String() string {
	if r.Skipped {
		return "skipped: another server is purging"
	}
	return fmt.Sprintf("deleted %d workflows, %d coordinator actions, %d coordinators, %d bundles (%d rows) in %d batches, longest %s; %d bytes freed; took %s",
		r.Workflows, r.CoordActions, r.Coords, r.Bundles, r.Rows, r.Batches, r.Longest.Round(time.Microsecond), r.Freed,
		r.Took.Round(time.Millisecond))
}

// Options are a Service's collaborators.
type Options struct {
	// Clock runs the periodic purges and dates the cut-offs; default the
	// wall clock.
	Clock effect.Clock
	// Logf receives one line per round; default none.
	Logf func(format string, args ...any)
	// FirstDelay is the wait before the first periodic purge (Oozie: 10
	// seconds after the start); 0 means Config.Interval.
	FirstDelay time.Duration
}

// Service runs purge rounds on a store: periodically after Start, and on
// demand (Run, Trigger).
type Service struct {
	p     store.Purger
	cfg   Config
	clock effect.Clock
	logf  func(format string, args ...any)
	first time.Duration

	// roundMu queues this server's rounds (a requested one waits for
	// the periodic one) instead of skipping them at the store's lock,
	// which only keeps other servers out.
	roundMu sync.Mutex
	mu      sync.Mutex
	stop    func() bool
	closed  bool
	ctx     context.Context
	cancel  context.CancelFunc
	running sync.WaitGroup
}

// New returns a service purging p by cfg; Start starts its periodic
// rounds.
func New(p store.Purger, cfg Config, o Options) *Service {
	if o.Clock == nil {
		o.Clock = effect.SystemClock
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.FirstDelay <= 0 {
		o.FirstDelay = cfg.Interval
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Service{p: p, cfg: cfg, clock: o.Clock, logf: o.Logf, first: o.FirstDelay, ctx: ctx, cancel: cancel}
}

// Config returns the service's configuration (the defaults of a manual
// purge).
func (s *Service) Config() Config { return s.cfg }

// Start schedules the periodic rounds, unless Config.Interval is <= 0.
func (s *Service) Start() {
	if s.cfg.Interval <= 0 {
		s.logf("gozie: purge: no periodic purge (%s=%d)", KeyInterval, int(s.cfg.Interval/time.Second))
		return
	}
	s.schedule(s.first)
}

// schedule arms the next periodic round d from now.
func (s *Service) schedule(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.running.Add(1)
	s.stop = s.clock.AfterFunc(d, func() {
		defer s.running.Done()
		s.round(s.cfg)
		s.schedule(s.cfg.Interval)
	})
}

// Trigger runs one round with cfg now, in the background (PUT
// /v2/admin/purge answers at once, as Oozie's does).
func (s *Service) Trigger(cfg Config) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		s.round(cfg)
	}()
}

// round runs one purge and logs it.
func (s *Service) round(cfg Config) {
	r, err := s.Run(s.ctx, cfg)
	if err != nil {
		if s.ctx.Err() == nil {
			s.logf("gozie: purge: %v (after: %s)", err, r)
		}
		return
	}
	s.logf("gozie: purge: %s", r)
}

// Close stops the periodic rounds and waits for one in progress, which
// stops after its current batch.
func (s *Service) Close() {
	s.mu.Lock()
	s.closed = true
	if s.stop != nil && s.stop() {
		s.running.Done() // the armed round will not run
	}
	s.mu.Unlock()
	s.cancel()
	s.running.Wait()
}

// Run performs one purge round with cfg under the store's purge lock:
// every step in batches of cfg.Limit jobs, each its own transaction,
// then the reclaiming of the freed space.
func (s *Service) Run(ctx context.Context, cfg Config) (Report, error) {
	var r Report
	s.roundMu.Lock()
	defer s.roundMu.Unlock()
	start := time.Now()
	release, ok, err := s.p.PurgeLock(ctx)
	if err != nil {
		return r, err
	}
	if !ok {
		r.Skipped = true
		return r, nil
	}
	defer release()
	now := s.clock.Now()
	day := 24 * time.Hour
	rules := store.PurgeRules{
		WorkflowBefore: now.Add(-time.Duration(cfg.WorkflowDays) * day),
		CoordBefore:    now.Add(-time.Duration(cfg.CoordDays) * day),
		BundleBefore:   now.Add(-time.Duration(cfg.BundleDays) * day),
		Limit:          cfg.Limit,
	}
	for _, step := range []store.PurgeStep{store.PurgeWorkflows, store.PurgeCoordActions, store.PurgeCoords, store.PurgeBundles} {
		if step == store.PurgeCoordActions && !cfg.OldCoordActions {
			continue
		}
		for after := ""; ; {
			if err := ctx.Err(); err != nil {
				return r, err
			}
			// Wall time: what the engines' commits waited, not the
			// purge's own clock.
			t0 := time.Now()
			n, next, err := s.p.PurgeBatch(ctx, step, rules, after)
			d := time.Since(t0)
			if err != nil {
				return r, fmt.Errorf("purge %s: %w", step, err)
			}
			r.Add(n)
			r.Batches++
			r.Longest = max(r.Longest, d)
			if next == "" {
				break
			}
			after = next
		}
	}
	if r.Rows > 0 {
		if r.Freed, err = s.p.Reclaim(ctx); err != nil {
			return r, fmt.Errorf("purge: reclaiming space: %w", err)
		}
	}
	r.Took = time.Since(start)
	return r, nil
}

// ParseRequest reads the parameters of Oozie's admin purge request (wf,
// coord, bundle: days; limit; oldCoordAction: true or false; names in any
// case, as the Oozie client and documentation spell them differently)
// over the defaults base; a missing or blank one keeps base's value.
func ParseRequest(base Config, params map[string][]string) (Config, error) {
	c := base
	for name, vs := range params {
		v := ""
		if len(vs) > 0 {
			v = strings.TrimSpace(vs[len(vs)-1])
		}
		if v == "" {
			continue
		}
		var dst *int
		switch strings.ToLower(name) {
		case "wf":
			dst = &c.WorkflowDays
		case "coord":
			dst = &c.CoordDays
		case "bundle":
			dst = &c.BundleDays
		case "limit":
			dst = &c.Limit
		case "oldcoordaction":
			switch strings.ToLower(v) {
			case "true", "false":
				c.OldCoordActions = strings.EqualFold(v, "true")
			default:
				return base, fmt.Errorf("invalid purge option [%s=%s]: want true or false", name, v)
			}
			continue
		default:
			continue // other parameters of the request (user.name, doAs, ...)
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || (dst == &c.Limit && n == 0) {
			return base, fmt.Errorf("invalid purge option [%s=%s]: want a whole number", name, v)
		}
		*dst = n
	}
	return c, nil
}
