package fsys_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/fsys/fsystest"
)

// Two in-memory stores for the prober's tests: one that walks a prefix
// in one request, as the object stores do, and one that does not.
var (
	walkStore = fsystest.RegisterMem("probewalk", true)
	flatStore = fsystest.RegisterMem("probeflat", false)
	// memMu serializes the tests using them: they share counts and hooks.
	memMu sync.Mutex
)

func useStores(t *testing.T) *fsys.Namespace {
	t.Helper()
	memMu.Lock()
	t.Cleanup(func() {
		for _, m := range []*fsystest.MemStore{walkStore, flatStore} {
			m.SetHook(nil)
			m.Reset()
		}
		memMu.Unlock()
	})
	ns, err := fsys.NewNamespace(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// The test stores keep the object-store rules the prober relies on.
func TestMemStoreSuite(t *testing.T) {
	ns := useStores(t)
	t.Run("walk", func(t *testing.T) { fsystest.Run(t, ns, "probewalk://suite/root", fsystest.Caps{EmptyDirs: true}) })
	t.Run("flat", func(t *testing.T) { fsystest.Run(t, ns, "probeflat://suite/root", fsystest.Caps{EmptyDirs: true}) })
}

// flag is the done-flag of hourly instance h of day d of a dataset.
func flag(store, ds string, d, h int) string {
	return fmt.Sprintf("%s/%s/2026/03/%02d/%02d/_SUCCESS", store, ds, d, h)
}

func TestProberGrouping(t *testing.T) {
	type want struct {
		walks, stats, fallbacks int64
	}
	for _, tc := range []struct {
		name    string
		objects []string
		uris    []string
		exist   map[string]bool // default false
		budget  int
		want    want
	}{{
		name:    "one day of flags is one walk",
		objects: []string{flag("probewalk://b", "ds", 1, 0), flag("probewalk://b", "ds", 1, 2), "probewalk://b/ds/2026/03/01/02/part-0"},
		uris:    []string{flag("probewalk://b", "ds", 1, 0), flag("probewalk://b", "ds", 1, 1), flag("probewalk://b", "ds", 1, 2)},
		exist:   map[string]bool{flag("probewalk://b", "ds", 1, 0): true, flag("probewalk://b", "ds", 1, 2): true},
		want:    want{walks: 1},
	}, {
		name:    "two days and two datasets are four walks",
		objects: []string{flag("probewalk://b", "a", 1, 0), flag("probewalk://b", "b", 2, 5)},
		uris: []string{flag("probewalk://b", "a", 1, 0), flag("probewalk://b", "a", 1, 1), flag("probewalk://b", "a", 2, 0), flag("probewalk://b", "a", 2, 1),
			flag("probewalk://b", "b", 1, 5), flag("probewalk://b", "b", 1, 6), flag("probewalk://b", "b", 2, 5), flag("probewalk://b", "b", 2, 6)},
		exist: map[string]bool{flag("probewalk://b", "a", 1, 0): true, flag("probewalk://b", "b", 2, 5): true},
		want:  want{walks: 4},
	}, {
		name:    "a path alone in its group is a Stat",
		objects: []string{flag("probewalk://b", "ds", 1, 0)},
		uris:    []string{flag("probewalk://b", "ds", 1, 0), flag("probewalk://b", "ds", 2, 0)},
		exist:   map[string]bool{flag("probewalk://b", "ds", 1, 0): true},
		want:    want{stats: 2},
	}, {
		name:    "a store without Walk is asked path by path",
		objects: []string{flag("probeflat://b", "ds", 1, 0)},
		uris:    []string{flag("probeflat://b", "ds", 1, 0), flag("probeflat://b", "ds", 1, 1), flag("probeflat://b", "ds", 1, 2)},
		exist:   map[string]bool{flag("probeflat://b", "ds", 1, 0): true},
		want:    want{stats: 3},
	}, {
		name: "instance directories (empty done-flag): a file below, or a marker, makes one exist",
		objects: []string{"probewalk://b/ds/2026/03/01/00/part-0", "probewalk://b/ds/2026/03/01/01/", "probewalk://b/ds/2026/03/01/020/x",
			"probewalk://b/ds/2026/03/01/03/deep/er/file"},
		uris: []string{"probewalk://b/ds/2026/03/01/00", "probewalk://b/ds/2026/03/01/01", "probewalk://b/ds/2026/03/01/02",
			"probewalk://b/ds/2026/03/01/03"},
		exist: map[string]bool{"probewalk://b/ds/2026/03/01/00": true, "probewalk://b/ds/2026/03/01/01": true,
			"probewalk://b/ds/2026/03/01/03": true},
		want: want{walks: 1},
	}, {
		name:    "a walk over the budget falls back to one Stat per path",
		objects: []string{flag("probewalk://b", "ds", 1, 0), "probewalk://b/ds/2026/03/01/00/p1", "probewalk://b/ds/2026/03/01/00/p2", "probewalk://b/ds/2026/03/01/00/p3"},
		uris:    []string{flag("probewalk://b", "ds", 1, 0), flag("probewalk://b", "ds", 1, 1)},
		exist:   map[string]bool{flag("probewalk://b", "ds", 1, 0): true},
		budget:  3,
		want:    want{walks: 1, stats: 2, fallbacks: 1},
	}, {
		name:    "a negative budget never walks",
		objects: []string{flag("probewalk://b", "ds", 1, 0)},
		uris:    []string{flag("probewalk://b", "ds", 1, 0), flag("probewalk://b", "ds", 1, 1)},
		exist:   map[string]bool{flag("probewalk://b", "ds", 1, 0): true},
		budget:  -1,
		want:    want{stats: 2},
	}, {
		name:    "duplicates are asked once; other authorities are other stores",
		objects: []string{flag("probewalk://b", "ds", 1, 0), flag("probewalk://c", "ds", 1, 1)},
		uris:    []string{flag("probewalk://b", "ds", 1, 0), flag("probewalk://b", "ds", 1, 0), flag("probewalk://c", "ds", 1, 0), flag("probewalk://c", "ds", 1, 1)},
		exist:   map[string]bool{flag("probewalk://b", "ds", 1, 0): true, flag("probewalk://c", "ds", 1, 1): true},
		want:    want{walks: 1, stats: 1},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ns := useStores(t)
			for _, m := range []*fsystest.MemStore{walkStore, flatStore} {
				for _, o := range tc.objects {
					m.Put(o, "x")
					t.Cleanup(func() { m.Remove(o) })
				}
			}
			p := fsys.NewProber(ns, fsys.ProberOptions{WalkBudget: tc.budget})
			ctx := context.Background()
			c := p.Prefetch(ctx, tc.uris, fsys.CycleOptions{})
			defer c.Done()
			got := p.Counts()
			if got.Walks != tc.want.walks || got.Stats != tc.want.stats || got.WalkFallbacks != tc.want.fallbacks {
				t.Errorf("walks %d, stats %d, fallbacks %d; want %+v", got.Walks, got.Stats, got.WalkFallbacks, tc.want)
			}
			for _, u := range tc.uris {
				ok, err := c.Exists(ctx, u)
				if err != nil || ok != tc.exist[u] {
					t.Errorf("Exists(%s) = %v, %v; want %v", u, ok, err, tc.exist[u])
				}
			}
			if after := p.Counts(); after != got {
				t.Errorf("answering from the cycle made requests: %+v, then %+v", got, after)
			}
			// The store saw the requests the prober counted.
			if n := int64(walkStore.Count("") + flatStore.Count("")); n != got.Requests() {
				t.Errorf("the stores saw %d requests, the prober counted %d", n, got.Requests())
			}
		})
	}
}

// A path the cycle was not given is asked for once, when first needed.
func TestProberExistsOnDemand(t *testing.T) {
	ns := useStores(t)
	walkStore.Put("probewalk://b/late/x", "")
	t.Cleanup(func() { walkStore.Remove("probewalk://b/late/x") })
	p := fsys.NewProber(ns, fsys.ProberOptions{})
	ctx := context.Background()
	c := p.Prefetch(ctx, nil, fsys.CycleOptions{})
	for range 3 {
		if ok, err := c.Exists(ctx, "probewalk://b/late/x"); !ok || err != nil {
			t.Fatalf("Exists = %v, %v", ok, err)
		}
	}
	if ok, err := c.Exists(ctx, "nosuchscheme://b/x"); ok || !errors.Is(err, fsys.ErrUnsupported) {
		t.Errorf("unknown scheme: %v, %v", ok, err)
	}
	c.Done()
	if n := p.Counts().Stats; n != 1 {
		t.Errorf("%d Stats, want 1", n)
	}
}

// Each store gets at most Parallel requests at once, whichever store the
// others are on, and does get that many: the first requests wait until
// Parallel of them are in flight.
func TestProberBoundedConcurrency(t *testing.T) {
	for _, parallel := range []int{1, 4, 16} {
		t.Run(fmt.Sprint(parallel), func(t *testing.T) {
			ns := useStores(t)
			var mu sync.Mutex
			cond := sync.NewCond(&mu)
			inside, open := map[string]int{}, map[string]bool{}
			flatStore.SetHook(func(ctx context.Context, op, p string) error {
				auth := fsys.Authority(p)
				mu.Lock()
				defer mu.Unlock()
				inside[auth]++
				if inside[auth] >= parallel {
					open[auth] = true
					cond.Broadcast()
				}
				for !open[auth] {
					cond.Wait()
				}
				inside[auth]--
				return nil
			})
			var uris []string
			for i := range 64 {
				uris = append(uris, fmt.Sprintf("probeflat://one/f%d", i), fmt.Sprintf("probeflat://two/f%d", i))
			}
			p := fsys.NewProber(ns, fsys.ProberOptions{Parallel: parallel})
			p.Prefetch(context.Background(), uris, fsys.CycleOptions{}).Done()
			for _, auth := range []string{"one", "two"} {
				if got := flatStore.MaxInFlight(auth); got != parallel {
					t.Errorf("store %s: at most %d requests in flight, want %d", auth, got, parallel)
				}
			}
			if n := p.Counts().Stats; n != 128 {
				t.Errorf("%d Stats, want 128", n)
			}
		})
	}
}

// Each worker runs through CycleOptions.Run (the job user's identity); a
// Run that fails answers the paths with its error.
func TestProberRun(t *testing.T) {
	ns := useStores(t)
	var uris []string
	for i := range 40 {
		uris = append(uris, fmt.Sprintf("probeflat://b/f%d", i))
	}
	var mu sync.Mutex
	runs := 0
	p := fsys.NewProber(ns, fsys.ProberOptions{Parallel: 4})
	p.Prefetch(context.Background(), uris, fsys.CycleOptions{Run: func(fn func() error) error {
		mu.Lock()
		runs++
		mu.Unlock()
		return fn()
	}}).Done()
	if runs != 4 {
		t.Errorf("%d runs, want one per worker (4)", runs)
	}
	refused := errors.New("cannot act as user nobody")
	c := p.Prefetch(context.Background(), uris, fsys.CycleOptions{Run: func(func() error) error { return refused }})
	defer c.Done()
	for _, u := range uris {
		if _, err := c.Exists(context.Background(), u); !errors.Is(err, refused) {
			t.Fatalf("Exists(%s): %v, want the Run error", u, err)
		}
	}
}

// The job's settings and user in the context reach the store: a setting
// under the backend's prefix gets an instance opened with it.
func TestProberCarriesConfAndUser(t *testing.T) {
	ns := useStores(t)
	ctx := fsys.WithUser(fsys.WithConf(context.Background(), fsys.MapConfig{"fs.probewalk.marker": "job-7"}), "alice")
	p := fsys.NewProber(ns, fsys.ProberOptions{})
	c := p.Prefetch(ctx, []string{flag("probewalk://b", "ds", 1, 0), flag("probewalk://b", "ds", 1, 1)}, fsys.CycleOptions{})
	if _, err := c.Exists(ctx, "probewalk://b/other"); err != nil {
		t.Fatal(err)
	}
	c.Done()
	opened := walkStore.Opened()
	if v, _ := opened[len(opened)-1].Get("fs.probewalk.marker"); v != "job-7" {
		t.Errorf("the instance asked was opened with marker %q, want job-7", v)
	}
	if u := walkStore.Users(); u["alice"] != 2 || len(u) != 1 {
		t.Errorf("requests by user: %v, want 2 by alice", u)
	}
}

// A store that does not answer is asked once per cycle (the first
// failure stops the others), its paths answer ErrUnavailable, and it is
// not asked again before a backoff that starts at MinBackoff, doubles per
// failing cycle up to MaxBackoff, and is forgotten once a cycle gets
// answers.
func TestProberBackoff(t *testing.T) {
	ns := useStores(t)
	down := true
	flatStore.SetHook(func(ctx context.Context, op, p string) error {
		if down {
			return &fsys.UnavailableError{Store: "probeflat://b", Err: errors.New("connection refused")}
		}
		return nil
	})
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	p := fsys.NewProber(ns, fsys.ProberOptions{Parallel: 1, MinBackoff: time.Minute, MaxBackoff: 5 * time.Minute,
		Clock: func() time.Time { return now }})
	uris := []string{"probeflat://b/x", "probeflat://b/y", "probeflat://b/z"}
	for i, step := range []struct {
		at     time.Duration // since t0
		down   bool
		asked  bool   // a request reached the store
		reason string // in the error of a path
	}{
		{0, true, true, "connection refused"},
		{30 * time.Second, true, false, "not asked again before 2026-03-01T00:01:00Z"},
		{time.Minute, true, true, "connection refused"}, // 2nd failure: 2m
		{2 * time.Minute, true, false, "not asked again before 2026-03-01T00:03:00Z"},
		{3 * time.Minute, true, true, ""}, // 3rd: 4m
		{6 * time.Minute, true, false, "before 2026-03-01T00:07:00Z"},
		{7 * time.Minute, true, true, ""}, // 4th: 8m, capped at 5m
		{11 * time.Minute, true, false, "before 2026-03-01T00:12:00Z"},
		{12 * time.Minute, false, true, ""},                  // answers: forgotten
		{13 * time.Minute, true, true, "connection refused"}, // a new outage starts at 1m again
		{13*time.Minute + 59*time.Second, true, false, "before 2026-03-01T00:14:00Z"},
	} {
		now, down = t0.Add(step.at), step.down
		flatStore.Reset()
		before := p.Counts()
		c := p.Prefetch(context.Background(), uris, fsys.CycleOptions{})
		// The on-demand path keeps to the same backoff.
		_, lateErr := c.Exists(context.Background(), "probeflat://b/late")
		c.Done()
		asked := flatStore.Count("") > 0
		if asked != step.asked {
			t.Errorf("step %d (+%s): store asked %v, want %v", i, step.at, asked, step.asked)
		}
		if step.asked && step.down && flatStore.Count("") != 1 {
			t.Errorf("step %d: %d requests to a store that did not answer, want 1", i, flatStore.Count(""))
		}
		after := p.Counts()
		for _, u := range append(uris, "probeflat://b/late") {
			ok, err := c.Exists(context.Background(), u)
			if !step.down {
				if err != nil || ok {
					t.Errorf("step %d: Exists(%s) = %v, %v; want false, nil", i, u, ok, err)
				}
				continue
			}
			if !errors.Is(err, fsys.ErrUnavailable) || !strings.Contains(err.Error(), step.reason) || !strings.Contains(err.Error(), "probeflat://b") {
				t.Errorf("step %d: Exists(%s) error %v; want ErrUnavailable naming the store and %q", i, u, err, step.reason)
			}
		}
		if step.down && !errors.Is(lateErr, fsys.ErrUnavailable) {
			t.Errorf("step %d: on-demand Exists error %v, want ErrUnavailable", i, lateErr)
		}
		if step.down && after.Skipped-before.Skipped < 3 {
			t.Errorf("step %d: %d paths skipped, want at least 3", i, after.Skipped-before.Skipped)
		}
	}
}

// A request that outlasts the timeout counts as the store not answering.
func TestProberTimeout(t *testing.T) {
	ns := useStores(t)
	flatStore.SetHook(func(ctx context.Context, op, p string) error {
		<-ctx.Done() // a store that never answers
		return ctx.Err()
	})
	p := fsys.NewProber(ns, fsys.ProberOptions{Timeout: 20 * time.Millisecond})
	c := p.Prefetch(context.Background(), []string{"probeflat://b/x"}, fsys.CycleOptions{})
	defer c.Done()
	_, err := c.Exists(context.Background(), "probeflat://b/x")
	if !errors.Is(err, fsys.ErrUnavailable) || !strings.Contains(err.Error(), "no answer within 20ms") {
		t.Errorf("error %v; want ErrUnavailable saying it timed out", err)
	}
	if n := p.Counts().Unavailable; n != 1 {
		t.Errorf("%d unavailable, want 1", n)
	}
}

// Errors other than a store not answering are the path's answer, and do
// not stop the store being asked.
func TestProberPermanentErrors(t *testing.T) {
	ns := useStores(t)
	flatStore.SetHook(func(ctx context.Context, op, p string) error {
		if strings.HasSuffix(p, "/secret") {
			return &fs.PathError{Op: op, Path: p, Err: fs.ErrPermission}
		}
		return nil
	})
	flatStore.Put("probeflat://b/open", "")
	t.Cleanup(func() { flatStore.Remove("probeflat://b/open") })
	p := fsys.NewProber(ns, fsys.ProberOptions{Parallel: 1})
	ctx := context.Background()
	c := p.Prefetch(ctx, []string{"probeflat://b/secret", "probeflat://b/open"}, fsys.CycleOptions{})
	defer c.Done()
	if _, err := c.Exists(ctx, "probeflat://b/secret"); err == nil || errors.Is(err, fsys.ErrUnavailable) {
		t.Errorf("secret: %v, want the permission error", err)
	}
	if ok, err := c.Exists(ctx, "probeflat://b/open"); !ok || err != nil {
		t.Errorf("open: %v, %v", ok, err)
	}
}
