package engine

import (
	"context"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/store"
)

// TestActionRetries: each run that ended in a user retry is kept with its
// own start and end time and external child ids, for show=retries.
func TestActionRetries(t *testing.T) {
	h := newHarness(t)
	fail := action.Result{Done: true, Status: action.Error, ErrorCode: "JA018", ErrorMessage: "output exists"}
	fail.ChildIDs = []string{"job_1"}
	fail2 := fail
	fail2.ChildIDs = []string{"job_2", "job_3"}
	h.exec.set("a", &behaviour{results: []action.Result{fail, fail2, {Done: true, Status: action.OK}}})
	app := h.writeApp("retry", wf(`<start to="a"/>
		<action name="a" retry-max="2" retry-interval="1"><test xmlns="uri:gozie:test:1.0"/><ok to="end"/><error to="fail"/></action>
		<kill name="fail"><message>x</message></kill><end name="end"/>`), nil)
	id := h.run(props(app))
	ctx := context.Background()
	if rs, err := h.e.ActionRetries(ctx, id+"@a"); err != nil || len(rs) > 1 {
		t.Fatalf("before any retry: %v %v", rs, err)
	}
	for try := 1; try <= 2; try++ {
		h.eventually("USER_RETRY", func() bool {
			_, m := h.job(id)
			a := m["a"]
			return a != nil && a.Status == store.ActionUserRetry && a.UserRetryCount == try && h.clock.Pending() > 0
		})
		h.clock.Advance(time.Minute)
	}
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("status %s", j.Status)
	}
	rs, err := h.e.ActionRetries(ctx, id+"@a")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 {
		t.Fatalf("retries = %+v, want 2", rs)
	}
	wantChild := []string{"job_1", "job_2,job_3"}
	for i, r := range rs {
		if r.Attempt != i+1 || r.Run != i || r.ChildIDs != wantChild[i] {
			t.Errorf("retry %d = %+v", i, r)
		}
		if r.StartTime.IsZero() || r.EndTime.Before(r.StartTime) {
			t.Errorf("retry %d times %v..%v", i, r.StartTime, r.EndTime)
		}
	}
	// The second run started a minute after the first ended.
	if !rs[1].StartTime.After(rs[0].EndTime) {
		t.Errorf("second run started %v, first ended %v", rs[1].StartTime, rs[0].EndTime)
	}
	if _, err := h.e.ActionRetries(ctx, id+"@nope"); ErrorCode(err) != CodeActionNotFound {
		t.Errorf("unknown action: %v", err)
	}
}
