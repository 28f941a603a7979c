package coordengine

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/engine/enginetest"
)

// crashDSNEnv, when set, makes the crash helper use PostgreSQL at that DSN
// instead of SQLite in its data directory.
const crashDSNEnv = "GOZIE_ENGINE_CRASH_HELPER_DSN"

func TestMain(m *testing.M) {
	if dir := os.Getenv(coordCrashHelperEnv); dir != "" {
		os.Exit(coordCrashHelper(dir))
	}
	os.Exit(m.Run())
}

// fakeClock and shExec are the workflow engine's test helpers.
type (
	fakeClock = enginetest.FakeClock
	shExec    = enginetest.ShExec
)

func newFakeClock() *fakeClock {
	return enginetest.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
}

func readLines(path string) ([]string, error) { return enginetest.ReadLines(path) }

func newRecorder(t *testing.T, answer func(uri string, n int) int) *enginetest.Recorder {
	return enginetest.NewRecorder(t, answer)
}

func killMidRun(t *testing.T, helper func() *exec.Cmd, logPath string, atLines ...int) {
	t.Helper()
	enginetest.KillMidRun(t, helper, logPath, atLines...)
}

// wf wraps workflow nodes in a workflow-app.
func wf(nodes string) string {
	return `<workflow-app xmlns="uri:oozie:workflow:1.0" name="test-wf">` + nodes + `</workflow-app>`
}

// engines is a workflow engine beside a coordinator engine, as a server
// has them (package jobs, which this package's tests cannot import):
// submissions and job commands go to the engine of the job's kind; the
// coordinator's own requests (CoordJobInfo, CoordChange, ...) and
// internals go to the coordinator engine.
type engines struct {
	*engine.Engine
	*coordinators
}

// coordinators names the embedded coordinator engine apart from the
// workflow engine.
type coordinators = Engine

// newEngines builds the two engines on opts; the caller starts them.
func newEngines(opts engine.Options, coordOpts Options) (*engines, error) {
	wf, err := engine.New(opts)
	if err != nil {
		return nil, err
	}
	c := New(wf, wf.Runtime(), coordOpts)
	return &engines{Engine: wf, coordinators: c}, nil
}

// The methods both engines have go to the engine of the job's kind, as
// the server's requests do (jobs.Service).

func isCoordConf(props *conf.Config) bool {
	v, _ := props.Get(coord.PropAppPath)
	return strings.TrimSpace(v) != ""
}

func (e *engines) Submit(ctx context.Context, props *conf.Config) (string, error) {
	if isCoordConf(props) {
		return e.coordinators.Submit(ctx, props)
	}
	return e.Engine.Submit(ctx, props)
}

func (e *engines) Run(ctx context.Context, props *conf.Config) (string, error) {
	if isCoordConf(props) {
		return e.coordinators.Submit(ctx, props)
	}
	return e.Engine.Run(ctx, props)
}

func (e *engines) StartJob(ctx context.Context, id string) error {
	if strings.HasSuffix(id, "-C") {
		return e.coordinators.Start(ctx, id)
	}
	return e.Engine.StartJob(ctx, id)
}

func (e *engines) Suspend(ctx context.Context, id string) error {
	if strings.HasSuffix(id, "-C") {
		return e.coordinators.Suspend(ctx, id)
	}
	return e.Engine.Suspend(ctx, id)
}

func (e *engines) Resume(ctx context.Context, id string) error {
	if strings.HasSuffix(id, "-C") {
		return e.coordinators.Resume(ctx, id)
	}
	return e.Engine.Resume(ctx, id)
}

func (e *engines) Kill(ctx context.Context, id string) error {
	if strings.HasSuffix(id, "-C") {
		return e.coordinators.Kill(ctx, id)
	}
	return e.Engine.Kill(ctx, id)
}

// Start starts the workflow engine, which performs the pending effects of
// both.
func (e *engines) Start(ctx context.Context) error { return e.Engine.Start(ctx) }
