package fsys

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of ProberOptions.
const (
	// DefaultProbeParallel bounds the requests in flight to one store.
	DefaultProbeParallel = 16
	// DefaultWalkBudget is the most entries one walk lists before the
	// prober gives up on it.
	DefaultWalkBudget = 10000
	// DefaultProbeTimeout bounds one request.
	DefaultProbeTimeout = 30 * time.Second
	// DefaultMinBackoff is how long a store that did not answer is left
	// alone after its first failing cycle.
	DefaultMinBackoff = time.Minute
	// DefaultMaxBackoff is the longest a store that did not answer is
	// left alone.
	DefaultMaxBackoff = 10 * time.Minute
)

// ProberOptions tune a Prober; zero values take the defaults above.
type ProberOptions struct {
	// Parallel bounds the requests in flight to one store
	// (scheme://authority; every local path is one store), across every
	// cycle of the prober.
	Parallel int
	// WalkBudget is the most entries one walk may list; past it the walk
	// is abandoned and each path of its group is asked for on its own. A
	// negative budget never walks.
	WalkBudget int
	// Timeout bounds each request: one Stat, or one whole Walk. A request
	// that runs out of time counts as the store not answering.
	Timeout time.Duration
	// MinBackoff is how long a store that did not answer (ErrUnavailable)
	// is left alone after its first failing cycle; every further failing
	// cycle in a row doubles it, up to MaxBackoff. The input check sets
	// MinBackoff to its interval, so that a store failing once is asked
	// again at the next cycle.
	MinBackoff, MaxBackoff time.Duration
	// Clock gives the time of cycles that name none; default time.Now.
	Clock func() time.Time
}

func (o ProberOptions) withDefaults() ProberOptions {
	if o.Parallel <= 0 {
		o.Parallel = DefaultProbeParallel
	}
	if o.WalkBudget == 0 {
		o.WalkBudget = DefaultWalkBudget
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultProbeTimeout
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = DefaultMinBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = o.MinBackoff
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return o
}

// Prober answers the coordinator input check's question — does this
// path exist? — for many paths at once, at scale: it asks each store at
// most Parallel requests at a time, answers the paths that share a
// parent prefix with one listing where the store can list a prefix in
// one sweep (Walker), bounds every request by a timeout, and leaves a
// store that did not answer alone for a while (a backoff doubling per
// failing cycle) instead of asking it again for every path. A Prober is
// safe for concurrent use; one serves every job of a server.
type Prober struct {
	ns   *Namespace // nil: Default() at each cycle
	opts ProberOptions

	mu     sync.Mutex
	stores map[string]*probeStore

	stats, walks, walkEntries, walkFallbacks, skipped, unavailable atomic.Int64
	// schemes counts the requests per scheme of the store asked
	// (SchemeCounts): a few keys, however many paths and buckets.
	schemes sync.Map // string -> *schemeCounter
}

// schemeCounter counts one scheme's requests.
type schemeCounter struct{ requests, unavailable atomic.Int64 }

// SchemeCounts are the requests a prober made to the stores of one
// scheme, and those the store did not answer.
type SchemeCounts struct{ Requests, Unavailable int64 }

// CountsByScheme returns the requests made so far by the scheme of the
// store they went to ("file" for local paths, "hdfs", "s3a", ...).
func (p *Prober) CountsByScheme() map[string]SchemeCounts {
	out := map[string]SchemeCounts{}
	p.schemes.Range(func(k, v any) bool {
		c := v.(*schemeCounter)
		out[k.(string)] = SchemeCounts{Requests: c.requests.Load(), Unavailable: c.unavailable.Load()}
		return true
	})
	return out
}

// schemeOf returns the counter of the scheme of a store key
// (scheme://authority).
func (p *Prober) schemeOf(key string) *schemeCounter {
	scheme, _, _ := strings.Cut(key, "://")
	if v, ok := p.schemes.Load(scheme); ok {
		return v.(*schemeCounter)
	}
	v, _ := p.schemes.LoadOrStore(scheme, &schemeCounter{})
	return v.(*schemeCounter)
}

// probeStore is what the prober keeps of one store.
type probeStore struct {
	sem chan struct{} // one token per request in flight
	// Under Prober.mu: the failing cycles in a row, the time before which
	// the store is not asked again, and the error that put it there.
	failures int
	until    time.Time
	last     error
}

// NewProber returns a prober asking ns (nil: the process's namespace,
// Default, looked up at each cycle).
func NewProber(ns *Namespace, o ProberOptions) *Prober {
	return &Prober{ns: ns, opts: o.withDefaults(), stores: map[string]*probeStore{}}
}

// ProbeCounts counts what a prober did since it was made.
type ProbeCounts struct {
	// Stats and Walks are the requests made: one Stat per path, one Walk
	// per group of paths under one prefix.
	Stats, Walks int64
	// WalkEntries are the entries the walks listed.
	WalkEntries int64
	// WalkFallbacks are walks abandoned (over the budget, or refused),
	// whose paths were then asked for one by one.
	WalkFallbacks int64
	// Skipped are paths not asked for because their store was backing
	// off or had not answered earlier in the cycle.
	Skipped int64
	// Unavailable are requests the store did not answer.
	Unavailable int64
}

// Requests is the number of requests made (Stats + Walks).
func (c ProbeCounts) Requests() int64 { return c.Stats + c.Walks }

// Counts returns what the prober did so far.
func (p *Prober) Counts() ProbeCounts {
	return ProbeCounts{Stats: p.stats.Load(), Walks: p.walks.Load(), WalkEntries: p.walkEntries.Load(),
		WalkFallbacks: p.walkFallbacks.Load(), Skipped: p.skipped.Load(), Unavailable: p.unavailable.Load()}
}

func (p *Prober) namespace() *Namespace {
	if p.ns != nil {
		return p.ns
	}
	return Default()
}

func (p *Prober) store(key string) *probeStore {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stores[key]
	if s == nil {
		s = &probeStore{sem: make(chan struct{}, p.opts.Parallel)}
		p.stores[key] = s
	}
	return s
}

// backingOff returns the error answering for a store left alone at now,
// nil when it may be asked.
func (p *Prober) backingOff(key string, s *probeStore, now time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !now.Before(s.until) {
		return nil
	}
	return &UnavailableError{Store: key, Err: &backoffError{cause: s.last, until: s.until}}
}

// failed records that a store did not answer in a cycle at now. A store
// already backing off was failed by another cycle of the same outage:
// that does not double the backoff again.
func (p *Prober) failed(key string, s *probeStore, now time.Time, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s.last = err
	if now.Before(s.until) {
		return
	}
	s.failures++
	d := p.opts.MinBackoff
	for i := 1; i < s.failures && d < p.opts.MaxBackoff; i++ {
		d *= 2
	}
	s.until = now.Add(min(d, p.opts.MaxBackoff))
}

// answered records that a store answered a whole cycle at now.
func (p *Prober) answered(s *probeStore, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !now.Before(s.until) {
		s.failures, s.last = 0, nil
	}
}

// backoffError is the cause given for the paths of a store backing off.
type backoffError struct {
	cause error
	until time.Time
}

func (e *backoffError) Error() string {
	msg := "no answer earlier"
	var ue *UnavailableError
	if errors.As(e.cause, &ue) {
		msg = ue.Err.Error()
	} else if e.cause != nil {
		msg = e.cause.Error()
	}
	return fmt.Sprintf("%s (not asked again before %s)", msg, e.until.UTC().Format(time.RFC3339))
}

// CycleOptions describe one input-check cycle.
type CycleOptions struct {
	// Now is the cycle's time, which backoffs count from; zero: the
	// prober's clock. The input check passes the time its next cycle is
	// scheduled from, so that a backoff of one interval ends exactly then.
	Now time.Time
	// Run runs each worker's share of the requests, e.g. with the job
	// user's file-system permission checks (local paths are checked on
	// the worker's own thread); nil runs it as it is.
	Run func(fn func() error) error
}

// ProbeCycle holds the answers of one cycle: Exists answers from them,
// asking the store for paths Prefetch was not given. Call Done when the
// cycle is over.
type ProbeCycle struct {
	p   *Prober
	now time.Time

	mu      sync.Mutex
	results map[string]probeResult
	down    map[string]error // stores that did not answer in this cycle
	asked   map[string]*probeStore
}

type probeResult struct {
	ok  bool
	err error
}

// probeTarget is one path to answer: as given, and resolved.
type probeTarget struct {
	uri, path string
	fs        FileSystem
}

// probeTask is one request to make: a walk of prefix answering every
// target, or (prefix "") a Stat of its one target.
type probeTask struct {
	prefix  string
	walker  Walker
	targets []*probeTarget
}

// Prefetch starts a cycle by answering uris, concurrently within the
// bounds, and returns the cycle. ctx carries the job's settings and user
// (WithConf, WithUser). Errors are kept per path and returned by Exists.
func (p *Prober) Prefetch(ctx context.Context, uris []string, o CycleOptions) *ProbeCycle {
	c := &ProbeCycle{p: p, now: o.Now, results: map[string]probeResult{}, down: map[string]error{}, asked: map[string]*probeStore{}}
	if c.now.IsZero() {
		c.now = p.opts.Clock()
	}
	byStore := c.plan(ctx, uris)
	var wg sync.WaitGroup
	for key, tasks := range byStore {
		s := p.store(key)
		if err := p.backingOff(key, s, c.now); err != nil {
			for _, t := range tasks {
				c.answerAll(t, probeResult{err: err})
				p.skipped.Add(int64(len(t.targets)))
			}
			continue
		}
		q := &taskQueue{tasks: tasks}
		for range min(p.opts.Parallel, len(tasks)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				work := func() error {
					for t := q.pop(); t != nil; t = q.pop() {
						c.perform(ctx, key, s, t, q)
					}
					return nil
				}
				var err error
				if o.Run != nil {
					err = o.Run(work)
				} else {
					err = work()
				}
				if err != nil {
					// The worker could not start (the user is unknown):
					// what it would have asked gets its error.
					for t := q.pop(); t != nil; t = q.pop() {
						c.answerAll(t, probeResult{err: err})
					}
				}
			}()
		}
	}
	wg.Wait()
	return c
}

// plan resolves uris and sorts them into tasks by store: paths sharing a
// parent prefix on a store that walks become one walk, the others one
// Stat each. Paths that do not resolve are answered with their error.
func (c *ProbeCycle) plan(ctx context.Context, uris []string) map[string][]*probeTask {
	ns := c.p.namespace()
	type group struct {
		key    string
		walker Walker
		list   []*probeTarget
	}
	groups := map[string]*group{}
	var order []string
	byStore := map[string][]*probeTask{}
	for _, u := range uris {
		if _, dup := c.results[u]; dup {
			continue
		}
		r, err := ns.Resolve(ctx, u)
		if err != nil {
			c.results[u] = probeResult{err: err}
			continue
		}
		c.results[u] = probeResult{} // placeholder: asked for below
		key := storeKey(r)
		t := &probeTarget{uri: u, path: r.Path, fs: r.FS}
		w, walks := r.FS.(Walker)
		prefix, ok := instanceParent(r.Path)
		if !walks || c.p.opts.WalkBudget < 0 || !ok {
			byStore[key] = append(byStore[key], &probeTask{targets: []*probeTarget{t}})
			continue
		}
		gk := key + "\x00" + prefix
		g := groups[gk]
		if g == nil {
			g = &group{key: key, walker: w}
			groups[gk] = g
			order = append(order, gk)
		}
		g.list = append(g.list, t)
	}
	for _, gk := range order {
		g := groups[gk]
		if len(g.list) < 2 {
			byStore[g.key] = append(byStore[g.key], &probeTask{targets: g.list})
			continue
		}
		_, prefix, _ := strings.Cut(gk, "\x00")
		byStore[g.key] = append(byStore[g.key], &probeTask{prefix: prefix, walker: g.walker, targets: g.list})
	}
	return byStore
}

// storeKey names the store a resolved path is on: scheme://authority, or
// file:// for every local path.
func storeKey(r Resolved) string {
	if _, ok := r.Local(); ok {
		return "file://"
	}
	return Scheme(r.Path) + "://" + Authority(r.Path)
}

// instanceParent is the prefix a done-flag's group is walked from: the
// parent of the dataset instance, two levels above the flag
// (.../2026/03/01/00/_SUCCESS groups under .../2026/03/01), so that the
// instances of one day, one month, ... are answered by one listing.
func instanceParent(p string) (string, bool) {
	d, ok := parentPath(p)
	if !ok {
		return "", false
	}
	return parentPath(d)
}

// parentPath returns the parent of a backend path; false for a root.
func parentPath(p string) (string, bool) {
	s := Scheme(p)
	if s == "" {
		d := filepath.Dir(p)
		return d, d != p
	}
	root := s + "://" + Authority(p)
	rest := strings.TrimSuffix(p[len(root):], "/")
	if rest == "" {
		return "", false
	}
	i := strings.LastIndexByte(rest, '/')
	if i <= 0 {
		return root, true
	}
	return root + rest[:i], true
}

// taskQueue hands tasks to a store's workers; a walk given up pushes its
// paths back as Stats.
type taskQueue struct {
	mu    sync.Mutex
	tasks []*probeTask
}

func (q *taskQueue) pop() *probeTask {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.tasks) == 0 {
		return nil
	}
	t := q.tasks[len(q.tasks)-1]
	q.tasks = q.tasks[:len(q.tasks)-1]
	return t
}

func (q *taskQueue) push(ts ...*probeTask) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.tasks = append(q.tasks, ts...)
}

// perform makes the request of one task and records its answers.
func (c *ProbeCycle) perform(ctx context.Context, key string, s *probeStore, t *probeTask, q *taskQueue) {
	if err := c.storeDown(key); err != nil {
		c.answerAll(t, probeResult{err: err})
		c.p.skipped.Add(int64(len(t.targets)))
		return
	}
	if t.prefix == "" {
		for _, tg := range t.targets {
			c.answer(tg.uri, c.stat(ctx, key, s, tg))
		}
		return
	}
	found, err := c.walk(ctx, key, s, t)
	switch {
	case err == nil:
		for _, tg := range t.targets {
			c.answer(tg.uri, probeResult{ok: found.has(tg.path)})
		}
	case errors.Is(err, ErrUnavailable):
		c.answerAll(t, probeResult{err: err})
	default:
		// Over the budget, or a walk the store refused: ask for each
		// path, which answers it exactly (and on the other workers).
		c.p.walkFallbacks.Add(1)
		for _, tg := range t.targets {
			q.push(&probeTask{targets: []*probeTarget{tg}})
		}
	}
}

// errWalkBudget stops a walk that listed more than the budget.
var errWalkBudget = errors.New("walk budget exceeded")

// walked is what a walk found: every path listed and every parent of one
// below the walked prefix.
type walked map[string]struct{}

func (w walked) has(p string) bool {
	_, ok := w[strings.TrimSuffix(p, "/")]
	return ok
}

// walk lists the prefix of t once. A missing prefix is an empty listing.
func (c *ProbeCycle) walk(ctx context.Context, key string, s *probeStore, t *probeTask) (walked, error) {
	c.p.walks.Add(1)
	found := walked{}
	n := 0
	var mu sync.Mutex // a backend may call back from more than one goroutine
	err := c.request(ctx, key, s, func(rctx context.Context) error {
		return t.walker.Walk(rctx, t.prefix, func(fi *FileInfo) error {
			mu.Lock()
			defer mu.Unlock()
			if n++; n > c.p.opts.WalkBudget {
				return errWalkBudget
			}
			// The path exists, and so does every directory above it up
			// to the prefix: "a path exists when a file lies below it".
			for p := strings.TrimSuffix(fi.Path, "/"); len(p) > len(t.prefix); {
				if _, ok := found[p]; ok {
					break
				}
				found[p] = struct{}{}
				i := strings.LastIndexByte(p, '/')
				if i < 0 {
					break
				}
				p = p[:i]
			}
			return nil
		})
	})
	mu.Lock()
	c.p.walkEntries.Add(int64(min(n, c.p.opts.WalkBudget)))
	mu.Unlock()
	if errors.Is(err, fs.ErrNotExist) {
		return walked{}, nil
	}
	return found, err
}

// stat asks for one path.
func (c *ProbeCycle) stat(ctx context.Context, key string, s *probeStore, t *probeTarget) probeResult {
	c.p.stats.Add(1)
	err := c.request(ctx, key, s, func(rctx context.Context) error {
		_, err := t.fs.Stat(rctx, t.path)
		return err
	})
	switch {
	case err == nil:
		return probeResult{ok: true}
	case errors.Is(err, fs.ErrNotExist):
		return probeResult{}
	}
	return probeResult{err: err}
}

// request makes one request within the store's bound and the timeout. A
// request out of time, or an answer of ErrUnavailable, marks the store
// down for the rest of the cycle.
func (c *ProbeCycle) request(ctx context.Context, key string, s *probeStore, fn func(context.Context) error) error {
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.sem }()
	c.mu.Lock()
	c.asked[key] = s
	c.mu.Unlock()
	rctx, cancel := context.WithTimeout(ctx, c.p.opts.Timeout)
	defer cancel()
	sc := c.p.schemeOf(key)
	sc.requests.Add(1)
	err := fn(rctx)
	if err != nil && ctx.Err() == nil && rctx.Err() != nil && !errors.Is(err, ErrUnavailable) {
		err = &UnavailableError{Store: key, Err: fmt.Errorf("no answer within %s: %w", c.p.opts.Timeout, err)}
	}
	if errors.Is(err, ErrUnavailable) {
		sc.unavailable.Add(1)
		c.p.unavailable.Add(1)
		c.markDown(key, s, err)
	}
	return err
}

// markDown records the first failure of a store in this cycle.
func (c *ProbeCycle) markDown(key string, s *probeStore, err error) {
	c.mu.Lock()
	_, seen := c.down[key]
	if !seen {
		c.down[key] = err
	}
	c.mu.Unlock()
	if !seen {
		c.p.failed(key, s, c.now, err)
	}
}

func (c *ProbeCycle) storeDown(key string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.down[key]
}

func (c *ProbeCycle) answer(uri string, r probeResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.results[uri] = r
}

func (c *ProbeCycle) answerAll(t *probeTask, r probeResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, tg := range t.targets {
		c.results[tg.uri] = r
	}
}

// Exists reports whether uri exists: from the cycle's answers, or by
// asking its store now (on the calling goroutine, within the bounds) and
// keeping the answer for the rest of the cycle. A store that did not
// answer gives an error matching ErrUnavailable.
func (c *ProbeCycle) Exists(ctx context.Context, uri string) (bool, error) {
	c.mu.Lock()
	r, ok := c.results[uri]
	c.mu.Unlock()
	if ok {
		return r.ok, r.err
	}
	r = c.probeOne(ctx, uri)
	if ctx.Err() == nil {
		c.answer(uri, r)
	}
	return r.ok, r.err
}

func (c *ProbeCycle) probeOne(ctx context.Context, uri string) probeResult {
	r, err := c.p.namespace().Resolve(ctx, uri)
	if err != nil {
		return probeResult{err: err}
	}
	key := storeKey(r)
	s := c.p.store(key)
	if err := c.storeDown(key); err != nil {
		c.p.skipped.Add(1)
		return probeResult{err: err}
	}
	if err := c.p.backingOff(key, s, c.now); err != nil {
		c.p.skipped.Add(1)
		return probeResult{err: err}
	}
	return c.stat(ctx, key, s, &probeTarget{uri: uri, path: r.Path, fs: r.FS})
}

// Done ends the cycle: a store it asked that answered every request is
// no longer counted as failing.
func (c *ProbeCycle) Done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, s := range c.asked {
		if _, down := c.down[key]; !down {
			c.p.answered(s, c.now)
		}
	}
}
