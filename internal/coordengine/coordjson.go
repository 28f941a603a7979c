package coordengine

import (
	"strconv"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// CoordJobJSON is the coordinator job object of the Oozie REST API
// (CoordinatorJobBean JSON): coordJobId, coordJobName and coordJobPath
// rather than id, appName and appPath, null for unset values.
type CoordJobJSON struct {
	CoordJobID           string             `json:"coordJobId"`
	CoordJobName         *string            `json:"coordJobName"`
	CoordJobPath         *string            `json:"coordJobPath"`
	CoordExternalID      *string            `json:"coordExternalId"`
	BundleID             *string            `json:"bundleId"`
	Conf                 *string            `json:"conf"`
	Status               string             `json:"status"`
	ExecutionPolicy      string             `json:"executionPolicy"`
	Frequency            *string            `json:"frequency"`
	TimeUnit             string             `json:"timeUnit"`
	TimeZone             *string            `json:"timeZone"`
	Concurrency          int                `json:"concurrency"`
	TimeOut              int                `json:"timeOut"`
	LastAction           *string            `json:"lastAction"`
	NextMaterializedTime *string            `json:"nextMaterializedTime"`
	CreatedTime          *string            `json:"createdTime"`
	StartTime            *string            `json:"startTime"`
	EndTime              *string            `json:"endTime"`
	PauseTime            *string            `json:"pauseTime"`
	User                 *string            `json:"user"`
	Group                *string            `json:"group"`
	ACL                  *string            `json:"acl"`
	ConsoleURL           *string            `json:"consoleUrl"`
	MatThrottling        int                `json:"mat_throttling"`
	Actions              []*CoordActionJSON `json:"actions"`
	Total                int                `json:"total"`
	ToString             string             `json:"toString"`
}

// CoordActionJSON is the coordinator action object of the REST API
// (CoordinatorActionBean JSON).
type CoordActionJSON struct {
	ID                      string  `json:"id"`
	CoordJobID              string  `json:"coordJobId"`
	Type                    *string `json:"type"`
	ActionNumber            int     `json:"actionNumber"`
	CreatedConf             *string `json:"createdConf"`
	CreatedTime             *string `json:"createdTime"`
	NominalTime             *string `json:"nominalTime"`
	LastModifiedTime        *string `json:"lastModifiedTime"`
	ExternalID              *string `json:"externalId"`
	Status                  string  `json:"status"`
	RunConf                 *string `json:"runConf"`
	MissingDependencies     *string `json:"missingDependencies"`
	PushMissingDependencies *string `json:"pushMissingDependencies"`
	ExternalStatus          *string `json:"externalStatus"`
	TrackerURI              *string `json:"trackerUri"`
	ConsoleURL              *string `json:"consoleUrl"`
	ErrorCode               *string `json:"errorCode"`
	ErrorMessage            *string `json:"errorMessage"`
	ToString                string  `json:"toString"`
}

// NewCoordJobJSON builds the REST object of a coordinator job with the
// given actions; total is the number of actions matching the request's
// filter.
func NewCoordJobJSON(j *store.CoordJob, actions []*store.CoordAction, total int) *CoordJobJSON {
	out := &CoordJobJSON{
		CoordJobID: j.ID, CoordJobName: str(j.AppName), CoordJobPath: str(j.AppPath),
		CoordExternalID: str(j.ExternalID), BundleID: str(j.ParentID), Conf: str(j.Conf), Status: j.Status,
		ExecutionPolicy: j.Execution, Frequency: str(j.Frequency), TimeUnit: j.TimeUnit, TimeZone: str(j.TimeZone),
		Concurrency: j.Concurrency, TimeOut: j.Timeout, LastAction: vocab.FormatDate(j.LastActionTime),
		NextMaterializedTime: vocab.FormatDate(j.NextMaterializedTime), CreatedTime: vocab.FormatDate(j.CreatedTime),
		StartTime: vocab.FormatDate(j.StartTime), EndTime: vocab.FormatDate(j.EndTime), PauseTime: vocab.FormatDate(j.PauseTime),
		User: str(j.User), Group: str(j.Group), ACL: str(j.ACL), ConsoleURL: str(j.ConsoleURL),
		MatThrottling: j.Throttle, Actions: make([]*CoordActionJSON, 0, len(actions)), Total: total,
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

// NewCoordActionJSON builds the REST object of a coordinator action.
func NewCoordActionJSON(a *store.CoordAction) *CoordActionJSON {
	return &CoordActionJSON{
		ID: a.ID, CoordJobID: a.JobID, ActionNumber: a.Number, CreatedConf: str(a.CreatedConf),
		CreatedTime: vocab.FormatDate(a.CreatedTime), NominalTime: vocab.FormatDate(a.NominalTime),
		LastModifiedTime: vocab.FormatDate(a.LastModTime), ExternalID: str(a.ExternalID), Status: a.Status,
		RunConf: str(a.RunConf), MissingDependencies: str(a.MissingDependencies),
		ExternalStatus: str(a.ExternalStatus), TrackerURI: str(a.TrackerURI), ConsoleURL: str(a.ConsoleURL),
		ErrorCode: str(a.ErrorCode), ErrorMessage: str(a.ErrorMessage),
		ToString: "CoordinatorAction name[" + a.ID + "] status[" + a.Status + "]",
	}
}

// CoordActionID returns the id of a coordinator job's action number n:
// <coordJobId>@<n>, 1-based, no padding.
func CoordActionID(jobID string, n int) string { return jobID + "@" + strconv.Itoa(n) }

// str is a JSON string that is null when empty, as Oozie's beans have it.
func str(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
