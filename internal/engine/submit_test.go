package engine

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/postgres"
)

// TestRunIsOneTransaction reproduces the defect of a job answered as
// started that stayed in PREP for ever: Run committed the submission, and
// the start in a second transaction that could fail (or the process die)
// after the id was handed out. Now Run either creates a started job or
// nothing.
func TestRunIsOneTransaction(t *testing.T) {
	for _, tc := range []struct {
		name       string
		skip, fail int
		wantJob    bool
	}{
		// The old second transaction (the start) fails: now it is the
		// first action's, which is retried.
		{"second update fails", 1, 1, true},
		{"first update fails", 0, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, f, _, _ := faultHarness(t, time.Hour)
			f.FailUpdates(tc.skip, tc.fail, false)
			id, err := h.e.Run(context.Background(), props(h.writeApp("chain", wf(onceChain), nil)))
			var jobs []*store.Job
			if err := h.store.View(context.Background(), func(tx store.Tx) (err error) {
				jobs, err = tx.Jobs(context.Background(), store.JobFilter{})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if !tc.wantJob {
				if err == nil || id != "" || len(jobs) != 0 {
					t.Fatalf("Run = %q, %v with %d jobs stored; want an error and no job", id, err, len(jobs))
				}
				return
			}
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if len(jobs) != 1 || jobs[0].Status == store.JobPrep {
				t.Fatalf("stored %d jobs, first %v; want one started job", len(jobs), jobs)
			}
			for !store.Terminal(h.status(id)) {
				h.clock.Advance(time.Second)
				time.Sleep(2 * time.Millisecond)
			}
			if got := h.status(id); got != store.JobSucceeded {
				t.Fatalf("job %s: %s", got, h.describe(id))
			}
			logs, err := h.e.Logs(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			var text []string
			for _, l := range logs {
				text = append(text, l.Message)
			}
			all := strings.Join(text, "\n")
			for _, want := range []string{"Workflow job submitted", "from [PREP] to [RUNNING]", "from [RUNNING] to [SUCCEEDED]"} {
				if !strings.Contains(all, want) {
					t.Errorf("job log lacks %q:\n%s", want, all)
				}
			}
		})
	}
}

// TestExternalIDDeduplicates checks that a repeated submission with the
// same oozie.wf.external.id and user answers with the first job, also when
// the repeats race, while other users and sub-jobs are not affected.
func TestExternalIDDeduplicates(t *testing.T) {
	h := newHarness(t)
	app := h.writeApp("one", wf(`<start to="a"/>`+testAction("a", "end", "fail")+`<kill name="fail"><message>x</message></kill><end name="end"/>`), nil)
	ctx := context.Background()
	first := h.run(props(app, PropExternal, "req-1"))
	for _, tc := range []struct {
		name  string
		run   bool
		kv    []string
		same  bool
		extID string
	}{
		{"run again", true, []string{PropExternal, "req-1"}, true, "req-1"},
		{"submit again", false, []string{PropExternal, "req-1"}, true, "req-1"},
		{"blanks around it", true, []string{PropExternal, " req-1 "}, true, "req-1"},
		{"other user", true, []string{PropExternal, "req-1", PropUser, "ann"}, false, "req-1"},
		{"other id", true, []string{PropExternal, "req-2"}, false, "req-2"},
		{"no id", true, nil, false, ""},
	} {
		var id string
		var err error
		if tc.run {
			id, err = h.e.Run(ctx, props(app, tc.kv...))
		} else {
			id, err = h.e.Submit(ctx, props(app, tc.kv...))
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if (id == first) != tc.same {
			t.Errorf("%s: id %s, first %s; want same=%v", tc.name, id, first, tc.same)
		}
		if j, _ := h.job(id); j.ExternalID != tc.extID {
			t.Errorf("%s: external id %q, want %q", tc.name, j.ExternalID, tc.extID)
		}
	}

	h.wait(first)

	// Submitted (PREP) first, run later with the same id: started.
	prep, err := h.e.Submit(ctx, props(app, PropExternal, "req-3"))
	if err != nil || h.status(prep) != store.JobPrep {
		t.Fatalf("Submit: %v", err)
	}
	if id, err := h.e.Run(ctx, props(app, PropExternal, "req-3")); err != nil || id != prep {
		t.Fatalf("Run after Submit = %s, %v; want %s", id, err, prep)
	}
	if got := h.wait(prep).Status; got != store.JobSucceeded {
		t.Fatalf("job %s", got)
	}
}

// TestExternalIDRace sends the same submission from 8 goroutines at once:
// on PostgreSQL the transactions really run concurrently, and the unique
// index decides which one creates the job.
func TestExternalIDRace(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			h := newHarness(t, func(o *Options) {
				if backend == "postgres" {
					o.Store = postgres.OpenTest(t)
				}
			})
			raceExternalID(t, h)
		})
	}
}

func raceExternalID(t *testing.T, h *harness) {
	ctx := context.Background()
	app := h.writeApp("one", wf(`<start to="a"/>`+testAction("a", "end", "fail")+`<kill name="fail"><message>x</message></kill><end name="end"/>`), nil)
	var wg sync.WaitGroup
	ids := make([]string, 8)
	errs := make([]error, 8)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i], errs[i] = h.e.Run(ctx, props(app, PropExternal, "race"))
		}()
	}
	wg.Wait()
	for i := range ids {
		if errs[i] != nil || ids[i] != ids[0] {
			t.Fatalf("racing submissions: %v / %v", ids, errs)
		}
	}
	var n int
	if err := h.e.store.View(ctx, func(tx store.Tx) (err error) {
		n, err = tx.CountJobs(ctx, store.JobFilter{ExternalID: "race"})
		return err
	}); err != nil || n != 1 {
		t.Fatalf("%d jobs with external id race (%v), want 1", n, err)
	}
	h.wait(ids[0])
}
