package console

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// funcs are the template helpers.
var funcs = template.FuncMap{
	"jobURL": jobURL,
	"time": func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format("2006-01-02 15:04:05")
	},
	// when is a time that may wrap between its date and its time of day.
	"when": func(t time.Time) template.HTML {
		if t.IsZero() {
			return "-"
		}
		u := t.UTC()
		return template.HTML(`<span class="nw">` + u.Format(time.DateOnly) + `</span> <span class="nw">` + u.Format(time.TimeOnly) + `</span>`)
	},
	// ptr is a bean value (rest.Str, rest.Text, rest.Time), "-" when
	// unset.
	"ptr": func(v fmt.Stringer) string {
		if s := v.String(); s != "" {
			return s
		}
		return "-"
	},
	"dash": func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	},
	// status is the CSS class of a status: the colour is a hint, the
	// status text is always shown beside it.
	"status": func(s string) string {
		switch s {
		case "SUCCEEDED", "OK", "DONE":
			return "st-ok"
		case "FAILED", "KILLED", "ERROR", "FAILED_KILLED", "TIMEDOUT", "DONEWITHERROR", "RUNNINGWITHERROR",
			"SUSPENDEDWITHERROR", "PAUSEDWITHERROR", "START_MANUAL", "END_MANUAL":
			return "st-bad"
		case "RUNNING", "READY", "SUBMITTED", "PREP", "START_RETRY", "END_RETRY":
			return "st-run"
		case "SUSPENDED", "PREPSUSPENDED", "PAUSED", "PREPPAUSED", "WAITING":
			return "st-wait"
		}
		return "st-other"
	},
	"terminal": func(s string) bool {
		switch s {
		case "SUCCEEDED", "KILLED", "FAILED", "DONEWITHERROR", "IGNORED":
			return true
		}
		return false
	},
	"pathEscape": url.PathEscape,
	"label": func(act string) string {
		switch act {
		case "rerun-failed":
			return "Rerun failed nodes"
		case "rerun-skip":
			return "Rerun"
		case "coord-rerun":
			return "Rerun actions"
		}
		return strings.ToUpper(act[:1]) + act[1:]
	},
}

// jobsData is the jobs page.
type jobsData struct {
	Tab                 string // "wf" or "coord"
	Status, User, Name  string
	Text                string // free text: id, name, app path or user
	From, To            string // created between these days (UTC, inclusive)
	Offset, Len, Total  int
	First, Last         int
	PrevURL, NextURL    string
	WfTabURL, CoTabURL  string
	Workflows           []*store.Job
	Coordinators        []*rest.CoordJob
	WfStatuses, CoStats []string
	Err                 string
}

var (
	wfStatuses    = []string{"PREP", "RUNNING", "SUSPENDED", "SUCCEEDED", "KILLED", "FAILED"}
	coordStatuses = []string{"PREP", "RUNNING", "SUSPENDED", "PREPSUSPENDED", "PAUSED", "PREPPAUSED", "SUCCEEDED",
		"DONEWITHERROR", "RUNNINGWITHERROR", "SUSPENDEDWITHERROR", "PAUSEDWITHERROR", "KILLED", "FAILED", "IGNORED"}
)

// splitList reads a comma list filter value.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// intParam reads a positive integer query parameter.
func intParam(q url.Values, name string, def, max int) int {
	n, err := strconv.Atoi(q.Get(name))
	if err != nil || n < 1 {
		return def
	}
	return min(n, max)
}

// jobs renders the jobs page: one paged, filtered store query per view.
func (c *Console) jobs(w http.ResponseWriter, r *http.Request) {
	d := c.jobsPage(r)
	c.render(w, http.StatusOK, "jobs", page{Title: "Jobs", Nav: "jobs", Live: true, Data: d})
}

func (c *Console) jobsPage(r *http.Request) *jobsData {
	q := r.URL.Query()
	d := &jobsData{Tab: "wf", Status: strings.ToUpper(strings.TrimSpace(q.Get("status"))), User: strings.TrimSpace(q.Get("user")),
		Name: strings.TrimSpace(q.Get("name")), Text: strings.TrimSpace(q.Get("text")), Offset: intParam(q, "offset", 1, 1<<30), Len: intParam(q, "len", jobsPageLen, 1000),
		WfStatuses: wfStatuses, CoStats: coordStatuses}
	if q.Get("tab") == "coord" {
		d.Tab = "coord"
	}
	f := store.JobFilter{Statuses: splitList(d.Status), Users: splitList(d.User), Names: splitList(d.Name), Text: d.Text,
		Offset: d.Offset - 1, Limit: d.Len, Brief: true}
	d.From, d.To = strings.TrimSpace(q.Get("from")), strings.TrimSpace(q.Get("to"))
	var err error
	if d.From != "" {
		if f.CreatedAfter, err = time.Parse(time.DateOnly, d.From); err != nil {
			d.Err = "bad from date [" + d.From + "], want YYYY-MM-DD"
			return d
		}
	}
	if d.To != "" {
		to, err := time.Parse(time.DateOnly, d.To)
		if err != nil {
			d.Err = "bad to date [" + d.To + "], want YYYY-MM-DD"
			return d
		}
		f.CreatedBefore = to.Add(24*time.Hour - time.Millisecond)
	}
	if d.Tab == "coord" {
		d.Coordinators, d.Total, err = c.opts.Coordinators.CoordJobList(ctxOf(r), f)
	} else {
		d.Workflows, d.Total, err = c.opts.Engine.Jobs(ctxOf(r), f)
	}
	if err != nil {
		d.Err = err.Error()
	}
	link := func(tab string, offset int) string {
		v := url.Values{}
		v.Set("tab", tab)
		for k, s := range map[string]string{"status": d.Status, "user": d.User, "name": d.Name, "text": d.Text, "from": d.From, "to": d.To} {
			if s != "" {
				v.Set(k, s)
			}
		}
		if offset > 1 {
			v.Set("offset", strconv.Itoa(offset))
		}
		if d.Len != jobsPageLen {
			v.Set("len", strconv.Itoa(d.Len))
		}
		return Prefix + "?" + v.Encode()
	}
	n := len(d.Workflows) + len(d.Coordinators)
	if n > 0 {
		d.First, d.Last = d.Offset, d.Offset+n-1
	}
	if d.Offset > 1 {
		d.PrevURL = link(d.Tab, max(1, d.Offset-d.Len))
	}
	if d.Offset-1+n < d.Total {
		d.NextURL = link(d.Tab, d.Offset+d.Len)
	}
	d.WfTabURL, d.CoTabURL = link("wf", 1), link("coord", 1)
	return d
}

// job renders a workflow or coordinator job page; an action id opens its
// job's page at the action.
func (c *Console) job(w http.ResponseWriter, r *http.Request, id string) {
	if jobID, act, ok := vocab.SplitID(id); ok {
		if vocab.IsCoordJob(jobID) {
			http.Redirect(w, r, jobURL(jobID)+"#a"+url.PathEscape(act), http.StatusFound)
		} else {
			http.Redirect(w, r, jobURL(jobID)+"#n-"+url.PathEscape(act), http.StatusFound)
		}
		return
	}
	if vocab.IsCoordJob(id) {
		c.coordinator(w, r, id)
		return
	}
	c.workflow(w, r, id)
}

// wfData is the workflow job page.
type wfData struct {
	Job       *store.Job
	Nodes     []node
	Children  []*store.Job
	Parent    string // console URL of the parent job, if any
	ParentID  string
	Conf      [][2]string
	ConfRaw   string
	Log       string
	GraphURL  string
	Terminal  bool
	Controls  []string
	Failed    []node
	ConsoleID string
	// Rerun lists the nodes a rerun may skip (a finished job only):
	// those that succeeded are ticked.
	Rerun []rerunNode
	// Path is the transitions taken, in the order the nodes were
	// reached: the graph colours the nodes, this names the edges.
	Path [][2]string
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
		GraphURL: "/oozie/v2/job/" + url.PathEscape(id) + "?show=graph&show-kill=true&format=svg"}
	for _, a := range acts {
		n := node{Action: a, Output: c.hasOutput(a)}
		if a.Type == "sub-workflow" && a.ExternalID != "" {
			n.ChildURL = jobURL(a.ExternalID)
		}
		d.Nodes = append(d.Nodes, n)
		if a.Transition != "" {
			d.Path = append(d.Path, [2]string{a.Name, a.Transition})
		}
		if a.ErrorCode != "" || a.ErrorMessage != "" || a.Status == "ERROR" || a.Status == "FAILED" || a.Status == "KILLED" {
			d.Failed = append(d.Failed, n)
		}
	}
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
	c.render(w, http.StatusOK, "workflow", page{Title: j.AppName + " " + id, Nav: "jobs", Live: !d.Terminal, Data: d})
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

// coordData is the coordinator job page.
type coordData struct {
	Job              *store.CoordJob
	Actions          []coordCell
	Total            int
	Offset, Len      int
	First, Last      int
	PrevURL, NextURL string
	Desc             bool
	OrderURL         string
	Conf             [][2]string
	ConfRaw          string
	Definition       string
	Terminal         bool
	Controls         []string
	// Scope is the action range shown, the default scope of the
	// rerun and ignore forms.
	Scope string
}

// coordCell is one coordinator action.
type coordCell struct {
	*rest.CoordAction
	WorkflowURL string
	Missing     []coordengine.DatasetMissingDeps
	BlockedOn   string
}

func (c *Console) coordinator(w http.ResponseWriter, r *http.Request, id string) {
	ctx := ctxOf(r)
	q := r.URL.Query()
	j, err := c.opts.Coordinators.CoordJob(ctx, id)
	if err != nil {
		c.engineFail(w, r, err)
		return
	}
	m := c.masker(r, j.User, j.Group, j.ACL, j.Conf)
	d := &coordData{Job: j, Offset: intParam(q, "offset", 1, 1<<30), Len: intParam(q, "len", jobsPageLen, 1000),
		Desc: q.Get("order") == "desc", Terminal: store.Terminal(j.Status) || j.Status == "DONEWITHERROR" || j.Status == "IGNORED"}
	info, err := c.opts.Coordinators.CoordJobInfo(ctx, id, d.Offset, d.Len, d.Desc, nil)
	if err != nil {
		c.engineFail(w, r, err)
		return
	}
	d.Total = info.Total
	missing := map[int]coordengine.MissingDependencies{}
	if md, err := c.opts.Coordinators.CoordMissingDependencies(ctx, id, "", ""); err == nil {
		for _, m := range md {
			missing[m.ID] = m
		}
	}
	for _, a := range info.Actions {
		if m != nil && a.ErrorMessage != "" {
			ma := *a
			ma.ErrorMessage = rest.Str(m.Text(string(a.ErrorMessage)))
			a = &ma
		}
		cell := coordCell{CoordAction: a}
		if a.ExternalID != "" {
			cell.WorkflowURL = jobURL(string(a.ExternalID))
		}
		if m, ok := missing[a.ActionNumber]; ok && a.Status == "WAITING" {
			cell.Missing, cell.BlockedOn = m.DataSets, m.BlockedOn
		}
		d.Actions = append(d.Actions, cell)
	}
	link := func(offset int, desc bool) string {
		v := url.Values{}
		if offset > 1 {
			v.Set("offset", strconv.Itoa(offset))
		}
		if d.Len != jobsPageLen {
			v.Set("len", strconv.Itoa(d.Len))
		}
		if desc {
			v.Set("order", "desc")
		}
		return jobURL(id) + "?" + v.Encode()
	}
	if n := len(d.Actions); n > 0 {
		d.First, d.Last = d.Offset, d.Offset+n-1
		if d.Offset-1+n < d.Total {
			d.NextURL = link(d.Offset+d.Len, d.Desc)
		}
	}
	if d.Offset > 1 {
		d.PrevURL = link(max(1, d.Offset-d.Len), d.Desc)
	}
	d.OrderURL = link(1, !d.Desc)
	if d.First > 0 {
		lo, hi := d.Actions[0].ActionNumber, d.Actions[len(d.Actions)-1].ActionNumber
		d.Scope = strconv.Itoa(min(lo, hi)) + "-" + strconv.Itoa(max(lo, hi))
	}
	d.Conf, d.ConfRaw = confTable(j.Conf, m)
	d.Definition = m.XML(j.Definition)
	d.Controls = controls(j.Status)
	c.render(w, http.StatusOK, "coordinator", page{Title: j.AppName + " " + id, Nav: "jobs", Live: !d.Terminal, Data: d})
}

// systemData is the system page.
type systemData struct {
	Version, Mode, Store string
	ReadOnly             bool
	Counts               [][2]string
	// WfByStatus and CoordByStatus count the jobs of each status;
	// Metrics are the REST layer's counters (admin/instrumentation).
	WfByStatus, CoordByStatus [][2]string
	Metrics                   [][2]string
	// Servers are the live servers sharing the store, this one marked.
	Servers []serverRow
	Err     string
}

// serverRow is one live server on the system page.
type serverRow struct {
	Name, URL, Version, Heartbeat string
	Load                          int
	Self                          bool
}

func (c *Console) system(w http.ResponseWriter, r *http.Request) {
	d := &systemData{Version: c.opts.Version, Mode: c.opts.Mode(), Store: c.opts.StoreKind, ReadOnly: c.opts.ReadOnly}
	for _, s := range []string{"", "RUNNING", "SUSPENDED", "FAILED"} {
		f := store.JobFilter{Limit: 1, Brief: true}
		label := "workflows"
		if s != "" {
			f.Statuses, label = []string{s}, "workflows "+s
		}
		_, n, err := c.opts.Engine.Jobs(ctxOf(r), f)
		if err != nil {
			d.Err = err.Error()
			break
		}
		d.Counts = append(d.Counts, [2]string{label, strconv.Itoa(n)})
	}
	if _, n, err := c.opts.Coordinators.CoordJobList(ctxOf(r), store.JobFilter{Limit: 1, Brief: true}); err == nil {
		d.Counts = append(d.Counts, [2]string{"coordinators", strconv.Itoa(n)})
	}
	// One count query per status: each an indexed COUNT, not a scan of
	// the rows' contents.
	for _, s := range wfStatuses {
		if _, n, err := c.opts.Engine.Jobs(ctxOf(r), store.JobFilter{Statuses: []string{s}, Limit: 1, Brief: true}); err == nil && n > 0 {
			d.WfByStatus = append(d.WfByStatus, [2]string{s, strconv.Itoa(n)})
		}
	}
	for _, s := range coordStatuses {
		if _, n, err := c.opts.Coordinators.CoordJobList(ctxOf(r), store.JobFilter{Statuses: []string{s}, Limit: 1, Brief: true}); err == nil && n > 0 {
			d.CoordByStatus = append(d.CoordByStatus, [2]string{s, strconv.Itoa(n)})
		}
	}
	if c.opts.Counters != nil {
		m := c.opts.Counters()
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			d.Metrics = append(d.Metrics, [2]string{k, strconv.FormatInt(m[k], 10)})
		}
	}
	if c.opts.Servers != nil {
		live, err := c.opts.Servers(ctxOf(r))
		if err != nil {
			d.Err = err.Error()
		}
		self := ""
		if c.opts.Self != nil {
			self = c.opts.Self()
		}
		for _, s := range live {
			d.Servers = append(d.Servers, serverRow{Name: s.Name, URL: s.URL, Version: s.Version, Load: s.Load,
				Heartbeat: s.Heartbeat.UTC().Format("2006-01-02 15:04:05 MST"), Self: s.ID == self})
		}
	}
	c.render(w, http.StatusOK, "system", page{Title: "System", Nav: "system", Data: d})
}
