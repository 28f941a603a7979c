package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/workflow"
)

// subWorkflow is the sub-workflow action (spec: wf 3.2.5): it runs a
// child job in the same engine and ends when the child ends. The child
// tells the parent through a notify effect, so no polling is needed.
type subWorkflow struct{ e *Engine }

func (s *subWorkflow) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	e := s.e
	// A restart may start the same attempt again: find the child made by
	// the first start instead of making another one.
	var parent *store.Job
	var children []*store.Job
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		if parent, err = tx.Job(ctx, a.JobID); err != nil {
			return err
		}
		children, err = tx.Jobs(ctx, store.JobFilter{ParentID: a.JobID})
		return err
	})
	if err != nil {
		// The store is the engine's own: an outage makes the start
		// effect retry rather than count as the action's start failure.
		return action.Result{}, err
	}
	for _, c := range children {
		x, _ := decodeExtra(c.State)
		if x.ParentAction == a.ActionID && x.ParentAttempt == a.Attempt {
			if c.Status == store.JobPrep {
				if err := e.StartJob(ctx, c.ID); errors.Is(err, store.ErrUnavailable) {
					return action.Result{}, err
				}
			} else {
				// Started by an attempt whose commit acknowledgement was
				// lost: perform the child's effects nobody dispatched.
				e.rt.SweepJob(ctx, c.ID)
			}
			return action.Result{ExternalID: c.ID, ExternalStatus: c.Status}, nil
		}
	}
	px, _ := decodeExtra(parent.State)
	if px.Depth+1 > e.opts.MaxSubWorkflowDepth {
		return action.Result{}, action.Errorf(action.ErrorKindError, CodeSubWorkflowDepth,
			"Depth [%d] cannot exceed maximum subworkflow depth [%d]", px.Depth+1, e.opts.MaxSubWorkflowDepth)
	}
	appPath := strings.TrimSpace(a.Element.ChildText("app-path"))
	if appPath == "" {
		return action.Result{}, action.Errorf(action.ErrorKindError, CodeNoAppPath, "sub-workflow [%s] has no app-path", a.Name)
	}
	if local := stripFileScheme(appPath); !filepath.IsAbs(local) && !strings.Contains(local, "://") {
		appPath = childOf(a.AppPath, local, false)
	}
	props := conf.New()
	if a.Element.Child("propagate-configuration") != nil && a.JobConf != nil {
		props.Merge(a.JobConf)
		// The parent's own identity must not leak into the child.
		props.Delete(PropExternal)
	}
	for _, p := range workflow.ConfigurationOf(a.Element.Child("configuration")) {
		props.Set(p.Name, p.Value)
	}
	props.Set(PropAppPath, appPath)
	props.Set(PropUser, a.User)
	id, err := e.submit(ctx, props, &parentInfo{jobID: a.JobID, actionID: a.ActionID, attempt: a.Attempt, depth: px.Depth + 1})
	if errors.Is(err, store.ErrUnavailable) {
		return action.Result{}, err // the retried start finds the child if it was created
	}
	if err != nil {
		code := ErrorCode(err)
		if code == "" {
			code = "E0710"
		}
		return action.Result{}, action.Errorf(action.ErrorKindError, code, "%v", err)
	}
	if err := e.StartJob(ctx, id); err != nil {
		if errors.Is(err, store.ErrUnavailable) {
			return action.Result{}, err // the retried start starts the child left in PREP
		}
		return action.Result{}, action.Errorf(action.ErrorKindError, ErrorCode(err), "%v", err)
	}
	return action.Result{ExternalID: id, ExternalStatus: store.JobRunning}, nil
}

func (s *subWorkflow) Check(ctx context.Context, a *action.Context, externalID string) (action.Result, error) {
	j, _, err := s.e.Job(ctx, externalID)
	if err != nil {
		if ErrorCode(err) == CodeJobNotFound {
			return action.Result{}, action.Errorf(action.ErrorKindError, CodeJobNotFound, "%v", err)
		}
		return action.Result{}, action.Errorf(action.Transient, "E0603", "SQL error, %v", err)
	}
	res := action.Result{ExternalID: externalID, ExternalStatus: j.Status}
	switch j.Status {
	case store.JobSucceeded:
		res.Done, res.Status = true, action.OK
	case store.JobKilled, store.JobFailed:
		res.Done, res.Status = true, action.Error
		res.ErrorCode = j.ErrorCode
		res.ErrorMessage = j.ErrorMessage
		if res.ErrorMessage == "" {
			res.ErrorMessage = "child job [" + externalID + "] ended " + j.Status
		}
		if res.ErrorCode == "" {
			res.ErrorCode = j.Status
		}
	}
	return res, nil
}

func (s *subWorkflow) Kill(ctx context.Context, a *action.Context, externalID string) error {
	err := s.e.Kill(ctx, externalID)
	var ee *Error
	if errors.As(err, &ee) && (ee.Code == CodeCannotKill || ee.Code == CodeJobNotFound) {
		return nil // already ended or never made
	}
	return err
}
