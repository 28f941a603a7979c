package console

import (
	"slices"
	"testing"
)

// The controls and the live refresh of a bundle page follow the bundle
// status lifecycle (spec: bundle 4.1): start only in PREP, resume in the
// suspended and paused states, nothing once the bundle has ended.
func TestBundleControls(t *testing.T) {
	for _, tc := range []struct {
		status   string
		controls []string
		terminal bool
	}{
		{"PREP", []string{"start", "suspend", "kill"}, false},
		{"RUNNING", []string{"suspend", "kill"}, false},
		{"RUNNINGWITHERROR", []string{"suspend", "kill"}, false},
		{"PREPSUSPENDED", []string{"resume", "kill"}, false},
		{"SUSPENDED", []string{"resume", "kill"}, false},
		{"SUSPENDEDWITHERROR", []string{"resume", "kill"}, false},
		{"PREPPAUSED", []string{"resume", "kill"}, false},
		{"PAUSED", []string{"resume", "kill"}, false},
		{"PAUSEDWITHERROR", []string{"resume", "kill"}, false},
		{"SUCCEEDED", nil, true},
		{"DONEWITHERROR", nil, true},
		{"KILLED", nil, true},
		{"FAILED", nil, true},
	} {
		if got := bundleControls(tc.status); !slices.Equal(got, tc.controls) {
			t.Errorf("%s: controls %v, want %v", tc.status, got, tc.controls)
		}
		if got := bundleTerminal(tc.status); got != tc.terminal {
			t.Errorf("%s: terminal %t, want %t", tc.status, got, tc.terminal)
		}
	}
	if len(bundleStatuses) != 13 {
		t.Errorf("the Bundles tab offers %d statuses, the spec has 13", len(bundleStatuses))
	}
}
