package engine

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/workflow"
)

// Hadoop counter names of spec: wf 4.2.4.
var hadoopConstants = map[string]string{
	"RECORDS":    "org.apache.hadoop.mapred.Task$Counter",
	"MAP_IN":     "MAP_INPUT_RECORDS",
	"MAP_OUT":    "MAP_OUTPUT_RECORDS",
	"REDUCE_IN":  "REDUCE_INPUT_RECORDS",
	"REDUCE_OUT": "REDUCE_OUTPUT_RECORDS",
	"GROUPS":     "REDUCE_INPUT_GROUPS",
}

// registerHadoop defines hadoop:counters and the counter constants.
// hadoop:counters(node) returns the counter groups the node's action
// recorded (Result.Stats: the local streaming map-reduce records Hadoop's
// groups); a node without counters, or a group or counter it did not
// record, reads as empty, so ${hadoop:counters('mr')[RECORDS][MAP_IN]}
// never fails the workflow.
func registerHadoop(r *el.Registry) {
	for k, v := range hadoopConstants {
		r.Const(k, v)
	}
	r.Define("hadoop", "counters", []el.Type{el.String}, func(c *el.Call) (any, error) {
		out := map[string]any{}
		ctx, ok := c.Context.(*workflow.ELContext)
		if !ok || ctx.Node == nil {
			return out, nil
		}
		name, _ := c.Args[0].(string)
		n, ok := ctx.Node(name)
		if !ok {
			return out, nil
		}
		for g, cs := range n.Stats {
			m := make(map[string]any, len(cs))
			for k, v := range cs {
				m[k] = v
			}
			out[g] = m
		}
		return out, nil
	})
}

// encodeStats writes counters as the action's stats: JSON, groups and
// counters in key order.
func encodeStats(m map[string]map[string]int64) string {
	b, err := json.Marshal(m)
	if err != nil {
		return ""
	}
	return string(b)
}

// decodeStats reads stats written by encodeStats; anything else (stats of
// an older or foreign writer) reads as no counters.
func decodeStats(s string) map[string]map[string]int64 {
	if s == "" {
		return nil
	}
	var m map[string]map[string]int64
	if json.Unmarshal([]byte(s), &m) != nil {
		return nil
	}
	return m
}

// evaluator returns the EL evaluator for a node of this job. st.mu must be
// held while it is used: wf:* functions read the job's records.
func (st *jobState) evaluator(e *Engine, node string) *el.Evaluator {
	j := st.job
	ctx := &workflow.ELContext{
		JobID: j.ID, AppName: j.AppName, AppPath: j.AppPath, User: j.User, Group: j.Group, Run: j.Run,
		LastErrorNode: st.extra.LastErrorNode,
		Conf:          st.conf.Get,
		Node: func(name string) (workflow.NodeState, bool) {
			a := st.actions[name]
			if a == nil {
				return workflow.NodeState{}, false
			}
			return workflow.NodeState{
				Status: a.Status, Transition: a.Transition, ErrorCode: a.ErrorCode, ErrorMessage: a.ErrorMessage,
				ExternalID: a.ExternalID, TrackerURI: a.TrackerURI, ExternalStatus: a.ExternalStatus,
				Data: decodeData(a.Data), Stats: decodeStats(a.Stats),
			}, true
		},
		Callback: func(stateVar string) string { return e.callbackURL(ActionID(j.ID, node), stateVar) },
		// fs:* functions probe the file system with the job user's
		// rights when the server acts for the user.
		FileDo: func(fn func() error) error { return e.AsJobUser(j.User, fn) },
		Files:  filesContext(context.Background(), st.conf, j.User),
	}
	return &el.Evaluator{Funcs: e.funcs, Vars: st.vars, Context: ctx, Now: e.clock.Now}
}

// callbackURL is Oozie's <base>?id=<actionId>&status=<stateVar>.
func (e *Engine) callbackURL(actionID, stateVar string) string {
	if e.opts.CallbackURL == "" {
		return ""
	}
	return e.opts.CallbackURL + "?id=" + url.QueryEscape(actionID) + "&status=" + stateVar
}

// actionContext builds what an executor gets for the current attempt of a:
// the action body with EL resolved, the merged configuration, a work
// directory; and the resolved body as XML, which the action record keeps
// (its conf). An EL failure is returned as an *el.Error; an action that
// resolves to more than Options.MaxActionBytes, or whose job-xml files
// together pass the configuration limit, as an E1004 action error.
func (e *Engine) actionContext(st *jobState, a *store.Action) (*action.Context, string, error) {
	n := st.app.Node(a.Name)
	if n == nil || n.Action == nil || n.Action.Body == nil {
		return nil, "", action.Errorf(action.Failed, workflow.CodeSchema, "node [%s] is not an action with a body", a.Name)
	}
	ev := st.evaluator(e, a.Name)
	body, confXML, err := resolveAction(ev, n.Action.Body, e.opts.MaxActionBytes)
	if errors.Is(err, errActionTooLarge) {
		return nil, "", action.Errorf(action.ErrorKindError, conf.CodeExpand,
			"Expression language evaluation error, action [%s] resolves to more than %d bytes (gozie.action.max.bytes)", a.Name, e.opts.MaxActionBytes)
	}
	if err != nil {
		return nil, "", err
	}
	c := conf.New()
	c.Merge(st.defaults)
	uctx, err := e.JobUserContext(e.rt.Context(), st.job.User)
	if err != nil {
		var ee *Error
		errors.As(err, &ee)
		return nil, "", action.Errorf(action.NonTransient, launch.CodeRunAsUser, "%s", ee.Msg)
	}
	total := e.expandTotal()
	for _, x := range jobXMLOrder(st.app, body) {
		jx, size, err := e.readConfFileSize(filesContext(uctx, st.conf, st.job.User), st.localPath(x))
		if err != nil {
			return nil, "", action.Errorf(action.ErrorKindError, "JA008", "job-xml [%s] of action [%s]: %v", x, a.Name, err)
		}
		// Each file is bounded, not their number: a hundred <job-xml>
		// elements naming large files would be merged into one
		// configuration before CheckExpansion saw it.
		if total -= size; total < 0 {
			return nil, "", action.Errorf(action.ErrorKindError, conf.CodeExpand,
				"configuration of action [%s]: Expression language evaluation error, its job-xml files are larger than %d bytes together (limit reached at [%s])", a.Name, e.expandTotal(), x)
		}
		c.Merge(jx)
	}
	for _, p := range workflow.ConfigurationOf(body.Child("configuration")) {
		c.Set(p.Name, p.Value)
	}
	c.SetResolver(st.conf.AsResolver())
	if err := c.CheckExpansion(e.opts.Expand); err != nil {
		// The job configuration was checked at submission; job-xml files
		// and the action's own <configuration> are only read now.
		return nil, "", action.Errorf(action.ErrorKindError, conf.CodeExpand, "configuration of action [%s]: %v", a.Name, err)
	}
	// The work directory is named, not made: executors that use it (shell,
	// fs) create it, and most actions (sub-workflows, no-ops) never do;
	// a mkdir per action was a large share of the engine's own cost.
	dir := e.ActionDir(a)
	actx := &action.Context{
		JobID: st.job.ID, ActionID: a.ID, Name: a.Name, Type: a.Type, User: st.job.User,
		AppPath: st.extra.AppRoot, Element: body, Conf: c, JobConf: st.conf, WorkDir: dir,
		CallbackURL: e.callbackURL(a.ID, "$status"), Attempt: a.Attempt,
	}
	id, jobID := a.ID, st.job.ID
	actx.Notify = func() { e.notify(jobID, id) }
	return actx, confXML, nil
}

// jobXMLOrder lists an action's job-xml files, those inherited from
// <global> first: the action's own declarations override the global ones
// (spec: wf 19), and with "later wins" merging that means loading
// them last.
func jobXMLOrder(app *workflow.App, body *workflow.Element) []string {
	global := map[string]bool{}
	if app.Global != nil {
		for _, g := range app.Global.JobXML {
			global[strings.TrimSpace(g)] = true
		}
	}
	var first, rest []string
	for _, x := range body.ChildrenNamed("job-xml") {
		if p := x.TrimText(); global[p] {
			first = append(first, p)
		} else {
			rest = append(rest, p)
		}
	}
	return append(first, rest...)
}

// localPath resolves a path of the definition: relative paths start at the
// application root (spec: wf 7), a local directory or a store URI; file:
// URIs become local paths.
func (st *jobState) localPath(p string) string {
	p = stripFileScheme(p)
	if p == "" || filepath.IsAbs(p) || strings.Contains(p, "://") {
		return p
	}
	return childOf(st.extra.AppRoot, p, false)
}

// stripFileScheme turns file:///x, file://localhost/x and file:/x into /x.
func stripFileScheme(p string) string {
	switch {
	case strings.HasPrefix(p, "file://localhost/"):
		return p[len("file://localhost"):]
	case strings.HasPrefix(p, "file://"):
		return p[len("file://"):]
	case strings.HasPrefix(p, "file:"):
		return p[len("file:"):]
	}
	return p
}

// errActionTooLarge stops the resolution of an action body that passes its
// limit.
var errActionTooLarge = errors.New("action too large")

// resolveAction returns a copy of body with EL evaluated in every text and
// attribute value (spec: wf 4: EL is resolved when a node executes),
// and that copy as XML, which must not be longer than limit bytes
// (errActionTooLarge). The bound holds while evaluating: the texts and
// values resolved so far, which the XML holds at least, are counted after
// each one, so 300 references to a 900 KB variable stop after three
// instead of building 270 MB first. One text is itself bounded by
// el.MaxStringLen, or is a variable's value passed along without a copy.
func resolveAction(ev *el.Evaluator, body *workflow.Element, limit int) (*workflow.Element, string, error) {
	// The values go into the parsed body as they are, where Oozie writes
	// them into XML text it parses again: the XML escaping of the to*Str
	// functions, which that parse takes off, must not be added here.
	tree := *ev
	tree.NoXMLEscape = true
	ev = &tree
	out := body.Clone()
	used := 0
	resolve := func(s string) (string, error) {
		if el.HasExpr(s) {
			v, err := ev.EvalString(s)
			if err != nil {
				return "", err
			}
			s = v
		}
		if used += len(s); used > limit {
			return "", errActionTooLarge
		}
		return s, nil
	}
	var walk func(x *workflow.Element) error
	walk = func(x *workflow.Element) error {
		var err error
		if x.Text, err = resolve(x.Text); err != nil {
			return err
		}
		for i := range x.Attrs {
			if x.Attrs[i].Value, err = resolve(x.Attrs[i].Value); err != nil {
				return err
			}
		}
		for _, c := range x.Children {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(out); err != nil {
		return nil, "", err
	}
	// Escaping can make the XML several times longer than its texts.
	w := &xmlWriter{limit: limit}
	w.element(out, "")
	if w.over {
		return nil, "", errActionTooLarge
	}
	return out, w.b.String(), nil
}

// xmlWriter writes an element as XML for the action record's conf (the
// REST API shows the action XML there), declaring namespaces where they
// change, and stops once the output would pass limit bytes (over is set
// then and the output is incomplete).
type xmlWriter struct {
	b     strings.Builder
	limit int
	over  bool
}

// Write is for xml.EscapeText; it refuses what would pass the limit.
func (w *xmlWriter) Write(p []byte) (int, error) {
	if w.over || w.b.Len()+len(p) > w.limit {
		w.over = true
		return 0, errActionTooLarge
	}
	return w.b.Write(p)
}

func (w *xmlWriter) str(s string) {
	if w.over || w.b.Len()+len(s) > w.limit {
		w.over = true
		return
	}
	w.b.WriteString(s)
}

func (w *xmlWriter) element(e *workflow.Element, parentNS string) {
	w.str("<" + e.Name.Local)
	if e.Name.Space != parentNS && e.Name.Space != "" {
		w.str(` xmlns="`)
		_ = xml.EscapeText(w, []byte(e.Name.Space))
		w.str(`"`)
	}
	for _, a := range e.Attrs {
		w.str(" " + a.Name.Local + `="`)
		_ = xml.EscapeText(w, []byte(a.Value))
		w.str(`"`)
	}
	if len(e.Children) == 0 && e.Text == "" {
		w.str("/>")
		return
	}
	w.str(">")
	if len(e.Children) == 0 {
		_ = xml.EscapeText(w, []byte(e.Text))
	}
	for _, c := range e.Children {
		if w.over {
			return
		}
		w.element(c, e.Name.Space)
	}
	w.str("</" + e.Name.Local + ">")
}

// encodeData writes captured output as Java properties text, sorted so the
// stored form is stable.
func encodeData(m map[string]string) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	c := conf.New()
	for _, k := range keys {
		c.Set(k, m[k])
	}
	var b strings.Builder
	_ = c.WriteProperties(&b)
	return b.String()
}

func decodeData(s string) map[string]string {
	if s == "" {
		return nil
	}
	c, err := conf.ParseProperties(strings.NewReader(s), "action data")
	if err != nil {
		return nil
	}
	return c.ToMap()
}

// filesContext is ctx carrying the job's store settings (its configuration)
// and user for the file-system layer.
func filesContext(ctx context.Context, c *conf.Config, user string) context.Context {
	if c != nil {
		ctx = fsys.WithConf(ctx, c)
	}
	return fsys.WithUser(ctx, user)
}
