package console

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/store"
)

// The run-history grid: the runs of one application side by side, oldest
// on the left, one row per action node, each cell coloured by the node's
// status in that run (as Airflow's grid view shows a DAG's runs). The runs
// are a coordinator's actions (?coord=<id>) or the workflow jobs of one
// application name (?name=<app>, optionally &user=<user>).

// runsPageLen is how many runs the grid shows by default; runsMax bounds
// len (each run is one job read).
const (
	runsPageLen = 30
	runsMax     = 100
)

// runsData is the run-history page.
type runsData struct {
	Name, User, Coord  string
	Title              string
	Runs               []gridRun
	Rows               []gridRow
	Total              int
	Offset, Len        int
	OlderURL, NewerURL string
	Err                string
}

// gridRun is one column: a workflow job, or a coordinator action and the
// workflow it launched (none yet while it waits).
type gridRun struct {
	Label   string    // a coordinator action's number
	Created time.Time // a workflow job's creation, its label else
	Status  string
	URL     string // the run's page
	Title   string // what a pointer shows: id, status, times, duration
	WfID    string
	nodes   map[string]*store.Action
	order   []string // the nodes in the order the run reached them
}

// gridRow is one node's statuses across the runs.
type gridRow struct {
	Node  string
	Cells []gridCell
}

// gridCell is one node in one run; Status "" when the run did not reach
// it.
type gridCell struct {
	Status, Title, URL string
}

// runs renders the run-history grid.
func (c *Console) runs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := &runsData{Name: strings.TrimSpace(q.Get("name")), User: strings.TrimSpace(q.Get("user")), Coord: strings.TrimSpace(q.Get("coord")),
		Offset: intParam(q, "offset", 1, 1<<30), Len: intParam(q, "len", runsPageLen, runsMax)}
	var err error
	switch {
	case d.Coord != "":
		err = c.coordRuns(r, d)
	case d.Name != "":
		err = c.appRuns(r, d)
	default:
		c.fail(w, r, failf(http.StatusBadRequest, codeMissingParam, "Missing parameter [name or coord]: whose runs to show"))
		return
	}
	if err != nil {
		c.engineFail(w, r, err)
		return
	}
	slices.Reverse(d.Runs) // read newest first; shown oldest on the left
	d.Rows = gridRows(d.Runs, c.opts.Now())
	link := func(offset int) string {
		v := url.Values{}
		for k, s := range map[string]string{"name": d.Name, "user": d.User, "coord": d.Coord} {
			if s != "" {
				v.Set(k, s)
			}
		}
		if offset > 1 {
			v.Set("offset", strconv.Itoa(offset))
		}
		if d.Len != runsPageLen {
			v.Set("len", strconv.Itoa(d.Len))
		}
		return Prefix + "runs?" + v.Encode()
	}
	if d.Offset-1+len(d.Runs) < d.Total {
		d.OlderURL = link(d.Offset + d.Len)
	}
	if d.Offset > 1 {
		d.NewerURL = link(max(1, d.Offset-d.Len))
	}
	live := false
	for _, run := range d.Runs {
		live = live || !terminalStatus(run.Status)
	}
	c.render(w, http.StatusOK, "runs", page{Title: "Runs of " + d.Title, Nav: "jobs", Live: live, Data: d})
}

// appRuns reads the newest workflow jobs of an application name.
func (c *Console) appRuns(r *http.Request, d *runsData) error {
	d.Title = d.Name
	f := store.JobFilter{Names: []string{d.Name}, Offset: d.Offset - 1, Limit: d.Len, Brief: true}
	if d.User != "" {
		f.Users = []string{d.User}
	}
	jobs, total, err := c.opts.Engine.Jobs(ctxOf(r), f)
	if err != nil {
		return err
	}
	d.Total = total
	for _, j := range jobs {
		run := gridRun{Created: j.CreatedTime, Status: j.Status, URL: jobURL(j.ID), WfID: j.ID,
			Title: j.ID + " " + j.Status + ", created " + stamp(j.CreatedTime) + ", took " + duration(j.StartTime, j.EndTime, c.opts.Now())}
		c.readNodes(r, &run)
		d.Runs = append(d.Runs, run)
	}
	return nil
}

// coordRuns reads the newest actions of a coordinator and their
// workflows.
func (c *Console) coordRuns(r *http.Request, d *runsData) error {
	j, err := c.opts.Coordinators.CoordJob(ctxOf(r), d.Coord)
	if err != nil {
		return err
	}
	d.Title = j.AppName + " (" + d.Coord + ")"
	info, err := c.opts.Coordinators.CoordJobInfo(ctxOf(r), d.Coord, d.Offset, d.Len, true, nil)
	if err != nil {
		return err
	}
	d.Total = info.Total
	for _, a := range info.Actions {
		run := gridRun{Label: "#" + strconv.Itoa(a.ActionNumber), Status: a.Status, URL: jobURL(d.Coord) + "#a" + strconv.Itoa(a.ActionNumber),
			Title: "action " + strconv.Itoa(a.ActionNumber) + " " + a.Status + ", nominal time " + stamp(a.NominalTime.Time)}
		if id := string(a.ExternalID); id != "" {
			run.WfID, run.URL = id, jobURL(id)
			run.Title += ", workflow " + id
			c.readNodes(r, &run)
		}
		d.Runs = append(d.Runs, run)
	}
	return nil
}

// readNodes reads a run's workflow's action nodes; a workflow that cannot
// be read shows no nodes (its column still has its status).
func (c *Console) readNodes(r *http.Request, run *gridRun) {
	_, acts, err := c.opts.Engine.Job(ctxOf(r), run.WfID)
	if err != nil {
		return
	}
	run.nodes = map[string]*store.Action{}
	for _, a := range acts {
		if !controlNode(a.Type) {
			run.nodes[a.Name] = a
			run.order = append(run.order, a.Name)
		}
	}
}

// gridRows lays the runs' nodes out as rows: the nodes of the newest run
// first in the order it reached them, then those only older runs had.
func gridRows(runs []gridRun, now time.Time) []gridRow {
	var names []string
	seen := map[string]bool{}
	for i := len(runs) - 1; i >= 0; i-- {
		for _, n := range runs[i].order {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	rows := make([]gridRow, 0, len(names))
	for _, n := range names {
		row := gridRow{Node: n}
		for _, run := range runs {
			cell := gridCell{}
			if a := run.nodes[n]; a != nil {
				cell.Status = a.Status
				cell.URL = jobURL(run.WfID) + "#n-" + url.PathEscape(n)
				cell.Title = n + " " + a.Status + " in " + run.WfID + ", took " + duration(a.StartTime, a.EndTime, now)
				if a.ErrorCode != "" {
					cell.Title += ", " + a.ErrorCode
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		rows = append(rows, row)
	}
	return rows
}

// controlNode tells the control nodes (start, end, kill, fork, join,
// decision) from the action nodes the grid shows.
func controlNode(typ string) bool {
	switch typ {
	case engine.TypeStart, engine.TypeEnd, engine.TypeKill, engine.TypeFork, engine.TypeJoin, engine.TypeDecision:
		return true
	}
	return strings.HasPrefix(typ, ":")
}

// terminalStatus tells a job or coordinator action status that will not
// change by itself.
func terminalStatus(s string) bool {
	switch s {
	case "SUCCEEDED", "KILLED", "FAILED", "DONEWITHERROR", "IGNORED", "TIMEDOUT", "SKIPPED":
		return true
	}
	return false
}

// stamp is a time as the console writes it, in plain text.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.DateTime)
}
