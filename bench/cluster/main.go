// Command cluster benchmarks several `gozie server` processes sharing one
// PostgreSQL store (run it through bench/cluster.sh). It measures, each on
// a PostgreSQL schema of its own:
//
//	(a) throughput: W three-step shell `true` workflows submitted
//	    round-robin to 1, 2 and 3 servers on one schema by concurrent
//	    clients; workflows/min from the first submission to the last
//	    SUCCEEDED;
//	(b) failover: of two servers, the one running F workflows of long
//	    steps (each sleeps 1 s) is SIGKILLed; the time from the kill until
//	    the other server has taken its jobs over (its log says so), until
//	    the first action of those jobs changes status (the survivor
//	    re-attached to a step and recorded its end), and until all
//	    SUCCEEDED; with the default lease (20 s, heartbeat 5 s) and with
//	    5 s / 1 s; with -burst N also: one of two servers SIGKILLed
//	    halfway through a burst of N three-step workflows submitted to
//	    both, when its newest workflows are starting their first steps;
//	(c) a PostgreSQL restart (pg_ctlcluster) in the middle of a
//	    three-server run: every job must still end SUCCEEDED, and no step
//	    may run twice. Only as root where pg_ctlcluster exists, never with
//	    -quick: it restarts the machine's PostgreSQL for everybody.
//
// The steps of (b) and (c) append a mark (job, step, work directory, time)
// to a file; a step with two marks ran twice. Every workflow must end
// SUCCEEDED and no step may run twice (the servers share a host, so the
// survivor of a kill re-attaches to the steps the killed server was
// starting as it died, in its data directory), else cluster exits 1:
// that is the only check of the reduced size (-quick) that CI runs; times
// are reported, never asserted.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to create and drop schemas

	"github.com/gozie/gozie/bench/benchserver"
	"github.com/gozie/gozie/internal/redact"
)

type options struct {
	gozie, pg           string
	workflows, clients  int
	long, longSteps     int
	burst               int
	restartWorkflows    int
	pgRestart, parts    string
	quick, keep         bool
	timeout, runTimeout time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.gozie, "gozie", "", "gozie binary to measure (required)")
	flag.StringVar(&o.pg, "pg", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "PostgreSQL DSN (each part uses a schema of its own)")
	flag.IntVar(&o.workflows, "workflows", 600, "three-step workflows per throughput run (a)")
	flag.IntVar(&o.clients, "clients", 8, "concurrent submitting clients of (a)")
	flag.IntVar(&o.long, "long", 20, "long workflows on the killed server (b)")
	flag.IntVar(&o.longSteps, "long-steps", 4, "steps of each long workflow (b), each sleeping 1s")
	flag.IntVar(&o.burst, "burst", 0, "(b) also: kill one of two servers (lease 5s) halfway through a burst of this many three-step workflows submitted to both; 0: no burst run")
	flag.IntVar(&o.restartWorkflows, "restart-workflows", 300, "three-step workflows of the PostgreSQL restart run (c)")
	flag.StringVar(&o.pgRestart, "pg-restart", "auto", `(c): "auto" (as root where pg_ctlcluster exists), "yes" or "no"`)
	flag.StringVar(&o.parts, "parts", "abc", "the parts to run: any of a, b and c")
	flag.BoolVar(&o.quick, "quick", false, "reduced size for CI: 60 workflows in (a), 6 long workflows and only the 5s lease in (b), a burst of 60 unless -burst says otherwise, no (c)")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory (server logs, marks)")
	flag.DurationVar(&o.timeout, "timeout", 30*time.Minute, "bound on the whole benchmark")
	flag.DurationVar(&o.runTimeout, "run-timeout", 5*time.Minute, "bound on one measured run")
	flag.Parse()
	if o.quick {
		o.workflows, o.long, o.longSteps, o.pgRestart = 60, 6, 3, "no"
		if o.burst == 0 {
			o.burst = 60
		}
	}
	if flag.NArg() > 0 || o.gozie == "" || o.workflows < 1 || o.long < 1 || o.longSteps < 2 || o.clients < 1 || o.burst < 0 {
		fmt.Fprintln(os.Stderr, "usage: cluster -gozie PATH [flags]")
		flag.PrintDefaults()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	ok, err := run(ctx, o, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
	if !ok {
		fmt.Fprintln(os.Stderr, "cluster: FAILED: not every workflow succeeded exactly once (see the table)")
		os.Exit(1)
	}
}

// row is one line of the table.
type row struct {
	part, servers, lease string
	workflows            int
	wall                 time.Duration
	takeover, firstMove  time.Duration // (b), from the kill
	succeeded            int
	backends             int // peak PostgreSQL client backends
	dups                 string
	note                 string
	bad                  bool // a workflow did not succeed, or a step ran twice where it must not
}

// bench is the state of one run: the work directory and the binary.
type bench struct {
	o    options
	work string
	out  io.Writer
	http *http.Client
	apps map[string]string
	// retries counts submissions answered 503 and sent again.
	retries atomic.Int64
	// dirs are the data directories of every server started, whose launch
	// supervisors are stopped at the end.
	dirs []string
}

func run(ctx context.Context, o options, out io.Writer) (bool, error) {
	var err error
	if o.gozie, err = filepath.Abs(o.gozie); err != nil {
		return false, err
	}
	work, err := os.MkdirTemp("", "gozie-cluster-")
	if err != nil {
		return false, err
	}
	b := &bench{o: o, work: work, out: out, apps: map[string]string{},
		http: &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	defer func() {
		stopSupervisors(b.dirs)
		if o.keep {
			fmt.Fprintf(out, "work directory kept: %s\n", work)
		} else {
			os.RemoveAll(work)
		}
	}()
	marks := "echo \"${wf:id()} %s $PWD $(date +%%s.%%N)\" >> ${marks}; sleep ${sleep}"
	for name, xml := range map[string]string{
		"three":  linear("three", 3, ""),
		"long":   linear("long", o.longSteps, marks),
		"marked": linear("marked", 3, marks),
	} {
		dir := filepath.Join(work, "apps", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, err
		}
		if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(xml), 0o644); err != nil {
			return false, err
		}
		b.apps[name] = dir
	}
	if _, drop, err := benchserver.PGSchema(ctx, o.pg, "gozie_cluster_"); err != nil {
		fmt.Fprintf(out, "no PostgreSQL at %s (%v): nothing to measure\n", redact.Secrets(o.pg), err)
		return true, nil
	} else {
		drop()
	}

	var rows []*row
	for n := 1; n <= 3 && strings.Contains(o.parts, "a"); n++ {
		if n == 1 {
			fmt.Fprintf(out, "(a) throughput: %d three-step workflows from %d clients, round-robin over 1, 2 and 3 servers\n", o.workflows, o.clients)
		}
		r, err := b.throughput(ctx, n)
		if err != nil {
			return false, fmt.Errorf("(a) %d servers: %w", n, err)
		}
		rows = append(rows, r)
	}
	leases := [][2]int{{20, 5}, {5, 1}}
	if o.quick {
		leases = leases[1:]
	}
	if !strings.Contains(o.parts, "b") {
		leases = nil
	}
	for _, l := range leases {
		fmt.Fprintf(out, "(b) failover: %d workflows of %d one-second steps, lease %ds, heartbeat %ds\n", o.long, o.longSteps, l[0], l[1])
		r, err := b.failover(ctx, l[0], l[1])
		if err != nil {
			return false, fmt.Errorf("(b) lease %ds: %w", l[0], err)
		}
		rows = append(rows, r)
	}
	if o.burst > 0 && strings.Contains(o.parts, "b") {
		fmt.Fprintf(out, "(b) failover in a submission burst: %d three-step workflows to 2 servers, one killed halfway, lease 5s, heartbeat 1s\n", o.burst)
		r, err := b.burst(ctx, 5, 1)
		if err != nil {
			return false, fmt.Errorf("(b) burst: %w", err)
		}
		rows = append(rows, r)
	}
	restart, why := restartCommand(o.pgRestart)
	if !strings.Contains(o.parts, "c") {
		restart, why = nil, "not in -parts"
	}
	if restart != nil {
		fmt.Fprintf(out, "(c) PostgreSQL restart (%s) in the middle of %d workflows on 3 servers\n", strings.Join(restart, " "), o.restartWorkflows)
		r, err := b.pgRestart(ctx, restart)
		if err != nil {
			return false, fmt.Errorf("(c): %w", err)
		}
		rows = append(rows, r)
	} else {
		rows = append(rows, &row{part: "(c) PostgreSQL restart", note: "skipped: " + why})
	}

	fmt.Fprintln(out)
	printTable(out, rows)
	ok := true
	for _, r := range rows {
		ok = ok && !r.bad
	}
	return ok, nil
}

// sampleBackends counts PostgreSQL's client backends (of every client of
// the server, not only this benchmark's) every 200ms until the returned
// function is called, which returns the highest count seen.
func sampleBackends(ctx context.Context, dsn string) func() int {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return func() int { return 0 }
	}
	db.SetMaxOpenConns(1)
	ctx, cancel := context.WithCancel(ctx)
	var peak atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			var n int64
			if db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'`).Scan(&n) == nil && n > peak.Load() {
				peak.Store(n)
			}
			if sleep(ctx, 200*time.Millisecond) != nil {
				return
			}
		}
	}()
	return func() int {
		cancel()
		<-done
		db.Close()
		return int(peak.Load())
	}
}

// restartCommand returns the command that restarts the local PostgreSQL
// cluster, or nil and why (c) is skipped.
func restartCommand(mode string) ([]string, string) {
	switch mode {
	case "no":
		return nil, "-pg-restart=no"
	case "yes", "auto":
	default:
		return nil, fmt.Sprintf("-pg-restart=%q is not auto, yes or no", mode)
	}
	if os.Geteuid() != 0 {
		return nil, "not root"
	}
	if _, err := exec.LookPath("pg_ctlcluster"); err != nil {
		return nil, "no pg_ctlcluster"
	}
	versions, err := os.ReadDir("/etc/postgresql")
	if err != nil || len(versions) != 1 {
		return nil, "not exactly one PostgreSQL version in /etc/postgresql"
	}
	return []string{"pg_ctlcluster", "--skip-systemctl-redirect", versions[0].Name(), "main", "restart"}, ""
}

// startServers starts n servers over one schema, with the given
// configuration variables.
func (b *bench) startServers(ctx context.Context, name, dsn string, n int, env ...string) ([]*benchserver.Server, error) {
	var servers []*benchserver.Server
	for i := 1; i <= n; i++ {
		dir := filepath.Join(b.work, name, fmt.Sprintf("srv%d", i))
		b.dirs = append(b.dirs, dir)
		s, err := benchserver.StartWith(ctx, b.o.gozie, dir, benchserver.Options{Env: env}, "-db", dsn)
		if err != nil {
			for _, s := range servers {
				s.Stop()
			}
			return nil, err
		}
		servers = append(servers, s)
	}
	return servers, nil
}

// throughput is (a) with n servers.
func (b *bench) throughput(ctx context.Context, n int) (*row, error) {
	ctx, cancel := context.WithTimeout(ctx, b.o.runTimeout)
	defer cancel()
	dsn, drop, err := benchserver.PGSchema(ctx, b.o.pg, "gozie_cluster_")
	if err != nil {
		return nil, err
	}
	defer drop()
	servers, err := b.startServers(ctx, fmt.Sprintf("a%d", n), dsn, n)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, s := range servers {
			s.Stop()
		}
	}()
	r := &row{part: "(a) throughput, 3 x true", servers: strconv.Itoa(n), lease: "20s/5s", workflows: b.o.workflows}
	peak := sampleBackends(ctx, b.o.pg)
	defer func() { r.backends = peak() }()
	props := map[string]string{"oozie.wf.application.path": "file://" + b.apps["three"]}
	t0 := time.Now()
	ids, err := b.submitAll(ctx, servers, props, b.o.workflows, b.o.clients, r)
	if err != nil {
		return nil, err
	}
	if err := b.waitUnfinished(ctx, servers, 0, 50*time.Millisecond); err != nil {
		return nil, err
	}
	r.wall = time.Since(t0)
	return r, b.verify(ctx, servers[0], ids, r)
}

// pgRestart is (c): restart PostgreSQL once a third of the workflows of a
// three-server run have succeeded.
func (b *bench) pgRestart(ctx context.Context, restart []string) (*row, error) {
	ctx, cancel := context.WithTimeout(ctx, b.o.runTimeout)
	defer cancel()
	dsn, drop, err := benchserver.PGSchema(ctx, b.o.pg, "gozie_cluster_")
	if err != nil {
		return nil, err
	}
	defer drop()
	servers, err := b.startServers(ctx, "c", dsn, 3, "GOZIE_SERVER_LEASE_S=5", "GOZIE_SERVER_HEARTBEAT_S=1")
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, s := range servers {
			s.Stop()
		}
	}()
	n := b.o.restartWorkflows
	marks := filepath.Join(b.work, "c", "marks")
	r := &row{part: "(c) PostgreSQL restart, 3 x sleep 0.2", servers: "3", lease: "5s/1s", workflows: n}
	peak := sampleBackends(ctx, b.o.pg)
	defer func() { r.backends = peak() }()
	props := map[string]string{"oozie.wf.application.path": "file://" + b.apps["marked"], "marks": marks, "sleep": "0.2"}
	t0 := time.Now()
	ids, err := b.submitAll(ctx, servers, props, n, b.o.clients, r)
	if err != nil {
		return nil, err
	}
	if err := b.waitUnfinished(ctx, servers, n-n/3, 50*time.Millisecond); err != nil {
		return nil, err
	}
	at := time.Since(t0)
	rctx, rcancel := context.WithTimeout(ctx, 2*time.Minute)
	t1 := time.Now()
	outb, err := exec.CommandContext(rctx, restart[0], restart[1:]...).CombinedOutput()
	rcancel()
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %s", strings.Join(restart, " "), err, outb)
	}
	took := time.Since(t1)
	// The servers answer errors while the store is away: polls retry.
	if err := b.waitUnfinished(ctx, servers, 0, 100*time.Millisecond); err != nil {
		return nil, err
	}
	r.wall = time.Since(t0)
	takeovers := 0
	for _, s := range servers {
		takeovers += countLines(s.LogPath, "its jobs are this server's now")
	}
	r.note += fmt.Sprintf("restart at %.1fs took %.1fs; %d take-overs; ", at.Seconds(), took.Seconds(), takeovers)
	if err := b.verify(ctx, servers[0], ids, r); err != nil {
		return nil, err
	}
	b.checkMarks(marks, ids, 3, r, servers)
	return r, nil
}

// submitAll submits n runs of props from clients concurrent clients, run
// i to servers[i % len(servers)], and returns their ids.
func (b *bench) submitAll(ctx context.Context, servers []*benchserver.Server, props map[string]string, n, clients int, r *row) ([]string, error) {
	before := b.retries.Load()
	defer func() {
		if n := b.retries.Load() - before; n > 0 {
			r.note += fmt.Sprintf("%d submissions answered 503 and sent again; ", n)
		}
	}()
	ids := make([]string, n)
	err := benchserver.Fan(ctx, n, clients, func(i int) error {
		id, err := b.submit(ctx, servers[i%len(servers)].Base, props)
		ids[i] = id
		return err
	})
	return ids, err
}

func (b *bench) submit(ctx context.Context, base string, props map[string]string) (string, error) {
	var sb strings.Builder
	sb.WriteString("<configuration>")
	for k, v := range props {
		fmt.Fprintf(&sb, "<property><name>%s</name><value>%s</value></property>", k, v)
	}
	sb.WriteString("</configuration>")
	// 503 is the server's "retry later" (its store refused a connection,
	// say): nothing was created, and a client tries again, as
	// `gozie job -run` does. The retries are counted for the table.
	var data []byte
	for attempt := 0; ; attempt++ {
		var err error
		data, err = benchserver.Call(ctx, b.http, http.MethodPost, base+"/v2/jobs?action=start&user.name=bench", benchserver.XML, sb.String(), http.StatusCreated)
		var st *benchserver.StatusError
		if errors.As(err, &st) && st.Code == http.StatusServiceUnavailable && attempt < 10 {
			b.retries.Add(1)
			if err := sleep(ctx, time.Duration(100<<min(attempt, 4))*time.Millisecond); err != nil {
				return "", err
			}
			continue
		}
		if err != nil {
			return "", err
		}
		break
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(data, &out); err != nil || out.ID == "" {
		return "", fmt.Errorf("submit: no job id in %.200s", data)
	}
	return out.ID, nil
}

func (b *bench) get(ctx context.Context, s *benchserver.Server, path string, v any) error {
	data, err := benchserver.Call(ctx, b.http, http.MethodGet, s.Base+path, "", "", http.StatusOK)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// waitUnfinished polls until at most max workflows are PREP or RUNNING,
// asking the servers in turn; errors (a server, or the store, away for a
// moment) are retried until ctx ends.
func (b *bench) waitUnfinished(ctx context.Context, servers []*benchserver.Server, max int, interval time.Duration) error {
	var last error
	for i := 0; ; i++ {
		var out struct {
			Total int `json:"total"`
		}
		err := b.get(ctx, servers[i%len(servers)], "/v2/jobs?jobtype=wf&len=1&filter="+url.QueryEscape("status=PREP;status=RUNNING"), &out)
		if err == nil && out.Total <= max {
			return nil
		}
		if err != nil {
			last = err
		}
		if err := sleep(ctx, interval); err != nil {
			return fmt.Errorf("workflows still running (last error: %v): %w", last, err)
		}
	}
}

// verify counts the SUCCEEDED workflows among ids, marking the row bad
// unless all did.
func (b *bench) verify(ctx context.Context, s *benchserver.Server, ids []string, r *row) error {
	var list struct {
		Workflows []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"workflows"`
	}
	if err := b.get(ctx, s, fmt.Sprintf("/v2/jobs?jobtype=wf&len=%d", len(ids)+100), &list); err != nil {
		return err
	}
	status := map[string]string{}
	for _, w := range list.Workflows {
		status[w.ID] = w.Status
	}
	var bad []string
	for _, id := range ids {
		if status[id] == "SUCCEEDED" {
			r.succeeded++
		} else {
			bad = append(bad, id+" "+status[id])
		}
	}
	if len(bad) > 0 {
		r.bad = true
		if len(bad) > 5 {
			bad = append(bad[:5], "...")
		}
		r.note += "NOT SUCCEEDED: " + strings.Join(bad, ", ") + "; "
	}
	return nil
}

// actions returns the status of each job (by id) and of each of its
// actions (by action id).
func (b *bench) actions(ctx context.Context, s *benchserver.Server, ids []string) (map[string]string, error) {
	out := map[string]string{}
	for _, id := range ids {
		var info struct {
			Status  string `json:"status"`
			Actions []struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			} `json:"actions"`
		}
		if err := b.get(ctx, s, "/v2/job/"+id+"?show=info", &info); err != nil {
			return nil, err
		}
		out[id] = info.Status
		for _, a := range info.Actions {
			out[a.ID] = a.Status
		}
	}
	return out, nil
}

func terminalWF(s string) bool { return s == "SUCCEEDED" || s == "FAILED" || s == "KILLED" }

func countLines(path, substr string) int {
	data, _ := os.ReadFile(path)
	return strings.Count(string(data), substr)
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func printTable(out io.Writer, rows []*row) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PART\tSERVERS\tLEASE/BEAT\tWORKFLOWS\tWALL\tWORKFLOWS/MIN\tTAKE-OVER\tFIRST MOVE\tSUCCEEDED\tRAN TWICE\tPG BACKENDS\tNOTE\t")
	dur := func(d time.Duration) string {
		if d == 0 {
			return "-"
		}
		return d.Round(100 * time.Millisecond).String()
	}
	for _, r := range rows {
		wpm, wf, ok, dups, backends := "-", "-", "-", "-", "-"
		if r.backends > 0 {
			backends = strconv.Itoa(r.backends)
		}
		if r.workflows > 0 {
			wf = strconv.Itoa(r.workflows)
			ok = fmt.Sprintf("%d/%d", r.succeeded, r.workflows)
			if strings.HasPrefix(r.part, "(a)") && r.wall > 0 {
				wpm = fmt.Sprintf("%.0f", float64(r.workflows)/r.wall.Minutes())
			}
		}
		if r.dups != "" {
			dups = r.dups
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.part, orDash(r.servers), orDash(r.lease), wf,
			dur(r.wall), wpm, dur(r.takeover), dur(r.firstMove), ok, dups, backends, strings.TrimSuffix(r.note, "; "))
	}
	tw.Flush()
	fmt.Fprintln(out, "WALL: (a) first submission to last SUCCEEDED; (b) kill to all SUCCEEDED; (c) first submission to last SUCCEEDED.")
	fmt.Fprintln(out, "TAKE-OVER: kill to the survivor's log saying it has the jobs; FIRST MOVE: kill to the first action status change of the killed server's jobs.")
	fmt.Fprintln(out, "PG BACKENDS: peak client backends of the PostgreSQL server during the part, other clients' included (max_connections bounds them).")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// shellAction is a shell step running cmd through sh -c (or `true` when
// cmd is empty); %s in cmd is the step's name.
func shellAction(name, next, cmd string) string {
	body := `<exec>true</exec>`
	if cmd != "" {
		body = `<exec>sh</exec><argument>-c</argument><argument>` + fmt.Sprintf(cmd, name) + `</argument>`
	}
	return fmt.Sprintf(`<action name="%s"><shell xmlns="uri:oozie:shell-action:1.0"><resource-manager>local</resource-manager>`+
		`<name-node>file:///</name-node>%s</shell><ok to="%s"/><error to="fail"/></action>`, name, body, next)
}

// linear is start -> n shell steps -> end.
func linear(name string, n int, cmd string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, `<workflow-app xmlns="uri:oozie:workflow:1.0" name="%s"><start to="s1"/>`, name)
	for i := 1; i <= n; i++ {
		next := fmt.Sprintf("s%d", i+1)
		if i == n {
			next = "end"
		}
		sb.WriteString(shellAction(fmt.Sprintf("s%d", i), next, cmd))
	}
	sb.WriteString(`<kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>`)
	return sb.String()
}

// stopSupervisors ends the launch supervisors of the given data
// directories (`launch -supervise <dir>/launcher`, found in /proc; nothing
// where there is no /proc): SIGTERM, on which a supervisor exits once its
// steps have ended. They would also exit by themselves once their socket
// is removed with the work directory.
func stopSupervisors(dirs []string) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	want := map[string]bool{}
	for _, d := range dirs {
		want[filepath.Join(d, "launcher")] = true
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if i := slices.Index(args, "-supervise"); i >= 0 && i+1 < len(args) && want[args[i+1]] {
			pids = append(pids, pid)
		}
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for time.Now().Before(deadline) {
			stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if err != nil {
				break
			}
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
				break // a zombie: gone, its parent (init) reaps it
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
