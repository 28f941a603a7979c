package engine

import (
	"strings"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// observation is what one change tells the runtime's Observer (the
// server's metrics) once it is committed: the job's status change and the
// actions that started or ended in it.
type observation struct {
	jobFrom, jobTo string // equal when the job's status did not change
	started        []string
	ended          []endedAction
}

type endedAction struct {
	typ, status string
	took        time.Duration
}

// observe compares the job and the changed records with what the state
// last saw of them (the stored statuses at load), so that each status
// change is reported once however many changes rewrite a record.
func (st *jobState) observe(job *store.Job, dirty []*store.Action) observation {
	o := observation{jobFrom: st.observed, jobTo: job.Status}
	st.observed = job.Status
	if st.seen == nil {
		st.seen = map[string]string{}
	}
	for _, a := range dirty {
		from := st.seen[a.Name]
		st.seen[a.Name] = a.Status
		if from == a.Status || controlType(a.Type) {
			continue
		}
		if notStarted(from) && ranStatus(a.Status) {
			o.started = append(o.started, a.Type)
		}
		if actionTerminal(a.Status) && !actionTerminal(from) {
			var took time.Duration
			if !a.StartTime.IsZero() && a.EndTime.After(a.StartTime) {
				took = a.EndTime.Sub(a.StartTime)
			}
			o.ended = append(o.ended, endedAction{typ: a.Type, status: a.Status, took: took})
		}
	}
	return o
}

// report tells the runtime's observer what a committed change did.
func (e *Engine) report(o observation) {
	obs := e.rt.Observer()
	if o.jobFrom != o.jobTo && o.jobFrom != "" {
		obs.JobStatus("workflow", o.jobFrom, o.jobTo)
	}
	for _, t := range o.started {
		obs.ActionStarted(t)
	}
	for _, a := range o.ended {
		obs.ActionEnded(a.typ, a.status, a.took)
	}
}

// controlType reports the records of control nodes (start, end, kill,
// fork, join, decision), which run no step and are not counted.
func controlType(typ string) bool {
	return strings.HasPrefix(typ, ":") || typ == "switch"
}

// notStarted reports an action status before a run of it: never run, or
// waiting to be run again (a start retry, a user retry).
func notStarted(status string) bool {
	switch status {
	case "", store.ActionPrep, store.ActionStartRetry, store.ActionStartManual, store.ActionUserRetry:
		return true
	}
	return false
}

// ranStatus reports a status that an executor's Start led to.
func ranStatus(status string) bool {
	switch status {
	case store.ActionRunning, store.ActionDone, store.ActionOK, store.ActionError,
		store.ActionEndRetry, store.ActionEndManual:
		return true
	}
	return false
}
