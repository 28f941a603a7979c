package vocab

import (
	"strings"
	"testing"
)

// The rows below are the specifications' transition lists written out
// as text, independently of the tables in lifecycle.go: "FROM --> A | B".
// "--> PREP" is the creation row.

// spec: wf 9.1
var wfJobRows = []string{
	"--> PREP",
	"PREP --> RUNNING | KILLED",
	"RUNNING --> SUSPENDED | SUCCEEDED | KILLED | FAILED",
	"SUSPENDED --> RUNNING | KILLED",
}

// spec: wf 9.2
var wfActionRows = []string{
	"--> PREP",
	"PREP --> START_RETRY | START_MANUAL | RUNNING | KILLED",
	"START_RETRY --> START_MANUAL | RUNNING | KILLED",
	"START_MANUAL --> RUNNING | KILLED",
	"USER_RETRY --> RUNNING | DONE | KILLED",
	"RUNNING --> DONE | KILLED",
	"KILLED --> FAILED",
	"DONE --> OK | ERROR | USER_RETRY | END_RETRY | END_MANUAL",
	"END_RETRY --> END_MANUAL | KILLED | OK | ERROR",
	"END_MANUAL --> KILLED | OK | ERROR",
}

// spec: coord 6.1.2
var coordJobRows = []string{
	"--> PREP",
	"PREP --> PREPSUSPENDED | PREPPAUSED | RUNNING | KILLED",
	"RUNNING --> RUNNINGWITHERROR | SUSPENDED | PAUSED | SUCCEEDED | KILLED",
	"RUNNINGWITHERROR --> RUNNING | SUSPENDEDWITHERROR | PAUSEDWITHERROR | DONEWITHERROR | KILLED | FAILED",
	"PREPSUSPENDED --> PREP | KILLED",
	"SUSPENDED --> RUNNING | KILLED",
	"SUSPENDEDWITHERROR --> RUNNINGWITHERROR | KILLED",
	"PREPPAUSED --> PREP | KILLED",
	"PAUSED --> SUSPENDED | RUNNING | KILLED",
	"PAUSEDWITHERROR --> SUSPENDEDWITHERROR | RUNNINGWITHERROR | KILLED",
	"FAILED --> IGNORED",
	"KILLED --> IGNORED",
	"IGNORED --> RUNNING",
}

// spec: coord 6.1.3.2
var coordActionRows = []string{
	"--> WAITING",
	"WAITING --> READY | TIMEDOUT | SKIPPED | KILLED",
	"READY --> SUBMITTED | SKIPPED | KILLED",
	"SUBMITTED --> RUNNING | KILLED | FAILED",
	"RUNNING --> SUCCEEDED | KILLED | FAILED",
	"FAILED --> IGNORED",
	"KILLED --> IGNORED",
	"TIMEDOUT --> IGNORED",
	"IGNORED --> WAITING",
}

// spec: bundle 4.2.
var bundleRows = []string{
	"--> PREP",
	"PREP --> PREPSUSPENDED | PREPPAUSED | RUNNING | KILLED",
	"RUNNING --> RUNNINGWITHERROR | SUSPENDED | PAUSED | SUCCEEDED | KILLED",
	"RUNNINGWITHERROR --> RUNNING | SUSPENDEDWITHERROR | PAUSEDWITHERROR | DONEWITHERROR | FAILED | KILLED",
	"PREPSUSPENDED --> PREP | KILLED",
	"SUSPENDED --> RUNNING | KILLED",
	"SUSPENDEDWITHERROR --> RUNNINGWITHERROR | KILLED",
	"PREPPAUSED --> PREP | KILLED",
	"PAUSED --> SUSPENDED | RUNNING | KILLED",
	"PAUSEDWITHERROR --> SUSPENDEDWITHERROR | RUNNINGWITHERROR | KILLED",
}

// parseRows turns the rows into from -> set of to.
func parseRows(t *testing.T, rows []string) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	for _, r := range rows {
		from, to, ok := strings.Cut(r, "-->")
		if !ok {
			t.Fatalf("bad row %q", r)
		}
		from = strings.TrimSpace(from)
		if out[from] == nil {
			out[from] = map[string]bool{}
		}
		for _, s := range strings.Split(to, "|") {
			out[from][strings.TrimSpace(s)] = true
		}
	}
	return out
}

// checkTable asserts CanTransition agrees with the rows for every pair of
// statuses (all the table's and "", the creation state): each row holds,
// and nothing else does.
func checkTable[S Status](t *testing.T, rows []string, all []S) {
	t.Helper()
	want := parseRows(t, rows)
	from := append([]S{""}, all...)
	n := 0
	for _, f := range from {
		for _, to := range all {
			w := want[string(f)][string(to)]
			if got := CanTransition(f, to); got != w {
				t.Errorf("CanTransition(%q, %q) = %v, want %v", f, to, got, w)
			}
			if w {
				n++
			}
		}
		if CanTransition(f, S("NOSUCH")) {
			t.Errorf("CanTransition(%q, NOSUCH) holds", f)
		}
	}
	rowsWanted := 0
	for _, tos := range want {
		rowsWanted += len(tos)
	}
	if n != rowsWanted {
		t.Errorf("%d transitions checked, the rows hold %d (a status of the rows is missing from the list)", n, rowsWanted)
	}
}

func TestLifecycleTables(t *testing.T) {
	t.Run("workflow job", func(t *testing.T) {
		checkTable(t, wfJobRows, []JobStatus{JobPrep, JobRunning, JobSuspended, JobSucceeded, JobKilled, JobFailed})
	})
	t.Run("workflow action", func(t *testing.T) {
		checkTable(t, wfActionRows, []ActionStatus{ActionPrep, ActionStartRetry, ActionStartManual, ActionRunning,
			ActionDone, ActionOK, ActionError, ActionUserRetry, ActionEndRetry, ActionEndManual, ActionKilled, ActionFailed})
	})
	t.Run("coordinator job", func(t *testing.T) {
		checkTable(t, coordJobRows, []CoordStatus{CoordPrep, CoordRunning, CoordRunningWithError, CoordPrepSuspended,
			CoordSuspended, CoordSuspendedWithError, CoordPrepPaused, CoordPaused, CoordPausedWithError, CoordSucceeded,
			CoordDoneWithError, CoordKilled, CoordFailed, CoordIgnored})
	})
	t.Run("coordinator action", func(t *testing.T) {
		checkTable(t, coordActionRows, []CoordActionStatus{CoordActionWaiting, CoordActionReady, CoordActionSubmitted,
			CoordActionRunning, CoordActionSucceeded, CoordActionKilled, CoordActionFailed, CoordActionTimedOut,
			CoordActionSkipped, CoordActionIgnored})
	})
	t.Run("bundle job", func(t *testing.T) {
		checkTable(t, bundleRows, []BundleStatus{BundlePrep, BundleRunning, BundleRunningWithError, BundlePrepSuspended,
			BundleSuspended, BundleSuspendedWithError, BundlePrepPaused, BundlePaused, BundlePausedWithError,
			BundleSucceeded, BundleDoneWithError, BundleKilled, BundleFailed})
	})
}

func TestIsTerminal(t *testing.T) {
	tests := []struct {
		name string
		got  bool
		want bool
	}{
		{"wf SUCCEEDED", IsTerminal(JobSucceeded), true},
		{"wf RUNNING", IsTerminal(JobRunning), false},
		{"wf none", IsTerminal(JobStatus("")), false},
		{"action OK", IsTerminal(ActionOK), true},
		{"action KILLED", IsTerminal(ActionKilled), false}, // KILLED --> FAILED
		{"coord KILLED (only to IGNORED)", IsTerminal(CoordKilled), true},
		{"coord DONEWITHERROR", IsTerminal(CoordDoneWithError), true},
		{"coord IGNORED", IsTerminal(CoordIgnored), false},
		{"coord action TIMEDOUT", IsTerminal(CoordActionTimedOut), true},
		{"coord action SKIPPED", IsTerminal(CoordActionSkipped), true},
		{"coord action READY", IsTerminal(CoordActionReady), false},
		{"bundle SUCCEEDED", IsTerminal(BundleSucceeded), true},
		{"bundle PAUSED", IsTerminal(BundlePaused), false},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("IsTerminal(%s) = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

// TestKnown: every status of each kind is known to its own kind, spelt
// exactly, and every lifecycle row names known statuses only.
func TestKnown(t *testing.T) {
	tests := []struct {
		name  string
		known func(string) bool
		yes   []string
		no    []string
	}{
		{"job", Known[JobStatus], []string{"PREP", "RUNNING", "SUSPENDED", "SUCCEEDED", "KILLED", "FAILED"},
			[]string{"", "running", "PREPSUSPENDED", "DONEWITHERROR", "OK", "WAITING"}},
		{"action", Known[ActionStatus], []string{"PREP", "START_RETRY", "START_MANUAL", "RUNNING", "DONE", "OK",
			"ERROR", "USER_RETRY", "END_RETRY", "END_MANUAL", "KILLED", "FAILED"}, []string{"", "SUCCEEDED", "ok"}},
		{"coordinator", Known[CoordStatus], []string{"PREP", "RUNNING", "SUSPENDED", "SUCCEEDED", "KILLED", "FAILED",
			"PREPSUSPENDED", "PREPPAUSED", "PAUSED", "DONEWITHERROR", "RUNNINGWITHERROR", "SUSPENDEDWITHERROR",
			"PAUSEDWITHERROR", "IGNORED"}, []string{"", "WAITING", "Running", "OK"}},
		{"coordinator action", Known[CoordActionStatus], []string{"WAITING", "READY", "SUBMITTED", "RUNNING",
			"SUSPENDED", "TIMEDOUT", "SUCCEEDED", "KILLED", "FAILED", "IGNORED", "SKIPPED"}, []string{"", "PREP", "DONEWITHERROR"}},
		{"bundle", Known[BundleStatus], []string{"PREP", "RUNNING", "RUNNINGWITHERROR", "PREPSUSPENDED", "SUSPENDED",
			"SUSPENDEDWITHERROR", "PREPPAUSED", "PAUSED", "PAUSEDWITHERROR", "SUCCEEDED", "DONEWITHERROR", "KILLED",
			"FAILED"}, []string{"", "IGNORED", "WAITING"}},
	}
	for _, tc := range tests {
		for _, s := range tc.yes {
			if !tc.known(s) {
				t.Errorf("%s: %q not known", tc.name, s)
			}
		}
		for _, s := range tc.no {
			if tc.known(s) {
				t.Errorf("%s: %q known", tc.name, s)
			}
		}
	}
	rows := func(check func(string) bool, table map[string][]string) {
		for from, tos := range table {
			for _, s := range append([]string{from}, tos...) {
				if s != "" && !check(s) {
					t.Errorf("lifecycle row %s names unknown status %s", from, s)
				}
			}
		}
	}
	rows(Known[JobStatus], textTable(jobLifecycle))
	rows(Known[ActionStatus], textTable(actionLifecycle))
	rows(Known[CoordStatus], textTable(coordLifecycle))
	rows(Known[CoordActionStatus], textTable(coordActionLifecycle))
	rows(Known[BundleStatus], textTable(bundleLifecycle))
}

func textTable[S Status](m map[S][]S) map[string][]string {
	out := map[string][]string{}
	for from, tos := range m {
		for _, to := range tos {
			out[string(from)] = append(out[string(from)], string(to))
		}
	}
	return out
}
