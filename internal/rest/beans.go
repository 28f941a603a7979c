package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"time"
)

// WorkflowJob is the workflow job bean (rest-api.md 5.1, WorkflowJobBean).
type WorkflowJob struct {
	ID          string            `json:"id"`
	AppName     Str               `json:"appName"`
	AppPath     Str               `json:"appPath"`
	ExternalID  Str               `json:"externalId"`
	ParentID    Str               `json:"parentId"`
	Conf        Str               `json:"conf"`
	Status      string            `json:"status"`
	LastModTime Time              `json:"lastModTime"`
	CreatedTime Time              `json:"createdTime"`
	StartTime   Time              `json:"startTime"`
	EndTime     Time              `json:"endTime"`
	User        Str               `json:"user"`
	Group       Str               `json:"group"`
	ACL         Str               `json:"acl"`
	Run         int               `json:"run"`
	ConsoleURL  Str               `json:"consoleUrl"`
	Actions     []*WorkflowAction `json:"actions"` // [] when none: the Java client fails on null
	ToString    string            `json:"toString"`
}

// In shows every date of the job and its actions in loc (nil keeps GMT).
func (j *WorkflowJob) In(loc *time.Location) {
	if loc == nil {
		return
	}
	j.LastModTime, j.CreatedTime = j.LastModTime.In(loc), j.CreatedTime.In(loc)
	j.StartTime, j.EndTime = j.StartTime.In(loc), j.EndTime.In(loc)
	for _, a := range j.Actions {
		a.In(loc)
	}
}

// WorkflowAction is the workflow action bean (rest-api.md 5.2,
// WorkflowActionBean).
type WorkflowAction struct {
	ID                string `json:"id"`
	Name              string `json:"name"`
	Cred              Str    `json:"cred"`
	Type              string `json:"type"`
	Conf              Str    `json:"conf"`
	Status            string `json:"status"`
	Retries           int    `json:"retries"`
	StartTime         Time   `json:"startTime"`
	EndTime           Time   `json:"endTime"`
	Transition        Str    `json:"transition"`
	Data              Str    `json:"data"`
	Stats             Str    `json:"stats"`
	ExternalChildIDs  Str    `json:"externalChildIDs"`
	ExternalID        Str    `json:"externalId"`
	ExternalStatus    Str    `json:"externalStatus"`
	TrackerURI        Str    `json:"trackerUri"`
	ConsoleURL        Str    `json:"consoleUrl"`
	ErrorCode         Str    `json:"errorCode"`
	ErrorMessage      Str    `json:"errorMessage"`
	UserRetryInterval int    `json:"userRetryInterval"`
	UserRetryCount    int    `json:"userRetryCount"`
	UserRetryMax      int    `json:"userRetryMax"`
	ToString          string `json:"toString"`
}

// In shows the action's dates in loc (nil keeps GMT).
func (a *WorkflowAction) In(loc *time.Location) {
	a.StartTime, a.EndTime = a.StartTime.In(loc), a.EndTime.In(loc)
}

// CoordJob is the coordinator job bean (rest-api.md 5.3,
// CoordinatorJobBean): coordJobId, coordJobName and coordJobPath where
// workflows say id, appName and appPath.
type CoordJob struct {
	CoordJobID           string         `json:"coordJobId"`
	CoordJobName         Str            `json:"coordJobName"`
	CoordJobPath         Str            `json:"coordJobPath"`
	CoordExternalID      Str            `json:"coordExternalId"`
	BundleID             Str            `json:"bundleId"`
	Conf                 Str            `json:"conf"`
	Status               string         `json:"status"`
	ExecutionPolicy      string         `json:"executionPolicy"`
	Frequency            Text           `json:"frequency"`
	TimeUnit             string         `json:"timeUnit"`
	TimeZone             Str            `json:"timeZone"`
	Concurrency          int            `json:"concurrency"`
	TimeOut              int            `json:"timeOut"`
	LastAction           Time           `json:"lastAction"`
	NextMaterializedTime Time           `json:"nextMaterializedTime"`
	CreatedTime          Time           `json:"createdTime"`
	StartTime            Time           `json:"startTime"`
	EndTime              Time           `json:"endTime"`
	PauseTime            Time           `json:"pauseTime"`
	User                 Str            `json:"user"`
	Group                Str            `json:"group"`
	ACL                  Str            `json:"acl"`
	ConsoleURL           Str            `json:"consoleUrl"`
	MatThrottling        int            `json:"mat_throttling"`
	Actions              []*CoordAction `json:"actions"` // [] when none
	Total                int            `json:"total"`
	ToString             string         `json:"toString"`
}

// In shows every date of the job and its actions in loc (nil keeps GMT).
func (j *CoordJob) In(loc *time.Location) {
	if loc == nil {
		return
	}
	for _, p := range []*Time{&j.LastAction, &j.NextMaterializedTime, &j.CreatedTime, &j.StartTime, &j.EndTime, &j.PauseTime} {
		*p = p.In(loc)
	}
	for _, a := range j.Actions {
		a.In(loc)
	}
}

// CoordAction is the coordinator action bean (rest-api.md 5.4,
// CoordinatorActionBean).
type CoordAction struct {
	ID                      string `json:"id"`
	CoordJobID              string `json:"coordJobId"`
	Type                    Str    `json:"type"`
	ActionNumber            int    `json:"actionNumber"`
	CreatedConf             Str    `json:"createdConf"`
	CreatedTime             Time   `json:"createdTime"`
	NominalTime             Time   `json:"nominalTime"`
	LastModifiedTime        Time   `json:"lastModifiedTime"`
	ExternalID              Str    `json:"externalId"`
	Status                  string `json:"status"`
	RunConf                 Str    `json:"runConf"`
	MissingDependencies     Str    `json:"missingDependencies"`
	PushMissingDependencies Str    `json:"pushMissingDependencies"`
	ExternalStatus          Str    `json:"externalStatus"`
	TrackerURI              Str    `json:"trackerUri"`
	ConsoleURL              Str    `json:"consoleUrl"`
	ErrorCode               Str    `json:"errorCode"`
	ErrorMessage            Str    `json:"errorMessage"`
	ToString                string `json:"toString"`
	// InputLogic is, for a WAITING action of an app with <input-logic>,
	// the logic as its last input check evaluated it, one line per node
	// (gozie's addition; absent otherwise, so Oozie's bytes are kept).
	InputLogic []string `json:"inputLogic,omitempty"`
}

// In shows the action's dates in loc (nil keeps GMT).
func (a *CoordAction) In(loc *time.Location) {
	a.CreatedTime, a.NominalTime, a.LastModifiedTime = a.CreatedTime.In(loc), a.NominalTime.In(loc), a.LastModifiedTime.In(loc)
}

// BundleJob is the bundle job bean (rest-api.md 5.5).
type BundleJob struct {
	BundleJobID      string      `json:"bundleJobId"`
	BundleJobName    Str         `json:"bundleJobName"`
	BundleJobPath    Str         `json:"bundleJobPath"`
	BundleExternalID Str         `json:"bundleExternalId"`
	Conf             Str         `json:"conf"`
	Status           string      `json:"status"`
	TimeUnit         string      `json:"timeUnit"`
	TimeOut          int         `json:"timeOut"`
	KickoffTime      Time        `json:"kickoffTime"`
	StartTime        Time        `json:"startTime"`
	EndTime          Time        `json:"endTime"`
	PauseTime        Time        `json:"pauseTime"`
	CreatedTime      Time        `json:"createdTime"`
	User             Str         `json:"user"`
	Group            Str         `json:"group"`
	ACL              Str         `json:"acl"`
	ConsoleURL       Str         `json:"consoleUrl"`
	BundleCoordJobs  []*CoordJob `json:"bundleCoordJobs"`
	ToString         string      `json:"toString"`
}

// In shows every date of the bundle and of its coordinator jobs in loc
// (nil keeps GMT).
func (j *BundleJob) In(loc *time.Location) {
	if loc == nil {
		return
	}
	for _, p := range []*Time{&j.KickoffTime, &j.StartTime, &j.EndTime, &j.PauseTime, &j.CreatedTime} {
		*p = p.In(loc)
	}
	for _, c := range j.BundleCoordJobs {
		c.In(loc)
	}
}

// JobList is the answer of GET and PUT /jobs (rest-api.md 5.6): exactly
// one of the three lists is present, according to the job type asked for;
// a bulk change (PUT) adds ids. A nil list is absent, an empty one [].
type JobList struct {
	Workflows       []*WorkflowJob `json:"workflows,omitempty"`
	CoordinatorJobs []*CoordJob    `json:"coordinatorjobs,omitempty"`
	BundleJobs      []*BundleJob   `json:"bundlejobs,omitempty"`
	IDs             []string       `json:"ids,omitempty"`
	Total           int            `json:"total"`
	Offset          int            `json:"offset"`
	Len             int            `json:"len"`
	// present records which list key the answer held, since an empty
	// list and a missing one print differently after a bulk modify.
	present map[string]bool
}

// MarshalJSON writes the keys in sorted order, as the server always has,
// with each non-nil list (even empty) and no nil one.
func (l JobList) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the caller's encoder escapes, if it does
	b.WriteByte('{')
	sep := ""
	field := func(key string, v any) error {
		b.WriteString(sep + `"` + key + `":`)
		sep = ","
		return enc.Encode(v)
	}
	var err error
	if l.BundleJobs != nil {
		err = errors.Join(err, field("bundlejobs", l.BundleJobs))
	}
	if l.CoordinatorJobs != nil {
		err = errors.Join(err, field("coordinatorjobs", l.CoordinatorJobs))
	}
	if l.IDs != nil {
		err = errors.Join(err, field("ids", l.IDs))
	}
	err = errors.Join(err, field("len", l.Len), field("offset", l.Offset), field("total", l.Total))
	if l.Workflows != nil {
		err = errors.Join(err, field("workflows", l.Workflows))
	}
	b.WriteByte('}')
	return b.Bytes(), err
}

// Has reports whether the decoded answer contained the list key
// ("workflows", "coordinatorjobs" or "bundlejobs"), even if empty.
func (l *JobList) Has(key string) bool { return l.present[key] }

// UnmarshalJSON decodes a jobs list remembering which list key was sent.
func (l *JobList) UnmarshalJSON(b []byte) error {
	type plain JobList
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	*l = JobList(p)
	l.present = map[string]bool{}
	for _, k := range []string{"workflows", "coordinatorjobs", "bundlejobs"} {
		if _, ok := keys[k]; ok {
			l.present[k] = true
		}
	}
	return nil
}

// BulkResponse is one element of a bulk-monitor answer (rest-api.md 3.4).
type BulkResponse struct {
	Bundle BundleJob   `json:"bulkbundle"`
	Coord  CoordJob    `json:"bulkcoord"`
	Action CoordAction `json:"bulkaction"`
}

// BulkList is the answer of GET /jobs?bulk=.
type BulkList struct {
	Responses []BulkResponse `json:"bulkresponses"`
	Total     int            `json:"total"`
	Offset    int            `json:"offset"`
	Len       int            `json:"len"`
}

// Run is one element of a coordinator action's allruns list.
type Run struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	StartTime Time   `json:"startTime"`
	EndTime   Time   `json:"endTime"`
}

// Retry is one attempt of a workflow action (show=retries); every value
// is a string, as Oozie sends them.
type Retry struct {
	Attempt          string `json:"attempt"`
	StartTime        string `json:"startTime"`
	EndTime          string `json:"endTime"`
	ConsoleURL       string `json:"consoleUrl"`
	ExternalChildIDs string `json:"externalChildIDs"`
}

// ErrorBody is the JSON body of an error answer (Oozie's error page):
// the HTTP status, the message and, when there is one, the Oozie error
// code, which the oozie-error-code header carries too. The fields are in
// the order the server has always written them.
type ErrorBody struct {
	ErrorCode      string `json:"errorCode,omitempty"`
	ErrorMessage   string `json:"errorMessage"`
	HTTPStatusCode int    `json:"httpStatusCode"`
}
