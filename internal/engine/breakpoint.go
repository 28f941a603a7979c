package engine

import (
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
	"github.com/gozie/gozie/internal/workflow"
)

// oozie.suspend.on.nodes, Oozie's debugging breakpoint: a job whose
// configuration names a node (or "*") is suspended before it enters that
// node, in the transition that reaches it, so the stop is committed with
// the job's state and survives a restart. An action stopped at has its
// record in PREP and its start held, and so have the actions the same
// walk had still to enter (another fork path), as Oozie creates them with
// it and their starts wait; a control node stopped at or still to enter
// is kept in jobExtra.Stopped. The resume starts the held actions and
// enters the kept nodes without stopping before them again, as Oozie's
// ResumeXCommand starts the PREP actions without checking them again; the
// nodes after them are checked as usual.

// suspendList is the job's oozie.suspend.on.nodes: its configuration,
// else its config-default.xml (Oozie merges that into the job's).
func (st *jobState) suspendList() string {
	if v, ok := st.conf.Get(vocab.PropSuspendOnNodes); ok {
		return v
	}
	v, _ := st.defaults.Get(vocab.PropSuspendOnNodes)
	return v
}

// stopsAt reports whether entering n stops the job. A node counted in
// passed is entered past its stop, once per count. What entering does not
// create never stops: an action a rerun skips or that is on its way
// already, a join that still waits for paths.
func (st *jobState) stopsAt(n *workflow.Node, passed map[string]int) bool {
	if passed[n.Name] > 0 {
		passed[n.Name]--
		return false
	}
	list := st.suspendList()
	if list == "" {
		return false
	}
	switch n.Kind {
	case workflow.ActionNode:
		if _, skip := st.rerunSkipped(n.Name); skip || n.Action == nil || st.onItsWay(n.Name) {
			return false
		}
	case workflow.JoinNode:
		if want := st.joinOf[n.Name]; want != 0 && st.arrived[n.Name]+1 < want {
			return false
		}
	}
	return suspendsBefore(list, n.Name)
}

// stop suspends the job before n; rest is what the walk had still to
// enter.
func (st *jobState) stop(e *Engine, n *workflow.Node, rest []string) {
	if setJobStatus(st.job, store.JobSuspended) != nil {
		return
	}
	st.jobDirty = true
	st.note(e, ActionID(st.job.ID, n.Name), LevelInfo,
		"Reached suspend node at [%s] (%s), suspending workflow [%s]", n.Name, vocab.PropSuspendOnNodes, st.job.ID)
	st.keep(e, n)
	for _, name := range rest {
		if m := st.app.Node(name); m != nil {
			st.keep(e, m)
		} else {
			// The resume's walk fails the job as this one would have.
			st.extra.Stopped = append(st.extra.Stopped, name)
		}
	}
}

// keep holds an action that entering would start, or keeps a node for
// the resume to enter.
func (st *jobState) keep(e *Engine, n *workflow.Node) {
	if n.Kind == workflow.ActionNode && n.Action != nil && !st.onItsWay(n.Name) {
		if _, skip := st.rerunSkipped(n.Name); !skip {
			st.enterAction(e, n, true)
			return
		}
	}
	st.extra.Stopped = append(st.extra.Stopped, n.Name)
}

// resumeStopped enters the nodes a stop kept, past their stop.
func (st *jobState) resumeStopped(e *Engine) {
	kept := st.extra.Stopped
	if len(kept) == 0 {
		return
	}
	st.extra.Stopped = nil
	passed := make(map[string]int, len(kept))
	for _, name := range kept {
		passed[name]++
	}
	st.walkPast(e, passed, kept)
}
