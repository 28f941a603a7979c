package coordengine

import (
	"slices"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// TestPauseSteps: a coordinator job's status at a tick, by its status and
// whether its pause time has come (spec: coord 6.1.2: "when pause time
// reaches for a coordinator job with PREP status, oozie puts the job in
// status PREPPAUSED", RUNNING -> PAUSED, RUNNINGWITHERROR ->
// PAUSEDWITHERROR, and back when the pause time is reset).
func TestPauseSteps(t *testing.T) {
	for _, tc := range []struct {
		status string
		paused bool
		want   []string
	}{
		{store.CoordPrep, false, []string{store.CoordRunning}},
		{store.CoordPrep, true, []string{store.CoordPrepPaused}},
		{store.CoordPrepPaused, true, nil},
		{store.CoordPrepPaused, false, []string{store.CoordPrep, store.CoordRunning}},
		{store.CoordRunning, false, nil},
		{store.CoordRunning, true, []string{store.CoordPaused}},
		{store.CoordRunningWithError, true, []string{store.CoordPausedWithError}},
		{store.CoordPaused, true, nil},
		{store.CoordPaused, false, []string{store.CoordRunning}},
		{store.CoordPausedWithError, false, []string{store.CoordRunningWithError}},
		{store.CoordSuspended, true, nil},
		{store.CoordSucceeded, false, nil},
	} {
		if got := PauseSteps(tc.status, tc.paused); !slices.Equal(got, tc.want) {
			t.Errorf("PauseSteps(%s, paused %t) = %v, want %v", tc.status, tc.paused, got, tc.want)
		}
	}
}

// TestWorkflowEndSteps: a coordinator action's status when its workflow
// ends (spec: coord 6.1.3: "Depending on the workflow job completion
// status, the coordinator action will be in SUCCEEDED, KILLED or FAILED
// status"; a SUBMITTED or RUNNING action can fail or be killed).
func TestWorkflowEndSteps(t *testing.T) {
	for _, tc := range []struct {
		status, wf string
		want       []string
	}{
		{store.CoordActionRunning, store.JobSucceeded, []string{store.CoordActionSucceeded}},
		{store.CoordActionRunning, store.JobKilled, []string{store.CoordActionKilled}},
		{store.CoordActionRunning, store.JobFailed, []string{store.CoordActionFailed}},
		{store.CoordActionSubmitted, store.JobSucceeded, []string{store.CoordActionRunning, store.CoordActionSucceeded}},
		{store.CoordActionSubmitted, store.JobFailed, []string{store.CoordActionFailed}},
		{store.CoordActionSubmitted, store.JobKilled, []string{store.CoordActionKilled}},
		{store.CoordActionKilled, store.JobSucceeded, nil},
		{store.CoordActionSucceeded, store.JobSucceeded, nil},
	} {
		if got := WorkflowEndSteps(tc.status, tc.wf); !slices.Equal(got, tc.want) {
			t.Errorf("WorkflowEndSteps(%s, %s) = %v, want %v", tc.status, tc.wf, got, tc.want)
		}
	}
}
