// Command inputcheck measures one input-check cycle of the coordinator
// engine at scale: a coordinator with -actions hourly actions WAITING on
// -datasets datasets each (done flag _SUCCESS), of which a fraction
// (-present) of the instances are there. It runs the real engines on a
// SQLite store with a clock moved by hand: the first tick materializes
// every action and checks it, the next tick (one input-check interval
// later) is the cycle measured. It prints the wall time of both and the
// requests the prober made per kind.
//
// The data live on the local file system (a temporary directory, or
// -root), or on an S3 store when -endpoint is given:
//
//	go run ./bench/inputcheck
//	go run ./bench/inputcheck -actions 10000 -datasets 3 -present 0.5
//	go run ./bench/inputcheck -endpoint http://127.0.0.1:7070 -access-key K -secret-key S -bucket b
//
// The S3 settings can come from the environment as well
// (GOZIE_BENCH_S3_ENDPOINT, _ACCESS_KEY, _SECRET_KEY, _BUCKET); they go
// into the coordinator job's configuration (fs.s3a.*), as a user's would.
// bench/inputcheck.sh starts a local S3 server (versitygw) and runs this
// against it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/engine/enginetest"
	"github.com/gozie/gozie/internal/fsys"
	_ "github.com/gozie/gozie/internal/fsys/all" // every store's backend
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// storeRequests, when set, returns the HTTP requests the store backends
// sent so far per operation (HeadObject, ListObjectsV2, ...): s3.go sets
// it from the S3 backend's counter.
var storeRequests func() map[string]int64

// benchOptions are the command's flags.
type benchOptions struct {
	actions, datasets, files int
	present                  float64
	root, scheme             string
	endpoint, access, secret string
	bucket, prefix           string
	parallel, walkBudget     int
	skipSetup, keep          bool
	defines                  defines
}

// defines collects -D key=value settings for the job's configuration.
type defines map[string]string

func (d defines) String() string { return fmt.Sprint(map[string]string(d)) }

func (d defines) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want key=value, got %q", s)
	}
	d[k] = v
	return nil
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func main() {
	o := benchOptions{defines: defines{}}
	flag.IntVar(&o.actions, "actions", 10000, "WAITING actions (hourly)")
	flag.IntVar(&o.datasets, "datasets", 3, "datasets each action waits for")
	flag.Float64Var(&o.present, "present", 0.5, "fraction of the dataset instances whose done flag is there")
	flag.IntVar(&o.files, "files", 0, "data files beside each done flag present (what a listing also returns)")
	flag.StringVar(&o.root, "root", "", "where the datasets live on the local file system (default: a temporary directory)")
	flag.StringVar(&o.endpoint, "endpoint", env("GOZIE_BENCH_S3_ENDPOINT", ""), "S3 endpoint URL: the datasets go to an S3 store")
	flag.StringVar(&o.access, "access-key", env("GOZIE_BENCH_S3_ACCESS_KEY", ""), "S3 access key")
	flag.StringVar(&o.secret, "secret-key", env("GOZIE_BENCH_S3_SECRET_KEY", ""), "S3 secret key")
	flag.StringVar(&o.bucket, "bucket", env("GOZIE_BENCH_S3_BUCKET", "gozie-bench"), "S3 bucket (must exist)")
	flag.StringVar(&o.prefix, "prefix", "inputcheck", "key prefix of the datasets in the bucket")
	flag.StringVar(&o.scheme, "scheme", "s3a", "URI scheme of the S3 store")
	flag.IntVar(&o.parallel, "parallel", 0, "requests in flight per store (gozie.coord.input.check.parallel; 0: default)")
	flag.IntVar(&o.walkBudget, "walk-budget", 0, "entries one listing may return (gozie.coord.input.check.walk.budget; 0: default, <0: never list)")
	flag.BoolVar(&o.skipSetup, "skip-setup", false, "the done flags are there from an earlier run with the same flags: do not write them")
	flag.BoolVar(&o.keep, "keep", false, "keep the local data and the store's database")
	flag.Var(o.defines, "D", "key=value added to the job's configuration (repeatable)")
	flag.Parse()
	if o.actions < 1 || o.datasets < 1 || o.present < 0 || o.present > 1 {
		fmt.Fprintln(os.Stderr, "inputcheck: -actions and -datasets must be positive, -present within [0, 1]")
		os.Exit(2)
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "inputcheck:", err)
		os.Exit(1)
	}
}

// start is the nominal time of the first action; now is after the last.
var start = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// present reports whether the flag of dataset d at hour k is there: a
// fixed pseudo-random spread (a splitmix64 hash), the same at every run,
// each instance independent of the others.
func present(o benchOptions, d, k int) bool {
	h := uint64(k)<<8 | uint64(d)
	h += 0x9e3779b97f4a7c15
	h = (h ^ h>>30) * 0xbf58476d1ce4e5b9
	h = (h ^ h>>27) * 0x94d049bb133111eb
	h ^= h >> 31
	return float64(h%1_000_000) < o.present*1_000_000
}

func run(ctx context.Context, o benchOptions) error {
	work, err := os.MkdirTemp("", "gozie-inputcheck-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Println("work directory:", work)
	} else {
		defer os.RemoveAll(work)
	}
	jobConf := map[string]string{}
	root := o.root
	switch {
	case o.endpoint != "":
		root = fmt.Sprintf("%s://%s/%s", o.scheme, o.bucket, strings.Trim(o.prefix, "/"))
		jobConf["fs.s3a.endpoint"] = o.endpoint
		jobConf["fs.s3a.path.style.access"] = "true"
		if o.access != "" {
			jobConf["fs.s3a.access.key"], jobConf["fs.s3a.secret.key"] = o.access, o.secret
		}
	case root == "":
		root = filepath.Join(work, "data")
	}
	for k, v := range o.defines {
		jobConf[k] = v
	}
	if fsys.Scheme(root) == "" {
		root = "file://" + root
	}
	ns, err := fsys.NewNamespace(nil, nil)
	if err != nil {
		return err
	}
	if !o.skipSetup {
		t0 := time.Now()
		n, err := setup(fsys.WithConf(ctx, fsys.MapConfig(jobConf)), ns, o, root)
		if err != nil {
			return err
		}
		fmt.Printf("setup: %d done flags and %d data files under %s in %s\n", n, n*o.files, root, time.Since(t0).Round(time.Millisecond))
	}
	return measure(ctx, o, ns, work, root, jobConf)
}

// flagURI is the done flag of dataset d at hour k.
func flagURI(root string, d, k int) string {
	t := start.Add(time.Duration(k) * time.Hour)
	return fmt.Sprintf("%s/ds%d/%s/_SUCCESS", root, d, t.Format("2006/01/02/15"))
}

// setup writes the done flags (and data files) present, 32 at a time.
func setup(ctx context.Context, ns *fsys.Namespace, o benchOptions, root string) (int, error) {
	var uris []string
	for d := range o.datasets {
		for k := range o.actions {
			if present(o, d, k) {
				uris = append(uris, flagURI(root, d, k))
			}
		}
	}
	jobs := make(chan string)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range jobs {
				dir := strings.TrimSuffix(u, "/_SUCCESS")
				var err error
				for f := 0; f < o.files && err == nil; f++ {
					err = ns.WriteFile(ctx, fmt.Sprintf("%s/part-%05d", dir, f), []byte("data\n"))
				}
				if err == nil {
					err = ns.WriteFile(ctx, u, nil)
				}
				if err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for _, u := range uris {
		jobs <- u
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return 0, err
	default:
	}
	return len(uris), nil
}

// coordXML is the coordinator: hourly, every action waiting for the
// current instance of each dataset.
func coordXML(o benchOptions) string {
	var ds, ins strings.Builder
	for d := range o.datasets {
		fmt.Fprintf(&ds, `    <dataset name="ds%d" frequency="${coord:hours(1)}" initial-instance="2024-01-01T00:00Z" timezone="UTC">
      <uri-template>${dataRoot}/ds%d/${YEAR}/${MONTH}/${DAY}/${HOUR}</uri-template>
    </dataset>
`, d, d)
		fmt.Fprintf(&ins, "    <data-in name=\"in%d\" dataset=\"ds%d\"><instance>${coord:current(0)}</instance></data-in>\n", d, d)
	}
	return `<coordinator-app name="inputcheck" frequency="${coord:hours(1)}" start="${start}" end="${end}" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <controls><timeout>-1</timeout><concurrency>1</concurrency><throttle>${throttle}</throttle></controls>
  <datasets>
` + ds.String() + `  </datasets>
  <input-events>
` + ins.String() + `  </input-events>
  <action><workflow><app-path>${wfApp}</app-path></workflow></action>
</coordinator-app>`
}

// holdWorkflow runs one action that never ends: with concurrency 1 the
// first action found stays RUNNING and the others READY, so that no
// workflow ending steps the job between the ticks measured.
const holdWorkflow = `<workflow-app name="hold" xmlns="uri:oozie:workflow:0.5">
  <start to="h"/>
  <action name="h"><hold xmlns="uri:gozie:bench:1.0"/><ok to="end"/><error to="end"/></action>
  <end name="end"/>
</workflow-app>`

// holdExec runs the hold action: started, never done.
type holdExec struct{}

func (holdExec) Start(_ context.Context, a *action.Context) (action.Result, error) {
	return action.Result{ExternalID: "hold-" + a.JobID, ExternalStatus: "RUNNING"}, nil
}

func (holdExec) Check(_ context.Context, _ *action.Context, id string) (action.Result, error) {
	return action.Result{ExternalID: id, ExternalStatus: "RUNNING"}, nil
}

func (holdExec) Kill(context.Context, *action.Context, string) error { return nil }

// measure runs the engines, submits the coordinator and times its first
// two ticks.
func measure(ctx context.Context, o benchOptions, ns *fsys.Namespace, work, root string, jobConf map[string]string) error {
	for name, body := range map[string]string{"coord/coordinator.xml": coordXML(o), "wf/workflow.xml": holdWorkflow} {
		p := filepath.Join(work, "apps", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	st, err := sqlite.Open(ctx, filepath.Join(work, "gozie.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	end := start.Add(time.Duration(o.actions) * time.Hour)
	clock := enginetest.NewFakeClock(end)
	const interval = time.Minute
	reg := action.NewRegistry()
	reg.Register("hold", holdExec{})
	wf, err := engine.New(engine.Options{Store: st, Actions: reg, DataDir: work, Clock: clock,
		PollInterval: time.Hour, DefaultUser: "bench", SystemID: "bench",
		Logf: func(string, ...any) {}, CrashJournal: filepath.Join(work, engine.CrashJournalFile)})
	if err != nil {
		return err
	}
	ce := coordengine.New(wf, wf.Runtime(), coordengine.Options{
		InputCheckInterval: interval, BatchSize: o.actions, Namespace: ns,
		InputCheckParallel: o.parallel, InputCheckWalkBudget: o.walkBudget,
	})
	if err := wf.Start(ctx); err != nil {
		return err
	}
	defer wf.Close()

	props := conf.New()
	for k, v := range map[string]string{
		"oozie.coord.application.path": "file://" + filepath.Join(work, "apps", "coord"),
		"wfApp":                        "file://" + filepath.Join(work, "apps", "wf"),
		"dataRoot":                     root, "throttle": fmt.Sprint(o.actions),
		"start": start.Format("2006-01-02T15:04Z"), "end": end.Format("2006-01-02T15:04Z"),
	} {
		props.Set(k, v)
	}
	keys := make([]string, 0, len(jobConf))
	for k := range jobConf {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		props.Set(k, jobConf[k])
	}
	fmt.Printf("%d actions x %d datasets, %.0f%% of the instances present, data on %s\n", o.actions, o.datasets, o.present*100, root)

	before := snapshot()
	t0 := time.Now()
	id, err := ce.Submit(ctx, props)
	if err != nil {
		return err
	}
	if err := idle(ctx, st, clock); err != nil {
		return err
	}
	first := time.Since(t0)
	counts, reqs := ce.InputCheckCounts(), snapshot()
	report(ctx, "first tick (materialization, then the check)", first, counts, fsys.ProbeCounts{}, reqs, before, st, id)

	clock.Advance(interval)
	t0 = time.Now()
	if err := idle(ctx, st, clock); err != nil {
		return err
	}
	report(ctx, "input-check cycle", time.Since(t0), ce.InputCheckCounts(), counts, snapshot(), reqs, st, id)
	return nil
}

// idle waits until the engines have nothing due.
func idle(ctx context.Context, st store.Store, clock *enginetest.FakeClock) error {
	deadline := time.Now().Add(30 * time.Minute)
	for quiet := 0; quiet < 2; {
		due := 0
		err := st.View(ctx, func(tx store.Tx) error {
			effs, err := tx.PendingEffects(ctx, "", 0)
			for _, ef := range effs {
				if !ef.NotBefore.After(clock.Now()) {
					due++
				}
			}
			return err
		})
		if err != nil {
			return err
		}
		if due == 0 {
			quiet++
		} else {
			quiet = 0
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("engine not idle after 30 minutes")
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

// snapshot returns the store backends' request counts, nil when there
// are none to read.
func snapshot() map[string]int64 {
	if storeRequests == nil {
		return nil
	}
	return storeRequests()
}

// report prints a tick's wall time, the prober's requests during it (and
// the store's, where counted) and the actions by status.
func report(ctx context.Context, what string, took time.Duration, now, before fsys.ProbeCounts, reqs, reqsBefore map[string]int64,
	st store.Store, id string) {
	var byStatus map[string]int
	_ = st.View(ctx, func(tx store.Tx) (err error) {
		byStatus, err = tx.CountCoordActions(ctx, id)
		return err
	})
	var statuses []string
	for s, n := range byStatus {
		if n > 0 {
			statuses = append(statuses, fmt.Sprintf("%s %d", s, n))
		}
	}
	sort.Strings(statuses)
	fmt.Printf("%s: %s wall\n", what, took.Round(time.Millisecond))
	fmt.Printf("  requests: %d (stat %d, walk %d listing %d entries, walks over budget %d), skipped %d, unavailable %d\n",
		now.Requests()-before.Requests(), now.Stats-before.Stats, now.Walks-before.Walks, now.WalkEntries-before.WalkEntries,
		now.WalkFallbacks-before.WalkFallbacks, now.Skipped-before.Skipped, now.Unavailable-before.Unavailable)
	if reqs != nil {
		var ops []string
		total := int64(0)
		for op, n := range reqs {
			if d := n - reqsBefore[op]; d != 0 {
				ops = append(ops, fmt.Sprintf("%s %d", op, d))
				total += d
			}
		}
		sort.Strings(ops)
		if total > 0 {
			fmt.Printf("  store requests: %d (%s)\n", total, strings.Join(ops, ", "))
		}
	}
	fmt.Printf("  actions: %s\n", strings.Join(statuses, ", "))
}
