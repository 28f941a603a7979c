package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	_ "github.com/gozie/gozie/internal/action/all"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/postgres"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// Benchmarks of the engine's own cost per action (no-op action type) and
// of the shell shapes of the issue. Run them with bench/run.sh, or:
//
//	go test -run '^$' -bench . -benchtime 1x ./internal/engine/

// linearApp is start -> n actions of type typ -> end.
func linearApp(n int, typ, body string) string {
	var b strings.Builder
	b.WriteString(`<start to="a1"/>`)
	for i := 1; i <= n; i++ {
		next := fmt.Sprintf("a%d", i+1)
		if i == n {
			next = "end"
		}
		fmt.Fprintf(&b, `<action name="a%d">%s<ok to="%s"/><error to="fail"/></action>`, i, body, next)
	}
	b.WriteString(`<kill name="fail"><message>failed</message></kill><end name="end"/>`)
	return wf(b.String())
}

// forkApp is start -> fork of n actions -> join -> end.
func forkApp(n int, body string) string {
	var b strings.Builder
	b.WriteString(`<start to="f"/><fork name="f">`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `<path start="a%d"/>`, i)
	}
	b.WriteString(`</fork>`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `<action name="a%d">%s<ok to="j"/><error to="fail"/></action>`, i, body)
	}
	b.WriteString(`<join name="j" to="end"/><kill name="fail"><message>failed</message></kill><end name="end"/>`)
	// A prefix declared once keeps 1,000 action bodies under Oozie's
	// 100,000-byte definition limit.
	return `<workflow-app xmlns="uri:oozie:workflow:1.0" xmlns:n="uri:gozie:noop:1.0" name="fork">` + b.String() + `</workflow-app>`
}

const noopBody = `<n:noop xmlns:n="uri:gozie:noop:1.0"/>`

// noopShort is noopBody for the fork app, whose root declares the prefix.
const noopShort = `<n:noop/>`
const shellTrue = `<shell xmlns="uri:oozie:shell-action:1.0"><resource-manager>local</resource-manager>` +
	`<name-node>file:///</name-node><exec>true</exec></shell>`

type benchEnv struct {
	e   *Engine
	dir string
}

func newBenchEnv(b *testing.B, backend string, shell bool) *benchEnv {
	b.Helper()
	dir := b.TempDir()
	var s store.Store
	switch backend {
	case "sqlite":
		var err error
		if s, err = sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db")); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
	case "postgres":
		s = postgres.OpenTest(b)
	case "postgres-registered":
		// What `gozie server` on PostgreSQL runs: a registered instance,
		// so every commit is fenced by its jobs' owner.
		s = postgres.OpenTest(b)
		err := s.(store.Cluster).Register(context.Background(), store.ServerInfo{ID: "bench#1", Name: "bench", Started: time.Now()})
		if err != nil {
			b.Fatal(err)
		}
	}
	reg := action.NewRegistry()
	reg.Register("noop", noop{})
	if shell {
		self, err := os.Executable()
		if err != nil {
			b.Fatal(err)
		}
		// As the server does: steps started by the launch supervisor.
		supDir := filepath.Join(dir, "launcher")
		launch.RegisterBuiltins(reg, launch.Options{Launcher: []string{self}, SupervisorDir: supDir})
		b.Cleanup(func() { _ = launch.StopSupervisor(supDir, 20*time.Second) })
	}
	// StartSettle and the crash journal as gozie server and gozie run have them.
	opts := Options{Store: s, Actions: reg, DataDir: dir, DefaultUser: "bench", Logf: b.Logf,
		PollInterval: 500 * time.Millisecond, StartSettle: DefaultStartSettle,
		CrashJournal: filepath.Join(dir, CrashJournalFile)}
	if backend == "postgres-registered" {
		// As gozie server on PostgreSQL: each start records its intent.
		id, err := launch.DataDirID(dir)
		if err != nil {
			b.Fatal(err)
		}
		opts.DataID, opts.Host, opts.ServerID = id, "bench-host", func() string { return "bench#1" }
	}
	e, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	if err := e.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return &benchEnv{e: e, dir: dir}
}

func (env *benchEnv) app(b *testing.B, name, xml string) string {
	dir := filepath.Join(env.dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(xml), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

func (env *benchEnv) runOnce(b *testing.B, app string) {
	ctx := context.Background()
	id, err := env.e.Run(ctx, props(app))
	if err != nil {
		b.Fatal(err)
	}
	j, err := env.e.Wait(ctx, id)
	if err != nil {
		b.Fatal(err)
	}
	if j.Status != store.JobSucceeded {
		_, acts, _ := env.e.Job(ctx, id)
		for _, a := range acts {
			if a.Status != store.ActionOK {
				b.Logf("%s %s %s %s", a.Name, a.Status, a.ErrorCode, a.ErrorMessage)
			}
		}
		b.Fatalf("job %s", j.Status)
	}
}

// reportRSS adds the peak resident set size of this process and of its
// children (launchers, shells) to the benchmark's results.
func reportRSS(b *testing.B) {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	b.ReportMetric(float64(self.Maxrss)/1024, "peak-RSS-MB")
	b.ReportMetric(float64(kids.Maxrss)/1024, "child-peak-RSS-MB")
}

func backends(b *testing.B, f func(b *testing.B, backend string)) {
	for _, backend := range []string{"sqlite", "postgres", "postgres-registered"} {
		b.Run(backend, func(b *testing.B) { f(b, backend) })
	}
}

// BenchmarkNoopLinear1000 is the engine overhead per action of a 1,000-node
// linear workflow of no-op actions.
func BenchmarkNoopLinear1000(b *testing.B) {
	backends(b, func(b *testing.B, backend string) {
		env := newBenchEnv(b, backend, false)
		app := env.app(b, "linear", linearApp(1000, "noop", noopBody))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			env.runOnce(b, app)
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*1000), "µs/action")
	})
}

// BenchmarkNoopForkJoin1000 is the same for a 1,000-way fork and its join.
func BenchmarkNoopForkJoin1000(b *testing.B) {
	backends(b, func(b *testing.B, backend string) {
		env := newBenchEnv(b, backend, false)
		app := env.app(b, "fork", forkApp(1000, noopShort))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			env.runOnce(b, app)
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*1000), "µs/action")
	})
}

// BenchmarkShellSequential100 runs 100 sequential shell `true` steps.
func BenchmarkShellSequential100(b *testing.B) {
	benchShellShape(b, "seq", linearApp(100, "shell", shellTrue))
}

// BenchmarkShellParallel100 runs 1 -> 100 parallel shell `true` -> join.
func BenchmarkShellParallel100(b *testing.B) {
	benchShellShape(b, "par", forkApp(100, shellTrue))
}

// benchShellShape runs the workflow xml of shell steps on every store.
func benchShellShape(b *testing.B, name, xml string) {
	backends(b, func(b *testing.B, backend string) {
		env := newBenchEnv(b, backend, true)
		app := env.app(b, name, xml)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			env.runOnce(b, app)
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/run")
		reportRSS(b)
	})
}

// BenchmarkShell50RunsOf10 runs a 10-step shell workflow 50 times at once.
func BenchmarkShell50RunsOf10(b *testing.B) {
	env := newBenchEnv(b, "sqlite", true)
	app := env.app(b, "ten", linearApp(10, "shell", shellTrue))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ctx := context.Background()
		ids := make([]string, 50)
		for r := range ids {
			id, err := env.e.Run(ctx, props(app))
			if err != nil {
				b.Fatal(err)
			}
			ids[r] = id
		}
		for _, id := range ids {
			if j, err := env.e.Wait(ctx, id); err != nil || j.Status != store.JobSucceeded {
				b.Fatalf("job %s: %v %v", id, j.Status, err)
			}
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/50runs")
	reportRSS(b)
}
