package all

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"
)

// A work directory made ahead by PrepareDir is what Start would have
// made; Start uses it and the program runs once, with its output; a
// PrepareDir after the start (or of an existing directory) touches
// nothing; preparing and starting at once is safe.
func TestPrepareDir(t *testing.T) {
	for _, mode := range launchtest.Modes {
		t.Run(mode.Name, func(t *testing.T) {
			reg := action.NewRegistry()
			launch.RegisterBuiltins(reg, mode.Opts(t))
			x, _ := reg.Lookup("shell")
			p, ok := x.(launch.DirPreparer)
			if !ok {
				t.Fatalf("the shell executor (%T) does not prepare directories", x)
			}
			for _, c := range []struct {
				name    string
				prepare func(dir string)
			}{
				{"prepared before", func(dir string) { p.PrepareDir(dir) }},
				{"prepared twice", func(dir string) { p.PrepareDir(dir); p.PrepareDir(dir) }},
				{"not prepared", func(string) {}},
				{"prepared while starting", func(dir string) {
					var wg sync.WaitGroup
					for range 4 {
						wg.Go(func() { p.PrepareDir(dir) })
					}
					t.Cleanup(wg.Wait)
				}},
			} {
				t.Run(c.name, func(t *testing.T) {
					a, notified := launchtest.ShellAction(t, t.TempDir(), `<exec>sh</exec><argument>-c</argument><argument>echo x=$$ >> runs; echo k=v</argument><capture-output/>`)
					c.prepare(a.WorkDir)
					if c.name != "not prepared" && c.name != "prepared while starting" {
						for _, f := range []string{launch.StdoutFile, launch.StderrFile, launch.PidReserveFile, launch.StatusReserveFile} {
							if _, err := os.Stat(filepath.Join(a.WorkDir, f)); err != nil {
								t.Errorf("prepared directory lacks %s: %v", f, err)
							}
						}
					}
					res := launchtest.RunToEnd(t, x, a, notified)
					if res.Status != action.OK || res.Data["k"] != "v" {
						t.Fatalf("result %+v", res)
					}
					p.PrepareDir(a.WorkDir) // after the run: nothing may change
					b, _ := os.ReadFile(filepath.Join(a.WorkDir, "runs"))
					if n := strings.Count(string(b), "x="); n != 1 {
						t.Errorf("the program ran %d times", n)
					}
					if launch.Exists(filepath.Join(a.WorkDir, launch.StatusReserveFile)) || !launch.Exists(filepath.Join(a.WorkDir, launch.StatusFile)) {
						t.Error("a PrepareDir after the run made a reserve again, or the status is gone")
					}
				})
			}
		})
	}
}
