package el

import (
	"sync"
	"sync/atomic"
)

// cacheLimit bounds the parse cache. Workflow definitions repeat the same
// few hundred texts for every job, so a few thousand entries cover a busy
// server while keeping memory bounded against unbounded distinct texts.
const cacheLimit = 4096

type cacheEntry struct {
	t   *Template
	err error
}

// parseCache maps text to its parse result. sync.Map suits it: entries are
// written once and read many times from many goroutines.
var parseCache struct {
	m    sync.Map
	size atomic.Int64
}

// cachedParse is Parse with memoization of both successes and failures.
func cachedParse(text string) (*Template, error) {
	if v, ok := parseCache.m.Load(text); ok {
		e := v.(*cacheEntry)
		return e.t, e.err
	}
	t, err := Parse(text)
	e := &cacheEntry{t: t, err: err}
	if _, loaded := parseCache.m.LoadOrStore(text, e); !loaded {
		if parseCache.size.Add(1) > cacheLimit {
			evict()
		}
	}
	return t, err
}

// evict drops about a quarter of the entries, in sync.Map's arbitrary
// order; a cheap approximation of LRU that is good enough for a cache
// whose misses cost one parse.
func evict() {
	drop := cacheLimit / 4
	parseCache.m.Range(func(k, _ any) bool {
		if _, ok := parseCache.m.LoadAndDelete(k); ok {
			parseCache.size.Add(-1)
			drop--
		}
		return drop > 0
	})
}
