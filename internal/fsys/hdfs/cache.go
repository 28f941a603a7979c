package hdfs

import (
	"context"
	"io"
	"sync"
	"time"
)

// clientCache keeps one client per user (with simple authentication the
// NameNode takes the user a connection names, so each user needs a
// connection of its own). A client is made on first use; one that failed
// to be made is not kept, so the next call tries again. Past max clients,
// the least recently used idle ones are closed: each holds a NameNode
// connection and a goroutine that renews leases with a call a second. A
// client idle for idle is closed too, so that a quiet server does not keep
// calling. A client whose credentials expire (a ticket cache's ticket) is
// replaced on next use.
type clientCache[T io.Closer] struct {
	max   int
	idle  time.Duration
	open  func(user string) (T, time.Time, error)
	now   func() time.Time
	mu    sync.Mutex
	tick  uint64 // use counter: the LRU order without the wall clock
	items map[string]*cacheItem[T]
}

type cacheItem[T io.Closer] struct {
	ready   chan struct{} // closed once c or err is set
	c       T
	err     error
	expires time.Time // zero: never
	refs    int       // callers between acquire and release
	used    uint64
	stale   bool // out of the map; closed when refs reaches 0
	user    string
	timer   *time.Timer // closes the client once idle long enough
}

func newClientCache[T io.Closer](max int, open func(string) (T, time.Time, error)) *clientCache[T] {
	return &clientCache[T]{max: max, idle: 5 * time.Minute, open: open, now: time.Now, items: map[string]*cacheItem[T]{}}
}

// acquire returns user's client, made if need be, and the function that
// gives it back; the client stays open until then.
func (cc *clientCache[T]) acquire(ctx context.Context, user string) (T, func(), error) {
	var zero T
	cc.mu.Lock()
	it := cc.items[user]
	if it != nil && isDone(it.ready) && !it.expires.IsZero() && cc.now().After(it.expires) {
		cc.drop(user, it) // closed by its last release, or below
		if it.refs == 0 {
			defer it.c.Close()
		}
		it = nil
	}
	made := it == nil
	if made {
		it = &cacheItem[T]{ready: make(chan struct{}), user: user}
		cc.items[user] = it
	}
	it.refs++
	cc.mu.Unlock()
	if made {
		c, exp, err := cc.open(user)
		cc.mu.Lock()
		it.c, it.expires, it.err = c, exp, err
		if err != nil {
			cc.drop(user, it)
		}
		close(it.ready)
		cc.mu.Unlock()
	} else {
		select {
		case <-it.ready:
		case <-ctx.Done():
			cc.release(it)
			return zero, nil, ctx.Err()
		}
	}
	if it.err != nil {
		cc.release(it)
		return zero, nil, it.err
	}
	return it.c, func() { cc.release(it) }, nil
}

// drop takes it out of the map if it is still there.
func (cc *clientCache[T]) drop(user string, it *cacheItem[T]) {
	if cc.items[user] == it {
		delete(cc.items, user)
	}
	it.stale = true
}

// release gives a client back, closing what has to go.
func (cc *clientCache[T]) release(it *cacheItem[T]) {
	var closing []T
	cc.mu.Lock()
	it.refs--
	cc.tick++
	it.used = cc.tick
	switch {
	case it.stale && it.refs == 0 && it.err == nil:
		closing = append(closing, it.c)
	case it.refs == 0 && it.err == nil:
		if it.timer != nil {
			it.timer.Stop()
		}
		used := it.used
		it.timer = time.AfterFunc(cc.idle, func() { cc.idleOut(it, used) })
	}
	closing = append(closing, cc.evict()...)
	cc.mu.Unlock()
	for _, c := range closing {
		c.Close()
	}
}

// idleOut closes it if nobody used it since use number used.
func (cc *clientCache[T]) idleOut(it *cacheItem[T], used uint64) {
	cc.mu.Lock()
	if it.refs > 0 || it.used != used || it.stale {
		cc.mu.Unlock()
		return
	}
	cc.drop(it.user, it)
	cc.mu.Unlock()
	it.c.Close()
}

// evict takes the least recently used idle clients out while there are
// more than max, and returns them to be closed.
func (cc *clientCache[T]) evict() []T {
	var out []T
	for len(cc.items) > cc.max {
		var victim string
		var oldest *cacheItem[T]
		for u, it := range cc.items {
			if it.refs == 0 && isDone(it.ready) && (oldest == nil || it.used < oldest.used) {
				victim, oldest = u, it
			}
		}
		if oldest == nil {
			return out // every client is in use: the cache may run over for a while
		}
		cc.drop(victim, oldest)
		out = append(out, oldest.c)
	}
	return out
}

// len returns how many clients are kept.
func (cc *clientCache[T]) len() int {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return len(cc.items)
}

func isDone(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
