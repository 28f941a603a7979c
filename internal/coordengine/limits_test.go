package coordengine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// TestCoordSubmissionLimits is the coordinator part of the workflow
// engine's TestSubmissionLimits: a coordinator submission whose ${var}
// expansion would grow without bound, whose app path is /dev/zero or whose
// coordinator.xml is a FIFO is refused at once, through the workflow
// engine's Submit and with its limits, with an Oozie code and the property
// or path named, and leaves no job behind.
func TestCoordSubmissionLimits(t *testing.T) {
	dir := t.TempDir()
	s, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	e, err := newEngines(engine.Options{Store: s, Actions: action.NewRegistry(), DataDir: dir, DefaultUser: "tester",
		SystemID: "oozie-test", Logf: t.Logf, PollInterval: time.Hour,
		Expand: conf.ExpandLimits{Value: 64 << 10, Total: 1 << 20}, MaxDefinitionBytes: 4096}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	big := strings.Repeat("x", 1000)
	bomb := strings.Repeat("${big}", 1000)
	fifoIn := func(app, name string) string {
		p := filepath.Join(dir, "apps", app)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join(p, name), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	coordProps := func(appPath string, kv ...string) *conf.Config {
		c := conf.New()
		c.Set(engine.PropCoordAppPath, appPath)
		for i := 0; i+1 < len(kv); i += 2 {
			c.Set(kv[i], kv[i+1])
		}
		return c
	}
	cases := []struct {
		name     string
		props    func() *conf.Config
		code     string
		mentions string
	}{
		{"coordinator expansion bomb", func() *conf.Config {
			return coordProps(dir, "big", big, "bomb", bomb)
		}, "E1004", "[bomb]"},
		{"coordinator app path /dev/zero", func() *conf.Config { return coordProps("/dev/zero") }, "E0710", "[/dev/zero] is a device"},
		{"coordinator.xml is a FIFO", func() *conf.Config {
			return coordProps(fifoIn("fifo-coord", "coordinator.xml"))
		}, "E0710", "coordinator.xml] is a named pipe"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The deadline is a safety net: a FIFO read would block.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			start := time.Now()
			_, err := e.Submit(ctx, c.props())
			if err == nil {
				t.Fatal("submission accepted")
			}
			if engine.ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.mentions) {
				t.Fatalf("err = %v, want code %s mentioning %q", err, c.code, c.mentions)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("refusal took %v", d)
			}
		})
	}
	var jobs []*store.CoordJob
	err = s.View(context.Background(), func(tx store.Tx) (err error) {
		jobs, err = tx.CoordJobs(context.Background(), store.JobFilter{})
		return err
	})
	if err != nil || len(jobs) != 0 {
		t.Errorf("coordinator jobs after refused submissions: %d, %v", len(jobs), err)
	}
}
