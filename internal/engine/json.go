package engine

import (
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// DateLayout is the REST API's date format, EEE, dd MMM yyyy HH:mm:ss zzz in
// GMT.
const DateLayout = vocab.DateLayout

// JobJSON is the workflow job object of the Oozie REST API (WorkflowJobBean
// JSON): the same keys, status strings and date format, null for unset
// values.
type JobJSON struct {
	ID          string        `json:"id"`
	AppName     *string       `json:"appName"`
	AppPath     *string       `json:"appPath"`
	ExternalID  *string       `json:"externalId"`
	ParentID    *string       `json:"parentId"`
	Conf        *string       `json:"conf"`
	Status      string        `json:"status"`
	LastModTime *string       `json:"lastModTime"`
	CreatedTime *string       `json:"createdTime"`
	StartTime   *string       `json:"startTime"`
	EndTime     *string       `json:"endTime"`
	User        *string       `json:"user"`
	Group       *string       `json:"group"`
	ACL         *string       `json:"acl"`
	Run         int           `json:"run"`
	ConsoleURL  *string       `json:"consoleUrl"`
	Actions     []*ActionJSON `json:"actions"`
	ToString    string        `json:"toString"`
}

// ActionJSON is the workflow action object of the REST API
// (WorkflowActionBean JSON).
type ActionJSON struct {
	ID                string  `json:"id"`
	Name              string  `json:"name"`
	Cred              *string `json:"cred"`
	Type              string  `json:"type"`
	Conf              *string `json:"conf"`
	Status            string  `json:"status"`
	Retries           int     `json:"retries"`
	StartTime         *string `json:"startTime"`
	EndTime           *string `json:"endTime"`
	Transition        *string `json:"transition"`
	Data              *string `json:"data"`
	Stats             *string `json:"stats"`
	ExternalChildIDs  *string `json:"externalChildIDs"`
	ExternalID        *string `json:"externalId"`
	ExternalStatus    *string `json:"externalStatus"`
	TrackerURI        *string `json:"trackerUri"`
	ConsoleURL        *string `json:"consoleUrl"`
	ErrorCode         *string `json:"errorCode"`
	ErrorMessage      *string `json:"errorMessage"`
	UserRetryInterval int     `json:"userRetryInterval"`
	UserRetryCount    int     `json:"userRetryCount"`
	UserRetryMax      int     `json:"userRetryMax"`
	ToString          string  `json:"toString"`
}

func str(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// FormatDate renders a time in the REST API's format; nil for the zero
// time (package vocab's).
func FormatDate(t time.Time) *string { return vocab.FormatDate(t) }

// NewJobJSON builds the REST object of a job and its actions. consoleBase
// is the console URL prefix ("" leaves consoleUrl null).
func NewJobJSON(j *store.Job, actions []*store.Action, consoleBase string) *JobJSON {
	out := &JobJSON{
		ID: j.ID, AppName: str(j.AppName), AppPath: str(j.AppPath), ExternalID: str(j.ExternalID),
		ParentID: str(j.ParentID), Conf: str(j.Conf), Status: j.Status,
		LastModTime: FormatDate(j.LastModTime), CreatedTime: FormatDate(j.CreatedTime),
		StartTime: FormatDate(j.StartTime), EndTime: FormatDate(j.EndTime),
		User: str(j.User), Group: str(j.Group), ACL: str(j.ACL), Run: j.Run,
		Actions:  make([]*ActionJSON, 0, len(actions)),
		ToString: "Workflow id[" + j.ID + "] status[" + j.Status + "]",
	}
	if consoleBase != "" {
		out.ConsoleURL = str(consoleBase + "?job=" + j.ID)
	}
	for _, a := range actions {
		out.Actions = append(out.Actions, &ActionJSON{
			ID: a.ID, Name: a.Name, Cred: str(a.Cred), Type: a.Type, Conf: str(a.Conf), Status: a.Status,
			Retries: a.Retries, StartTime: FormatDate(a.StartTime), EndTime: FormatDate(a.EndTime),
			Transition: str(a.Transition), Data: str(a.Data), Stats: str(a.Stats),
			ExternalChildIDs: str(a.ExternalChildIDs), ExternalID: str(a.ExternalID),
			ExternalStatus: str(a.ExternalStatus), TrackerURI: str(a.TrackerURI), ConsoleURL: str(a.ConsoleURL),
			ErrorCode: str(a.ErrorCode), ErrorMessage: str(a.ErrorMessage),
			UserRetryInterval: a.UserRetryInterval, UserRetryCount: a.UserRetryCount, UserRetryMax: a.UserRetryMax,
			ToString: "Action name[" + a.Name + "] status[" + a.Status + "]",
		})
	}
	return out
}
