// Command scale measures a `gozie server` on a store, normally one filled
// by bench/seed (issue 31: a store of a million jobs stays as fast as an
// empty one). It starts the server and reports, in one table:
//
//   - start-up: process start until /oozie/versions answers, and until
//     /health/ready answers 200;
//   - idle RSS -idle after the start, and the server's CPU time over -cpu
//     of steady state (the seeded RUNNING coordinators waiting for their
//     next action), as a percentage of one core;
//   - latency (p50, p99, max) of -n sequential requests of each read:
//     jobs list first page, filtered by user, by status, by name, by
//     several statuses, the console's jobs page (by text: n/10 requests),
//     -info of random seeded workflows and coordinators, a workflow's log;
//   - with -waiting N: N more coordinators, each with an action waiting
//     for an input that never arrives, and the CPU over -cpu again (N
//     input checks per interval);
//   - per-step cost: -runs workflows of -steps sequential shell `true`
//     steps, submit until seen SUCCEEDED, divided by the steps (median).
//
// The seeded ids are computed from -jobs and -coords as bench/seed makes
// them; on an empty store (-jobs 0) the reads of seeded jobs are skipped.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gozie/gozie/bench/benchserver"
)

type options struct {
	gozie, data, db, label string
	jobs, coords           int
	n, steps, runs         int
	idle, cpu              time.Duration
	waiting                int
}

func main() {
	var o options
	flag.StringVar(&o.gozie, "gozie", "", "gozie binary to start (required)")
	flag.StringVar(&o.data, "data", "", "the server's data directory (required; the SQLite store unless -db)")
	flag.StringVar(&o.db, "db", "", "PostgreSQL DSN of the store (with search_path=SCHEMA for a seeded schema)")
	flag.StringVar(&o.label, "label", "", "label of the table's rows (default: the store)")
	flag.IntVar(&o.jobs, "jobs", 1000000, "workflow jobs the store was seeded with (bench/seed -jobs); 0 for an empty store")
	flag.IntVar(&o.coords, "coords", 1000, "coordinators the store was seeded with (bench/seed -coords)")
	flag.IntVar(&o.n, "n", 200, "requests of each read")
	flag.IntVar(&o.steps, "steps", 100, "sequential steps of the per-step workflow (0 skips it)")
	flag.IntVar(&o.runs, "runs", 3, "per-step workflows run one after the other")
	flag.DurationVar(&o.idle, "idle", 10*time.Second, "wait after start-up before reading the RSS")
	flag.DurationVar(&o.cpu, "cpu", time.Minute, "steady-state CPU measurement (0 skips it)")
	flag.IntVar(&o.waiting, "waiting", 0, "coordinators to submit before -cpu, each with an action waiting for a missing input")
	flag.Parse()
	if flag.NArg() > 0 || o.gozie == "" || o.data == "" {
		fmt.Fprintln(os.Stderr, "usage: scale -gozie BIN -data DIR [-db DSN] [flags]")
		os.Exit(2)
	}
	if o.label == "" {
		o.label = "sqlite"
		if o.db != "" {
			o.label = "postgres"
		}
		o.label += " " + strconv.Itoa(o.jobs) + " jobs"
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

// row is one line of the report.
type row struct {
	what, value string
}

func run(ctx context.Context, o options) error {
	var extra []string
	if o.db != "" {
		extra = []string{"-db", o.db}
	}
	start := time.Now()
	srv, err := benchserver.Start(ctx, o.gozie, o.data, extra...)
	if err != nil {
		return err
	}
	defer srv.Stop()
	answered := time.Since(start)
	hc := &http.Client{Timeout: time.Minute}
	root := strings.TrimSuffix(srv.Base, "/oozie")
	for {
		if _, err := benchserver.Call(ctx, hc, http.MethodGet, root+"/health/ready", "", "", http.StatusOK); err == nil {
			break
		}
		if time.Since(start) > 5*time.Minute {
			return fmt.Errorf("/health/ready not 200 after 5 minutes; see %s", srv.LogPath)
		}
		time.Sleep(10 * time.Millisecond)
	}
	ready := time.Since(start)
	rows := []row{{"start-up: /oozie/versions answers", fmtDur(answered)}, {"start-up: /health/ready 200", fmtDur(ready)}}
	time.Sleep(o.idle)
	// RssFile is mostly SQLite's memory map of the database file: pages
	// the kernel shares and reclaims, unlike the heap (RssAnon).
	rows = append(rows, row{fmt.Sprintf("idle RSS %s after start", o.idle), fmt.Sprintf("%.1f MiB (anonymous %.1f, file %.1f)",
		float64(srv.RSS())/1024, float64(procKB(srv.PID(), "RssAnon:"))/1024, float64(procKB(srv.PID(), "RssFile:"))/1024)})
	if o.cpu > 0 {
		pct, err := cpuPercent(srv.PID(), o.cpu)
		if err != nil {
			return err
		}
		rows = append(rows, row{fmt.Sprintf("steady-state CPU over %s", o.cpu), fmt.Sprintf("%.2f%% of one core", pct)})
	}
	if o.waiting > 0 {
		t := time.Now()
		if err := submitWaiting(ctx, hc, srv.Base, o.data, o.waiting); err != nil {
			return err
		}
		rows = append(rows, row{fmt.Sprintf("%d coordinators submitted, each action WAITING", o.waiting), fmtDur(time.Since(t))})
		if o.cpu > 0 {
			pct, err := cpuPercent(srv.PID(), o.cpu)
			if err != nil {
				return err
			}
			rows = append(rows, row{fmt.Sprintf("CPU over %s with them (input checks every 60 s)", o.cpu), fmt.Sprintf("%.2f%% of one core", pct)})
		}
	}
	for _, r := range reads(o) {
		n := o.n
		if strings.HasSuffix(r.what, "by text") {
			// A substring search reads every job: seconds a request.
			n = max(10, n/10)
		}
		lat, err := measure(ctx, hc, srv.Base, n, r.path)
		if err != nil {
			return fmt.Errorf("%s: %w", r.what, err)
		}
		rows = append(rows, row{r.what, lat})
	}
	if o.steps > 0 {
		per, err := perStep(ctx, hc, srv.Base, o)
		if err != nil {
			return err
		}
		rows = append(rows, row{fmt.Sprintf("per step, %d sequential `true` steps (median of %d)", o.steps, o.runs), per})
	}
	rows = append(rows, row{"peak RSS (VmHWM)", fmt.Sprintf("%.1f MiB", float64(srv.PeakRSS())/1024)})
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\t\n", o.label)
	for _, r := range rows {
		fmt.Fprintf(tw, "  %s\t%s\n", r.what, r.value)
	}
	return tw.Flush()
}

// read is one measured request; path draws a request path each time.
type read struct {
	what string
	path func(r *rand.Rand) string
}

func seedWF(i int) string    { return fmt.Sprintf("%07d-000101000000000-oozie-seed-W", i) }
func seedCoord(i int) string { return fmt.Sprintf("%07d-000101000000000-oozie-seed-C", i) }

func reads(o options) []read {
	list := func(filter string) string {
		return "/v2/jobs?len=50&filter=" + url.QueryEscape(filter)
	}
	rs := []read{
		{"jobs list, first page", func(*rand.Rand) string { return "/v2/jobs?len=50" }},
		{"jobs list, by user", func(r *rand.Rand) string { return list("user=user" + strconv.Itoa(r.IntN(8))) }},
		{"jobs list, by status (SUCCEEDED|KILLED|RUNNING)", func(r *rand.Rand) string {
			return list("status=" + []string{"SUCCEEDED", "KILLED", "RUNNING"}[r.IntN(3)])
		}},
		{"jobs list, by name", func(r *rand.Rand) string { return list("name=seed-app-" + strconv.Itoa(r.IntN(50))) }},
		{"jobs list, by user and status", func(r *rand.Rand) string {
			return list("user=user" + strconv.Itoa(r.IntN(8)) + ";status=KILLED")
		}},
		{"jobs list, two statuses (FAILED;KILLED)", func(*rand.Rand) string { return list("status=FAILED;status=KILLED") }},
		{"jobs list, page 100", func(*rand.Rand) string { return "/v2/jobs?len=50&offset=4951" }},
		{"coordinator list, first page", func(*rand.Rand) string { return "/v2/jobs?jobtype=coord&len=50" }},
		{"console jobs page", func(*rand.Rand) string { return "/console/" }},
		{"console jobs page, by text", func(r *rand.Rand) string { return "/console/?text=app-" + strconv.Itoa(r.IntN(50)) }},
	}
	if o.jobs == 0 {
		return rs
	}
	rs = append(rs,
		read{"-info of a random workflow", func(r *rand.Rand) string { return "/v2/job/" + seedWF(1+r.IntN(o.jobs)) + "?show=info" }},
		read{"-log of a random workflow", func(r *rand.Rand) string { return "/v2/job/" + seedWF(1+r.IntN(o.jobs)) + "?show=log" }},
	)
	if o.coords > 0 {
		rs = append(rs, read{"-info of a random coordinator (1,000 actions)", func(r *rand.Rand) string {
			return "/v2/job/" + seedCoord(o.jobs+1+r.IntN(o.coords)) + "?show=info&len=1000"
		}})
	}
	return rs
}

// measure sends n requests one after the other (after 5 not counted) and
// returns "p50 / p99 / max".
func measure(ctx context.Context, hc *http.Client, base string, n int, path func(*rand.Rand) string) (string, error) {
	r := rand.New(rand.NewPCG(1, 2))
	var ds []time.Duration
	for i := 0; i < n+5; i++ {
		t := time.Now()
		if _, err := benchserver.Call(ctx, hc, http.MethodGet, base+path(r), "", "", http.StatusOK); err != nil {
			return "", err
		}
		if i >= 5 {
			ds = append(ds, time.Since(t))
		}
	}
	slices.Sort(ds)
	pct := func(p float64) time.Duration { return ds[min(len(ds)-1, int(p*float64(len(ds))))] }
	return fmt.Sprintf("p50 %s  p99 %s  max %s  (n=%d)", fmtDur(pct(0.5)), fmtDur(pct(0.99)), fmtDur(ds[len(ds)-1]), n), nil
}

// procKB reads a "Key:   N kB" line of /proc/PID/status (0 if absent).
func procKB(pid int, key string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

// cpuPercent is the CPU time (user + system) process pid used over d, as
// a percentage of one core.
func cpuPercent(pid int, d time.Duration) (float64, error) {
	before, err := cpuTicks(pid)
	if err != nil {
		return 0, err
	}
	t := time.Now()
	time.Sleep(d)
	after, err := cpuTicks(pid)
	if err != nil {
		return 0, err
	}
	// /proc counts in USER_HZ, 100 on Linux.
	return float64(after-before) / 100 / time.Since(t).Seconds() * 100, nil
}

func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name, which is in parentheses.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	k, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("bad /proc/%d/stat", pid)
	}
	return u + k, nil
}

// perStep runs o.runs workflows of o.steps sequential shell `true` steps
// and returns the median wall time per step, submission to SUCCEEDED.
func perStep(ctx context.Context, hc *http.Client, base string, o options) (string, error) {
	app := filepath.Join(o.data, "scale-app")
	if err := os.MkdirAll(app, 0o755); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(`<workflow-app xmlns="uri:oozie:workflow:0.5" name="scale-seq"><start to="s1"/>`)
	for i := 1; i <= o.steps; i++ {
		next := "end"
		if i < o.steps {
			next = "s" + strconv.Itoa(i+1)
		}
		fmt.Fprintf(&b, `<action name="s%d"><shell xmlns="uri:oozie:shell-action:1.0"><resource-manager>local</resource-manager>`+
			`<name-node>file:///</name-node><exec>true</exec></shell><ok to="%s"/><error to="fail"/></action>`, i, next)
	}
	b.WriteString(`<kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>`)
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(b.String()), 0o644); err != nil {
		return "", err
	}
	conf := "<configuration><property><name>oozie.wf.application.path</name><value>file://" + app +
		"</value></property></configuration>"
	var walls []time.Duration
	for i := 0; i < o.runs; i++ {
		t := time.Now()
		data, err := benchserver.Call(ctx, hc, http.MethodPost, base+"/v2/jobs?action=start&user.name=scale", benchserver.XML, conf, http.StatusCreated)
		if err != nil {
			return "", err
		}
		var out struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		}
		if err := json.Unmarshal(data, &out); err != nil || out.ID == "" {
			return "", fmt.Errorf("submit: no job id in %.200s", data)
		}
		for {
			data, err := benchserver.Call(ctx, hc, http.MethodGet, base+"/v2/job/"+out.ID+"?show=status", "", "", http.StatusOK)
			if err != nil {
				return "", err
			}
			if err := json.Unmarshal(data, &out); err != nil {
				return "", err
			}
			if out.Status != "PREP" && out.Status != "RUNNING" {
				break
			}
			if time.Since(t) > 5*time.Minute {
				return "", fmt.Errorf("job %s still %s after 5 minutes", out.ID, out.Status)
			}
			time.Sleep(5 * time.Millisecond)
		}
		if out.Status != "SUCCEEDED" {
			return "", fmt.Errorf("job %s ended %s", out.ID, out.Status)
		}
		walls = append(walls, time.Since(t))
	}
	slices.Sort(walls)
	m := walls[len(walls)/2]
	return fmt.Sprintf("%s per step (%s per workflow)", fmtDur(m/time.Duration(o.steps)), fmtDur(m)), nil
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	default:
		return d.Round(time.Microsecond).String()
	}
}
