package console

import (
	"net/http"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store"
)

// wfData is the workflow job page.
type wfData struct {
	Job      *store.Job
	Nodes    []node
	Children []*store.Job
	Parent   string // console URL of the parent job, if any
	ParentID string
	Conf     [][2]string
	ConfRaw  string
	Log      string
	GraphURL string
	// Layout is the graph's layout (auto, wrap, down), chosen with the
	// page's layout parameter; Layouts are the choices' links.
	Layout   string
	Layouts  []layoutChoice
	Terminal bool
	Controls []string
	// Failed are the nodes that failed, each with its stderr's last
	// lines; End is the node where the job's path ended (an end or a
	// kill node), nil while it runs.
	Failed    []failedNode
	End       *store.Action
	ConsoleID string
	// Rerun lists the nodes a rerun may skip (a finished job only):
	// those that succeeded are ticked.
	Rerun []rerunNode
	// Path is the transitions taken, in the order the nodes were
	// reached: the graph colours the nodes, this names the edges.
	Path [][2]string
	// SLA are the SLA records of the job and its actions, if any.
	SLA []*rest.SLASummary
}

// graphLayouts are the graph layouts a page offers, the default first:
// auto folds a long workflow into columns (a 40-step chain is not a
// 3,600-pixel column), wrap always does, down is one column as Oozie
// draws it.
var graphLayouts = [][2]string{{"auto", "auto"}, {"wrap", "columns"}, {"down", "one column"}}

// graphLayout is the page's layout parameter, auto when unset or unknown.
func graphLayout(v string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	for _, l := range graphLayouts {
		if l[0] == v {
			return v
		}
	}
	return graphLayouts[0][0]
}

// layoutChoice is a link of the graph's layout choice.
type layoutChoice struct {
	Name, Label, URL string
	Current          bool
}

// rerunNode is a checkbox of the rerun form.
type rerunNode struct {
	Name string
	Skip bool
}

// node is one row of the node table.
type node struct {
	*store.Action
	Output   bool
	ChildURL string
	// End marks the end or kill node the job's path ended at.
	End bool
}

// failedNode is a node in the failed nodes' list: its error and the last
// lines of its stderr, as `gozie run` prints them.
type failedNode struct {
	node
	// Stderr is the last engine.StderrTailLines lines of the program's
	// stderr (masked); StderrEmpty tells an empty stderr from an action
	// that ran no program (no file at all, nothing said).
	Stderr      string
	StderrEmpty bool
}

func (c *Console) workflow(w http.ResponseWriter, r *http.Request, id string) {
	j, acts, err := c.opts.Engine.Job(ctxOf(r), id)
	if err != nil {
		c.engineFail(w, r, err)
		return
	}
	m := c.jobMasker(r, j, acts)
	if m != nil {
		// The page's copies: the engine's records stay whole.
		mj := *j
		mj.Definition, mj.ErrorMessage = m.XML(j.Definition), m.Text(j.ErrorMessage)
		j = &mj
		masked := make([]*store.Action, len(acts))
		for i, a := range acts {
			ma := *a
			ma.ErrorMessage = m.Text(a.ErrorMessage)
			masked[i] = &ma
		}
		acts = masked
	}
	d := &wfData{Job: j, Terminal: store.Terminal(j.Status),
		Layout: graphLayout(r.URL.Query().Get("layout"))}
	d.GraphURL = "/oozie/v2/job/" + url.PathEscape(id) + "?show=graph&show-kill=true&format=svg&layout=" + d.Layout
	for _, l := range graphLayouts {
		d.Layouts = append(d.Layouts, layoutChoice{Name: l[0], Label: l[1], URL: jobURL(id) + "?layout=" + l[0] + "#graph-h", Current: l[0] == d.Layout})
	}
	c.nodeRows(d, acts, m)
	if j.ParentID != "" {
		d.ParentID = j.ParentID
		d.Parent = jobURL(j.ParentID)
	}
	if d.Children, _, err = c.opts.Engine.Jobs(ctxOf(r), store.JobFilter{ParentID: id, Brief: true, Limit: 200}); err != nil {
		c.engineFail(w, r, err)
		return
	}
	d.Conf, d.ConfRaw = confTable(j.Conf, m)
	if logs, err := c.opts.Engine.Logs(ctxOf(r), id); err == nil {
		var b strings.Builder
		for _, l := range logs {
			if l.Level == engine.LevelAudit {
				continue
			}
			b.WriteString(m.Text(engine.FormatLogLine(j.User, j.Group, j.AppName, l)))
			b.WriteByte('\n')
		}
		d.Log = b.String()
	}
	d.Controls = controls(j.Status)
	if j.Status == "FAILED" || j.Status == "KILLED" {
		d.Controls = []string{"rerun-failed"}
	}
	if d.Terminal {
		for _, a := range acts {
			switch a.Type {
			case engine.TypeStart, engine.TypeEnd, engine.TypeKill, engine.TypeFork, engine.TypeJoin:
				continue // control nodes: nothing to skip
			}
			d.Rerun = append(d.Rerun, rerunNode{Name: a.Name, Skip: a.Status == "OK" || a.Status == "DONE"})
		}
	}
	d.SLA = c.jobSLA(r, id)
	c.render(w, http.StatusOK, "workflow", page{Title: j.AppName + " " + id, Nav: "jobs", Live: !d.Terminal, Data: d})
}

// nodeRows fills the node table, the path taken, its end and the failed
// nodes (with their stderr tails, masked by m) of a workflow page.
func (c *Console) nodeRows(d *wfData, acts []*store.Action, m *redact.Masker) {
	for _, a := range acts {
		n := node{Action: a, Output: c.hasOutput(a)}
		if a.Type == "sub-workflow" && a.ExternalID != "" {
			n.ChildURL = jobURL(a.ExternalID)
		}
		if a.Transition != "" {
			d.Path = append(d.Path, [2]string{a.Name, a.Transition})
		}
		switch {
		case a.Type == engine.TypeEnd || a.Type == engine.TypeKill:
			// The path's end. A kill node's record is OK with the kill
			// message as its error: the job failed, not the node.
			n.End, d.End = true, a
		case nodeFailed(a):
			f := failedNode{node: n}
			if c.opts.ActionDir != nil {
				if tail, err := engine.TailFile(filepath.Join(c.opts.ActionDir(a), "stderr"), engine.StderrTailLines); err == nil {
					f.Stderr, f.StderrEmpty = m.Text(tail), tail == ""
				}
			}
			d.Failed = append(d.Failed, f)
		}
		d.Nodes = append(d.Nodes, n)
	}
}

// nodeFailed tells whether an action node's record is a failure worth
// listing: an error, or a status that ends or stalls it in error.
func nodeFailed(a *store.Action) bool {
	if a.ErrorCode != "" || a.ErrorMessage != "" {
		return true
	}
	switch a.Status {
	case store.ActionError, store.ActionFailed, store.ActionKilled, store.ActionStartManual, store.ActionEndManual:
		return true
	}
	return false
}

// controls are the changes that make sense in a status.
func controls(status string) []string {
	switch status {
	case "RUNNING", "PREP", "RUNNINGWITHERROR":
		return []string{"suspend", "kill"}
	case "SUSPENDED", "PREPSUSPENDED", "SUSPENDEDWITHERROR", "PAUSED", "PREPPAUSED", "PAUSEDWITHERROR":
		return []string{"resume", "kill"}
	}
	return nil
}

// confTable lists a configuration XML's properties sorted by name, their
// values masked by m (nil: shown); the raw text, masked, when it does not
// parse.
func confTable(x string, m *redact.Masker) ([][2]string, string) {
	if strings.TrimSpace(x) == "" {
		return nil, ""
	}
	cfg, err := conf.ParseXML(strings.NewReader(x), "job configuration")
	if err != nil {
		return nil, m.XML(x)
	}
	names := cfg.Names()
	sort.Strings(names)
	out := make([][2]string, 0, len(names))
	for _, n := range names {
		v, _ := cfg.Raw(n)
		out = append(out, [2]string{n, m.Value(n, v)})
	}
	return out, ""
}
