// Command perf is the one-table performance benchmark of issue 15 (run it
// through bench/perf.sh). In N interleaved rounds it times:
//
//	(a) seq:        start -> S sequential shell `true` steps -> end, against
//	                the floor of a shell loop running /bin/true S times;
//	(b) par:        start -> fork of P shell `true` steps -> join -> end,
//	                against P /bin/true started at once and waited for;
//	(c) throughput: W three-step shell workflows submitted to one
//	                `gozie server` by concurrent clients, until all ended;
//
// (a) and (b) through `gozie run` (SQLite: the whole process, and the job's
// own start -> end from its summary, the measure of issue 31) and through
// a running server on each store, (c) on each store. Then (d) the engine's
// overhead per no-op action (go test -bench Noop in internal/engine) and
// (e) the idle RSS of a fresh server. PostgreSQL rows appear when a server
// answers at -pg; each run uses a schema of its own, dropped at the end.
//
// Every workflow must end SUCCEEDED, else perf exits 1: that is the only
// check of the reduced size (-quick) that CI runs; times are reported, never
// asserted.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to create and drop the schema

	"github.com/gozie/gozie/bench/benchserver"
	"github.com/gozie/gozie/internal/redact"
)

type options struct {
	gozie, repo, pg     string
	rounds              int
	steps, par          int
	workflows, clients  int
	noop, quick         bool
	cpuprofile          string
	skip                string
	keep                bool
	timeout, runTimeout time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.gozie, "gozie", "", "gozie binary to measure (required)")
	flag.StringVar(&o.repo, "repo", ".", "repository root, for the go test benchmarks of (d)")
	flag.StringVar(&o.pg, "pg", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", `PostgreSQL DSN; "" skips the PostgreSQL rows`)
	flag.IntVar(&o.rounds, "rounds", 3, "interleaved rounds; the table shows medians")
	flag.IntVar(&o.steps, "steps", 100, "sequential steps of shape (a)")
	flag.IntVar(&o.par, "par", 100, "parallel steps of shape (b)")
	flag.IntVar(&o.workflows, "workflows", 1000, "three-step workflows per throughput round (c)")
	flag.IntVar(&o.clients, "clients", 16, "concurrent submitting clients of (c)")
	flag.BoolVar(&o.noop, "noop", true, "run (d), go test -bench Noop (needs the go command and -repo)")
	flag.BoolVar(&o.quick, "quick", false, "reduced size for CI: 10 steps, 10 parallel, 100 workflows, 1 round, no (d)")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory (server logs)")
	flag.StringVar(&o.skip, "skip", "", `comma-separated parts to leave out: "shapes" ((a) and (b)), "throughput" ((c)), "idle" ((e))`)
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "directory for CPU profiles of the measuring servers (server-<store>.prof)")
	flag.DurationVar(&o.timeout, "timeout", 15*time.Minute, "bound on the whole benchmark")
	flag.DurationVar(&o.runTimeout, "run-timeout", 3*time.Minute, "bound on one measured run")
	flag.Parse()
	if o.quick {
		o.steps, o.par, o.workflows, o.rounds, o.noop = 10, 10, 100, 1, false
	}
	if flag.NArg() > 0 || o.gozie == "" || o.rounds < 1 {
		fmt.Fprintln(os.Stderr, "usage: perf -gozie PATH [flags]")
		flag.PrintDefaults()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "perf:", err)
		os.Exit(1)
	}
}

// row is one line of the table: the samples of all rounds.
type row struct {
	shape, store string
	walls        []time.Duration
	floor        string  // key of the floor row, "" for none
	workflows    int     // workflows per sample, for workflows/min
	rssKB        int64   // peak RSS, kB (max over the rounds)
	perAction    float64 // µs per action, for (d)
	note         string
}

func run(ctx context.Context, o options, out io.Writer) error {
	var err error
	if o.gozie, err = filepath.Abs(o.gozie); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "gozie-perf-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintf(out, "work directory: %s\n", work)
	} else {
		defer os.RemoveAll(work)
	}
	apps, err := writeApps(work, o)
	if err != nil {
		return err
	}
	stores := []string{"sqlite"}
	dsns := map[string]string{"sqlite": ""}
	if o.pg != "" {
		dsn, drop, err := benchserver.PGSchema(ctx, o.pg, "gozie_perf_")
		if err != nil {
			fmt.Fprintf(out, "no PostgreSQL at %s (%v): SQLite rows only\n", redact.Secrets(o.pg), err)
		} else {
			defer drop()
			stores = append(stores, "postgres")
			dsns["postgres"] = dsn
		}
	}
	fmt.Fprintf(out, "sizes: %d sequential steps, %d parallel steps, %d three-step workflows from %d clients, %d round(s)\n",
		o.steps, o.par, o.workflows, o.clients, o.rounds)

	servers := map[string]*server{}
	for _, st := range stores {
		var extra []string
		if o.cpuprofile != "" {
			extra = []string{"-cpuprofile", filepath.Join(o.cpuprofile, "server-"+st+".prof")}
		}
		s, err := startServer(ctx, o.gozie, filepath.Join(work, "server-"+st), dsns[st], extra...)
		if err != nil {
			return fmt.Errorf("%s server: %w", st, err)
		}
		defer s.Stop()
		servers[st] = s
	}

	m := &measure{o: o, work: work, apps: apps, stores: stores, servers: servers,
		rows: map[string]*row{}, skip: map[string]bool{}}
	for _, p := range strings.Split(o.skip, ",") {
		m.skip[strings.TrimSpace(p)] = true
	}
	for r := 1; r <= o.rounds; r++ {
		fmt.Fprintf(out, "round %d/%d ...\n", r, o.rounds)
		if err := m.round(ctx, r); err != nil {
			return err
		}
	}
	for _, st := range stores {
		servers[st].Stop()
	}
	if err := m.idle(ctx, dsns); err != nil {
		return err
	}
	if o.noop {
		if err := noopBench(ctx, o, m.add, stores); err != nil {
			return fmt.Errorf("(d) go test -bench Noop: %w", err)
		}
	}

	fmt.Fprintln(out)
	printTable(out, m.rows, m.order)
	return nil
}

// writeApps writes the three workflow applications the shapes run and
// returns their directories by name.
func writeApps(work string, o options) (map[string]string, error) {
	apps := map[string]string{}
	for name, xml := range map[string]string{
		"seq":   linear("seq", o.steps),
		"par":   fork("par", o.par),
		"three": linear("three", 3),
	} {
		dir := filepath.Join(work, "apps", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(xml), 0o644); err != nil {
			return nil, err
		}
		apps[name] = dir
	}
	return apps, nil
}

// measure holds what the rounds share: the setup and the table's rows in
// the order they first appeared.
type measure struct {
	o       options
	work    string
	apps    map[string]string
	stores  []string
	servers map[string]*server
	skip    map[string]bool
	rows    map[string]*row
	order   []string
}

// add returns the row of key, adding r under it the first time.
func (m *measure) add(key string, r *row) *row {
	if m.rows[key] == nil {
		m.rows[key] = r
		m.order = append(m.order, key)
	}
	return m.rows[key]
}

// round measures round r: the fork/exec floors, shapes (a) and (b)
// through gozie run and each server, and throughput (c).
func (m *measure) round(ctx context.Context, r int) error {
	o := m.o
	floorSeq := m.add("floor-seq", &row{shape: fmt.Sprintf("(a) floor: loop of %d /bin/true", o.steps), store: "-"})
	floorPar := m.add("floor-par", &row{shape: fmt.Sprintf("(b) floor: %d /bin/true at once", o.par), store: "-"})
	d, err := timeCmd(ctx, o.runTimeout, "bash", "-c", fmt.Sprintf("for i in $(seq %d); do /bin/true; done", o.steps))
	if err != nil {
		return fmt.Errorf("floor (a): %w", err)
	}
	floorSeq.walls = append(floorSeq.walls, d)
	d, err = timeCmd(ctx, o.runTimeout, "bash", "-c", fmt.Sprintf("for i in $(seq %d); do /bin/true & done; wait", o.par))
	if err != nil {
		return fmt.Errorf("floor (b): %w", err)
	}
	floorPar.walls = append(floorPar.walls, d)

	shapes := []struct{ key, app, label, floor string }{
		{"seq", m.apps["seq"], fmt.Sprintf("(a) %d sequential true", o.steps), "floor-seq"},
		{"par", m.apps["par"], fmt.Sprintf("(b) 1 -> %d parallel true -> join", o.par), "floor-par"},
	}
	if m.skip["shapes"] {
		shapes = nil
	}
	for _, shape := range shapes {
		// gozie run: the whole process, store created from nothing.
		rr := m.add(shape.key+"/run", &row{shape: shape.label, store: "sqlite (gozie run)", floor: shape.floor})
		jr := m.add(shape.key+"/run-job", &row{shape: shape.label, store: "sqlite (gozie run, job)", floor: shape.floor,
			note: "the job's start -> end, process start excluded"})
		data := filepath.Join(m.work, fmt.Sprintf("run-%s-%d", shape.key, r))
		d, rss, out, err := timeRun(ctx, o.runTimeout, o.gozie, "run", "-D", "oozie.wf.application.path="+shape.app, "-data", data)
		if err != nil {
			return fmt.Errorf("%s through gozie run: %w", shape.key, err)
		}
		jd, err := runDuration(out)
		if err != nil {
			return fmt.Errorf("%s through gozie run: %w", shape.key, err)
		}
		jr.walls = append(jr.walls, jd)
		// Kept until the end: on ext4 without a journal, inodes freed
		// now would slow every file the next runs create for a minute
		// or two (docs/benchmarks.md), measuring this benchmark's own
		// clean-up.
		rr.walls = append(rr.walls, d)
		rr.rssKB = max(rr.rssKB, rss)
		for _, st := range m.stores {
			sr := m.add(shape.key+"/"+st, &row{shape: shape.label, store: st + " (server)", floor: shape.floor})
			s := m.servers[st]
			t0 := time.Now()
			if err := s.runAll(ctx, o.runTimeout, shape.app, 1, 1); err != nil {
				return fmt.Errorf("%s on the %s server: %w", shape.key, st, err)
			}
			sr.walls = append(sr.walls, time.Since(t0))
			sr.rssKB = max(sr.rssKB, s.PeakRSS())
		}
	}
	for _, st := range m.stores {
		if m.skip["throughput"] {
			break
		}
		tr := m.add("tp/"+st, &row{shape: fmt.Sprintf("(c) %d x 3-step workflows, %d clients", o.workflows, o.clients), store: st + " (server)", workflows: o.workflows})
		s := m.servers[st]
		t0 := time.Now()
		if err := s.runAll(ctx, o.runTimeout, m.apps["three"], o.workflows, o.clients); err != nil {
			return fmt.Errorf("throughput on %s: %w", st, err)
		}
		tr.walls = append(tr.walls, time.Since(t0))
		tr.rssKB = max(tr.rssKB, s.PeakRSS())
	}
	return nil
}

// idle measures (e): the RSS of a fresh server that has done nothing yet.
func (m *measure) idle(ctx context.Context, dsns map[string]string) error {
	for _, st := range m.stores {
		if m.skip["idle"] {
			break
		}
		var rss []time.Duration // kB, kept as Duration to reuse median
		for r := 0; r < m.o.rounds; r++ {
			s, err := startServer(ctx, m.o.gozie, filepath.Join(m.work, fmt.Sprintf("idle-%s-%d", st, r)), dsns[st])
			if err != nil {
				return fmt.Errorf("idle %s server: %w", st, err)
			}
			time.Sleep(2 * time.Second)
			rss = append(rss, time.Duration(s.RSS()))
			s.Stop()
		}
		m.add("idle/"+st, &row{shape: "(e) idle server RSS", store: st, rssKB: int64(median(rss)), note: "after 2s, no jobs run"})
	}
	return nil
}

// noopBench runs the engine's no-op benchmarks rounds times and adds their
// median µs per action.
func noopBench(ctx context.Context, o options, add func(string, *row) *row, stores []string) error {
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", "Noop", "-benchtime", "1x",
		"-count", strconv.Itoa(o.rounds), "./internal/engine/")
	cmd.Dir = o.repo
	cmd.Env = os.Environ()
	if o.pg != "" && slices.Contains(stores, "postgres") {
		cmd.Env = append(cmd.Env, "GOZIE_TEST_POSTGRES_DSN="+o.pg)
	}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%v\n%s", err, buf.String())
	}
	samples := map[string][]float64{}
	var keys []string
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || !strings.HasPrefix(f[0], "BenchmarkNoop") {
			continue
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndex(name, "-"); i > 0 {
			name = name[:i] // the GOMAXPROCS suffix
		}
		for i := 1; i+1 < len(f); i++ {
			if f[i+1] == "µs/action" {
				v, err := strconv.ParseFloat(f[i], 64)
				if err == nil {
					if samples[name] == nil {
						keys = append(keys, name)
					}
					samples[name] = append(samples[name], v)
				}
			}
		}
	}
	if len(keys) == 0 {
		return fmt.Errorf("no µs/action in the output:\n%s", buf.String())
	}
	for _, k := range keys {
		shape, store, _ := strings.Cut(k, "/")
		vs := samples[k]
		slices.Sort(vs)
		add("noop/"+k, &row{shape: "(d) no-op overhead, " + shape, store: store, perAction: vs[len(vs)/2]})
	}
	return nil
}

func printTable(out io.Writer, rows map[string]*row, order []string) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SHAPE\tSTORE\tWALL (median)\tx FLOOR\tWORKFLOWS/MIN\tPEAK RSS\tN\t")
	for _, k := range order {
		r := rows[k]
		wall, ratio, wpm, rss := "-", "-", "-", "-"
		if len(r.walls) > 0 {
			m := median(r.walls)
			wall = fmtDur(m)
			if f := rows[r.floor]; f != nil && len(f.walls) > 0 {
				ratio = fmt.Sprintf("%.1fx", float64(m)/float64(median(f.walls)))
			}
			if r.workflows > 0 {
				wpm = fmt.Sprintf("%.0f", float64(r.workflows)/m.Minutes())
			}
		}
		if r.perAction > 0 {
			wall = fmt.Sprintf("%.0f µs/action", r.perAction)
		}
		if r.rssKB > 0 {
			rss = fmt.Sprintf("%.1f MiB", float64(r.rssKB)/1024)
		}
		n := strconv.Itoa(len(r.walls))
		if len(r.walls) == 0 {
			n = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.shape, r.store, wall, ratio, wpm, rss, n, r.note)
	}
	tw.Flush()
	fmt.Fprintln(out, "PEAK RSS: gozie run rows, the process; server rows, the server's high-water mark so far (VmHWM).")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	default:
		return d.Round(100 * time.Microsecond).String()
	}
}

// timeCmd runs a command and returns its wall time.
func timeCmd(ctx context.Context, limit time.Duration, name string, args ...string) (time.Duration, error) {
	d, _, _, err := timeRun(ctx, limit, name, args...)
	return d, err
}

// runDuration is the job's own time in the summary `gozie run` prints
// ("Duration : 289ms", its end time less its start time): the issue's
// measure of a run, which leaves out starting the process and opening
// the store.
func runDuration(out []byte) (time.Duration, error) {
	for line := range strings.SplitSeq(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "Duration : "); ok {
			return time.ParseDuration(strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("no Duration line in the output of gozie run:\n%s", tail(out, 2000))
}

// timeRun runs a command and returns its wall time, peak RSS (kB) and
// output (standard output and error together).
func timeRun(ctx context.Context, limit time.Duration, name string, args ...string) (time.Duration, int64, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	err := cmd.Run()
	d := time.Since(t0)
	if err != nil {
		return d, 0, nil, fmt.Errorf("%s: %v\n%s", name, err, tail(out.Bytes(), 2000))
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	return d, rss, out.Bytes(), nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

func shellAction(name, next string) string {
	return fmt.Sprintf(`<action name="%s"><shell xmlns="uri:oozie:shell-action:1.0"><resource-manager>local</resource-manager>`+
		`<name-node>file:///</name-node><exec>true</exec></shell><ok to="%s"/><error to="fail"/></action>`, name, next)
}

// linear is start -> n shell `true` steps -> end.
func linear(name string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<workflow-app xmlns="uri:oozie:workflow:1.0" name="%s"><start to="s1"/>`, name)
	for i := 1; i <= n; i++ {
		next := fmt.Sprintf("s%d", i+1)
		if i == n {
			next = "end"
		}
		b.WriteString(shellAction(fmt.Sprintf("s%d", i), next))
	}
	b.WriteString(`<kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>`)
	return b.String()
}

// fork is start -> fork of n shell `true` steps -> join -> end.
func fork(name string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<workflow-app xmlns="uri:oozie:workflow:1.0" name="%s"><start to="f"/><fork name="f">`, name)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `<path start="p%d"/>`, i)
	}
	b.WriteString(`</fork>`)
	for i := 1; i <= n; i++ {
		b.WriteString(shellAction(fmt.Sprintf("p%d", i), "j"))
	}
	b.WriteString(`<join name="j" to="end"/><kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>`)
	return b.String()
}

// server is a `gozie server` child process on a loopback port, with the
// HTTP client the measurements use.
type server struct {
	*benchserver.Server
	http *http.Client
}

// startServer runs `gozie server` over dir (and the PostgreSQL database of
// dsn, unless empty) with any extra flags, and waits until it answers.
func startServer(ctx context.Context, bin, dir, dsn string, extra ...string) (*server, error) {
	if dsn != "" {
		extra = append([]string{"-db", dsn}, extra...)
	}
	bs, err := benchserver.Start(ctx, bin, dir, extra...)
	if err != nil {
		return nil, err
	}
	return &server{Server: bs, http: &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}, nil
}

func (s *server) get(ctx context.Context, path string) ([]byte, error) {
	return s.do(ctx, http.MethodGet, path, "", http.StatusOK)
}

func (s *server) do(ctx context.Context, method, path, body string, want int) ([]byte, error) {
	ct := ""
	if body != "" {
		ct = benchserver.XML
	}
	return benchserver.Call(ctx, s.http, method, s.Base+path, ct, body, want)
}

// runAll submits n runs of the application at app (action=start) from
// clients concurrent clients and waits until every one has ended; it
// fails unless all SUCCEEDED. Completion is polled by job status, every
// 5ms for a single run and every 50ms for many.
func (s *server) runAll(ctx context.Context, limit time.Duration, app string, n, clients int) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	conf := "<configuration><property><name>oozie.wf.application.path</name><value>file://" + app +
		"</value></property></configuration>"
	ids := make([]string, n)
	err := benchserver.Fan(ctx, n, clients, func(i int) error {
		data, err := s.do(ctx, http.MethodPost, "/v2/jobs?action=start&user.name=perf", conf, http.StatusCreated)
		if err != nil {
			return err
		}
		var out struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(data, &out); err != nil || out.ID == "" {
			return fmt.Errorf("submit: no job id in %.200s", data)
		}
		ids[i] = out.ID
		return nil
	})
	if err != nil {
		return err
	}
	// Jobs end roughly in the order they were submitted: each poll reads
	// statuses in that order and stops at the first job still running,
	// so a poll costs the server about one request, not one per job.
	pending := ids
	interval := 5 * time.Millisecond
	if n > 1 {
		interval = 50 * time.Millisecond
	}
	for {
		for len(pending) > 0 {
			data, err := s.get(ctx, "/v2/job/"+pending[0]+"?show=status")
			if err != nil {
				return err
			}
			var out struct {
				Status string `json:"status"`
			}
			if err := json.Unmarshal(data, &out); err != nil {
				return err
			}
			if out.Status == "PREP" || out.Status == "RUNNING" || out.Status == "SUSPENDED" {
				break
			}
			if out.Status != "SUCCEEDED" {
				return fmt.Errorf("job %s ended %s", pending[0], out.Status)
			}
			pending = pending[1:]
		}
		if len(pending) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d of %d workflows not ended: %w", len(pending), n, ctx.Err())
		case <-time.After(interval):
		}
	}
}
