package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/vocab"
)

// Kind is what a job or action id names, decided by its suffix as the
// server does (rest-api §6).
type Kind int

// Id kinds.
const (
	KindWorkflow Kind = iota
	KindWorkflowAction
	KindCoord
	KindCoordAction
	KindBundle
)

// KindOf classifies id as the server does (vocab.KindOf): an action of a
// "-W" or "-C" job, suffix "-B" bundle, "-W" workflow, anything else
// coordinator (the server's default branch).
func KindOf(id string) Kind {
	switch vocab.KindOf(id) {
	case vocab.IDWorkflowAction:
		return KindWorkflowAction
	case vocab.IDCoordAction:
		return KindCoordAction
	case vocab.IDBundle:
		return KindBundle
	case vocab.IDWorkflow:
		return KindWorkflow
	}
	return KindCoord
}

func jobPath(id string) string { return "job/" + url.PathEscape(id) }

// submit posts conf to /jobs with the given action ("" submit, "start",
// "dryrun") and returns the id the server answers.
func (c *Client) submit(ctx context.Context, cf *conf.Config, action string) (string, json.RawMessage, error) {
	body, err := confBody(cf)
	if err != nil {
		return "", nil, err
	}
	q := url.Values{}
	if action != "" {
		q.Set("action", action)
	}
	if c.opts.User != "" {
		q.Set("user", c.opts.User)
	}
	resp, err := c.call(ctx, &request{method: http.MethodPost, path: "jobs", query: q, body: body, ctype: xmlContentType,
		ok: []int{http.StatusCreated, http.StatusOK}})
	if err != nil {
		return "", nil, err
	}
	var v struct {
		ID string `json:"id"`
	}
	if err := decode(resp, &v); err != nil {
		return "", resp.body, err
	}
	return v.ID, resp.body, nil
}

// Submit creates a job from the job configuration cf (PREP), or creates and
// starts it when start is true, and returns its id.
func (c *Client) Submit(ctx context.Context, cf *conf.Config, start bool) (string, json.RawMessage, error) {
	action := ""
	if start {
		action = "start"
	}
	return c.submit(ctx, cf, action)
}

// PropExternalID is the workflow property naming one submission: the
// server answers a repeated submission with the same value (and user) with
// the job the first one created.
const PropExternalID = "oozie.wf.external.id"

// SubmitRetrying is Submit for a workflow configuration carrying
// oozie.wf.external.id, which makes a repeated submission harmless: when
// no answer arrives (a connection reset, a timeout) or the server answers
// 5xx (its database is unavailable), it sends the submission again, up to
// attempts times in all, after 1s, 2s, 4s, ... (Options.Sleep). A
// configuration without an external id is sent once: repeating it could
// create two jobs.
func (c *Client) SubmitRetrying(ctx context.Context, cf *conf.Config, start bool, attempts int) (string, json.RawMessage, error) {
	if v, _ := cf.Get(PropExternalID); strings.TrimSpace(v) == "" {
		attempts = 1
	}
	for n := 1; ; n++ {
		id, raw, err := c.Submit(ctx, cf, start)
		if err == nil || n >= attempts || ctx.Err() != nil || !retrySubmission(err) {
			return id, raw, err
		}
		wait := time.Second << (n - 1)
		if c.opts.RetryLog != nil {
			fmt.Fprintf(c.opts.RetryLog, "Submission failed [ %v ]. Sending it again (same %s) after %d sec. Retry count = %d\n",
				err, PropExternalID, wait/time.Second, n)
		}
		c.opts.Sleep(wait)
	}
}

// retrySubmission reports the failures after which the server may or may
// not have created the job, or may accept it shortly: no response at all,
// or a server error. The safe-mode refusal (503 E0002) is an
// administrator's decision, not a passing failure: it is not repeated.
func retrySubmission(err error) bool {
	var e *CallError
	return errors.As(err, &e) && (e.Status == 0 || e.Status >= 500) && e.Code != "E0002"
}

// Dryrun checks the job cf would create without creating it. The answer is
// "OK" for a workflow, the materialized XML for coordinators and bundles.
func (c *Client) Dryrun(ctx context.Context, cf *conf.Config) (string, json.RawMessage, error) {
	return c.submit(ctx, cf, "dryrun")
}

// InfoOptions select the actions returned with a job's info. Offset and Len
// are sent when non-zero or, for coordinators, as -1 when unset so that the
// server applies its defaults (rest-api §4.1).
type InfoOptions struct {
	Offset, Len int
	Order       string // "desc" for newest first (coordinators)
	Filter      string // coordinator action filter (rest-api §7.2)
}

// WorkflowInfo returns a workflow job with its actions.
func (c *Client) WorkflowInfo(ctx context.Context, id string, o InfoOptions) (*WorkflowJob, json.RawMessage, error) {
	q := url.Values{"show": {"info"}, "offset": {itoa(o.Offset)}, "len": {itoa(o.Len)}}
	var v WorkflowJob
	raw, err := c.getJSON(ctx, jobPath(id), q, &v)
	return &v, raw, err
}

// CoordInfo returns a coordinator job with the actions o selects.
func (c *Client) CoordInfo(ctx context.Context, id string, o InfoOptions) (*CoordJob, json.RawMessage, error) {
	q := url.Values{"show": {"info"}}
	if o.Filter != "" {
		q.Set("filter", o.Filter)
	}
	q.Set("offset", itoa(orMinusOne(o.Offset)))
	q.Set("len", itoa(orMinusOne(o.Len)))
	if o.Order != "" {
		q.Set("order", o.Order)
	}
	var v CoordJob
	raw, err := c.getJSON(ctx, jobPath(id), q, &v)
	return &v, raw, err
}

func orMinusOne(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// BundleInfo returns a bundle job with its coordinators.
func (c *Client) BundleInfo(ctx context.Context, id string) (*BundleJob, json.RawMessage, error) {
	var v BundleJob
	raw, err := c.getJSON(ctx, jobPath(id), url.Values{"show": {"info"}}, &v)
	return &v, raw, err
}

// CoordActionInfo returns one coordinator action (<coordId>@<n>).
func (c *Client) CoordActionInfo(ctx context.Context, id string) (*CoordAction, json.RawMessage, error) {
	var v CoordAction
	raw, err := c.getJSON(ctx, jobPath(id), url.Values{"show": {"info"}}, &v)
	return &v, raw, err
}

// WorkflowActionInfo returns one workflow action (<wfId>@<node>).
func (c *Client) WorkflowActionInfo(ctx context.Context, id string) (*WorkflowAction, json.RawMessage, error) {
	var v WorkflowAction
	raw, err := c.getJSON(ctx, jobPath(id), url.Values{"show": {"info"}}, &v)
	return &v, raw, err
}

// AllRuns returns every workflow run of a coordinator action.
func (c *Client) AllRuns(ctx context.Context, id string) ([]Run, json.RawMessage, error) {
	var v struct {
		Workflows []Run `json:"workflows"`
	}
	raw, err := c.getJSON(ctx, jobPath(id), url.Values{"show": {"allruns"}}, &v)
	return v.Workflows, raw, err
}

// Retries returns the attempts of a workflow action.
func (c *Client) Retries(ctx context.Context, id string) ([]Retry, json.RawMessage, error) {
	var v struct {
		Retries []Retry `json:"retries"`
	}
	raw, err := c.getJSON(ctx, jobPath(id), url.Values{"show": {"retries"}}, &v)
	return v.Retries, raw, err
}

// JobStatus returns the status of a job or coordinator action.
func (c *Client) JobStatus(ctx context.Context, id string) (string, error) {
	var v struct {
		Status string `json:"status"`
	}
	_, err := c.getJSON(ctx, jobPath(id), url.Values{"show": {"status"}}, &v)
	return v.Status, err
}

// getText performs a GET on a job resource that answers text or XML.
func (c *Client) getText(ctx context.Context, id string, q url.Values) ([]byte, error) {
	resp, err := c.call(ctx, &request{method: http.MethodGet, path: jobPath(id), query: q})
	if err != nil {
		return nil, err
	}
	return resp.body, nil
}

// JobDefinition returns the application XML of a job.
func (c *Client) JobDefinition(ctx context.Context, id string) ([]byte, error) {
	return c.getText(ctx, id, url.Values{"show": {"definition"}})
}

// LogOptions narrow a job log. Type ("action" or "date") and Scope apply to
// coordinator jobs only; LogFilter is the k=v;… filter of rest-api §7.5.
type LogOptions struct {
	Type, Scope string
	LogFilter   string
}

// JobLog returns the log of a job (show=log), or of kind "errorlog" or
// "auditlog" when show names one of those.
func (c *Client) JobLog(ctx context.Context, id, show string, o LogOptions) ([]byte, error) {
	if show == "" {
		show = "log"
	}
	q := url.Values{"show": {show}}
	if o.Type != "" {
		q.Set("type", o.Type)
		q.Set("scope", o.Scope)
	}
	if o.LogFilter != "" {
		q.Set("logfilter", o.LogFilter)
	}
	return c.getText(ctx, id, q)
}

// JobGraph returns the rendered graph of a workflow job; format is png,
// svg or dot. showKill includes the kill nodes.
func (c *Client) JobGraph(ctx context.Context, id, format string, showKill bool, layout string) ([]byte, error) {
	q := url.Values{"show": {"graph"}}
	if format != "" {
		q.Set("format", format)
	}
	if layout != "" {
		q.Set("layout", layout) // gozie's: an Oozie server ignores it
	}
	if showKill {
		q.Set("show-kill", "true")
	}
	return c.getText(ctx, id, q)
}

// put performs PUT job/<id>?action=<action>&params with an optional body.
func (c *Client) put(ctx context.Context, id, action string, params url.Values, body []byte, ctype string) (*response, error) {
	q := url.Values{"action": {action}}
	for k, v := range params {
		q[k] = v
	}
	return c.call(ctx, &request{method: http.MethodPut, path: jobPath(id), query: q, body: body, ctype: ctype})
}

// Start starts a job submitted in PREP.
func (c *Client) Start(ctx context.Context, id string) error {
	_, err := c.put(ctx, id, "start", nil, nil, "")
	return err
}

// Suspend suspends a job.
func (c *Client) Suspend(ctx context.Context, id string) error {
	_, err := c.put(ctx, id, "suspend", nil, nil, "")
	return err
}

// Resume resumes a suspended job.
func (c *Client) Resume(ctx context.Context, id string) error {
	_, err := c.put(ctx, id, "resume", nil, nil, "")
	return err
}

// Kill kills a job.
func (c *Client) Kill(ctx context.Context, id string) error {
	_, err := c.put(ctx, id, "kill", nil, nil, "")
	return err
}

// Change changes a coordinator or bundle job: value is k=v;… (rest-api §7.4).
func (c *Client) Change(ctx context.Context, id, value string) error {
	_, err := c.put(ctx, id, "change", url.Values{"value": {value}}, nil, "")
	return err
}

// actionsAnswer decodes the {"actions":[…]} answer of the range commands;
// an empty body means no actions.
func actionsAnswer(resp *response) ([]CoordAction, json.RawMessage, error) {
	if len(strings.TrimSpace(string(resp.body))) == 0 {
		return nil, resp.body, nil
	}
	var v struct {
		Actions []CoordAction `json:"actions"`
	}
	if err := decode(resp, &v); err != nil {
		return nil, resp.body, err
	}
	return v.Actions, resp.body, nil
}

// KillActions kills the coordinator actions of a range: typ is "action"
// (scope 1,3-4) or "date" (scope of dates); it returns the actions killed.
func (c *Client) KillActions(ctx context.Context, id, typ, scope string) ([]CoordAction, json.RawMessage, error) {
	resp, err := c.put(ctx, id, "kill", url.Values{"type": {typ}, "scope": {scope}}, nil, xmlContentType)
	if err != nil {
		return nil, nil, err
	}
	return actionsAnswer(resp)
}

// RerunWorkflow reruns a workflow job; cf carries oozie.wf.rerun.skip.nodes
// or oozie.wf.rerun.failnodes (nil sends an empty configuration).
func (c *Client) RerunWorkflow(ctx context.Context, id string, cf *conf.Config) error {
	body, err := confBody(cf)
	if err != nil {
		return err
	}
	params := url.Values{}
	if c.opts.User != "" {
		params.Set("user", c.opts.User)
	}
	_, err = c.put(ctx, id, "rerun", params, body, xmlContentType)
	return err
}

// CoordRerun is the range and flags of a coordinator rerun.
type CoordRerun struct {
	Type, Scope                string // "action" or "date", and the range
	Refresh, NoCleanup, Failed bool
}

// RerunCoord reruns coordinator actions and returns them.
func (c *Client) RerunCoord(ctx context.Context, id string, r CoordRerun) ([]CoordAction, json.RawMessage, error) {
	q := url.Values{"type": {r.Type}, "scope": {r.Scope}, "refresh": {bstr(r.Refresh)},
		"nocleanup": {bstr(r.NoCleanup)}, "failed": {bstr(r.Failed)}}
	resp, err := c.put(ctx, id, "coord-rerun", q, nil, xmlContentType)
	if err != nil {
		return nil, nil, err
	}
	return actionsAnswer(resp)
}

// RerunBundle reruns the coordinators (coordScope, names or ids) of a
// bundle over the date ranges dateScope.
func (c *Client) RerunBundle(ctx context.Context, id, coordScope, dateScope string, refresh, noCleanup bool) error {
	q := url.Values{"refresh": {bstr(refresh)}, "nocleanup": {bstr(noCleanup)}}
	if coordScope != "" {
		q.Set("coord-scope", coordScope)
	}
	if dateScope != "" {
		q.Set("date-scope", dateScope)
	}
	_, err := c.put(ctx, id, "bundle-rerun", q, nil, xmlContentType)
	return err
}

// Ignore sets coordinator actions (scope, an action list) or, with an
// empty scope, the whole coordinator to IGNORED.
func (c *Client) Ignore(ctx context.Context, id, scope string) ([]CoordAction, json.RawMessage, error) {
	q := url.Values{"type": {"action"}}
	if scope != "" {
		q.Set("scope", scope)
	}
	resp, err := c.put(ctx, id, "ignore", q, nil, "")
	if err != nil {
		return nil, nil, err
	}
	return actionsAnswer(resp)
}

func bstr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// ListOptions select a page of the jobs list.
type ListOptions struct {
	Filter  string // name=value;… (rest-api §7.1)
	JobType string // wf (default), coord or bundle; sent as given
	Offset  int    // 1-based; 0 lets the server default to 1
	Len     int    // 0 lets the server default to 50
}

func (o ListOptions) query() url.Values {
	q := url.Values{}
	if o.Filter != "" {
		q.Set("filter", o.Filter)
	}
	jt := o.JobType
	if jt == "" {
		jt = "wf"
	}
	q.Set("jobtype", jt)
	q.Set("offset", itoa(o.Offset))
	q.Set("len", itoa(o.Len))
	return q
}

// Jobs lists jobs (GET /jobs).
func (c *Client) Jobs(ctx context.Context, o ListOptions) (*JobList, json.RawMessage, error) {
	var v JobList
	raw, err := c.getJSON(ctx, "jobs", o.query(), &v)
	return &v, raw, err
}

// BulkModify kills, suspends or resumes (action) every job o's filter
// selects and returns them (PUT /jobs).
func (c *Client) BulkModify(ctx context.Context, action string, o ListOptions) (*JobList, json.RawMessage, error) {
	q := o.query()
	q.Set("action", action)
	resp, err := c.call(ctx, &request{method: http.MethodPut, path: "jobs", query: q, ctype: xmlContentType})
	if err != nil {
		return nil, nil, err
	}
	var v JobList
	if err := decode(resp, &v); err != nil {
		return nil, resp.body, err
	}
	return &v, resp.body, nil
}

// Bulk monitors coordinator actions of bundles (GET /jobs?bulk=).
func (c *Client) Bulk(ctx context.Context, bulk string, offset, length int) (*BulkList, json.RawMessage, error) {
	q := url.Values{"bulk": {bulk}, "offset": {itoa(offset)}, "len": {itoa(length)}}
	var v BulkList
	raw, err := c.getJSON(ctx, "jobs", q, &v)
	return &v, raw, err
}

// Validate asks the server to validate an application XML document; it
// returns the server's verdict text ("Valid workflow-app").
func (c *Client) Validate(ctx context.Context, file string, xmlBody []byte) (string, error) {
	q := url.Values{"file": {file}, "user": {c.opts.User}}
	resp, err := c.send(ctx, &request{method: http.MethodPost, path: "v2/validate", query: q, body: xmlBody, ctype: xmlContentType})
	if err != nil {
		return "", err
	}
	var v struct {
		Validate string `json:"validate"`
	}
	if err := decode(resp, &v); err != nil {
		return "", err
	}
	return v.Validate, nil
}

// Update changes a running coordinator's definition and configuration from
// cf (nil sends an empty configuration). dryrun only reports; diff "" lets
// the server default (true). It returns the server's change report.
func (c *Client) Update(ctx context.Context, id string, cf *conf.Config, dryrun bool, diff string) (string, json.RawMessage, error) {
	body, err := confBody(cf)
	if err != nil {
		return "", nil, err
	}
	dr := ""
	if dryrun {
		dr = "true"
	}
	resp, err := c.put(ctx, id, "update", url.Values{"dryrun": {dr}, "diff": {diff}}, body, xmlContentType)
	if err != nil {
		return "", nil, err
	}
	var v struct {
		Update struct {
			Diff string `json:"diff"`
		} `json:"update"`
	}
	if len(strings.TrimSpace(string(resp.body))) == 0 {
		return "", resp.body, nil
	}
	if err := decode(resp, &v); err != nil {
		return "", resp.body, err
	}
	return v.Update.Diff, resp.body, nil
}

// MissingDeps is what one waiting coordinator action is blocked on.
type MissingDeps struct {
	ActionNumber int    `json:"id"`
	BlockedOn    string `json:"blockedOn"`
	DataSets     []struct {
		DataSet             string   `json:"dataSet"`
		MissingDependencies []string `json:"missingDependencies"`
	} `json:"dataSets"`
	// InputLogic is the evaluated <input-logic> of the action, one line
	// per node (gozie's addition), when the app has one.
	InputLogic []string `json:"inputLogic,omitempty"`
}

// MissingDependencies returns the input dependencies coordinator actions
// wait for; actionList (1,3-4) and dates narrow a coordinator job's actions.
func (c *Client) MissingDependencies(ctx context.Context, id, actionList, dates string) ([]MissingDeps, json.RawMessage, error) {
	q := url.Values{"show": {"missing-dependencies"}}
	if actionList != "" {
		q.Set("action-list", actionList)
	}
	if dates != "" {
		q.Set("date", dates)
	}
	var v struct {
		Deps []MissingDeps `json:"missingDependencies"`
	}
	raw, err := c.getJSON(ctx, jobPath(id), q, &v)
	return v.Deps, raw, err
}

// SLAChange enables, disables (action "sla-enable", "sla-disable") or
// changes ("sla-change", value sla-nominal-time=..;sla-should-end=..) the
// SLA of a job or of some of a coordinator's actions or a bundle's
// coordinators.
func (c *Client) SLAChange(ctx context.Context, id, action, actionList, dates, coordinators, value string) error {
	q := url.Values{}
	for k, v := range map[string]string{"action-list": actionList, "date": dates, "coordinators": coordinators, "value": value} {
		if v != "" {
			q.Set(k, v)
		}
	}
	_, err := c.put(ctx, id, action, q, nil, xmlContentType)
	return err
}

// SLAOptions select SLA records for SLA (GET /v2/sla, rest-api.md 7.7).
type SLAOptions struct {
	// Filter is required: name=value pairs separated by ';' (app_name,
	// id, parent_id, bundle, nominal_after, sla_status, ...).
	Filter string
	// Offset (1-based) and Len page the answer; 0 leaves them to the
	// server (the first record, 1000 records).
	Offset, Len int
	// SortBy is a field of the summary (nominalTimeTS by default), Order
	// asc or desc.
	SortBy, Order string
}

// SLA lists the SLA records o selects. The request names no timezone, so
// the dates come as epoch milliseconds and decode as UTC times.
func (c *Client) SLA(ctx context.Context, o SLAOptions) ([]*SLASummary, json.RawMessage, error) {
	q := url.Values{}
	q.Set("filter", o.Filter)
	for k, v := range map[string]int{"offset": o.Offset, "len": o.Len} {
		if v > 0 {
			q.Set(k, strconv.Itoa(v))
		}
	}
	for k, v := range map[string]string{"sortby": o.SortBy, "order": o.Order} {
		if v != "" {
			q.Set(k, v)
		}
	}
	var v SLASummaryList
	raw, err := c.getJSON(ctx, "/v2/sla", q, &v)
	return v.SLASummaryList, raw, err
}
