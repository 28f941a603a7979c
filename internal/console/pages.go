package console

import (
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// jobsData is the jobs page.
type jobsData struct {
	Tab                string // "wf", "coord" or "bundle"
	Status, User, Name string
	Text               string // free text: id, name, app path or user
	// Parent keeps the workflows launched by one coordinator (its id),
	// one coordinator action or one workflow (sub-workflows).
	Parent             string
	From, To           string // created between these days (UTC, inclusive)
	Offset, Len, Total int
	// More says that Total is a floor: the free-text search counts up
	// to textCountCap jobs.
	More                bool
	First, Last         int
	PrevURL, NextURL    string
	WfTabURL, CoTabURL  string
	BuTabURL            string
	Workflows           []*store.Job
	Coordinators        []*rest.CoordJob
	Bundles             []*rest.BundleJob
	WfStatuses, CoStats []string
	BuStats             []string
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

// parentFilter is the store filter of the jobs page's parent: a
// coordinator's id selects the workflows of all its actions (a prefix),
// any other id (a coordinator action, a workflow) its own children.
func parentFilter(parent string) (id, prefix string) {
	if parent == "" {
		return "", ""
	}
	if vocab.IsCoordJob(parent) && !strings.Contains(parent, "@") {
		return "", parent + "@"
	}
	return parent, ""
}

// textCountCap is where the jobs page stops counting the matches of its
// free-text search and says "more than": no index counts substrings, so
// a common one (a user's name, "-W") would otherwise count most jobs
// (1.6-2.2 s on a million; docs/benchmarks.md, issue 31).
const textCountCap = 1000

// jobs renders the jobs page: one paged, filtered store query per view.
func (c *Console) jobs(w http.ResponseWriter, r *http.Request) {
	d := c.jobsPage(r)
	c.render(w, http.StatusOK, "jobs", page{Title: "Jobs", Nav: "jobs", Live: true, Data: d})
}

func (c *Console) jobsPage(r *http.Request) *jobsData {
	q := r.URL.Query()
	d := &jobsData{Tab: "wf", Status: strings.ToUpper(strings.TrimSpace(q.Get("status"))), User: strings.TrimSpace(q.Get("user")),
		Name: strings.TrimSpace(q.Get("name")), Text: strings.TrimSpace(q.Get("text")), Parent: strings.TrimSpace(q.Get("parent")), Offset: intParam(q, "offset", 1, 1<<30), Len: intParam(q, "len", jobsPageLen, 1000),
		WfStatuses: wfStatuses, CoStats: coordStatuses, BuStats: bundleStatuses}
	if t := q.Get("tab"); t == "coord" || t == "bundle" {
		d.Tab = t
	}
	f := store.JobFilter{Statuses: splitList(d.Status), Users: splitList(d.User), Names: splitList(d.Name), Text: d.Text,
		Offset: d.Offset - 1, Limit: d.Len, Brief: true}
	if d.Text != "" {
		f.CountCap = textCountCap
	}
	if d.Tab == "wf" {
		f.ParentID, f.ParentPrefix = parentFilter(d.Parent)
	}
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
	switch d.Tab {
	case "coord":
		d.Coordinators, d.Total, err = c.opts.Coordinators.CoordJobList(ctxOf(r), f)
	case "bundle":
		d.Bundles, d.Total, err = c.opts.Bundles.BundleJobList(ctxOf(r), f)
	default:
		d.Workflows, d.Total, err = c.opts.Engine.Jobs(ctxOf(r), f)
	}
	if err != nil {
		d.Err = err.Error()
	}
	if f.CountCap > 0 && d.Total > f.CountCap {
		d.Total, d.More = f.CountCap, true
	}
	link := func(tab string, offset int) string {
		v := url.Values{}
		v.Set("tab", tab)
		for k, s := range map[string]string{"status": d.Status, "user": d.User, "name": d.Name, "text": d.Text, "parent": d.Parent, "from": d.From, "to": d.To} {
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
	n := len(d.Workflows) + len(d.Coordinators) + len(d.Bundles)
	if n > 0 {
		d.First, d.Last = d.Offset, d.Offset+n-1
	}
	if d.Offset > 1 {
		d.PrevURL = link(d.Tab, max(1, d.Offset-d.Len))
	}
	if d.Offset-1+n < d.Total || (d.More && n == d.Len) {
		d.NextURL = link(d.Tab, d.Offset+d.Len)
	}
	d.WfTabURL, d.CoTabURL, d.BuTabURL = link("wf", 1), link("coord", 1), link("bundle", 1)
	return d
}

// job renders a workflow, coordinator or bundle job page; an action id
// opens its job's page at the action.
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
	if vocab.IsBundleJob(id) {
		c.bundle(w, r, id)
		return
	}
	c.workflow(w, r, id)
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
	Name, URL, Version string
	Heartbeat          time.Time
	Load               int
	Self               bool
}

func (c *Console) system(w http.ResponseWriter, r *http.Request) {
	d := &systemData{Version: c.opts.Version, Mode: c.opts.Mode(), Store: c.opts.StoreKind, ReadOnly: c.opts.ReadOnly}
	// Failed counts the KILLED with the FAILED, as Oozie's console
	// does: a workflow that ends at a kill node is KILLED, and FAILED
	// alone would count almost none of the failures.
	for _, s := range []struct {
		label    string
		statuses []string
	}{
		{"workflows", nil}, {"workflows RUNNING", []string{"RUNNING"}}, {"workflows SUSPENDED", []string{"SUSPENDED"}},
		{"workflows FAILED or KILLED", []string{"FAILED", "KILLED"}},
	} {
		f := store.JobFilter{Limit: 1, Brief: true, Statuses: s.statuses}
		label := s.label
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
	if _, n, err := c.opts.Bundles.BundleJobList(ctxOf(r), store.JobFilter{Limit: 1, Brief: true}); err == nil && n > 0 {
		d.Counts = append(d.Counts, [2]string{"bundles", strconv.Itoa(n)})
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
				Heartbeat: s.Heartbeat, Self: s.ID == self})
		}
	}
	c.render(w, http.StatusOK, "system", page{Title: "System", Nav: "system", Data: d})
}
