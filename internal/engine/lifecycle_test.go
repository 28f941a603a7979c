package engine

import (
	"testing"

	"github.com/gozie/gozie/internal/store"
)

var (
	allJobStatuses = []string{store.JobPrep, store.JobRunning, store.JobSuspended, store.JobSucceeded,
		store.JobKilled, store.JobFailed}
	allActionStatuses = []string{store.ActionPrep, store.ActionStartRetry, store.ActionStartManual,
		store.ActionRunning, store.ActionDone, store.ActionOK, store.ActionError, store.ActionUserRetry,
		store.ActionEndRetry, store.ActionEndManual, store.ActionKilled, store.ActionFailed}
)

// TestJobLifecycle checks every pair of job statuses against the valid
// transitions listed in spec: wf 9.1, row by row.
func TestJobLifecycle(t *testing.T) {
	spec := map[string][]string{
		"PREP":      {"RUNNING", "KILLED"},
		"RUNNING":   {"SUSPENDED", "SUCCEEDED", "KILLED", "FAILED"},
		"SUSPENDED": {"RUNNING", "KILLED"},
	}
	for _, from := range allJobStatuses {
		for _, to := range allJobStatuses {
			want := contains(spec[from], to)
			if got := JobTransitionAllowed(from, to); got != want {
				t.Errorf("job %s -> %s allowed=%v, spec says %v", from, to, got, want)
			}
		}
	}
}

// TestActionLifecycle does the same for the action table of 9.2.
func TestActionLifecycle(t *testing.T) {
	spec := map[string][]string{
		"PREP":         {"START_RETRY", "START_MANUAL", "RUNNING", "KILLED"},
		"START_RETRY":  {"START_MANUAL", "RUNNING", "KILLED"},
		"START_MANUAL": {"RUNNING", "KILLED"},
		"USER_RETRY":   {"RUNNING", "DONE", "KILLED"},
		"RUNNING":      {"DONE", "KILLED"},
		"KILLED":       {"FAILED"},
		"DONE":         {"OK", "ERROR", "USER_RETRY", "END_RETRY", "END_MANUAL"},
		"END_RETRY":    {"END_MANUAL", "KILLED", "OK", "ERROR"},
		"END_MANUAL":   {"KILLED", "OK", "ERROR"},
	}
	for _, from := range allActionStatuses {
		for _, to := range allActionStatuses {
			want := contains(spec[from], to)
			if got := ActionTransitionAllowed(from, to); got != want {
				t.Errorf("action %s -> %s allowed=%v, spec says %v", from, to, got, want)
			}
		}
	}
}

func TestSetStatusRefusesIllegalTransitions(t *testing.T) {
	j := &store.Job{ID: "j", Status: store.JobSucceeded}
	if err := setJobStatus(j, store.JobRunning); err == nil || j.Status != store.JobSucceeded {
		t.Fatalf("SUCCEEDED -> RUNNING accepted (%v, %s)", err, j.Status)
	}
	a := &store.Action{ID: "j@a", Status: store.ActionPrep}
	if err := setActionStatus(a, store.ActionOK); err == nil || a.Status != store.ActionPrep {
		t.Fatalf("PREP -> OK accepted (%v, %s)", err, a.Status)
	}
	if err := setActionStatus(a, store.ActionRunning, store.ActionDone, store.ActionOK); err != nil || a.Status != store.ActionOK {
		t.Fatalf("PREP -> RUNNING -> DONE -> OK refused: %v", err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
