package coordengine

import (
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// The transition lists exactly as spec: coord 6.1.2 and
// 6.1.3.2 print them.
const (
	specCoordJobTransitions = `
PREP --> PREPSUSPENDED | PREPPAUSED | RUNNING | KILLED
RUNNING --> RUNNINGWITHERROR | SUSPENDED | PAUSED | SUCCEEDED | KILLED
RUNNINGWITHERROR --> RUNNING | SUSPENDEDWITHERROR | PAUSEDWITHERROR | DONEWITHERROR | KILLED | FAILED
PREPSUSPENDED --> PREP | KILLED
SUSPENDED --> RUNNING | KILLED
SUSPENDEDWITHERROR --> RUNNINGWITHERROR | KILLED
PREPPAUSED --> PREP | KILLED
PAUSED --> SUSPENDED | RUNNING | KILLED
PAUSEDWITHERROR --> SUSPENDEDWITHERROR | RUNNINGWITHERROR | KILLED
FAILED | KILLED --> IGNORED
IGNORED --> RUNNING`
	specCoordActionTransitions = `
WAITING --> READY | TIMEDOUT | SKIPPED | KILLED
READY --> SUBMITTED | SKIPPED | KILLED
SUBMITTED --> RUNNING | KILLED | FAILED
RUNNING --> SUCCEEDED | KILLED | FAILED
FAILED | KILLED | TIMEDOUT --> IGNORED
IGNORED --> WAITING`
)

var (
	allCoordStatuses = []string{"PREP", "RUNNING", "RUNNINGWITHERROR", "PREPSUSPENDED", "SUSPENDED",
		"SUSPENDEDWITHERROR", "PREPPAUSED", "PAUSED", "PAUSEDWITHERROR", "SUCCEEDED", "DONEWITHERROR",
		"KILLED", "FAILED", "IGNORED"}
	allCoordActionStatuses = []string{"WAITING", "READY", "SUBMITTED", "RUNNING", "SUCCEEDED", "KILLED",
		"FAILED", "TIMEDOUT", "SKIPPED", "IGNORED"}
)

// parseSpecTransitions reads "A | B --> C | D" lines into from -> set of to.
func parseSpecTransitions(t *testing.T, text string) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		froms, tos, ok := strings.Cut(line, "-->")
		if !ok {
			t.Fatalf("bad spec line %q", line)
		}
		for _, f := range strings.Split(froms, "|") {
			f = strings.TrimSpace(f)
			if out[f] == nil {
				out[f] = map[string]bool{}
			}
			for _, to := range strings.Split(tos, "|") {
				out[f][strings.TrimSpace(to)] = true
			}
		}
	}
	return out
}

// TestCoordJobLifecycle checks every pair of coordinator job statuses, the
// allowed ones and all the forbidden ones, against the specification's
// list.
func TestCoordJobLifecycle(t *testing.T) {
	spec := parseSpecTransitions(t, specCoordJobTransitions)
	allowedPairs := 0
	for _, from := range allCoordStatuses {
		for _, to := range allCoordStatuses {
			want := spec[from][to]
			if want {
				allowedPairs++
			}
			if got := CoordJobTransitionAllowed(from, to); got != want {
				t.Errorf("coordinator job %s -> %s allowed=%v, spec says %v", from, to, got, want)
			}
		}
	}
	if allowedPairs != 32 {
		t.Errorf("spec table has %d allowed pairs, want 32", allowedPairs)
	}
}

// TestCoordActionLifecycle does the same for coordinator actions.
func TestCoordActionLifecycle(t *testing.T) {
	spec := parseSpecTransitions(t, specCoordActionTransitions)
	for _, from := range allCoordActionStatuses {
		for _, to := range allCoordActionStatuses {
			want := spec[from][to]
			if got := CoordActionTransitionAllowed(from, to); got != want {
				t.Errorf("coordinator action %s -> %s allowed=%v, spec says %v", from, to, got, want)
			}
		}
	}
}

func TestSetCoordStatusRefusesIllegalTransitions(t *testing.T) {
	cases := []struct{ from, to string }{
		{"SUCCEEDED", "RUNNING"}, {"PREP", "SUSPENDED"}, {"RUNNING", "FAILED"}, {"RUNNING", "DONEWITHERROR"},
		{"SUSPENDED", "SUCCEEDED"}, {"PREPSUSPENDED", "RUNNING"}, {"IGNORED", "PREP"},
	}
	for _, c := range cases {
		j := &store.CoordJob{ID: "c-C", Status: c.from}
		if err := setCoordStatus(j, c.to); err == nil || j.Status != c.from {
			t.Errorf("%s -> %s accepted (%v, %s)", c.from, c.to, err, j.Status)
		}
	}
	a := &store.CoordAction{ID: "c-C@1", Status: store.CoordActionWaiting}
	if err := setCoordActionStatus(a, store.CoordActionSucceeded); err == nil || a.Status != store.CoordActionWaiting {
		t.Fatalf("WAITING -> SUCCEEDED accepted (%v, %s)", err, a.Status)
	}
	path := []string{store.CoordActionReady, store.CoordActionSubmitted, store.CoordActionRunning, store.CoordActionSucceeded}
	if err := setCoordActionStatus(a, path...); err != nil || a.Status != store.CoordActionSucceeded {
		t.Fatalf("WAITING -> READY -> SUBMITTED -> RUNNING -> SUCCEEDED refused: %v", err)
	}
}

// TestCoordFinalStatus follows the examples of spec: coord 6.1.2.
func TestCoordFinalStatus(t *testing.T) {
	cases := []struct {
		name   string
		counts map[string]int
		want   string
		ok     bool
	}{
		{"all workflows succeeded", map[string]int{"SUCCEEDED": 3}, "SUCCEEDED", true},
		{"all workflows failed", map[string]int{"FAILED": 2}, "FAILED", true},
		{"all workflows killed", map[string]int{"KILLED": 4}, "KILLED", true},
		{"killed and failed", map[string]int{"KILLED": 1, "FAILED": 1}, "DONEWITHERROR", true},
		{"succeeded and timed out", map[string]int{"SUCCEEDED": 5, "TIMEDOUT": 1}, "DONEWITHERROR", true},
		{"all timed out", map[string]int{"TIMEDOUT": 3}, "DONEWITHERROR", true},
		{"skipped do not count", map[string]int{"SUCCEEDED": 1, "SKIPPED": 6}, "SUCCEEDED", true},
		{"no actions", map[string]int{}, "SUCCEEDED", true},
		{"one still running", map[string]int{"SUCCEEDED": 1, "RUNNING": 1}, "", false},
		{"one still waiting", map[string]int{"FAILED": 1, "WAITING": 1}, "", false},
	}
	for _, c := range cases {
		got, ok := coordFinalStatus(c.counts)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: coordFinalStatus(%v) = %q, %v; want %q, %v", c.name, c.counts, got, ok, c.want, c.ok)
		}
	}
}
