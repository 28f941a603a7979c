package engine

import (
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store"
)

// NewJobJSON builds the REST bean of a job and its actions (rest-api.md
// 5.1, 5.2). consoleBase is the console URL prefix ("" leaves consoleUrl
// null).
func NewJobJSON(j *store.Job, actions []*store.Action, consoleBase string) *rest.WorkflowJob {
	out := &rest.WorkflowJob{
		ID: j.ID, AppName: rest.Str(j.AppName), AppPath: rest.Str(j.AppPath), ExternalID: rest.Str(j.ExternalID),
		ParentID: rest.Str(j.ParentID), Conf: rest.Str(j.Conf), Status: j.Status,
		LastModTime: rest.Date(j.LastModTime), CreatedTime: rest.Date(j.CreatedTime),
		StartTime: rest.Date(j.StartTime), EndTime: rest.Date(j.EndTime),
		User: rest.Str(j.User), Group: rest.Str(j.Group), ACL: rest.Str(j.ACL), Run: j.Run,
		Actions:  make([]*rest.WorkflowAction, 0, len(actions)),
		ToString: "Workflow id[" + j.ID + "] status[" + j.Status + "]",
	}
	if consoleBase != "" {
		out.ConsoleURL = rest.Str(consoleBase + "?job=" + j.ID)
	}
	for _, a := range actions {
		out.Actions = append(out.Actions, &rest.WorkflowAction{
			ID: a.ID, Name: a.Name, Cred: rest.Str(a.Cred), Type: a.Type, Conf: rest.Str(a.Conf), Status: a.Status,
			Retries: a.Retries, StartTime: rest.Date(a.StartTime), EndTime: rest.Date(a.EndTime),
			Transition: rest.Str(a.Transition), Data: rest.Str(a.Data), Stats: rest.Str(a.Stats),
			ExternalChildIDs: rest.Str(a.ExternalChildIDs), ExternalID: rest.Str(a.ExternalID),
			ExternalStatus: rest.Str(a.ExternalStatus), TrackerURI: rest.Str(a.TrackerURI), ConsoleURL: rest.Str(a.ConsoleURL),
			ErrorCode: rest.Str(a.ErrorCode), ErrorMessage: rest.Str(a.ErrorMessage),
			UserRetryInterval: a.UserRetryInterval, UserRetryCount: a.UserRetryCount, UserRetryMax: a.UserRetryMax,
			ToString: "Action name[" + a.Name + "] status[" + a.Status + "]",
		})
	}
	return out
}
