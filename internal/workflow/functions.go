package workflow

import (
	"context"
	"errors"
	"fmt"

	"github.com/gozie/gozie/internal/el"
)

// ELContext is what the wf:* EL functions (spec: wf 4.2.3) read
// of a workflow job. The engine fills one per evaluation; it is a struct of
// values and lookups rather than an interface so that each caller (engine,
// gozie eval, tests) sets only what it has, and missing parts read as empty.
type ELContext struct {
	JobID   string
	AppName string
	AppPath string
	User    string
	Group   string
	Run     int
	// LastErrorNode is the name of the last action that ended in ERROR.
	LastErrorNode string
	// Conf looks up a job configuration property.
	Conf func(name string) (string, bool)
	// Node returns the recorded state of a node of this job.
	Node func(name string) (NodeState, bool)
	// Callback returns the callback URL of the current action for a state
	// variable (wf:callback).
	Callback func(stateVar string) string
	// FileDo runs the file-system work of an fs:* function for the job
	// (with the job user's rights when the server acts for that user);
	// nil runs it as it is.
	FileDo func(fn func() error) error
	// Files is the context the fs:* functions reach stores with (the
	// job's store settings and user); nil means context.Background().
	Files context.Context
}

// FilesContext returns Files, or context.Background() (fsys's fs:*
// functions call it).
func (c *ELContext) FilesContext() context.Context {
	if c == nil || c.Files == nil {
		return context.Background()
	}
	return c.Files
}

// DoFiles runs fn through FileDo (fsys's fs:* functions call it).
func (c *ELContext) DoFiles(fn func() error) error {
	if c == nil || c.FileDo == nil {
		return fn()
	}
	return c.FileDo(fn)
}

// NodeState is the recorded outcome of one executed node, as far as the
// wf:* functions expose it.
type NodeState struct {
	Status         string
	Transition     string // the node taken after this one, "" until completed
	ErrorCode      string
	ErrorMessage   string
	ExternalID     string
	TrackerURI     string
	ExternalStatus string
	// Data is the action's captured output (wf:actionData), a Java
	// properties map.
	Data map[string]string
	// Stats are the action's counters by group and name
	// (hadoop:counters).
	Stats map[string]map[string]int64
}

// errNoContext is returned when a wf:* function is evaluated without a
// workflow job, for instance in a coordinator definition.
var errNoContext = errors.New("wf: functions need a workflow job context")

// Functions returns a registry with the basic EL functions and constants plus
// every wf:* function. Evaluators using it must carry an *ELContext as their
// Context.
func Functions() *el.Registry {
	r := el.Basic()
	RegisterFunctions(r)
	return r
}

// RegisterFunctions defines the wf:* functions of spec: wf 4.2.3 in r.
func RegisterFunctions(r *el.Registry) {
	str := []el.Type{el.String}
	none := []el.Type{}
	r.Define("wf", "id", none, jobField(func(c *ELContext) any { return c.JobID }))
	r.Define("wf", "name", none, jobField(func(c *ELContext) any { return c.AppName }))
	r.Define("wf", "appPath", none, jobField(func(c *ELContext) any { return c.AppPath }))
	r.Define("wf", "user", none, jobField(func(c *ELContext) any { return c.User }))
	r.Define("wf", "group", none, jobField(func(c *ELContext) any { return c.Group }))
	r.Define("wf", "run", none, jobField(func(c *ELContext) any { return int64(c.Run) }))
	r.Define("wf", "lastErrorNode", none, jobField(func(c *ELContext) any { return c.LastErrorNode }))
	r.Define("wf", "conf", str, func(call *el.Call) (any, error) {
		c, err := contextOf(call)
		if err != nil {
			return nil, err
		}
		if c.Conf == nil {
			return "", nil
		}
		v, _ := c.Conf(call.Args[0].(string))
		return v, nil
	})
	r.Define("wf", "callback", str, func(call *el.Call) (any, error) {
		c, err := contextOf(call)
		if err != nil {
			return nil, err
		}
		if c.Callback == nil {
			return "", nil
		}
		return c.Callback(call.Args[0].(string)), nil
	})
	r.Define("wf", "transition", str, nodeField(func(n NodeState) any { return n.Transition }))
	r.Define("wf", "errorCode", str, nodeField(func(n NodeState) any { return n.ErrorCode }))
	r.Define("wf", "errorMessage", str, nodeField(func(n NodeState) any { return n.ErrorMessage }))
	r.Define("wf", "actionExternalId", str, nodeField(func(n NodeState) any { return n.ExternalID }))
	r.Define("wf", "actionTrackerUri", str, nodeField(func(n NodeState) any { return n.TrackerURI }))
	r.Define("wf", "actionExternalStatus", str, nodeField(func(n NodeState) any { return n.ExternalStatus }))
	r.Define("wf", "actionData", str, func(call *el.Call) (any, error) {
		n, err := nodeOf(call)
		if err != nil {
			return nil, err
		}
		// An action without output still yields a map, so that
		// ${wf:actionData('a')['k']} reads as empty instead of failing.
		data := make(map[string]string, len(n.Data))
		for k, v := range n.Data {
			data[k] = v
		}
		return data, nil
	})
}

func contextOf(call *el.Call) (*ELContext, error) {
	c, ok := call.Context.(*ELContext)
	if !ok || c == nil {
		return nil, errNoContext
	}
	return c, nil
}

// jobField makes a function of no arguments that returns one job attribute.
func jobField(get func(*ELContext) any) el.Func {
	return func(call *el.Call) (any, error) {
		c, err := contextOf(call)
		if err != nil {
			return nil, err
		}
		return get(c), nil
	}
}

// nodeOf returns the state of the node named by the call's first argument;
// a node that has not run yet has the zero state, which the specification
// reads as empty strings.
func nodeOf(call *el.Call) (NodeState, error) {
	c, err := contextOf(call)
	if err != nil {
		return NodeState{}, err
	}
	if c.Node == nil {
		return NodeState{}, nil
	}
	n, _ := c.Node(call.Args[0].(string))
	return n, nil
}

// nodeField makes a function of one node name that returns one attribute of
// that node's state.
func nodeField(get func(NodeState) any) el.Func {
	return func(call *el.Call) (any, error) {
		n, err := nodeOf(call)
		if err != nil {
			return nil, err
		}
		return get(n), nil
	}
}

// CodeKillMessage is the Oozie code of a kill node whose message cannot be
// resolved.
const CodeKillMessage = "E0756"

// KillMessage resolves the message of a kill node. A message that does not
// parse or evaluate is reported as E0756 with the EL problem in brackets, and
// the engine records that on the kill node instead of the message.
func KillMessage(ev *el.Evaluator, message string) (string, error) {
	out, err := ev.EvalString(message)
	if err == nil {
		return out, nil
	}
	detail := err.Error()
	if elErr := el.AsError(err); elErr != nil && elErr.Msg != "" {
		detail = elErr.Msg
	}
	return "", &Error{Code: CodeKillMessage, Msg: fmt.Sprintf("Exception parsing Kill node message [%s]", detail)}
}
