package bundleengine

import (
	"strings"
	"testing"
)

// TestRollUp: the decision table of the bundle's status from its
// coordinators' (Oozie's BundleStatusTransitXCommand, row by row; a
// trailing "*" marks an action with a command pending).
func TestRollUp(t *testing.T) {
	rows := []struct {
		name      string
		status    string
		pause     bool
		suspended bool
		actions   string
		want      string // "" = unchanged
	}{
		{"all succeeded", "RUNNING", false, false, "SUCCEEDED SUCCEEDED", "SUCCEEDED"},
		{"all killed", "RUNNING", false, false, "KILLED KILLED", "KILLED"},
		{"all failed", "RUNNING", false, false, "FAILED FAILED", "FAILED"},
		{"mixed ends", "RUNNING", false, false, "SUCCEEDED FAILED", "DONEWITHERROR"},
		{"done with error", "RUNNING", false, false, "SUCCEEDED DONEWITHERROR", "DONEWITHERROR"},
		{"ended but pending", "RUNNING", false, false, "SUCCEEDED SUCCEEDED*", ""},
		{"ignored do not count", "RUNNING", false, false, "SUCCEEDED IGNORED", "SUCCEEDED"},
		{"only ignored", "RUNNING", false, false, "IGNORED", ""},
		{"none", "PREP", false, false, "", ""},
		{"killed bundle stays", "KILLED", false, false, "RUNNING* SUCCEEDED", ""},
		{"failed bundle stays", "FAILED", false, false, "SUCCEEDED", ""},
		{"paused bundle", "PAUSED", true, false, "RUNNING PAUSED", ""},
		{"paused bundle, all running", "PAUSED", true, false, "RUNNING RUNNING", ""},
		{"paused bundle with an error", "PAUSED", true, false, "PAUSED FAILED", "PAUSEDWITHERROR"},
		{"paused bundle, running with error", "PAUSED", true, false, "RUNNINGWITHERROR", "PAUSEDWITHERROR"},
		{"paused with error, clean again", "PAUSEDWITHERROR", true, false, "PAUSED RUNNING", "PAUSED"},
		{"paused with error, no pause time", "PAUSEDWITHERROR", false, false, "PAUSED RUNNING", "RUNNING"},
		// Unpaused while its coordinators' reports were on their way: the
		// bottom-up PAUSED does not stick once they run again.
		{"paused bottom up, no pause time", "PAUSED", false, false, "PAUSED RUNNING", "RUNNING"},
		{"all paused", "RUNNING", false, false, "PAUSED PAUSED", "PAUSED"},
		{"all paused, an unpause on its way", "RUNNING", false, false, "PAUSED PAUSED*", ""},
		{"paused bundle without a pause time follows", "PAUSED", false, false, "RUNNING RUNNING", "RUNNING"},
		{"paused with an error", "RUNNING", false, false, "PAUSED PAUSEDWITHERROR", "PAUSEDWITHERROR"},
		{"suspended bundle", "SUSPENDED", false, true, "SUSPENDED RUNNING", ""},
		{"suspended bundle with an end", "SUSPENDED", false, true, "SUSPENDED KILLED", "SUSPENDEDWITHERROR"},
		{"suspended with error, clean again", "SUSPENDEDWITHERROR", false, true, "SUSPENDED", "SUSPENDED"},
		{"all suspended", "RUNNING", false, false, "SUSPENDED SUCCEEDED", "SUSPENDED"},
		{"suspended pending", "RUNNING", false, false, "SUSPENDED* SUCCEEDED", ""},
		{"suspended with an ended one", "RUNNING", false, false, "SUSPENDED FAILED", "SUSPENDEDWITHERROR"},
		{"suspended with one running", "RUNNING", false, false, "SUSPENDED RUNNING", ""},
		{"suspended with error bottom up", "RUNNING", false, false, "SUSPENDEDWITHERROR FAILED", "SUSPENDEDWITHERROR"},
		{"running", "RUNNINGWITHERROR", false, false, "RUNNING PREP", "RUNNING"},
		{"running with a killed one", "RUNNING", false, false, "RUNNING KILLED", "RUNNINGWITHERROR"},
		{"running with error below", "RUNNING", false, false, "RUNNINGWITHERROR", "RUNNINGWITHERROR"},
		{"reopened by a rerun", "SUCCEEDED", false, false, "RUNNING SUCCEEDED", "RUNNING"},
		{"prep, some started", "PREP", false, false, "PREP RUNNING", "RUNNING"},
		{"prep, all prep", "PREP", false, false, "PREP PREP", ""},
		{"prep, pending", "PREP", false, false, "PREP* RUNNING", ""},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			in := RollUpInput{Status: r.status, PauseTime: r.pause, Suspended: r.suspended}
			for _, a := range strings.Fields(r.actions) {
				in.Actions = append(in.Actions, RollUpAction{Status: strings.TrimSuffix(a, "*"), Pending: strings.HasSuffix(a, "*")})
			}
			got, changed := RollUp(in)
			want := r.want
			if want == "" {
				want = r.status
			}
			if got != want || changed != (r.want != "" && r.want != r.status) {
				t.Fatalf("RollUp(%+v) = %s, %v; want %s", in, got, changed, want)
			}
		})
	}
}
