package coordengine

import (
	"strings"

	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// NewCoordJobJSON builds the REST bean of a coordinator job (rest-api.md
// 5.3) with the given actions; total is the number of actions matching
// the request's filter.
func NewCoordJobJSON(j *store.CoordJob, actions []*store.CoordAction, total int) *rest.CoordJob {
	out := &rest.CoordJob{
		CoordJobID: j.ID, CoordJobName: rest.Str(j.AppName), CoordJobPath: rest.Str(j.AppPath),
		CoordExternalID: rest.Str(j.ExternalID), BundleID: rest.Str(j.ParentID), Conf: rest.Str(j.Conf), Status: j.Status,
		ExecutionPolicy: j.Execution, Frequency: rest.Text(j.Frequency), TimeUnit: j.TimeUnit, TimeZone: rest.Str(j.TimeZone),
		Concurrency: j.Concurrency, TimeOut: j.Timeout, LastAction: rest.Date(j.LastActionTime),
		NextMaterializedTime: rest.Date(j.NextMaterializedTime), CreatedTime: rest.Date(j.CreatedTime),
		StartTime: rest.Date(j.StartTime), EndTime: rest.Date(j.EndTime), PauseTime: rest.Date(j.PauseTime),
		User: rest.Str(j.User), Group: rest.Str(j.Group), ACL: rest.Str(j.ACL), ConsoleURL: rest.Str(j.ConsoleURL),
		MatThrottling: j.Throttle, Actions: make([]*rest.CoordAction, 0, len(actions)), Total: total,
		ToString: "Coordinator application id[" + j.ID + "] status[" + j.Status + "]",
	}
	if out.ExecutionPolicy == "" {
		out.ExecutionPolicy = "FIFO"
	}
	if out.TimeUnit == "" {
		out.TimeUnit = "NONE"
	}
	for _, a := range actions {
		out.Actions = append(out.Actions, NewCoordActionJSON(a))
	}
	return out
}

// NewCoordActionJSON builds the REST bean of a coordinator action
// (rest-api.md 5.4); a WAITING action of an app with input logic also
// carries the logic as its last check evaluated it.
func NewCoordActionJSON(a *store.CoordAction) *rest.CoordAction {
	var logic []string
	// Only plans that hold a logic state are decoded.
	if a.Status == store.CoordActionWaiting && strings.Contains(a.Plan, `"Logic":`) {
		if p, err := decodePlan(a); err == nil && p.Logic != nil {
			logic = p.Logic.Tree
		}
	}
	return &rest.CoordAction{
		ID: a.ID, CoordJobID: a.JobID, ActionNumber: a.Number, CreatedConf: rest.Str(a.CreatedConf),
		CreatedTime: rest.Date(a.CreatedTime), NominalTime: rest.Date(a.NominalTime),
		LastModifiedTime: rest.Date(a.LastModTime), ExternalID: rest.Str(a.ExternalID), Status: a.Status,
		RunConf: rest.Str(a.RunConf), MissingDependencies: rest.Str(a.MissingDependencies),
		ExternalStatus: rest.Str(a.ExternalStatus), TrackerURI: rest.Str(a.TrackerURI), ConsoleURL: rest.Str(a.ConsoleURL),
		ErrorCode: rest.Str(a.ErrorCode), ErrorMessage: rest.Str(a.ErrorMessage),
		ToString:   "CoordinatorAction name[" + a.ID + "] status[" + a.Status + "]",
		InputLogic: logic,
	}
}

// CoordActionID returns the id of a coordinator job's action number n:
// <coordJobId>@<n>, 1-based, no padding.
func CoordActionID(jobID string, n int) string { return vocab.CoordActionID(jobID, n) }
