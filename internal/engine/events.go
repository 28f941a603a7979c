package engine

import (
	"time"

	"github.com/gozie/gozie/internal/events"
)

// announce adds to the change in the making the event of a job status
// change (Options.Events): it is published from the outbox after the
// commit, so a broker outage delays it and loses nothing.
func (e *Engine) announce(st *jobState, now time.Time) {
	j := st.job
	if !e.opts.Events || j.Status == st.announced {
		return
	}
	st.announced = j.Status
	m, ok := events.JobMessage("WORKFLOW_JOB", j.ID, j.ParentID, j.AppName, j.User, j.Status, j.StartTime, j.EndTime,
		j.ErrorCode, j.ErrorMessage)
	if ok {
		st.effects = append(st.effects, events.NewEffect(j.ID, m, now))
	}
}
