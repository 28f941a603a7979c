package client

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// gmtLayout is the date format of the REST API: RFC 822 with the zone
// spelled GMT (the only zone the Java client understands).
const gmtLayout = "Mon, 02 Jan 2006 15:04:05 GMT"

// Time is a date field of a JSON bean. The zero value is JSON null. As the
// Java client does, only "… GMT" strings are understood; any other text
// decodes as null rather than failing the whole response.
type Time struct{ time.Time }

// UnmarshalJSON accepts null or an RFC 822 GMT date string.
func (t *Time) UnmarshalJSON(b []byte) error {
	t.Time = time.Time{}
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return nil // a number or object where a date belongs reads as null
	}
	if p, err := time.Parse(gmtLayout, s); err == nil {
		t.Time = p.UTC()
	}
	return nil
}

// MarshalJSON writes null or the GMT date string.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Format(gmtLayout))
}

// Text is a string field that some servers emit as a number (coordinator
// frequency); it decodes either form. JSON null is the empty string.
type Text string

// UnmarshalJSON accepts a string, a number, or null.
func (s *Text) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err == nil {
		*s = Text(str)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err == nil {
		*s = Text(n.String())
		return nil
	}
	*s = ""
	return nil
}

// WorkflowJob is the workflow job bean (rest-api §5.1).
type WorkflowJob struct {
	ID          string           `json:"id"`
	AppName     string           `json:"appName"`
	AppPath     string           `json:"appPath"`
	ExternalID  string           `json:"externalId"`
	ParentID    string           `json:"parentId"`
	Conf        string           `json:"conf"`
	Status      string           `json:"status"`
	LastModTime Time             `json:"lastModTime"`
	CreatedTime Time             `json:"createdTime"`
	StartTime   Time             `json:"startTime"`
	EndTime     Time             `json:"endTime"`
	User        string           `json:"user"`
	Group       string           `json:"group"`
	ACL         string           `json:"acl"`
	Run         int              `json:"run"`
	ConsoleURL  string           `json:"consoleUrl"`
	Actions     []WorkflowAction `json:"actions"`
	ToString    string           `json:"toString"`
}

// WorkflowAction is the workflow action bean (rest-api §5.2).
type WorkflowAction struct {
	ID                string `json:"id"`
	Name              string `json:"name"`
	Cred              string `json:"cred"`
	Type              string `json:"type"`
	Conf              string `json:"conf"`
	Status            string `json:"status"`
	Retries           int    `json:"retries"`
	StartTime         Time   `json:"startTime"`
	EndTime           Time   `json:"endTime"`
	Transition        string `json:"transition"`
	Data              string `json:"data"`
	Stats             string `json:"stats"`
	ExternalChildIDs  string `json:"externalChildIDs"`
	ExternalID        string `json:"externalId"`
	ExternalStatus    string `json:"externalStatus"`
	TrackerURI        string `json:"trackerUri"`
	ConsoleURL        string `json:"consoleUrl"`
	ErrorCode         string `json:"errorCode"`
	ErrorMessage      string `json:"errorMessage"`
	UserRetryInterval int    `json:"userRetryInterval"`
	UserRetryCount    int    `json:"userRetryCount"`
	UserRetryMax      int    `json:"userRetryMax"`
	ToString          string `json:"toString"`
}

// CoordJob is the coordinator job bean (rest-api §5.3); note the coordJob*
// keys where workflows say id/appName/appPath.
type CoordJob struct {
	CoordJobID           string        `json:"coordJobId"`
	CoordJobName         string        `json:"coordJobName"`
	CoordJobPath         string        `json:"coordJobPath"`
	CoordExternalID      string        `json:"coordExternalId"`
	BundleID             string        `json:"bundleId"`
	Conf                 string        `json:"conf"`
	Status               string        `json:"status"`
	ExecutionPolicy      string        `json:"executionPolicy"`
	Frequency            Text          `json:"frequency"`
	TimeUnit             string        `json:"timeUnit"`
	TimeZone             string        `json:"timeZone"`
	Concurrency          int           `json:"concurrency"`
	TimeOut              int           `json:"timeOut"`
	LastAction           Time          `json:"lastAction"`
	NextMaterializedTime Time          `json:"nextMaterializedTime"`
	CreatedTime          Time          `json:"createdTime"`
	StartTime            Time          `json:"startTime"`
	EndTime              Time          `json:"endTime"`
	PauseTime            Time          `json:"pauseTime"`
	User                 string        `json:"user"`
	Group                string        `json:"group"`
	ACL                  string        `json:"acl"`
	ConsoleURL           string        `json:"consoleUrl"`
	MatThrottling        int           `json:"mat_throttling"`
	Actions              []CoordAction `json:"actions"`
	Total                int           `json:"total"`
	ToString             string        `json:"toString"`
}

// CoordAction is the coordinator action bean (rest-api §5.4).
type CoordAction struct {
	ID                      string `json:"id"`
	CoordJobID              string `json:"coordJobId"`
	Type                    string `json:"type"`
	ActionNumber            int    `json:"actionNumber"`
	CreatedConf             string `json:"createdConf"`
	CreatedTime             Time   `json:"createdTime"`
	NominalTime             Time   `json:"nominalTime"`
	LastModifiedTime        Time   `json:"lastModifiedTime"`
	ExternalID              string `json:"externalId"`
	Status                  string `json:"status"`
	RunConf                 string `json:"runConf"`
	MissingDependencies     string `json:"missingDependencies"`
	PushMissingDependencies string `json:"pushMissingDependencies"`
	ExternalStatus          string `json:"externalStatus"`
	TrackerURI              string `json:"trackerUri"`
	ConsoleURL              string `json:"consoleUrl"`
	ErrorCode               string `json:"errorCode"`
	ErrorMessage            string `json:"errorMessage"`
	ToString                string `json:"toString"`
}

// BundleJob is the bundle job bean (rest-api §5.5).
type BundleJob struct {
	BundleJobID      string     `json:"bundleJobId"`
	BundleJobName    string     `json:"bundleJobName"`
	BundleJobPath    string     `json:"bundleJobPath"`
	BundleExternalID string     `json:"bundleExternalId"`
	Conf             string     `json:"conf"`
	Status           string     `json:"status"`
	TimeUnit         string     `json:"timeUnit"`
	TimeOut          int        `json:"timeOut"`
	KickoffTime      Time       `json:"kickoffTime"`
	StartTime        Time       `json:"startTime"`
	EndTime          Time       `json:"endTime"`
	PauseTime        Time       `json:"pauseTime"`
	CreatedTime      Time       `json:"createdTime"`
	User             string     `json:"user"`
	Group            string     `json:"group"`
	ACL              string     `json:"acl"`
	ConsoleURL       string     `json:"consoleUrl"`
	BundleCoordJobs  []CoordJob `json:"bundleCoordJobs"`
	ToString         string     `json:"toString"`
}

// JobList is the answer of GET and PUT /jobs: exactly one of the three
// lists is present, according to the job type asked for.
type JobList struct {
	Workflows       []WorkflowJob `json:"workflows,omitempty"`
	CoordinatorJobs []CoordJob    `json:"coordinatorjobs,omitempty"`
	BundleJobs      []BundleJob   `json:"bundlejobs,omitempty"`
	Total           int           `json:"total"`
	Offset          int           `json:"offset"`
	Len             int           `json:"len"`
	// present records which list key the server sent, since an empty list
	// and a missing one print differently after a bulk modify.
	present map[string]bool
}

// Has reports whether the server's answer contained the list key
// ("workflows", "coordinatorjobs" or "bundlejobs"), even if empty.
func (l *JobList) Has(key string) bool { return l.present[key] }

// BulkResponse is one element of a bulk-monitor answer (rest-api §3.4).
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

// Retry is one attempt of a workflow action (show=retries); all values are
// strings, as the server sends them.
type Retry struct {
	Attempt          string `json:"attempt"`
	StartTime        string `json:"startTime"`
	EndTime          string `json:"endTime"`
	ConsoleURL       string `json:"consoleUrl"`
	ExternalChildIDs string `json:"externalChildIDs"`
}

// itoa formats optional integer query parameters.
func itoa(n int) string { return strconv.Itoa(n) }
