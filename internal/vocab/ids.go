package vocab

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// IDKind tells what an id names.
type IDKind int

const (
	// IDUnknown is the kind of text that is no id at all (ParseID only).
	IDUnknown IDKind = iota
	// IDWorkflow is a workflow job: ...-W.
	IDWorkflow
	// IDWorkflowAction is a node of a workflow job: <wf>@<node>.
	IDWorkflowAction
	// IDCoord is a coordinator job: ...-C.
	IDCoord
	// IDCoordAction is an action of a coordinator job: <coord>@<n>.
	IDCoordAction
	// IDBundle is a bundle job: ...-B.
	IDBundle
)

// String names the kind as the REST API's job types do.
func (k IDKind) String() string {
	switch k {
	case IDWorkflow:
		return "wf"
	case IDWorkflowAction:
		return "wf-action"
	case IDCoord:
		return "coord"
	case IDCoordAction:
		return "coord-action"
	case IDBundle:
		return "bundle"
	}
	return "unknown"
}

// Job type letters, the last character of a job id.
const (
	TypeWorkflow    = "W"
	TypeCoordinator = "C"
	TypeBundle      = "B"
)

// JobIDTimeLayout is Oozie's yyMMddHHmmssSSS, the server start time in a
// job id, with the dot Go needs before fractional seconds (FormatJobID
// removes it).
const JobIDTimeLayout = "060102150405.000"

// FormatJobID builds an id like 0000001-260122030405123-oozie-joe-W: the
// counter zero-padded to at least seven digits, the server start time, the
// system id and the job type letter (TypeWorkflow, ...). rest-api.md 6.
func FormatJobID(counter int64, start time.Time, systemID, typ string) string {
	stamp := strings.Replace(start.Format(JobIDTimeLayout), ".", "", 1)
	return fmt.Sprintf("%07d-%s-%s-%s", counter, stamp, systemID, typ)
}

// ActionID returns the id of a workflow node's record or of a coordinator
// action: <jobId>@<name>; a coordinator action's name is its number.
func ActionID(jobID, name string) string { return jobID + "@" + name }

// CoordActionID returns the id of action number n (1-based) of a
// coordinator job.
func CoordActionID(coordID string, n int) string { return coordID + "@" + strconv.Itoa(n) }

// SplitID splits an action id at its first "@" into the job id and the
// action name; for a job id it returns id, "" and false. It accepts any
// text: it is how every layer finds the job an id belongs to.
func SplitID(id string) (job, action string, isAction bool) {
	return strings.Cut(id, "@")
}

// JobOf returns the job part of id: the text before the first "@", or id.
func JobOf(id string) string {
	job, _, _ := strings.Cut(id, "@")
	return job
}

// IsWorkflowJob, IsCoordJob and IsBundleJob report whether id (a job id,
// not an action id) ends with the type letter of that kind.
func IsWorkflowJob(id string) bool { return strings.HasSuffix(id, "-W") }

// IsCoordJob reports whether id ends with "-C" (see IsWorkflowJob).
func IsCoordJob(id string) bool { return strings.HasSuffix(id, "-C") }

// IsBundleJob reports whether id ends with "-B" (see IsWorkflowJob).
func IsBundleJob(id string) bool { return strings.HasSuffix(id, "-B") }

// KindOf classifies id the way Oozie's job servlet dispatches it
// (rest-api.md 6): an id with "@" is an action of the job before the
// first "@" (-W: workflow action, -C: coordinator action); otherwise the
// suffix decides (-W, -B); anything else is taken for a coordinator job,
// Oozie's default branch. It never fails: text that is no id ends in a
// lookup that answers E0604.
func KindOf(id string) IDKind {
	if job, _, ok := strings.Cut(id, "@"); ok {
		switch {
		case IsWorkflowJob(job):
			return IDWorkflowAction
		case IsCoordJob(job):
			return IDCoordAction
		}
	}
	switch {
	case IsBundleJob(id):
		return IDBundle
	case IsWorkflowJob(id):
		return IDWorkflow
	}
	return IDCoord
}

// ID is a parsed job or action id.
type ID struct {
	Kind IDKind
	// Counter, Start and System are the parts of the job id: the sequence
	// number, the server start time (yyMMddHHmmssSSS) and the system id.
	Counter int64
	Start   string
	System  string
	// Action is the node name of a workflow action or the number of a
	// coordinator action (as text); "" for a job.
	Action string
}

// Job returns the job id of id (the job itself for a job id).
func (id ID) Job() string {
	typ := TypeCoordinator
	switch id.Kind {
	case IDWorkflow, IDWorkflowAction:
		typ = TypeWorkflow
	case IDBundle:
		typ = TypeBundle
	}
	return fmt.Sprintf("%07d-%s-%s-%s", id.Counter, id.Start, id.System, typ)
}

// String formats id back into its text.
func (id ID) String() string {
	if id.Action != "" {
		return ActionID(id.Job(), id.Action)
	}
	return id.Job()
}

// ErrBadID is matched (errors.Is) by every error of ParseID.
var ErrBadID = errors.New("invalid id")

// ParseID parses an id of the form FormatJobID makes, or such a job id
// followed by "@" and an action name (a workflow node) or number (a
// coordinator action, 1-based). Bundle ids take no action part. Unlike
// KindOf it refuses anything else; it is for callers that must know the
// id is well formed (validation, tests, fuzzing).
func ParseID(s string) (ID, error) {
	bad := func(why string) (ID, error) {
		return ID{}, fmt.Errorf("%w [%s]: %s", ErrBadID, s, why)
	}
	job, action, isAction := strings.Cut(s, "@")
	if len(job) < 2 || job[len(job)-2] != '-' {
		return bad("no job type suffix")
	}
	var id ID
	switch job[len(job)-1:] {
	case TypeWorkflow:
		id.Kind = IDWorkflow
	case TypeCoordinator:
		id.Kind = IDCoord
	case TypeBundle:
		id.Kind = IDBundle
	default:
		return bad("job type is not W, C or B")
	}
	rest := job[:len(job)-2]
	counter, rest, ok := strings.Cut(rest, "-")
	if !ok || len(counter) < 7 || !digits(counter) {
		return bad("counter is not seven or more digits")
	}
	n, err := strconv.ParseInt(counter, 10, 64)
	if err != nil {
		return bad("counter out of range")
	}
	start, system, ok := strings.Cut(rest, "-")
	if !ok || len(start) != 15 || !digits(start) {
		return bad("start time is not 15 digits")
	}
	if system == "" {
		return bad("no system id")
	}
	if strings.ContainsAny(system, "@/") {
		return bad("system id holds '@' or '/'")
	}
	id.Counter, id.Start, id.System = n, start, system
	if !isAction {
		return id, nil
	}
	switch id.Kind {
	case IDWorkflow:
		if action == "" {
			return bad("empty node name")
		}
		id.Kind = IDWorkflowAction
	case IDCoord:
		if !digits(action) || action[0] == '0' {
			return bad("coordinator action number is not a positive number")
		}
		id.Kind = IDCoordAction
	default:
		return bad("a bundle id has no action part")
	}
	id.Action = action
	return id, nil
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
