package engine

import (
	"context"
	"strings"

	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/sla"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/workflow"
)

// registerSLA records the <sla:info> of the job (node "") or of an action
// node for tracking, written with the change that starts it: its fields
// are resolved with the node's EL now, as Oozie resolves them when the job
// or action starts. A field that does not resolve, or an expectation that
// is not valid, is noted in the job's log and the job runs untracked, as
// in Oozie.
func (st *jobState) registerSLA(e *Engine, info *workflow.Element, node string) {
	if info == nil {
		return
	}
	ev := *st.evaluator(e, node)
	ev.Vars = el.SLAUnits(ev.Vars)
	fields := map[string]string{}
	for _, c := range info.Children {
		v := strings.TrimSpace(c.Text)
		if el.HasExpr(v) {
			r, err := ev.EvalString(v)
			if err != nil {
				st.note(e, "", "WARN", "SLA not tracked: sla:%s [%s]: %v", c.Name.Local, v, err)
				return
			}
			v = strings.TrimSpace(r)
		}
		fields[c.Name.Local] = v
	}
	j := st.job
	s := &store.SLA{ID: j.ID, AppType: sla.AppTypeWorkflowJob, AppName: j.AppName, User: j.User, ParentID: j.ParentID,
		CreatedTime: e.now(), LastModTime: e.now()}
	if node != "" {
		s.ID, s.AppType, s.AppName, s.ParentID = ActionID(j.ID, node), sla.AppTypeWorkflowAction, node, j.ID
	}
	if err := sla.Expect(s, info.Name.Space, fields); err != nil {
		st.note(e, actionIDOrEmpty(j.ID, node), "WARN", "SLA not tracked: %v", err)
		return
	}
	st.slas = append(st.slas, s)
}

func actionIDOrEmpty(jobID, node string) string {
	if node == "" {
		return ""
	}
	return ActionID(jobID, node)
}

// registerSLA writes the SLA record of a job submitted in PREP, in the
// transaction that writes the job: its <sla:info> is resolved with the
// job's properties now, as for a job started at once.
func (nj *newJob) registerSLA(ctx context.Context, tx store.Tx, j *store.Job) error {
	if !strings.Contains(j.Definition, "uri:oozie:sla:") {
		return nil
	}
	st, err := loadState(j, nil, nj.e.parseOptions, nj.reuse)
	if err != nil || st.app.SLA == nil {
		return nil // the job itself is checked where it runs
	}
	st.registerSLA(nj.e, st.app.SLA, "")
	for _, s := range st.slas {
		if err := tx.PutSLA(ctx, s); err != nil {
			return err
		}
	}
	for _, l := range st.takeLogs(nj.e.now(), nil, nj.e.ActionDir) {
		if err := tx.AppendLog(ctx, l); err != nil {
			return err
		}
	}
	return nil
}
