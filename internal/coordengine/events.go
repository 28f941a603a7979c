package coordengine

import (
	"time"

	"github.com/gozie/gozie/internal/events"
	"github.com/gozie/gozie/internal/store"
)

// announce adds to a change the events of its coordinator actions' status
// changes (Options.Events), one per step Oozie announces (an action made
// WAITING, started, ended, suspended, skipped), published from the outbox
// after the commit.
func (e *Engine) announce(c *coordChange) {
	if !e.opts.Events {
		return
	}
	j := c.job
	// An action materialized by this change is announced in its first
	// status (WAITING), which no step records.
	for _, a := range c.actions {
		if c.before[a.ID] != "" {
			continue
		}
		if m, ok := events.JobMessage("COORDINATOR_ACTION", a.ID, j.ID, j.AppName, j.User, store.CoordActionWaiting,
			a.NominalTime, time.Time{}, "", ""); ok {
			c.addEffect(events.NewEffect(j.ID, m, c.now))
		}
	}
	for _, s := range c.steps {
		a := c.touchedAction(s.actionID)
		if a == nil {
			continue
		}
		m, ok := events.JobMessage("COORDINATOR_ACTION", a.ID, j.ID, j.AppName, j.User, s.to, a.NominalTime, a.LastModTime,
			a.ErrorCode, a.ErrorMessage)
		if ok {
			c.addEffect(events.NewEffect(j.ID, m, c.now))
		}
	}
}
