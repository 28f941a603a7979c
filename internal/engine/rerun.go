package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
	"github.com/gozie/gozie/internal/workflow"
)

// Rerun properties (spec: wf 10).
const (
	PropRerunSkipNodes = vocab.PropRerunSkipNodes
	PropRerunFailNodes = vocab.PropRerunFailNodes
)

// Rerun error codes.
const (
	CodeRerunOneOf      = "E0404"                 // exactly one of the two rerun properties
	CodeRerunNotEnded   = vocab.CodeRerunNotEnded // the job has not ended
	CodeRerunSkipNotRun = "E0807"                 // a skipped node did not complete
)

// Rerun runs an ended workflow job again under the same id (specification
// 10). props must set exactly one of oozie.wf.rerun.skip.nodes (the nodes
// to skip, each of which must have completed OK) or
// oozie.wf.rerun.failnodes (true: skip every action that ended OK; false:
// run everything again). Other properties override the job's, and a new
// oozie.wf.application.path may point at a patched application. The
// definition is read again; the run count (wf:run()) goes up by one.
func (e *Engine) Rerun(ctx context.Context, id string, props *conf.Config) error {
	return e.rerun(ctx, id, props, false)
}

// RerunOwnConf is Rerun for a caller who may rerun the job but not change
// what it runs: the job's owner's steps (run-as mode) must not run another
// application or other properties on someone else's word. props may name
// the job's own application (however written) and properties with their
// values; any other application or value, or a property the job does not
// have, refuses the rerun with a *ConfChangeError before anything
// changes. user.name and mapreduce.job.user.name keep the job's values.
func (e *Engine) RerunOwnConf(ctx context.Context, id string, props *conf.Config) error {
	return e.rerun(ctx, id, props, true)
}

// ConfChangeError refuses a change of a job's application or properties
// to a caller who may not make it (package vocab's).
type ConfChangeError = vocab.ConfChangeError

// identityProps name the job's user; a rerun by someone else keeps them.
var identityProps = []string{PropUser, "mapreduce.job.user.name"}

// ownConfChanges returns the properties of props that would change the
// job of st, the application path compared by the definition it names.
// Rerun options and the identity properties are not changes.
func ownConfChanges(ctx context.Context, st *jobState, props *conf.Config) ([]string, error) {
	var changed []string
	for _, p := range props.Properties() {
		switch {
		case p.Name == PropRerunSkipNodes || p.Name == PropRerunFailNodes || slices.Contains(identityProps, p.Name):
			continue
		case p.Name == PropAppPath:
			if strings.TrimSpace(p.Value) == "" {
				continue
			}
			old, _ := st.conf.Get(PropAppPath)
			if p.Value == old {
				continue
			}
			// Expanded as the rerun would: ${nameNode}/app names the
			// job's application when the job's nameNode says so.
			view := st.conf.Clone()
			for _, q := range props.Properties() {
				view.Set(q.Name, q.Value)
			}
			want, _ := view.Get(PropAppPath)
			_, newDef, _, err := locateApp(ctx, strings.TrimSpace(want))
			if err != nil {
				return nil, err
			}
			_, oldDef, _, err := locateApp(ctx, strings.TrimSpace(old))
			if err != nil || newDef != oldDef {
				changed = append(changed, p.Name)
			}
			continue
		}
		if old, had := st.conf.Raw(p.Name); !had || old != p.Value {
			changed = append(changed, p.Name)
		}
	}
	slices.Sort(changed)
	return slices.Compact(changed), nil
}

func (e *Engine) rerun(ctx context.Context, id string, props *conf.Config, ownConf bool) error {
	skipList, hasSkip := props.Get(PropRerunSkipNodes)
	failNodes, hasFail := props.Get(PropRerunFailNodes)
	if hasSkip == hasFail {
		return errorf(CodeRerunOneOf, "Only one of the properties are allowed [%s OR %s]", PropRerunSkipNodes, PropRerunFailNodes)
	}
	st, err := e.lockState(ctx, id)
	if err != nil {
		return err
	}
	defer st.mu.Unlock()
	if !store.Terminal(st.job.Status) {
		return errorf(CodeRerunNotEnded, "Workflow job [%s] is not in a terminal state, status [%s]", id, st.job.Status)
	}

	if ownConf {
		changed, err := ownConfChanges(ctx, st, props)
		if err != nil {
			return err
		}
		if len(changed) > 0 {
			return &ConfChangeError{JobID: id, Names: changed}
		}
	}

	merged := rerunConf(st, props, ownConf, hasSkip, hasFail)
	appPath, _ := merged.Get(PropAppPath)
	root, defPath, shown, err := locateApp(fsys.WithConf(ctx, merged), strings.TrimSpace(appPath))
	if err != nil {
		return err
	}
	merged.Set(PropAppPath, shown)
	// Read with the job user's rights when the server acts for it: the
	// rerun runs as that user.
	if ctx, err = e.JobUserContext(ctx, st.job.User); err != nil {
		return err
	}
	data, err := e.ReadDefinition(ctx, defPath)
	if err != nil {
		return cannotRead(err)
	}
	if err := e.CheckExpansion(merged); err != nil {
		return err
	}
	app, err := workflow.Parse(data, e.parseOptions(merged))
	if err != nil {
		return err
	}

	skip, err := rerunSkips(st, app, skipList, hasSkip, failNodes)
	if err != nil {
		return err
	}

	var confXML strings.Builder
	if err := merged.WriteXML(&confXML); err != nil {
		return err
	}
	// Everything not skipped starts afresh: drop its record, remembering
	// the attempt number to continue from.
	attempts := map[string]int{}
	for name, a := range st.actions {
		if skip[name] {
			continue
		}
		attempts[name] = a.Attempt + 1
		// The retries of a dropped record belong to the earlier run.
		delete(st.extra.UserRetries, name)
		delete(st.extra.RetryStarts, name)
		st.deleted = append(st.deleted, a.ID)
		delete(st.actions, name)
	}
	st.app, st.conf, st.vars = app, merged, workflow.Variables(merged)
	st.joinOf = joinCounts(app)
	st.arrived = arrivals(app, st.actions)
	st.extra.AppRoot = root
	st.extra.LastErrorNode, st.extra.Deferred, st.extra.Held, st.extra.Stopped = "", nil, nil, nil
	st.extra.RerunSkip = slices.Sorted(func(yield func(string) bool) {
		for k := range skip {
			if !yield(k) {
				return
			}
		}
	})
	st.extra.RerunAttempts = attempts
	j := st.job
	j.Conf, j.Definition, j.AppPath, j.AppName = confXML.String(), string(data), shown, app.Name
	j.Run++
	j.EndTime, j.ErrorCode, j.ErrorMessage = store.Job{}.EndTime, "", ""
	st.note(e, "", LevelInfo, "Workflow job rerun [%d], skipping nodes %v", j.Run, st.extra.RerunSkip)
	// A rerun goes back through PREP, as a new run does.
	j.Status = store.JobPrep
	st.log.jobStatus = store.JobPrep
	st.jobDirty = true
	if err := st.startJob(e); err != nil {
		e.forget(id)
		st.stale = true
		return err
	}
	return e.commit(ctx, st)
}

// rerunConf is a rerun's configuration: the job's, overridden by the
// rerun's properties.
func rerunConf(st *jobState, props *conf.Config, ownConf, hasSkip, hasFail bool) *conf.Config {
	merged := st.conf.Clone()
	for _, p := range props.Properties() {
		if p.Name == PropAppPath && strings.TrimSpace(p.Value) == "" {
			continue // no new application: keep the job's
		}
		if ownConf && (p.Name == PropAppPath || slices.Contains(identityProps, p.Name)) {
			continue // the job's own, however the caller wrote it
		}
		merged.Set(p.Name, p.Value)
	}
	// A property of an earlier rerun must not outlive it.
	if !hasSkip {
		merged.Delete(PropRerunSkipNodes)
	}
	if !hasFail {
		merged.Delete(PropRerunFailNodes)
	}
	return merged
}

// rerunSkips returns the nodes a rerun skips (spec: wf 10): those named
// by oozie.wf.rerun.skip.nodes, each of which must have completed OK, or
// with oozie.wf.rerun.failnodes true every action that ended OK.
func rerunSkips(st *jobState, app *workflow.App, skipList string, hasSkip bool, failNodes string) (map[string]bool, error) {
	skip := map[string]bool{}
	if hasSkip {
		var notRun []string
		for _, name := range strings.Split(skipList, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			if a := st.actions[name]; a == nil || a.Status != store.ActionOK {
				notRun = append(notRun, name)
				continue
			}
			skip[name] = true
		}
		if len(notRun) > 0 {
			return nil, errorf(CodeRerunSkipNotRun, "Nodes %v were not executed successfully in the previous run and cannot be skipped", notRun)
		}
	} else if strings.EqualFold(strings.TrimSpace(failNodes), "true") {
		for name, a := range st.actions {
			if n := app.Node(name); n != nil && n.Kind == workflow.ActionNode && a.Status == store.ActionOK {
				skip[name] = true
			}
		}
	}

	return skip, nil
}

// rerunSkipped reports whether a rerun skips the node, and where the walk
// goes on from it: its recorded transition, except into a join, which
// already counted the skipped node's arrival from its record.
func (st *jobState) rerunSkipped(name string) ([]string, bool) {
	if !slices.Contains(st.extra.RerunSkip, name) {
		return nil, false
	}
	a := st.actions[name]
	if a == nil || a.Status != store.ActionOK {
		return nil, false
	}
	if n := st.app.Node(a.Transition); n != nil && n.Kind == workflow.JoinNode {
		return nil, true
	}
	return []string{a.Transition}, true
}
