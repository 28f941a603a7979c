package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// TestObserve: each status change of a job or an action is reported once,
// whatever number of changes rewrite its record; control nodes are not
// actions; a user retry's next run is a start.
func TestObserve(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	act := func(name, typ, status string, ran time.Duration) *store.Action {
		a := &store.Action{Name: name, Type: typ, Status: status}
		if ran > 0 {
			a.StartTime, a.EndTime = t0, t0.Add(ran)
		}
		return a
	}
	steps := []struct {
		job   string
		dirty []*store.Action
		want  string
	}{
		{"RUNNING", []*store.Action{act(":start:", ":START:", store.ActionOK, 0), act("sh", "shell", store.ActionPrep, 0)}, "job PREP->RUNNING"},
		{"RUNNING", []*store.Action{act("sh", "shell", store.ActionRunning, 0)}, "start shell"},
		{"RUNNING", []*store.Action{act("sh", "shell", store.ActionRunning, 0)}, ""}, // rewritten, same status
		{"RUNNING", []*store.Action{act("sh", "shell", store.ActionUserRetry, 0)}, ""},
		{"RUNNING", []*store.Action{act("sh", "shell", store.ActionRunning, 0)}, "start shell"},
		{"RUNNING", []*store.Action{act("sh", "shell", store.ActionOK, 2*time.Second), act("fs", "fs", store.ActionOK, time.Second)},
			"start fs; end shell OK 2s; end fs OK 1s"},
		{"RUNNING", []*store.Action{act("fs", "fs", store.ActionOK, time.Second)}, ""},
		{"KILLED", []*store.Action{act("end", ":END:", store.ActionOK, 0), act("hv", "hive", store.ActionKilled, 0)},
			"job RUNNING->KILLED; end hive KILLED 0s"},
	}
	st := &jobState{observed: "PREP", seen: map[string]string{}}
	for i, s := range steps {
		o := st.observe(&store.Job{Status: s.job}, s.dirty)
		got := ""
		add := func(format string, args ...any) {
			if got != "" {
				got += "; "
			}
			got += fmt.Sprintf(format, args...)
		}
		if o.jobFrom != o.jobTo {
			add("job %s->%s", o.jobFrom, o.jobTo)
		}
		for _, t := range o.started {
			add("start %s", t)
		}
		for _, e := range o.ended {
			add("end %s %s %s", e.typ, e.status, e.took)
		}
		if got != s.want {
			t.Errorf("step %d: %q, want %q", i, got, s.want)
		}
	}
}
