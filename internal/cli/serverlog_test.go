package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/store"
)

// TestServerTransitionLog is issue 14 point 12: the server logs each job
// and action transition as one line at its level, filtered by
// gozie.log.level.
func TestServerTransitionLog(t *testing.T) {
	id := "0000001-260101000000000-oozie-root-W"
	tr := engine.Transition{Job: store.Job{ID: id, Status: store.JobRunning}, Logs: []store.LogEntry{
		{JobID: id, Level: engine.LevelInfo, Message: "Workflow job status changed from [PREP] to [RUNNING]"},
		{JobID: id, ActionID: id + "@copy", Level: engine.LevelWarn, Message: "Action [copy] ended with status [ERROR]; last lines of stderr:\n    cp: no"},
	}}
	for _, tt := range []struct {
		level string
		want  []string
		not   []string
	}{
		{"info", []string{
			`level=INFO msg="Workflow job status changed from [PREP] to [RUNNING]" job=` + id + " status=RUNNING\n",
			`level=WARN msg="Action [copy] ended with status [ERROR]; last lines of stderr:" job=` + id + " node=copy status=RUNNING\n",
		}, []string{"cp: no"}},
		{"warn", []string{"level=WARN"}, []string{"level=INFO"}},
	} {
		var buf bytes.Buffer
		l, err := newServerLog(&buf, tt.level)
		if err != nil {
			t.Fatal(err)
		}
		logTransition(l)(tr)
		for _, w := range tt.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s: log lacks %q:\n%s", tt.level, w, buf.String())
			}
		}
		for _, n := range tt.not {
			if strings.Contains(buf.String(), n) {
				t.Errorf("%s: log has %q:\n%s", tt.level, n, buf.String())
			}
		}
	}
	if _, err := newServerLog(&bytes.Buffer{}, "loud"); err == nil || !strings.Contains(err.Error(), "gozie.log.level") {
		t.Errorf("bad level: %v", err)
	}
}
