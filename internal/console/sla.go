package console

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store"
)

// SLAs is what the console reads of the SLA tracker (Options.SLAs); the
// server's SLAs satisfies it.
type SLAs interface {
	SLAList(ctx context.Context, f store.SLAFilter) ([]*store.SLA, error)
}

// SLASummary is the REST bean of an SLA record as GET /v2/sla and the
// console show it at now (rest-api.md 5.7): dates in epoch milliseconds
// (SLASummary.In turns them into date strings), delays and event status
// derived from the record's times at now. It lives here, where the
// server can reach it, because the rest package reads no store records.
func SLASummary(rec *store.SLA, now time.Time) *rest.SLASummary {
	b := &rest.SLASummary{ID: rec.ID, ParentID: rec.ParentID, AppName: rest.Str(rec.AppName), AppType: rest.Str(rec.AppType),
		User: rest.Str(rec.User), NominalTime: rest.SLADate(rec.NominalTime), ExpectedStart: rest.SLADate(rec.ExpectedStart),
		ActualStart: rest.SLADate(rec.ActualStart), ExpectedEnd: rest.SLADate(rec.ExpectedEnd), ActualEnd: rest.SLADate(rec.ActualEnd),
		ExpectedDuration: rec.ExpectedDurationMs, ActualDuration: rec.ActualDurationMs, JobStatus: rest.Str(rec.JobStatus),
		SLAStatus: rest.Str(rec.SLAStatus), LastModified: rest.SLADate(rec.LastModTime), SLAAlertStatus: "Enabled"}
	if rec.Disabled {
		b.SLAAlertStatus = "Disabled"
	}
	b.Compute(now)
	return b
}

// slaStatusChoices are the SLA statuses the SLA page filters by.
var slaStatusChoices = []string{"NOT_STARTED", "IN_PROCESS", "MET", "MISS"}

// slaData is the SLA page.
type slaData struct {
	Rows []*rest.SLASummary
	// The filters: application name (SQL LIKE patterns allowed), SLA
	// status, and an id or parent id.
	AppName, Status, ID string
	Statuses            []string
	Offset, Len         int
	First, Last         int
	PrevURL, NextURL    string
	Enabled             bool
	Err                 string
}

// slaPage renders the SLA tab: one page of records, most recent nominal
// time first.
func (c *Console) slaPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := &slaData{AppName: strings.TrimSpace(q.Get("app_name")), Status: strings.ToUpper(strings.TrimSpace(q.Get("sla_status"))),
		ID: strings.TrimSpace(q.Get("id")), Statuses: slaStatusChoices, Enabled: c.opts.SLAs != nil,
		Offset: intParam(q, "offset", 1, 1<<30), Len: intParam(q, "len", jobsPageLen, 1000)}
	if c.opts.SLAs != nil {
		f := slaFilter()
		f.SortBy, f.Desc, f.Offset, f.Limit = "nominalTimeTS", true, d.Offset-1, d.Len+1
		f.AppNames, f.SLAStatuses = splitList(d.AppName), splitList(d.Status)
		if d.ID != "" {
			// The records of the job or action and those of its children.
			f.IDs = []string{d.ID}
			rows, err := c.opts.SLAs.SLAList(ctxOf(r), f)
			f.IDs, f.ParentIDs = nil, []string{d.ID}
			kids, err2 := c.opts.SLAs.SLAList(ctxOf(r), f)
			d.Rows, d.Err = c.slaRows(append(rows, kids...)), errText(err, err2)
		} else {
			rows, err := c.opts.SLAs.SLAList(ctxOf(r), f)
			d.Rows, d.Err = c.slaRows(rows), errText(err)
		}
	}
	link := func(offset int) string {
		v := url.Values{}
		for k, s := range map[string]string{"app_name": d.AppName, "sla_status": d.Status, "id": d.ID} {
			if s != "" {
				v.Set(k, s)
			}
		}
		if offset > 1 {
			v.Set("offset", strconv.Itoa(offset))
		}
		return Prefix + "sla?" + v.Encode()
	}
	if len(d.Rows) > d.Len {
		d.Rows = d.Rows[:d.Len]
		d.NextURL = link(d.Offset + d.Len)
	}
	if n := len(d.Rows); n > 0 {
		d.First, d.Last = d.Offset, d.Offset+n-1
	}
	if d.Offset > 1 {
		d.PrevURL = link(max(1, d.Offset-d.Len))
	}
	c.render(w, http.StatusOK, "sla", page{Title: "SLA", Nav: "sla", Live: true, Data: d})
}

// slaFilter is a filter that bounds nothing.
func slaFilter() store.SLAFilter {
	return store.SLAFilter{ActualDurationMin: -1, ActualDurationMax: -1, ExpectedDurationMin: -1, ExpectedDurationMax: -1}
}

// slaRows are the beans of records, as the page shows them now.
func (c *Console) slaRows(recs []*store.SLA) []*rest.SLASummary {
	now := c.opts.Now()
	out := make([]*rest.SLASummary, len(recs))
	for i, rec := range recs {
		out[i] = SLASummary(rec, now)
	}
	return out
}

// jobSLA is the SLA section of a job page: the records of the job itself
// and of its actions (a workflow's actions, a coordinator's actions),
// nil when there are none or the console has no SLA tracker. An error
// leaves the section out rather than the page: the SLA is an aside.
func (c *Console) jobSLA(r *http.Request, id string) []*rest.SLASummary {
	if c.opts.SLAs == nil {
		return nil
	}
	f := slaFilter()
	f.IDs, f.Limit = []string{id}, 1
	own, err := c.opts.SLAs.SLAList(ctxOf(r), f)
	if err != nil {
		return nil
	}
	f.IDs, f.ParentIDs, f.Limit = nil, []string{id}, 200
	kids, err := c.opts.SLAs.SLAList(ctxOf(r), f)
	if err != nil {
		return c.rowsOrNil(own)
	}
	return c.rowsOrNil(append(own, kids...))
}

// rowsOrNil is slaRows, nil for no records (the template hides the
// section then).
func (c *Console) rowsOrNil(recs []*store.SLA) []*rest.SLASummary {
	if len(recs) == 0 {
		return nil
	}
	return c.slaRows(recs)
}

// errText is the first error's text, "" for none.
func errText(errs ...error) string {
	for _, err := range errs {
		if err != nil {
			return err.Error()
		}
	}
	return ""
}
