package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
	"github.com/gozie/gozie/internal/store/storetest"
)

// TestGroupCommit: the ends of a fork's paths that arrive while a commit
// of the job is in flight are written together in the next transaction;
// when that transaction fails, none of its changes counts, the state is
// reloaded, and the steps end once each all the same (found again by the
// poll of RUNNING actions).
func TestGroupCommit(t *testing.T) {
	const paths = 20
	for _, c := range []struct {
		name    string
		failNth int
		commits int // Updates from the first end to the job's end
	}{
		{"queued ends share a commit", 0, 2},
		{"the shared commit fails", 2, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
			if err != nil {
				t.Fatal(err)
			}
			gs := &storetest.Gated{Store: s}
			h := newHarnessOn(t, gs, dir)
			fork := `<start to="f"/><fork name="f">`
			var body string
			for i := range paths {
				n := fmt.Sprintf("p%d", i)
				h.exec.set(n, &behaviour{async: true})
				fork += `<path start="` + n + `"/>`
				body += testAction(n, "j", "fail")
			}
			app := h.writeApp("group", wf(fork+`</fork>`+body+`<join name="j" to="end"/>`+
				`<kill name="fail"><message>failed</message></kill><end name="end"/>`), nil)
			id := h.run(props(app))
			h.eventually("every path running", func() bool {
				_, acts := h.job(id)
				n := 0
				for _, a := range acts {
					if a.Status == store.ActionRunning {
						n++
					}
				}
				return n == paths
			})
			gs.Arm(c.failNth)
			for i := range paths {
				h.exec.finish(t, fmt.Sprintf("p%d", i), action.Result{Status: action.OK})
			}
			// The first end's commit waits at the gate; the others queue.
			h.eventually("the other ends queued", func() bool {
				st, _ := h.e.jobs.Peek(id)
				if st == nil {
					return false
				}
				st.mu.Lock()
				defer st.mu.Unlock()
				return len(st.queue) == paths-1
			})
			gs.Open()
			if j := h.wait(id); j.Status != store.JobSucceeded {
				t.Fatalf("job %s: %s", j.Status, h.describe(id))
			}
			if c.commits > 0 && gs.Count() != c.commits {
				t.Errorf("%d commits for %d ends, want %d", gs.Count(), paths, c.commits)
			}
			if c.failNth > 0 && gs.Count() <= c.failNth {
				t.Errorf("%d commits: the failed changes were never written again", gs.Count())
			}
			_, acts := h.job(id)
			for i := range paths {
				n := fmt.Sprintf("p%d", i)
				if a := acts[n]; a == nil || a.Status != store.ActionOK {
					t.Errorf("%s: %+v, want OK", n, a)
				}
				if got := h.exec.count(h.exec.starts, n); got != 1 {
					t.Errorf("%s started %d times, want 1", n, got)
				}
			}
		})
	}
}
