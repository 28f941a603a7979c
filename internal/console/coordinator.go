package console

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store"
)

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
	// SLA are the SLA records of the coordinator's actions, if any.
	SLA []*rest.SLASummary
}

// coordCell is one coordinator action.
type coordCell struct {
	*rest.CoordAction
	WorkflowURL string
	Missing     []coordengine.DatasetMissingDeps
	BlockedOn   string
	// Logic is the evaluated input logic of a WAITING action.
	Logic []string
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
			cell.Missing, cell.BlockedOn, cell.Logic = m.DataSets, m.BlockedOn, m.InputLogic
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
	d.SLA = c.jobSLA(r, id)
	c.render(w, http.StatusOK, "coordinator", page{Title: j.AppName + " " + id, Nav: "jobs", Live: !d.Terminal, Data: d})
}
