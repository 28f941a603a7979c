package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// App path properties; a submission names exactly one (rest-api.md 3.1).
const (
	propWfPath     = "oozie.wf.application.path"
	propCoordPath  = "oozie.coord.application.path"
	propBundlePath = "oozie.bundle.application.path"
)

// maxBody bounds request bodies (configurations, validated XML).
const maxBody = 16 << 20

// handleJobs serves /oozie/vN/jobs.
func (s *Server) handleJobs(w http.ResponseWriter, r *http.Request, c *call, ver string) error {
	switch r.Method {
	case http.MethodPost:
		if s.spread(w, r) {
			return nil
		}
		return s.submit(w, r, c)
	case http.MethodGet:
		if r.URL.Query().Has("action") {
			return errInvalidParam("action")
		}
		if r.URL.Query().Has("bulk") {
			return s.bulkMonitor(w, r, c)
		}
		return s.listJobs(w, r)
	case http.MethodPut:
		return s.bulkModify(w, r, c)
	}
	return errInvalidResource("jobs")
}

// requireXML checks the Content-Type of a request that carries a
// configuration (rest-api.md 0.3).
func requireXML(r *http.Request) error {
	return requireContentType(r, "application/xml")
}

// readConf reads the Hadoop configuration XML of a request body; an empty
// body is an empty configuration.
func readConf(r *http.Request) (*conf.Config, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxBody {
		// Cut short, the XML would fail to parse with a misleading message.
		return nil, errorf(http.StatusBadRequest, "E0303", "Invalid parameter value, [configuration] = [larger than %d bytes]", maxBody)
	}
	if strings.TrimSpace(string(body)) == "" {
		return conf.New(), nil
	}
	c, err := conf.ParseXML(strings.NewReader(string(body)), "request")
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "E0303", "Invalid parameter value, [configuration] = [%v]", err)
	}
	// Oozie trims names and values of submitted configurations.
	out := conf.New()
	for _, p := range c.Properties() {
		out.Set(strings.TrimSpace(p.Name), strings.TrimSpace(p.Value))
	}
	return out, nil
}

// submitUser makes the configuration's user the authenticated one, and
// returns a note for the job log when it had to replace one.
//
// Authenticated: a missing user.name is filled in; a different user.name
// (or mapreduce.job.user.name) is replaced, as Oozie does, and the note
// says so, unless strict (StrictSimpleUser, or an authentication method
// other than simple), which refuses it naming both users. Anonymous
// (simple authentication lets submissions in): the configuration's
// user.name names the owner, else the user parameter the plain OozieClient
// sends with submissions and reruns.
func (s *Server) submitUser(r *http.Request, props *conf.Config, user string) (note string, err error) {
	if user == "" {
		v, _ := props.Get("user.name")
		v = strings.TrimSpace(v)
		if v == "" {
			v = strings.TrimSpace(r.URL.Query().Get("user"))
		}
		if v == "" {
			return "", errorf(http.StatusBadRequest, "E0401", "Missing configuration property [user.name]")
		}
		// An anonymous submission names its owner; the name must be one
		// a cookie or user.name could have carried.
		if !validUserName(v) {
			return "", errorf(http.StatusBadRequest, "E0303", "Invalid parameter value, [configuration] = [user.name]")
		}
		props.Set("user.name", v)
		return "", nil
	}
	strict := s.auth.opts.StrictSimpleUser || !s.auth.methods[MethodSimple]
	var replaced []string
	for _, k := range []string{"user.name", "mapreduce.job.user.name"} {
		v, ok := props.Get(k)
		if v = strings.TrimSpace(v); !ok || v == "" || v == user {
			continue
		}
		if strict {
			return "", errorf(http.StatusBadRequest, "E0303",
				"Invalid parameter value, [configuration] = [%s]: the configuration names user [%s] but the request is authenticated as [%s]; remove %s from the configuration or authenticate as %s%s",
				k, v, user, k, v, strictHint(s.auth.opts.StrictSimpleUser))
		}
		replaced = append(replaced, fmt.Sprintf("%s [%s]", k, v))
		props.Set(k, user)
	}
	props.Set("user.name", user)
	if len(replaced) > 0 {
		note = fmt.Sprintf("The configuration's %s replaced by the authenticated user [%s]", strings.Join(replaced, " and "), user)
	}
	return note, nil
}

// strictHint names the key behind a strict refusal.
func strictHint(strictKey bool) string {
	if strictKey {
		return " (gozie.authentication.simple.strict.user is true)"
	}
	return ""
}

// submit serves POST /jobs: submit (PREP), start, or dryrun.
func (s *Server) submit(w http.ResponseWriter, r *http.Request, c *call) error {
	q := r.URL.Query()
	if q.Has("filter") || q.Has("offset") || q.Has("len") {
		for _, p := range []string{"filter", "offset", "len"} {
			if q.Has(p) {
				return errInvalidParam(p)
			}
		}
	}
	act := q.Get("action")
	if act != "" && act != "start" && act != "dryrun" {
		return errParamValue("action", act)
	}
	if jt := q.Get("jobtype"); jt != "" {
		// Proxy submissions (mapreduce, pig, hive, sqoop) need Hadoop.
		return errParamValue("jobtype", jt)
	}
	if err := requireXML(r); err != nil {
		return err
	}
	props, err := readConf(r)
	if err != nil {
		return err
	}
	note, err := s.submitUser(r, props, c.user)
	if err != nil {
		return err
	}
	var paths []string
	for _, k := range []string{propWfPath, propCoordPath, propBundlePath} {
		if v, ok := props.Get(k); ok && strings.TrimSpace(v) != "" {
			paths = append(paths, k)
		}
	}
	switch {
	case len(paths) == 0:
		return errorf(http.StatusBadRequest, "E0302", "Invalid parameter [a workflow, coordinator, or bundle app path is required]")
	case len(paths) > 1:
		return errorf(http.StatusBadRequest, "E0302", "Invalid parameter [Multiple app paths specified, only one is allowed]")
	}
	ctx := r.Context()
	if paths[0] == propBundlePath {
		if s.bundles == nil {
			return errNoBundles()
		}
		if act == "dryrun" {
			out, err := s.bundles.BundleDryrun(ctx, props)
			if err != nil {
				return err
			}
			writeJSONStatus(w, http.StatusCreated, map[string]string{"id": out})
			return nil
		}
	} else if paths[0] == propCoordPath {
		if s.coords == nil {
			return errNoCoordinators()
		}
		if act == "dryrun" {
			out, err := s.coords.CoordDryrun(ctx, props)
			if err != nil {
				return err
			}
			writeJSONStatus(w, http.StatusCreated, map[string]string{"id": out})
			return nil
		}
	} else if act == "dryrun" {
		if err := s.dryrunWorkflow(ctx, props); err != nil {
			return err
		}
		writeJSONStatus(w, http.StatusCreated, map[string]string{"id": "OK"})
		return nil
	}
	var id string
	if act == "start" {
		// One transaction: 201 means the job exists and runs.
		id, err = s.engine.Run(ctx, props)
	} else {
		id, err = s.engine.Submit(ctx, props)
	}
	if err != nil {
		return err
	}
	s.metrics.submitted.Add(1)
	s.submitted(id)
	if note != "" {
		if err := s.engine.Note(ctx, id, "WARN", note); err != nil {
			s.opts.Logf("gozie: job %s: %s (not logged: %v)", id, note, err)
		}
	}
	op := "submit"
	if act == "start" {
		op = "start"
	}
	s.audit(r, c, id, op, err)
	writeJSONStatus(w, http.StatusCreated, map[string]string{"id": id})
	return nil
}

// pageParams reads offset and len with Oozie's defaults (1 and 50; values
// below 1 take the default). A malformed number is E1603 with the parser's
// text, as Java's NumberFormatException; so is one outside Java's int range,
// which Oozie's Integer.parseInt refuses the same way. Keeping both within
// 32 bits also means offset+len cannot overflow.
func pageParams(r *http.Request, defLen int) (offset, length int, err error) {
	q := r.URL.Query()
	offset, length = 1, defLen
	if v := q.Get("offset"); v != "" {
		n, err := parseJavaInt(v)
		if err != nil {
			return 0, 0, err
		}
		offset = max(n, 1)
	}
	if v := q.Get("len"); v != "" {
		n, err := parseJavaInt(v)
		if err != nil {
			return 0, 0, err
		}
		if n >= 1 {
			length = n
		}
	}
	return offset, length, nil
}

// parseJavaInt reads an integer query parameter as Java's Integer.parseInt
// does, within -2^31..2^31-1; anything else is 400 E1603 with Java's
// NumberFormatException text.
func parseJavaInt(v string) (int, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
	if err != nil {
		return 0, &apiError{status: http.StatusBadRequest, code: "E1603", msg: fmt.Sprintf("For input string: \"%s\"", v)}
	}
	return int(n), nil
}

// maxRelative bounds relative times and durations in query parameters
// (filter -Nd, logfilter recent= and start/end minutes): a century, far
// past any job, well inside time.Duration's 292 years so nothing wraps.
const maxRelative = 100 * 365 * 24 * time.Hour

// relative returns n units as a duration, refusing magnitudes over
// maxRelative instead of letting the multiplication overflow.
func relative(n int64, unit time.Duration) (time.Duration, bool) {
	if n > int64(maxRelative/unit) || n < -int64(maxRelative/unit) {
		return 0, false
	}
	return time.Duration(n) * unit, true
}

// listKind classifies a jobtype value as Oozie's list does (substring
// tests, case-sensitive).
func listKind(jobtype string) string {
	switch {
	case jobtype == "" || strings.Contains(jobtype, "wf"):
		return "wf"
	case strings.Contains(jobtype, "coord"):
		return "coord"
	case strings.Contains(jobtype, "bundle"):
		return "bundle"
	}
	return ""
}

// listJobs serves GET /jobs.
func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	kind := listKind(q.Get("jobtype"))
	if kind == "" {
		return errParamValue("jobtype", q.Get("jobtype"))
	}
	if q.Has("external-id") {
		// {"id": <workflow id or null>}; other job types answer {}.
		if kind != "wf" {
			writeJSON(w, map[string]any{})
			return nil
		}
		jobs, _, err := s.engine.Jobs(r.Context(), store.JobFilter{ExternalID: q.Get("external-id"), Limit: 1})
		if err != nil {
			return err
		}
		var id any
		if len(jobs) > 0 {
			id = jobs[0].ID
		}
		writeJSON(w, map[string]any{"id": id})
		return nil
	}
	offset, length, err := pageParams(r, 50)
	if err != nil {
		return err
	}
	f, err := parseJobsFilter(q.Get("filter"), kind, s.opts.Now())
	if err != nil {
		return err
	}
	f.Offset, f.Limit, f.Brief = offset-1, length, true
	out, err := s.listPage(r.Context(), kind, f, zoneParam(r))
	if err != nil {
		return err
	}
	out.Offset, out.Len = offset, length
	writeJSON(w, out)
	return nil
}

// listPage fetches one page of jobs of a kind as the list bean (without
// offset and len).
func (s *Server) listPage(ctx context.Context, kind string, f store.JobFilter, loc *time.Location) (*rest.JobList, error) {
	switch kind {
	case "coord":
		if s.coords == nil {
			return nil, errNoCoordinators()
		}
		jobs, total, err := s.coords.CoordJobList(ctx, f)
		if err != nil {
			return nil, err
		}
		if jobs == nil {
			jobs = []*rest.CoordJob{}
		}
		for _, j := range jobs {
			j.In(loc)
		}
		return &rest.JobList{CoordinatorJobs: jobs, Total: total}, nil
	case "bundle":
		return s.bundleList(ctx, f, loc)
	}
	jobs, total, err := s.engine.Jobs(ctx, f)
	if err != nil {
		return nil, err
	}
	list := make([]*rest.WorkflowJob, 0, len(jobs))
	for _, j := range jobs {
		jj := engine.NewJobJSON(j, nil, s.opts.BaseURL)
		// List items carry no app path, conf or ACL (rest-api.md 5.6).
		jj.AppPath, jj.Conf, jj.ACL = "", "", ""
		jj.In(loc)
		list = append(list, jj)
	}
	return &rest.JobList{Workflows: list, Total: total}, nil
}

// parseJobsFilter parses the jobs filter of rest-api.md 7.1:
// name=value pairs separated by ";", a repeated name ORed, different names
// ANDed.
func parseJobsFilter(filter, kind string, now time.Time) (store.JobFilter, error) {
	var f store.JobFilter
	bad := func(why string) error {
		return errorf(http.StatusBadRequest, "E0420", "Invalid jobs filter [%s], %s", filter, why)
	}
	if strings.TrimSpace(filter) == "" {
		return f, nil
	}
	// The statuses the filter accepts (case-sensitive): a workflow's, or
	// for the other kinds a coordinator's (a superset of a bundle's).
	known := vocab.Known[vocab.JobStatus]
	if kind != "wf" {
		known = vocab.Known[vocab.CoordStatus]
	}
	for _, tok := range strings.Split(filter, ";") {
		if tok == "" {
			continue
		}
		parts := strings.Split(tok, "=")
		if len(parts) != 2 {
			return f, bad("elements must be semicolon-separated name=value pairs")
		}
		name, val := strings.ToLower(strings.TrimSpace(parts[0])), strings.TrimSpace(parts[1])
		switch name {
		case "user":
			f.Users = append(f.Users, val)
		case "name":
			f.Names = append(f.Names, val)
		case "group":
			// Accepted and ignored, as Oozie does.
		case "id":
			f.IDs = append(f.IDs, val)
		case "status":
			if !known(val) {
				return f, bad("invalid status value [" + val + "]")
			}
			f.Statuses = append(f.Statuses, val)
		case "startcreatedtime", "endcreatedtime":
			t, err := parseFilterTime(val, now)
			if err != nil {
				return f, bad(err.Error())
			}
			if name == "startcreatedtime" {
				f.CreatedAfter = t
			} else {
				f.CreatedBefore = t
			}
		case "sortby":
			if !strings.EqualFold(val, "createdTime") && !strings.EqualFold(val, "lastModifiedTime") {
				return f, bad("invalid sortby value [" + val + "]")
			}
		case "text", "frequency", "unit":
			return f, bad("filter name [" + name + "] is not supported by gozie")
		default:
			return f, bad("invalid name [" + name + "]")
		}
	}
	return f, nil
}

// parseFilterTime reads yyyy-MM-dd'T'HH:mm'Z' or a relative -Nd, -Nh, -Nm.
func parseFilterTime(v string, now time.Time) (time.Time, error) {
	if t, err := time.Parse("2006-01-02T15:04Z", v); err == nil {
		return t, nil
	}
	if len(v) >= 2 && (v[0] == '-' || v[0] == '0' || (v[0] >= '0' && v[0] <= '9')) {
		unit := map[byte]time.Duration{'d': 24 * time.Hour, 'h': time.Hour, 'm': time.Minute}[v[len(v)-1]]
		n, err := strconv.ParseInt(v[:len(v)-1], 10, 64)
		if err == nil && n <= 0 && unit != 0 {
			if d, ok := relative(n, unit); ok {
				if unit == 24*time.Hour {
					// Calendar days, so a DST change does not shift the hour.
					return now.AddDate(0, 0, int(n)), nil
				}
				return now.Add(d), nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("invalid time [%s], use yyyy-MM-ddTHH:mmZ or -N(d|h|m)", v)
}

// bulkModify serves PUT /jobs: kill, suspend or resume every job of a
// filtered page. Jobs the caller may not change, or whose state refuses
// the command, are skipped, as Oozie does.
func (s *Server) bulkModify(w http.ResponseWriter, r *http.Request, c *call) error {
	q := r.URL.Query()
	act := q.Get("action")
	if act != "kill" && act != "suspend" && act != "resume" {
		return errParamValue("action", act)
	}
	filter := q.Get("filter")
	if strings.TrimSpace(filter) == "" {
		return &apiError{status: http.StatusBadRequest, code: "E1603", msg: "filter params must be specified for bulk write API"}
	}
	kind := "coord"
	switch q.Get("jobtype") {
	case "wf":
		kind = "wf"
	case "bundle":
		kind = "bundle"
	}
	offset, length, err := pageParams(r, 50)
	if err != nil {
		return err
	}
	f, err := parseJobsFilter(filter, kind, s.opts.Now())
	if err != nil {
		return err
	}
	f.Offset, f.Limit, f.Brief = offset-1, length, true
	ctx := r.Context()
	var ids []string
	switch kind {
	case "wf":
		jobs, _, err := s.engine.Jobs(ctx, f)
		if err != nil {
			return err
		}
		for _, j := range jobs {
			if s.auth.mayModify(c.user, j.User, j.Group, j.ACL) {
				ids = append(ids, j.ID)
			}
		}
	case "coord":
		if s.coords == nil {
			return errNoCoordinators()
		}
		jobs, _, err := s.coords.CoordJobList(ctx, f)
		if err != nil {
			return err
		}
		for _, j := range jobs {
			id := j.CoordJobID
			if id == "" {
				continue
			}
			if u, g, acl, err := s.coords.CoordOwner(ctx, id); err == nil && s.auth.mayModify(c.user, u, g, acl) {
				ids = append(ids, id)
			}
		}
	case "bundle":
		if ids, err = s.bundleIDs(ctx, c.user, f); err != nil {
			return err
		}
	}
	for _, id := range ids {
		// A job another server works is changed by that server, which
		// audits it too; one whose server could not be reached is
		// audited here, since its server never saw the command.
		if done, err := s.forwardCommand(r, id, act); done {
			if err != nil {
				s.opts.Logf("gozie: bulk %s %s: %v", act, id, err)
			}
			if isJobElsewhere(err) {
				s.audit(r, c, id, act, err)
			}
			continue
		}
		var err error
		switch act {
		case "kill":
			err = s.engine.Kill(ctx, id)
		case "suspend":
			err = s.engine.Suspend(ctx, id)
		case "resume":
			err = s.engine.Resume(ctx, id)
		}
		if err != nil && engine.ErrorCode(err) == "" {
			s.opts.Logf("gozie: bulk %s %s: %v", act, id, err)
		}
		s.audit(r, c, id, act, err)
	}
	out, err := s.listPage(ctx, kind, f, zoneParam(r))
	if err != nil {
		return err
	}
	out.Offset, out.Len, out.IDs = offset, length, []string{}
	writeJSON(w, out)
	return nil
}
