package coord

import (
	"slices"
	"time"

	"github.com/gozie/gozie/internal/schedule"
	"github.com/gozie/gozie/internal/vocab"
)

// Action statuses the execution policy looks at.
const (
	StatusWaiting = string(vocab.CoordActionWaiting)
	StatusReady   = string(vocab.CoordActionReady)
)

// Decide applies the execution policy and concurrency to the job's actions
// at now; running is the number of actions SUBMITTED or RUNNING.
//
// WAITING and READY actions become SKIPPED under LAST_ONLY once the next
// action's nominal time (by the job's frequency) has passed, and under NONE
// once their nominal time plus DefaultNoneTolerance has passed. The READY
// actions left are submitted, up to concurrency minus running (-1:
// unlimited), oldest nominal time first (LIFO: newest first).
func (a *App) Decide(actions []ActionState, running int, now time.Time) Decision {
	var d Decision
	var ready []ActionState
	s := schedule.Schedule{Start: a.Start, End: a.End, Freq: a.Freq, Loc: a.Location, Processing: a.Processing}
	for _, act := range actions {
		if act.Status != StatusWaiting && act.Status != StatusReady {
			continue
		}
		skip := false
		switch a.Execution {
		case LastOnly:
			if next, ok := s.NextNominalTime(act.Number, act.NominalTime); ok && !next.After(now) {
				skip = true
			}
		case None:
			skip = now.After(act.NominalTime.Add(DefaultNoneTolerance))
		}
		if skip {
			d.Skip = append(d.Skip, act.Number)
			continue
		}
		if act.Status == StatusReady {
			ready = append(ready, act)
		}
	}
	slices.SortStableFunc(ready, func(x, y ActionState) int {
		c := x.NominalTime.Compare(y.NominalTime)
		if c == 0 {
			c = x.Number - y.Number
		}
		if a.Execution == LIFO {
			return -c
		}
		return c
	})
	free := len(ready)
	if a.Concurrency >= 0 {
		free = min(free, a.Concurrency-running)
	}
	for i := 0; i < free; i++ {
		d.Submit = append(d.Submit, ready[i].Number)
	}
	return d
}
