package engine

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/store"
)

// quickExec starts "programs" that end on their own: each Start notifies
// the engine once the run has ended (early: before Start returns, or
// late: when the test says so), and Check reports the end after that.
type quickExec struct {
	early bool
	mu    sync.Mutex
	ended map[string]bool
	actx  map[string]*action.Context
}

func (x *quickExec) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	x.mu.Lock()
	x.actx[a.Name] = a
	if x.early {
		x.ended[a.Name] = true
	}
	x.mu.Unlock()
	if x.early {
		a.Notify() // the program ended while Start was returning
	}
	return action.Result{ExternalID: "q-" + a.Name, ExternalStatus: "RUNNING"}, nil
}

func (x *quickExec) end(name string) {
	x.mu.Lock()
	x.ended[name] = true
	a := x.actx[name]
	x.mu.Unlock()
	a.Notify()
}

func (x *quickExec) Check(ctx context.Context, a *action.Context, id string) (action.Result, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ended[a.Name] {
		return action.Result{ExternalID: id, ExternalStatus: "SUCCEEDED", Done: true, Status: action.OK, Data: map[string]string{"k": "v"}}, nil
	}
	return action.Result{ExternalID: id, ExternalStatus: "RUNNING"}, nil
}

func (x *quickExec) Kill(ctx context.Context, a *action.Context, id string) error { return nil }

// TestStartSettle: with Options.StartSettle a step whose program ends
// within it has its start and its end committed in one transaction; a
// longer one is committed RUNNING when the settle time has passed, as
// without it; without it, RUNNING is always committed first.
func TestStartSettle(t *testing.T) {
	const settle = 50 * time.Millisecond
	for _, c := range []struct {
		name   string
		settle time.Duration
		early  bool
		want   []string // the committed statuses of the step, in order (PREP: created with the start effect)
	}{
		{"ends within the settle time", settle, true, []string{store.ActionPrep, store.ActionOK}},
		{"runs longer than the settle time", settle, false, []string{store.ActionPrep, store.ActionRunning, store.ActionOK}},
		{"no settle time, ends at once", 0, true, []string{store.ActionPrep, store.ActionRunning, store.ActionOK}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var seen []string
			h := newHarness(t, func(o *Options) {
				o.StartSettle = c.settle
				o.OnTransition = func(tr Transition) {
					mu.Lock()
					defer mu.Unlock()
					for _, a := range tr.Actions {
						if a.Name == "q" {
							seen = append(seen, a.Status)
						}
					}
				}
			})
			q := &quickExec{early: c.early, ended: map[string]bool{}, actx: map[string]*action.Context{}}
			h.e.actions.Register("quick", q)
			app := h.writeApp("settle", wf(`<start to="q"/>`+
				`<action name="q"><quick xmlns="uri:gozie:quick"/><ok to="end"/><error to="fail"/></action>`+
				`<kill name="fail"><message>failed</message></kill><end name="end"/>`), nil)
			id := h.run(props(app))
			if !c.early {
				// The start waits on the clock; then RUNNING is committed
				// and the program ends later.
				if c.settle > 0 {
					h.eventually("the settle timer", func() bool { return h.clock.PendingIn(c.settle) })
					h.clock.Advance(c.settle)
				}
				h.eventually("q running", func() bool {
					_, acts := h.job(id)
					return acts["q"] != nil && acts["q"].Status == store.ActionRunning
				})
				q.end("q")
			}
			if j := h.wait(id); j.Status != store.JobSucceeded {
				t.Fatalf("job %s: %s", j.Status, h.describe(id))
			}
			_, acts := h.job(id)
			if a := acts["q"]; a.ExternalID != "q-q" || a.ExternalStatus != "SUCCEEDED" || !strings.Contains(a.Data, "k=v") {
				t.Errorf("step record: external id %q status %q data %v", a.ExternalID, a.ExternalStatus, a.Data)
			}
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(seen, c.want) {
				t.Errorf("committed statuses of q: %v, want %v", seen, c.want)
			}
		})
	}
}
