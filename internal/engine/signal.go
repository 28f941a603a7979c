package engine

import (
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
	"github.com/gozie/gozie/internal/workflow"
)

// Record types of control nodes, as Oozie names them.
const (
	TypeStart    = ":START:"
	TypeEnd      = ":END:"
	TypeKill     = ":KILL:"
	TypeFork     = ":FORK:"
	TypeJoin     = ":JOIN:"
	TypeDecision = "switch"
)

// This file holds the transitions: functions of a job's state and one event
// that change the state in memory and queue effects. They do no I/O of
// their own (EL functions such as fs:exists read files); commit makes their
// result durable before any queued effect runs.

// now is the engine clock in the precision the store keeps.
func (e *Engine) now() time.Time { return e.clock.Now().Truncate(time.Millisecond) }

// newRecord creates (or re-creates, when a node runs again) the record of
// a node, in PREP.
func (st *jobState) newRecord(e *Engine, name, typ string) *store.Action {
	a := &store.Action{
		ID: ActionID(st.job.ID, name), JobID: st.job.ID, Name: name, Type: typ,
		Status: store.ActionPrep, StartTime: e.now(),
	}
	if old := st.actions[name]; old != nil {
		a.Seq = old.Seq
		a.Attempt = old.Attempt + 1
	} else if n, ok := st.extra.RerunAttempts[name]; ok {
		a.Attempt = n
	}
	st.actions[name] = a
	st.touch(a)
	return a
}

// controlDone records a control node that completed at once.
func (st *jobState) controlDone(e *Engine, name, typ, transition string) *store.Action {
	a := st.newRecord(e, name, typ)
	_ = setActionStatus(a, store.ActionRunning, store.ActionDone, store.ActionOK)
	a.Transition = transition
	a.EndTime = a.StartTime
	return a
}

// startJob is the Start event: PREP -> RUNNING, then the start node.
func (st *jobState) startJob(e *Engine) error {
	if err := setJobStatus(st.job, store.JobRunning); err != nil {
		return err
	}
	st.job.StartTime = e.now()
	st.jobDirty = true
	// A job may end in the change that starts it (start to end): its
	// start is announced on its own, before its end.
	e.announce(st, st.job.StartTime)
	st.controlDone(e, workflow.StartNodeName, TypeStart, st.app.Start)
	st.walk(e, st.app.Start)
	return nil
}

// walk enters nodes starting at first, processing control nodes at once and
// creating action records with start effects, until every path waits on an
// action, a join, or the job has ended or stopped (oozie.suspend.on.nodes).
func (st *jobState) walk(e *Engine, first ...string) { st.walkPast(e, nil, first) }

// walkPast is walk entering the nodes counted in passed (a resume of a
// stop, breakpoint.go) without stopping before them again.
func (st *jobState) walkPast(e *Engine, passed map[string]int, first []string) {
	queue := append([]string(nil), first...)
	for len(queue) > 0 && st.job.Status == store.JobRunning {
		name := queue[0]
		queue = queue[1:]
		n := st.app.Node(name)
		if n == nil {
			st.failJob(e, workflow.CodeInvalidTransition, "Invalid transition, node ["+name+"] does not exist")
			return
		}
		if st.stopsAt(n, passed) {
			st.stop(e, n, queue)
			return
		}
		switch n.Kind {
		case workflow.StartNode:
			st.controlDone(e, n.Name, TypeStart, n.To)
			queue = append(queue, n.To)
		case workflow.EndNode:
			st.controlDone(e, n.Name, TypeEnd, "")
			st.finish(e, store.JobSucceeded, "", "")
		case workflow.KillNode:
			st.killNode(e, n)
		case workflow.DecisionNode:
			to, err := st.decide(e, n)
			if err != nil {
				a := st.newRecord(e, n.Name, TypeDecision)
				st.failAction(e, a, CodeELError, elMessage(err))
				return
			}
			st.controlDone(e, n.Name, TypeDecision, to)
			queue = append(queue, to)
		case workflow.ForkNode:
			st.controlDone(e, n.Name, TypeFork, strings.Join(n.Paths, ","))
			queue = append(queue, n.Paths...)
		case workflow.JoinNode:
			st.arrived[n.Name]++
			want := st.joinOf[n.Name]
			if st.arrived[n.Name] >= want || want == 0 {
				delete(st.arrived, n.Name)
				st.controlDone(e, n.Name, TypeJoin, n.To)
				queue = append(queue, n.To)
			}
		case workflow.ActionNode:
			if next, skip := st.rerunSkipped(n.Name); skip {
				queue = append(queue, next...)
				continue
			}
			if n.Action == nil {
				st.failJob(e, workflow.CodeSchema, "action node ["+n.Name+"] has no action body")
				return
			}
			st.enterAction(e, n, false)
		}
	}
}

// decide evaluates a decision's cases in order; the first true one wins,
// else the default.
func (st *jobState) decide(e *Engine, n *workflow.Node) (string, error) {
	ev := st.evaluator(e, n.Name)
	for _, c := range n.Cases {
		ok, err := ev.EvalBool(strings.TrimSpace(c.Predicate))
		if err != nil {
			return "", err
		}
		if ok {
			return c.To, nil
		}
	}
	return n.Default, nil
}

// killNode records the kill node with its resolved message (E0729), or
// E0756 when the message does not resolve, and kills the job.
func (st *jobState) killNode(e *Engine, n *workflow.Node) {
	a := st.newRecord(e, n.Name, TypeKill)
	msg, err := workflow.KillMessage(st.evaluator(e, n.Name), n.Message)
	if err != nil {
		_ = setActionStatus(a, store.ActionRunning, store.ActionDone, store.ActionError)
		a.ErrorCode, a.ErrorMessage = workflow.ErrorCode(err), err.Error()
	} else {
		_ = setActionStatus(a, store.ActionRunning, store.ActionDone, store.ActionOK)
		a.ErrorCode, a.ErrorMessage = CodeKillNode, msg
	}
	a.EndTime = a.StartTime
	st.finish(e, store.JobKilled, a.ErrorCode, a.ErrorMessage)
}

// enterAction creates an action's record and queues its start, or, with
// hold, keeps the start for the resume (Held).
func (st *jobState) enterAction(e *Engine, n *workflow.Node, hold bool) {
	if st.onItsWay(n.Name) {
		return // already on its way (a path reached it twice)
	}
	a := st.newRecord(e, n.Name, n.Action.Type)
	if a.Attempt == 0 {
		st.registerSLA(e, n.Action.SLA, n.Name)
	}
	a.Cred = n.Action.Cred
	a.UserRetryMax = min(atoiOr(st.resolveAttr(e, n, n.Action.RetryMax), 0), e.opts.MaxUserRetries)
	a.UserRetryInterval = atoiOr(st.resolveAttr(e, n, n.Action.RetryInterval), 10)
	if hold {
		st.extra.Held = append(st.extra.Held, a.Name)
		return
	}
	st.addEffect(&store.Effect{ActionID: a.ID, Kind: store.EffectStart, Attempt: a.Attempt})
}

// onItsWay reports whether an action's record is active: entering it
// again does nothing.
func (st *jobState) onItsWay(name string) bool {
	old := st.actions[name]
	return old != nil && !actionTerminal(old.Status)
}

// resolveAttr evaluates EL in an action attribute such as retry-max; a
// value that does not resolve counts as absent.
func (st *jobState) resolveAttr(e *Engine, n *workflow.Node, v string) string {
	if !el.HasExpr(v) {
		return v
	}
	out, err := st.evaluator(e, n.Name).EvalString(v)
	if err != nil {
		return ""
	}
	return out
}

func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return def
	}
	return n
}

// actionStarted applies the outcome of an executor's Start.
func (st *jobState) actionStarted(e *Engine, a *store.Action, res action.Result, err error) {
	if err != nil {
		st.startFailed(e, a, err)
		return
	}
	a.ExternalID, a.ExternalStatus, a.TrackerURI = res.ExternalID, res.ExternalStatus, res.TrackerURI
	if a.Status == store.ActionUserRetry {
		st.retryStarted(e, a)
	}
	if a.Status == store.ActionUserRetry || a.Status == store.ActionPrep ||
		a.Status == store.ActionStartRetry || a.Status == store.ActionStartManual {
		_ = setActionStatus(a, store.ActionRunning)
	}
	st.touch(a)
	if res.Done {
		st.actionEnded(e, a, res)
	}
}

// startFailed classifies a Start error (spec: wf 3.2.1.4) and applies
// the decision of startFailure.
func (st *jobState) startFailed(e *Engine, a *store.Action, err error) {
	kind, code, msg := classify(err)
	st.touch(a)
	d := startFailure(a.Status, a.Retries, kind, e.now(), e.policy())
	switch {
	case d.Fail:
		st.failAction(e, a, code, msg)
	case d.EndAsError:
		_ = setActionStatus(a, d.Statuses...)
		st.actionEnded(e, a, action.Result{Done: true, Status: action.Error, ErrorCode: code, ErrorMessage: msg})
	default:
		_ = setActionStatus(a, d.Statuses...)
		a.ErrorCode, a.ErrorMessage = code, msg
		if d.Retry {
			a.Retries += d.Retries
			a.Attempt++
			st.addEffect(&store.Effect{ActionID: a.ID, Kind: store.EffectStart, Attempt: a.Attempt, NotBefore: d.NotBefore})
		}
		if d.SuspendJob && setJobStatus(st.job, store.JobSuspended) == nil {
			// A person has to look: the job waits, suspended, for a
			// resume.
			st.jobDirty = true
		}
	}
}

// classify turns an executor error into its kind, code and message.
// Errors that are not ExecErrors are unexpected: they fail the action.
func classify(err error) (action.ErrorKind, string, string) {
	if ee := vocab.Classified(err); ee != nil {
		return ee.Kind, ee.Code, ee.Msg
	}
	return action.Failed, "E0902", "Exception occured: [" + err.Error() + "]"
}

// actionEnded applies a finished action: OK takes the ok transition; ERROR
// retries when retry-max allows (USER_RETRY), else takes the error
// transition.
func (st *jobState) actionEnded(e *Engine, a *store.Action, res action.Result) {
	n := st.app.Node(a.Name)
	if n == nil || n.Action == nil {
		// Only a definition changed under a stored job gets here.
		st.failAction(e, a, workflow.CodeInvalidTransition, "node ["+a.Name+"] is not an action of the definition")
		return
	}
	if res.ExternalID != "" {
		a.ExternalID = res.ExternalID
	}
	if res.ExternalStatus != "" {
		a.ExternalStatus = res.ExternalStatus
	}
	if res.TrackerURI != "" {
		a.TrackerURI = res.TrackerURI
	}
	a.Data = encodeData(res.Data)
	if res.Stats != nil {
		a.Stats = encodeStats(res.Stats)
	}
	if len(res.ChildIDs) > 0 {
		a.ExternalChildIDs = strings.Join(res.ChildIDs, ",")
	}
	a.EndTime = e.now()
	st.touch(a)
	d := actionEnd(a, res.Status == action.OK, res.ErrorCode, exponentialRetry(n.Action.RetryPolicy), e.now(), e.policy())
	_ = setActionStatus(a, d.Statuses...)
	switch {
	case d.Transition == "ok":
		a.ErrorCode, a.ErrorMessage = "", ""
		a.Transition = n.OK
		st.advance(e, a)
	case d.Retry:
		a.ErrorCode, a.ErrorMessage = res.ErrorCode, res.ErrorMessage
		a.UserRetryCount += d.UserRetries
		st.recordRetry(a)
		a.Attempt++
		st.addEffect(&store.Effect{ActionID: a.ID, Kind: store.EffectStart, Attempt: a.Attempt, NotBefore: d.NotBefore})
	default:
		a.ErrorCode, a.ErrorMessage = res.ErrorCode, res.ErrorMessage
		a.Transition = n.Error
		st.extra.LastErrorNode = a.Name
		st.jobDirty = true
		st.advance(e, a)
	}
}

// advance takes an ended action's transition, or defers it while the job
// is suspended.
func (st *jobState) advance(e *Engine, a *store.Action) {
	switch st.job.Status {
	case store.JobRunning:
		st.walk(e, a.Transition)
	case store.JobSuspended:
		st.extra.Deferred = append(st.extra.Deferred, a.Name)
		st.jobDirty = true
	}
}

// failAction ends an action as FAILED and fails the job. The lifecycle
// reaches FAILED only through KILLED (9.2), so a failure before or while
// running is recorded that way.
func (st *jobState) failAction(e *Engine, a *store.Action, code, msg string) {
	switch a.Status {
	case store.ActionPrep, store.ActionStartRetry, store.ActionStartManual, store.ActionUserRetry,
		store.ActionRunning, store.ActionEndRetry, store.ActionEndManual:
		_ = setActionStatus(a, store.ActionKilled, store.ActionFailed)
	}
	a.ErrorCode, a.ErrorMessage = code, msg
	a.EndTime = e.now()
	st.touch(a)
	// The job's own message names the node, so a user reading only the
	// job (gozie run's summary, logs) knows where to look.
	st.finish(e, store.JobFailed, code, "node ["+a.Name+"]: "+msg)
}

// failJob fails the job without blaming an action.
func (st *jobState) failJob(e *Engine, code, msg string) {
	st.finish(e, store.JobFailed, code, msg)
}

// finish ends the job: every action still active is killed (end node, kill
// node, kill command and failure alike), and a parent job is told.
func (st *jobState) finish(e *Engine, status, code, msg string) {
	if err := setJobStatus(st.job, status); err != nil {
		e.logf("gozie: %v", err)
		return
	}
	st.job.EndTime = e.now()
	if code != "" {
		st.job.ErrorCode, st.job.ErrorMessage = code, msg
	}
	st.jobDirty = true
	st.extra.Deferred, st.extra.Held, st.extra.Stopped = nil, nil, nil
	for _, a := range st.actions {
		if actionTerminal(a.Status) {
			continue
		}
		hadExternal := a.Status == store.ActionRunning || a.ExternalID != ""
		if err := setActionStatus(a, store.ActionKilled); err != nil {
			continue
		}
		a.EndTime = st.job.EndTime
		st.touch(a)
		if hadExternal {
			st.addEffect(&store.Effect{ActionID: a.ID, Kind: store.EffectKill, Attempt: a.Attempt})
		}
	}
	if st.job.ParentID != "" && st.extra.ParentAction != "" {
		st.addEffect(&store.Effect{ActionID: st.extra.ParentAction, Kind: store.EffectNotify})
	}
}

// suspend is the Suspend event: RUNNING -> SUSPENDED. Running actions go on;
// their results wait for the resume.
func (st *jobState) suspend() error {
	if st.job.Status != store.JobRunning {
		return errorf(CodeCannotSuspend, "Workflow Job can not be suspended as its not in running state, %s, Status: %s",
			st.job.ID, st.job.Status)
	}
	st.jobDirty = true
	return setJobStatus(st.job, store.JobSuspended)
}

// resume is the Resume event: SUSPENDED -> RUNNING, then what waited: held
// starts, actions in START_MANUAL, the nodes a stop (oozie.suspend.on.nodes)
// kept, deferred transitions. Entering those may stop the job again; what
// it has not entered then waits for the next resume.
func (st *jobState) resume(e *Engine) error {
	if st.job.Status != store.JobSuspended {
		return errorf(CodeNotSuspended, "Workflow not suspended, job [%s] status [%s]", st.job.ID, st.job.Status)
	}
	if err := setJobStatus(st.job, store.JobRunning); err != nil {
		return err
	}
	st.jobDirty = true
	for _, name := range st.extra.Held {
		if a := st.actions[name]; a != nil && !actionTerminal(a.Status) {
			st.addEffect(&store.Effect{ActionID: a.ID, Kind: store.EffectStart, Attempt: a.Attempt})
		}
	}
	st.extra.Held = nil
	for _, a := range st.actions {
		switch a.Status {
		case store.ActionStartManual:
			st.addEffect(&store.Effect{ActionID: a.ID, Kind: store.EffectStart, Attempt: a.Attempt})
		case store.ActionEndManual:
			// A person freed what blocked the end (the disk): check again.
			st.addEffect(&store.Effect{ActionID: a.ID, Kind: EffectCheck, Attempt: a.Attempt})
		}
	}
	st.resumeStopped(e)
	deferred := st.extra.Deferred
	st.extra.Deferred = nil
	for _, name := range deferred {
		a := st.actions[name]
		switch {
		case a == nil:
		case st.job.Status == store.JobRunning:
			st.walk(e, a.Transition)
		case st.job.Status == store.JobSuspended:
			// Stopped again on the way: the rest waits, as it did.
			st.extra.Deferred = append(st.extra.Deferred, name)
		}
	}
	return nil
}

// kill is the Kill event.
func (st *jobState) kill(e *Engine) error {
	switch st.job.Status {
	case store.JobPrep, store.JobRunning, store.JobSuspended:
	default:
		return errorf(CodeCannotKill, "Workflow instance can not be killed, %s", st.job.ID)
	}
	st.finish(e, store.JobKilled, "", "")
	return nil
}

// elMessage is the detail of an EL error, as Oozie records it on a node.
func elMessage(err error) string {
	if ee := el.AsError(err); ee != nil && ee.Msg != "" {
		return ee.Msg
	}
	return err.Error()
}
