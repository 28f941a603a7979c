package coordengine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/fsys/fsystest"
	"github.com/gozie/gozie/internal/store"
)

// probeStore is an in-memory store the input-check tests put their
// datasets on: it walks prefixes as an object store does, and records
// the configuration and user of every request. Each test uses a bucket
// of its own.
var probeStore = fsystest.RegisterMem("probecoord", true)

// probeRuns numbers the probe harnesses, for their buckets.
var probeRuns atomic.Int64

// twoInputCoord is an hourly coordinator whose actions wait for the
// instance of two hourly datasets (done flag _SUCCESS) under ${dataRoot}.
const twoInputCoord = `<coordinator-app name="probed" frequency="${coord:hours(1)}" start="${start}" end="${end}"
    timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <controls>
    <timeout>${timeout}</timeout>
    <concurrency>1</concurrency>
    <throttle>500</throttle>
  </controls>
  <datasets>
    <dataset name="a" frequency="${coord:hours(1)}" initial-instance="2026-01-01T00:00Z" timezone="UTC">
      <uri-template>${dataRoot}/a/${YEAR}/${MONTH}/${DAY}/${HOUR}</uri-template>
    </dataset>
    <dataset name="b" frequency="${coord:hours(1)}" initial-instance="2026-01-01T00:00Z" timezone="UTC">
      <uri-template>${dataRoot}/b/${YEAR}/${MONTH}/${DAY}/${HOUR}</uri-template>
    </dataset>
  </datasets>
  <input-events>
    <data-in name="a" dataset="a"><instance>${coord:current(0)}</instance></data-in>
    <data-in name="b" dataset="b"><instance>${coord:current(0)}</instance></data-in>
  </input-events>
  <action><workflow><app-path>${wfApp}</app-path></workflow></action>
</coordinator-app>`

// probeStart is the nominal time of the first action of the tests here:
// 48 hourly actions, two days, all due at probeNow.
var (
	probeStart = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	probeNow   = probeStart.Add(48 * time.Hour)
)

// probeHarness is a harness whose coordinator reads two datasets on
// probecoord://<bucket>.
type probeHarness struct {
	*coordHarness
	root string
}

func newProbeHarness(t *testing.T, bucket string, opts Options) *probeHarness {
	t.Helper()
	probeStore.SetHook(nil)
	probeStore.Reset()
	// The store outlives the test (go test -count=N runs it again): a
	// bucket of each run's own starts without the last run's flags.
	bucket = fmt.Sprintf("%s-%d", bucket, probeRuns.Add(1))
	ns, err := fsys.NewNamespace(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts.Namespace = ns
	if opts.InputCheckInterval == 0 {
		opts.InputCheckInterval = time.Minute
	}
	t.Cleanup(func() { probeStore.SetHook(nil) })
	return &probeHarness{coordHarness: newCoordHarness(t, probeNow, opts), root: "probecoord://" + bucket + "/data"}
}

// props writes the apps and returns the job properties, with a setting
// for the store under its prefix (fs.probecoord.).
func (h *probeHarness) props(kv ...string) *conf.Config {
	writeFiles(h.t, filepath.Join(h.dir, "apps"), map[string]string{
		"probe/coordinator.xml": twoInputCoord,
		"wf/workflow.xml":       holdWorkflow,
	})
	c := conf.New()
	for _, p := range [][2]string{
		{engine.PropCoordAppPath, "file://" + filepath.Join(h.dir, "apps", "probe")},
		{"wfApp", "file://" + filepath.Join(h.dir, "apps", "wf")},
		{"dataRoot", h.root}, {"timeout", "-1"},
		{"start", probeStart.Format("2006-01-02T15:04Z")}, {"end", probeNow.Format("2006-01-02T15:04Z")},
		{engine.PropUser, "tester"}, {"fs.probecoord.marker", "job-" + h.root},
	} {
		c.Set(p[0], p[1])
	}
	for i := 0; i+1 < len(kv); i += 2 {
		c.Set(kv[i], kv[i+1])
	}
	return c
}

// flag is the done flag of dataset ds at hour n after probeStart.
func (h *probeHarness) flag(ds string, n int) string {
	t := probeStart.Add(time.Duration(n) * time.Hour)
	return fmt.Sprintf("%s/%s/%s/_SUCCESS", h.root, ds, t.Format("2006/01/02/15"))
}

func (h *probeHarness) run(props *conf.Config) string {
	h.t.Helper()
	id, err := h.e.Run(context.Background(), props)
	if err != nil {
		h.t.Fatal(err)
	}
	h.settle()
	return id
}

// found counts the actions whose inputs were all found: READY, or on
// their way (concurrency 1 holds one workflow).
func found(counts map[string]int) int {
	return counts[store.CoordActionReady] + counts[store.CoordActionSubmitted] + counts[store.CoordActionRunning]
}

// Many WAITING actions become READY as their flags appear; each cycle
// answers them with one listing per dataset and day, and the job's
// settings and user reach the store.
func TestInputCheckManyActions(t *testing.T) {
	h := newProbeHarness(t, "many", Options{})
	id := h.run(h.props())
	if c := h.countByStatus(id); c[store.CoordActionWaiting] != 48 {
		t.Fatalf("after materialization: %v, want 48 WAITING", c)
	}
	for published := 0; published < 48; {
		for range 12 {
			probeStore.Put(h.flag("a", published), "")
			probeStore.Put(h.flag("b", published), "")
			published++
		}
		before := h.e.InputCheckCounts()
		h.advance(time.Minute, time.Minute, nil)
		got := h.e.InputCheckCounts()
		if c := h.countByStatus(id); found(c) != published || c[store.CoordActionWaiting] != 48-published {
			t.Fatalf("with %d instances published: %v", published, c)
		}
		// Two datasets over two days: four listings answer every flag
		// still to check (a day with one left is one Stat).
		if walks, stats := got.Walks-before.Walks, got.Stats-before.Stats; walks+stats > 4 || walks == 0 && published < 48 {
			t.Errorf("with %d published: %d walks and %d stats, want at most 4 requests", published, walks, stats)
		}
	}
	sawJobConf := false
	for _, c := range probeStore.Opened() {
		if v, _ := c.Get("fs.probecoord.marker"); v == "job-"+h.root {
			sawJobConf = true
		}
	}
	if !sawJobConf {
		t.Error("no store instance was opened with the job's fs.probecoord.marker")
	}
	if users := probeStore.Users(); users["tester"] == 0 || len(users) != 1 {
		t.Errorf("requests by user %v, want every one by the job's user tester", users)
	}
}

// A dependency found available is not asked for again by that action:
// a flag removed after the check found it does not hold the action back.
func TestInputCheckAvailableStaysAvailable(t *testing.T) {
	h := newProbeHarness(t, "stays", Options{})
	id := h.run(h.props())
	probeStore.Put(h.flag("a", 30), "")
	h.advance(time.Minute, time.Minute, nil)
	a31 := h.action(id, 31)
	if a31.MissingDependencies != h.flag("b", 30) {
		t.Fatalf("action 31 misses %q, want only b's flag", a31.MissingDependencies)
	}
	probeStore.Remove(h.flag("a", 30))
	probeStore.Put(h.flag("b", 30), "")
	h.advance(time.Minute, time.Minute, nil)
	if a := h.action(id, 31); a.Status == store.CoordActionWaiting {
		t.Fatalf("action 31 still WAITING, missing %q: a's flag was asked for again", a.MissingDependencies)
	}
	if c := h.countByStatus(id); found(c) != 1 {
		t.Errorf("%v, want one action found", c)
	}
}

// A store that does not answer: the actions keep waiting and say why,
// the store is left alone for a backoff doubling per failing cycle, and
// once it answers the actions go on and the message goes.
func TestInputCheckStoreUnavailable(t *testing.T) {
	h := newProbeHarness(t, "down", Options{})
	id := h.run(h.props())
	for n := range 48 {
		probeStore.Put(h.flag("a", n), "")
		probeStore.Put(h.flag("b", n), "")
	}
	var down atomic.Bool
	var asked atomic.Int64
	down.Store(true)
	probeStore.SetHook(func(ctx context.Context, op, p string) error {
		if fsys.Authority(p) != fsys.Authority(h.root) {
			return nil
		}
		asked.Add(1)
		if down.Load() {
			return &fsys.UnavailableError{Store: "probecoord://down", Err: errors.New("connection refused")}
		}
		return nil
	})
	// One interval per step; the prober asks on the first cycle, after one
	// interval, then after two, after four.
	for i, want := range []struct {
		asked  bool
		reason string
	}{
		{true, "connection refused"},
		{true, "connection refused"},
		{false, "not asked again before"},
		{true, "connection refused"},
		{false, "not asked again before"},
		{false, "not asked again before"},
		{false, "not asked again before"},
	} {
		asked.Store(0)
		h.advance(time.Minute, time.Minute, nil)
		if (asked.Load() > 0) != want.asked {
			t.Errorf("cycle %d: store asked %d times, want asked=%v", i, asked.Load(), want.asked)
		}
		c := h.countByStatus(id)
		if c[store.CoordActionWaiting] != 48 {
			t.Fatalf("cycle %d: %v, want every action WAITING", i, c)
		}
		a := h.action(id, 1)
		if !strings.Contains(a.ErrorMessage, "probecoord://down") || !strings.Contains(a.ErrorMessage, want.reason) {
			t.Errorf("cycle %d: action 1 says %q, want the store and %q", i, a.ErrorMessage, want.reason)
		}
		if a.MissingDependencies == "" {
			t.Errorf("cycle %d: action 1 misses nothing", i)
		}
	}
	down.Store(false)
	h.advance(time.Minute, time.Minute, nil)
	if c := h.countByStatus(id); found(c) != 48 {
		t.Fatalf("the store back: %v, want every action found", c)
	}
	if a := h.action(id, 2); a.ErrorMessage != "" {
		t.Errorf("action 2 still says %q", a.ErrorMessage)
	}
}

// Options.Exists replaces the prober and gets the job's settings and user
// in its context.
func TestInputCheckExistsOption(t *testing.T) {
	ns, err := fsys.NewNamespace(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var users []string
	h := newProbeHarness(t, "option", Options{Exists: func(ctx context.Context, uri string) (bool, error) {
		users = append(users, fsys.UserFrom(ctx))
		return ns.Exists(ctx, uri)
	}})
	probeStore.Put(h.flag("a", 0), "")
	probeStore.Put(h.flag("b", 0), "")
	id := h.run(h.props())
	if c := h.countByStatus(id); found(c) != 1 {
		t.Errorf("%v, want action 1 found", c)
	}
	if len(users) == 0 || users[0] != "tester" {
		t.Errorf("Exists called for users %v, want the job's user", users)
	}
	opened := probeStore.Opened()
	if v, _ := opened[len(opened)-1].Get("fs.probecoord.marker"); v != "job-"+h.root {
		t.Errorf("the store was opened with marker %q, want the job's", v)
	}
	if n := h.e.InputCheckCounts().Requests(); n != 0 {
		t.Errorf("the prober made %d requests beside Options.Exists", n)
	}
}

// action returns action n of job id.
func (h *coordHarness) action(id string, n int) *store.CoordAction {
	h.t.Helper()
	for _, a := range h.actions(id) {
		if a.Number == n {
			return a
		}
	}
	h.t.Fatalf("job %s has no action %d", id, n)
	return nil
}

func TestKnownAvailable(t *testing.T) {
	deps := []string{"a", "b", "c"}
	for _, tc := range []struct {
		missing string
		want    string
	}{
		{"a#b#c", ""},
		{"b#c", "a"},
		{"c", "a b"},
		{"", "a b c"},
		{"!!${coord:latestRange(-1,0)}", "a b c"},
		{"c!!${coord:latestRange(-1,0)}", "a b"},
		{"x#c", ""},     // not the list this plan stored
		{"z", ""},       // ditto
		{"a#b#c#d", ""}, // longer than the plan
		{"b#x", ""},     // not a suffix
		{"b#c!!latest", "a"},
	} {
		known := knownAvailable(deps, tc.missing)
		var got []string
		for _, d := range deps {
			if known[d] {
				got = append(got, d)
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("knownAvailable(%q) = %v, want %q", tc.missing, got, tc.want)
		}
	}
	if k := knownAvailable(nil, ""); len(k) != 0 {
		t.Errorf("no dependencies: %v", k)
	}
}

// The inputs of WAITING actions are checked once per interval: a step in
// between (a workflow ended) checks only what became due since, instead
// of asking for every flag again.
func TestInputCheckOncePerInterval(t *testing.T) {
	h := newProbeHarness(t, "interval", Options{})
	id := h.run(h.props())
	for n := range 3 {
		probeStore.Put(h.flag("a", n), "")
		probeStore.Put(h.flag("b", n), "")
	}
	h.advance(time.Minute, time.Minute, nil)
	if c := h.countByStatus(id); found(c) != 3 {
		t.Fatalf("%v, want 3 actions found", c)
	}
	for range 2 {
		before := h.e.InputCheckCounts().Requests()
		running := h.action(id, 1)
		for _, n := range []int{1, 2, 3} {
			if a := h.action(id, n); a.Status == store.CoordActionRunning {
				running = a
			}
		}
		h.finish(running.ExternalID)
		if n := h.e.InputCheckCounts().Requests() - before; n != 0 {
			t.Errorf("a workflow ending made %d input-check requests, want none before the interval", n)
		}
	}
	if c := h.countByStatus(id); c[store.CoordActionSucceeded] != 2 || c[store.CoordActionRunning] != 1 {
		t.Errorf("%v, want 2 SUCCEEDED and the third RUNNING", c)
	}
	before := h.e.InputCheckCounts().Requests()
	h.advance(time.Minute, time.Minute, nil)
	if n := h.e.InputCheckCounts().Requests() - before; n == 0 {
		t.Error("no input check at the interval")
	}
}

// outputFutureCoord is hourlyCoord with a data-out and a data-in of the
// test's choosing: issue 26 point 6.
const outputFutureCoord = `<coordinator-app name="outfuture" frequency="${coord:hours(1)}" start="${start}" end="${end}"
    timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <controls><timeout>${timeout}</timeout></controls>
  <datasets>
    <dataset name="logs" frequency="${coord:hours(1)}" initial-instance="2026-01-01T00:00Z" timezone="UTC">
      <uri-template>file://${dataRoot}/${YEAR}${MONTH}${DAY}${HOUR}</uri-template>
    </dataset>
  </datasets>
  <input-events><data-in name="in" dataset="logs">IN</data-in></input-events>
  <output-events><data-out name="out" dataset="logs"><instance>${coord:future(0, 2)}</instance></data-out></output-events>
  <action><workflow><app-path>${wfApp}</app-path><configuration>
    <property><name>outDir</name><value>${coord:dataIn('in')}/processed${coord:dataOut('out')}</value></property>
  </configuration></workflow></action>
</coordinator-app>`

// TestCoordOutputFuture (issue 26 point 6): a data-out named with
// coord:future is accepted at submission. As in Oozie, an action without
// latest/future inputs runs (coord:dataOut of that output is empty); one
// with a coord:future input fails its input check with E1021 at each
// check, and times out at its timeout as Oozie's input check makes it.
func TestCoordOutputFuture(t *testing.T) {
	ctx := context.Background()
	rows := []struct {
		name, in   string
		wantStatus string
	}{
		{"current input", `<instance>${coord:current(0)}</instance>`, store.CoordActionSucceeded},
		{"future input", `<instance>${coord:future(0, 2)}</instance>`, store.CoordActionTimedOut},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			h := newCoordHarness(t, policyNow, Options{InputCheckInterval: time.Minute})
			p := h.coordProps(fsWorkflow, "start", "2026-03-02T09:00Z", "end", "2026-03-02T10:00Z", "timeout", "10")
			writeFiles(t, filepath.Join(h.dir, "apps"), map[string]string{
				"coord/coordinator.xml": strings.Replace(outputFutureCoord, "IN", r.in, 1)})
			for _, hr := range []int{9, 10, 11} {
				h.publish(time.Date(2026, 3, 2, hr, 0, 0, 0, time.UTC))
			}
			id, err := h.e.Run(ctx, p)
			if err != nil {
				t.Fatalf("submission refused: %v", err)
			}
			h.settle()
			if r.wantStatus == store.CoordActionTimedOut {
				a := h.actionByNumber(id, 1)
				if a.Status != store.CoordActionWaiting || a.ErrorCode != "E1021" || !strings.Contains(a.ErrorMessage, "output-event") {
					t.Errorf("before the timeout: %s %s %q, want WAITING with E1021", a.Status, a.ErrorCode, a.ErrorMessage)
				}
			}
			h.advance(15*time.Minute, time.Minute, nil)
			a := h.actionByNumber(id, 1)
			if a.Status != r.wantStatus {
				t.Fatalf("action 1: %s (%s %s), want %s", a.Status, a.ErrorCode, a.ErrorMessage, r.wantStatus)
			}
			if r.wantStatus == store.CoordActionSucceeded {
				// coord:dataOut of the unresolved output is empty.
				if ok, _ := statDir(filepath.Join(h.dataDir(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)), "processed")); !ok {
					t.Errorf("the workflow did not get outDir <input>/processed")
				}
			}
		})
	}
}
