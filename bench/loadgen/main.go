// Command loadgen is the REST load benchmark of gozie (run it through
// bench/server.sh). It seeds a store with finished workflow jobs, starts
// `gozie server` on it, then measures:
//
//   - GET /oozie/v2/job/<id>?show=info and GET /oozie/v2/jobs?len=50&offset=N,
//     each closed-loop (workers back to back: maximum throughput) and
//     open-loop (a fixed request rate: latency at a given load);
//   - POST /oozie/v2/jobs?action=start of a tiny fs-only workflow: how many
//     submissions per second the server accepts, and how fast it runs them.
//
// It prints one table row per phase: requests, errors, achieved requests
// per second and latency percentiles. With -url it measures a server that
// is already running instead (reads only unless -submits is set).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gozie/gozie/bench/benchserver"
)

type options struct {
	gozie, url, data       string
	keep                   bool
	jobs, batch            int
	workers, openWorkers   int
	rate                   float64
	duration, warmup       time.Duration
	submits, submitWorkers int
	wait                   time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.gozie, "gozie", "", "gozie binary to start as the server (required unless -url)")
	flag.StringVar(&o.url, "url", "", "measure this running server instead, e.g. http://127.0.0.1:11000/oozie (no seeding)")
	flag.StringVar(&o.data, "data", "", "data directory to seed and serve (default: a temporary one, removed afterwards)")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary data directory")
	flag.IntVar(&o.jobs, "jobs", 10000, "workflow jobs to seed")
	flag.IntVar(&o.batch, "batch", 1000, "jobs per seeding transaction")
	flag.IntVar(&o.workers, "workers", 16, "concurrent clients of the closed-loop phases")
	flag.Float64Var(&o.rate, "rate", 1000, "requests per second of the open-loop phases (0 skips them)")
	flag.IntVar(&o.openWorkers, "open-workers", 64, "requests in flight at most in the open-loop phases")
	flag.DurationVar(&o.duration, "duration", 5*time.Second, "length of each read phase")
	flag.DurationVar(&o.warmup, "warmup", time.Second, "closed-loop warm-up before the read phases (not reported)")
	flag.IntVar(&o.submits, "submits", 500, "workflow submissions to time (0 skips them)")
	flag.IntVar(&o.submitWorkers, "submit-workers", 8, "concurrent submitting clients")
	flag.DurationVar(&o.wait, "wait", 2*time.Minute, "how long to wait for the submitted workflows to finish (0: do not wait)")
	flag.Parse()
	if flag.NArg() > 0 || (o.gozie == "" && o.url == "") {
		fmt.Fprintln(os.Stderr, "usage: loadgen -gozie PATH [flags] | loadgen -url http://host:port/oozie [flags]")
		flag.PrintDefaults()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options, out io.Writer) error {
	c := newClient(o.url, max(o.workers, o.openWorkers, o.submitWorkers)+8)
	var srv *benchserver.Server
	dir := o.data
	if o.url == "" {
		if dir == "" {
			tmp, err := os.MkdirTemp("", "gozie-bench-")
			if err != nil {
				return err
			}
			dir = tmp
			if !o.keep {
				defer os.RemoveAll(dir)
			}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		fmt.Fprintf(out, "data directory: %s\n", dir)
		t0 := time.Now()
		ids, err := seed(ctx, dir, o.jobs, o.batch, time.Now())
		if err != nil {
			return fmt.Errorf("seeding: %w", err)
		}
		el := time.Since(t0)
		fmt.Fprintf(out, "seeded %d jobs (%d action records) in %v: %.0f jobs/s\n", len(ids), 4*len(ids), el.Round(time.Millisecond), float64(len(ids))/el.Seconds())
		t0 = time.Now()
		if srv, err = benchserver.Start(ctx, o.gozie, dir); err != nil {
			return err
		}
		defer srv.Stop()
		fmt.Fprintf(out, "server %s ready in %v (log: %s)\n", srv.Base, time.Since(t0).Round(time.Millisecond), srv.LogPath)
		c.base, c.ids, c.jobs = srv.Base, ids, len(ids)
	} else if err := c.discover(ctx); err != nil {
		return err
	}

	var rows []summary
	reads := []struct {
		name string
		req  func(context.Context) error
	}{{"job info", c.jobInfo}, {"jobs list", c.jobsPage}}
	if len(c.ids) == 0 {
		fmt.Fprintf(out, "the server has no workflow jobs: skipping the read phases\n")
		reads = nil
	} else if o.warmup > 0 {
		closedLoop(ctx, o.workers, o.warmup, c.jobInfo)
	}
	for _, ph := range reads {
		r, el := closedLoop(ctx, o.workers, o.duration, ph.req)
		rows = append(rows, r.summarize(ph.name, fmt.Sprintf("closed x%d", o.workers), el))
		if o.rate > 0 {
			r, el := openLoop(ctx, o.rate, o.duration, o.openWorkers, ph.req)
			rows = append(rows, r.summarize(ph.name, fmt.Sprintf("open %.0f/s", o.rate), el))
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	var submitted []string
	var submitTime time.Duration
	if o.submits > 0 {
		conf, tmp, err := submitConf(dir, o.url != "")
		if err != nil {
			return err
		}
		if tmp != "" {
			defer os.RemoveAll(tmp)
		}
		r, el, ids := fixedCount(ctx, o.submits, o.submitWorkers, func(ctx context.Context) (string, error) { return c.submit(ctx, conf) })
		rows = append(rows, r.summarize("submit+start", fmt.Sprintf("closed x%d", o.submitWorkers), el))
		submitted, submitTime = ids, el
	}
	fmt.Fprintln(out)
	printTable(out, rows)
	if len(submitted) > 0 && o.wait > 0 {
		if err := waitFinished(ctx, c, submitted, submitTime, o.wait, out); err != nil {
			return err
		}
	}
	if srv != nil {
		if rss := srv.PeakRSS(); rss > 0 {
			fmt.Fprintf(out, "server peak RSS: %d kB\n", rss)
		}
	}
	return nil
}

// submitConf writes the tiny benchmark workflow (two fs steps on a local
// directory) and returns the job configuration that runs it. Against a
// server started elsewhere, the application must be on a path that server
// can read too, so it goes to a new temporary directory, returned for
// removal.
func submitConf(dir string, remote bool) (conf, tmp string, err error) {
	if remote || dir == "" {
		if tmp, err = os.MkdirTemp("", "gozie-bench-app-"); err != nil {
			return "", "", err
		}
		dir = tmp
	}
	app := filepath.Join(dir, "bench-app")
	if err := os.MkdirAll(app, 0o755); err != nil {
		return "", tmp, err
	}
	wf := strings.Replace(seedDefinition, "file:///tmp/bench", "${outDir}", 2)
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(wf), 0o644); err != nil {
		return "", tmp, err
	}
	prop := func(k, v string) string {
		return "<property><name>" + k + "</name><value>" + v + "</value></property>"
	}
	return "<configuration>" + prop("oozie.wf.application.path", "file://"+app) +
		prop("outDir", "file://"+filepath.Join(dir, "bench-out")) + "</configuration>", tmp, nil
}

// waitFinished polls until none of the submitted workflows is PREP or
// RUNNING any more, then reports how fast they ran and how they ended.
func waitFinished(ctx context.Context, c *client, ids []string, submitTime, limit time.Duration, out io.Writer) error {
	start := time.Now()
	deadline := start.Add(limit)
	counts := map[string]int{}
	pending := ids
	for len(pending) > 0 {
		if time.Now().After(deadline) {
			fmt.Fprintf(out, "%d of %d submitted workflows still not finished after %v\n", len(pending), len(ids), limit)
			return nil
		}
		var still []string
		for _, id := range pending {
			st, err := c.status(ctx, id)
			if err != nil {
				return err
			}
			switch st {
			case "PREP", "RUNNING", "SUSPENDED":
				still = append(still, id)
			default:
				counts[st]++
			}
		}
		pending = still
		if len(pending) > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	total := submitTime + time.Since(start)
	var parts []string
	for _, st := range []string{"SUCCEEDED", "FAILED", "KILLED"} {
		if counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", st, counts[st]))
		}
	}
	fmt.Fprintf(out, "%d submitted workflows finished within %v of the first submission (%.1f workflows/s end to end): %s\n",
		len(ids), total.Round(time.Millisecond), float64(len(ids))/total.Seconds(), strings.Join(parts, ", "))
	return nil
}
