package engine

import (
	"slices"
	"testing"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/store"
)

// TestMaxRunningActions: with a bound of two, a four-way fork of
// long-running steps runs two at a time; each step starts once, a waiting
// step starts when a running one ends, and a killed job frees its slots.
func TestMaxRunningActions(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.MaxRunningActions = 2 })
	names := []string{"p1", "p2", "p3", "p4"}
	fork := `<start to="f"/><fork name="f">`
	var paths string
	for _, n := range names {
		h.exec.set(n, &behaviour{async: true})
		fork += `<path start="` + n + `"/>`
		paths += testAction(n, "j", "fail")
	}
	app := h.writeApp("bounded", wf(fork+`</fork>`+paths+`<join name="j" to="end"/>`+
		`<kill name="fail"><message>failed</message></kill><end name="end"/>`), nil)
	running := func(id string) (started []string) {
		_, acts := h.job(id)
		for _, n := range names {
			if acts[n] != nil && acts[n].Status == store.ActionRunning {
				started = append(started, n)
			}
		}
		return started
	}
	id := h.run(props(app))
	h.eventually("two steps running", func() bool { return len(running(id)) == 2 })
	if got := h.e.rt.Slots().Busy(); got != 2 {
		t.Fatalf("slots busy = %d, want 2", got)
	}
	first := running(id)
	for _, n := range first {
		h.exec.finish(t, n, action.Result{Status: action.OK})
	}
	// Both of the others, not one of them beside a first step whose end
	// is not committed yet: finishing that one again would leave the
	// fourth step running for ever.
	h.eventually("the other two running", func() bool {
		r := running(id)
		return len(r) == 2 && !slices.Contains(first, r[0]) && !slices.Contains(first, r[1])
	})
	for _, n := range running(id) {
		h.exec.finish(t, n, action.Result{Status: action.OK})
	}
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("job: %s; %s", j.Status, h.describe(id))
	}
	for _, n := range names {
		if got := h.exec.count(h.exec.starts, n); got != 1 {
			t.Errorf("%s started %d times, want 1", n, got)
		}
	}
	h.eventually("every slot back", func() bool { return h.e.rt.Slots().Busy() == 0 })

	// A job killed with steps running and waiting gives its slots back.
	h.exec.mu.Lock()
	clear(h.exec.finished) // the second job's steps run until killed
	h.exec.mu.Unlock()
	id2 := h.run(props(app))
	h.eventually("two steps of the second job running", func() bool { return len(running(id2)) == 2 })
	if err := h.e.Kill(t.Context(), id2); err != nil {
		t.Fatal(err)
	}
	h.eventually("slots back after the kill", func() bool { return h.e.rt.Slots().Busy() == 0 })
}
