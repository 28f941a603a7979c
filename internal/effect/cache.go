package effect

import (
	"context"
	"sync"
)

// Cache holds the in-memory state of the jobs being worked on, loaded
// from the store on first use. Each engine keeps its own states (S); what
// the cache adds is one load per job at a time: the paths of a wide fork
// all start at once, and each loading (and parsing) the whole job for
// itself made a 1,000-way fork cost quadratic work.
type Cache[S any] struct {
	mu      sync.Mutex
	states  map[string]S
	loading map[string]chan struct{} // jobs being loaded; closed when done
}

// NewCache returns an empty cache.
func NewCache[S any]() *Cache[S] {
	return &Cache[S]{states: map[string]S{}, loading: map[string]chan struct{}{}}
}

// Get returns the cached state of job id, or loads it with load and
// caches it. Concurrent callers for one job wait for one load.
func (c *Cache[S]) Get(ctx context.Context, id string, load func(context.Context, string) (S, error)) (S, error) {
	for {
		c.mu.Lock()
		if st, ok := c.states[id]; ok {
			c.mu.Unlock()
			return st, nil
		}
		if wait, busy := c.loading[id]; busy {
			c.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				var zero S
				return zero, ctx.Err()
			}
		}
		done := make(chan struct{})
		c.loading[id] = done
		c.mu.Unlock()

		st, err := load(ctx, id)
		c.mu.Lock()
		delete(c.loading, id)
		close(done)
		if err == nil {
			if cur, ok := c.states[id]; ok {
				st = cur
			} else {
				c.states[id] = st
			}
		}
		c.mu.Unlock()
		return st, err
	}
}

// Peek returns job id's cached state, if any, without loading it.
func (c *Cache[S]) Peek(id string) (S, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.states[id]
	return st, ok
}

// Keep caches st as job id's state unless one is cached already: a
// state an engine built itself (a job it just created) saves a load.
func (c *Cache[S]) Keep(id string, st S) {
	c.mu.Lock()
	if _, ok := c.states[id]; !ok {
		c.states[id] = st
	}
	c.mu.Unlock()
}

// Forget drops a job's state, after a failed commit (so the next event
// starts from what the store holds) or once the job has ended.
func (c *Cache[S]) Forget(id string) {
	c.mu.Lock()
	delete(c.states, id)
	c.mu.Unlock()
}

// Clear drops every state: a server whose registration was taken from it
// must not trust what it cached.
func (c *Cache[S]) Clear() {
	c.mu.Lock()
	clear(c.states)
	c.mu.Unlock()
}

// Locks are per-job mutexes: one writer per job at a time.
type Locks struct {
	mu    sync.Mutex
	locks map[string]*sync.Mutex
}

// Lock locks job id and returns its unlock.
func (l *Locks) Lock(id string) func() {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = map[string]*sync.Mutex{}
	}
	m := l.locks[id]
	if m == nil {
		m = &sync.Mutex{}
		l.locks[id] = m
	}
	l.mu.Unlock()
	m.Lock()
	return m.Unlock
}
