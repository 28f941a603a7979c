package server

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/graph"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
	"github.com/gozie/gozie/internal/workflow"
)

// Kinds of ids (rest-api.md 6: suffix -W/-C/-B, -W@/-C@ for actions).
const (
	kindWf          = "wf"
	kindWfAction    = "wf-action"
	kindCoord       = "coord"
	kindCoordAction = "coord-action"
	kindBundle      = "bundle"
)

// idKind is vocab.KindOf by the names above.
func idKind(id string) string { return vocab.KindOf(id).String() }

// handleJob serves /oozie/vN/job/<id>.
func (s *Server) handleJob(w http.ResponseWriter, r *http.Request, c *call, ver, id string) error {
	if id == "" || strings.Contains(id, "/") {
		return errInvalidResource(id)
	}
	q := r.URL.Query()
	switch r.Method {
	case http.MethodGet:
		if q.Has("action") {
			return errInvalidParam("action")
		}
		return s.showJob(w, r, c, ver, id)
	case http.MethodPut:
		if q.Has("show") {
			return errInvalidParam("show")
		}
		if !q.Has("action") {
			return errMissingParam("action")
		}
		return s.changeJob(w, r, c, ver, id)
	}
	return errInvalidResource(id)
}

// showJob answers GET /job/<id>?show=... for the caller c: configuration
// and logs are masked for callers the job does not name (masking.go).
func (s *Server) showJob(w http.ResponseWriter, r *http.Request, c *call, ver, id string) error {
	q := r.URL.Query()
	show := q.Get("show")
	kind := idKind(id)
	ctx := r.Context()
	if (kind == kindCoord || kind == kindCoordAction) && s.coords == nil {
		return errNoCoordinators()
	}
	if kind == kindBundle && s.bundles == nil {
		return errNoBundles()
	}
	v2only := func() error {
		if ver != "v2" {
			return errInvalidParam("show")
		}
		return nil
	}
	switch show {
	case "", "info":
		return s.showInfo(w, r, c, ver, id, kind)
	case "definition":
		return s.showDefinition(w, r, c, id, kind)
	case "log", "errorlog", "auditlog":
		if show != "log" {
			if err := v2only(); err != nil {
				return err
			}
		}
		return s.showLog(w, r, c, id, kind, show)
	case "graph":
		if kind != kindWf {
			return errorf(http.StatusBadRequest, "E0306", "Invalid parameter [show=graph is only for workflow jobs]")
		}
		return s.showGraph(w, r, id)
	case "status":
		if err := v2only(); err != nil {
			return err
		}
		st, err := s.jobStatus(ctx, id, kind)
		if err != nil {
			return err
		}
		writeJSON(w, map[string]string{"status": st})
		return nil
	case "retries":
		if err := v2only(); err != nil {
			return err
		}
		if kind != kindWfAction {
			return errParamValue("show", show)
		}
		return s.showRetries(w, r, id)
	case "missing-dependencies":
		if err := v2only(); err != nil {
			return err
		}
		if kind != kindCoord && kind != kindCoordAction {
			return errParamValue("show", show)
		}
		rangeType, scope := "action", q.Get("action-list")
		if d := q.Get("date"); d != "" {
			rangeType, scope = "date", d
		}
		deps, err := s.coords.CoordMissingDependencies(ctx, id, rangeType, scope)
		if err != nil {
			return err
		}
		writeJSON(w, map[string]any{"missingDependencies": deps})
		return nil
	case "allruns":
		// The workflow runs of a coordinator action are the workflow
		// jobs whose parent it is.
		parent := id
		if kind == kindBundle {
			return errParamValue("show", show)
		}
		if kind == kindCoord {
			if q.Get("type") != "action" || q.Get("scope") == "" {
				return errMissingParam("scope")
			}
			parent = vocab.ActionID(id, q.Get("scope"))
		}
		jobs, _, err := s.engine.Jobs(ctx, store.JobFilter{ParentID: parent})
		if err != nil {
			return err
		}
		runs := make([]map[string]any, 0, len(jobs))
		for _, j := range jobs {
			runs = append(runs, map[string]any{"id": j.ID, "status": j.Status,
				"startTime": rest.Date(j.StartTime), "endTime": rest.Date(j.EndTime)})
		}
		writeJSON(w, map[string]any{"workflows": runs})
		return nil
	}
	return errParamValue("show", show)
}

// showDefinition answers show=definition: the application XML of a
// workflow, coordinator or bundle job, masked for the caller c.
func (s *Server) showDefinition(w http.ResponseWriter, r *http.Request, c *call, id, kind string) error {
	ctx := r.Context()
	var def string
	var m *redact.Masker
	switch kind {
	case kindWf:
		j, acts, err := s.engine.Job(ctx, id)
		if err != nil {
			return err
		}
		def, m = j.Definition, s.jobMasker(c.user, j, acts)
	case kindCoord:
		d, err := s.coords.CoordDefinition(ctx, id)
		if err != nil {
			return err
		}
		if m, err = s.coordMasker(ctx, c.user, id); err != nil {
			return err
		}
		def = d
	case kindBundle:
		var err error
		if def, m, err = s.bundleDefinition(ctx, c.user, id); err != nil {
			return err
		}
	default:
		return errParamValue("show", "definition")
	}
	// The user's XML, as Oozie sends it (its client reads the body
	// whatever the type), but never rendered by a browser: XHTML in
	// it would run on the server's origin. A download, sandboxed
	// (guard) and not sniffed.
	h := w.Header()
	h.Set("Content-Type", xmlType)
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": id + ".xml"}))
	_, _ = w.Write([]byte(m.XML(def)))
	return nil
}

// showInfo renders the job or action object of an id, masked for the
// caller c.
func (s *Server) showInfo(w http.ResponseWriter, r *http.Request, c *call, ver, id, kind string) error {
	switch kind {
	case kindWf:
		return s.showWorkflow(w, r, c, id)
	case kindWfAction:
		return s.showWorkflowAction(w, r, c, id)
	case kindCoord:
		return s.showCoord(w, r, c, ver, id)
	case kindCoordAction:
		return s.showCoordAction(w, r, c, id)
	case kindBundle:
		return s.showBundle(w, r, c, id)
	}
	return nil
}

// showWorkflow renders a workflow job with the page of actions offset and
// len select.
func (s *Server) showWorkflow(w http.ResponseWriter, r *http.Request, c *call, id string) error {
	j, acts, err := s.engine.Job(r.Context(), id)
	if err != nil {
		return err
	}
	offset, length, err := pageParams(r, 0)
	if err != nil {
		return err
	}
	all := acts
	if offset > 1 || length > 0 {
		from := min(offset-1, len(acts))
		to := len(acts)
		if length > 0 && length < to-from {
			// Compared, not added: from+length could overflow.
			to = from + length
		}
		acts = acts[from:to]
	}
	// The masker knows the secrets of every action, not only of the
	// page shown.
	m := s.jobMasker(c.user, j, all)
	jj := engine.NewJobJSON(j, acts, s.opts.BaseURL)
	for i, a := range acts {
		s.fillConsole(jj.Actions[i], a)
	}
	maskJobJSON(jj, m)
	jj.In(zoneParam(r))
	writeJSON(w, jj)
	return nil
}

// showWorkflowAction renders one workflow action.
func (s *Server) showWorkflowAction(w http.ResponseWriter, r *http.Request, c *call, id string) error {
	j, acts, err := s.engine.Job(r.Context(), vocab.JobOf(id))
	if err != nil && engine.ErrorCode(err) != engine.CodeJobNotFound {
		return err
	}
	if j != nil {
		for _, a := range acts {
			if a.ID == id {
				jj := engine.NewJobJSON(j, []*store.Action{a}, "")
				s.fillConsole(jj.Actions[0], a)
				maskActionJSON(jj.Actions[0], s.jobMasker(c.user, j, acts))
				jj.Actions[0].In(zoneParam(r))
				writeJSON(w, jj.Actions[0])
				return nil
			}
		}
	}
	return errorf(http.StatusBadRequest, engine.CodeActionNotFound, "Action does not exist [%s]", id)
}

// showCoord renders a coordinator job with the actions offset, len, order
// and filter select.
func (s *Server) showCoord(w http.ResponseWriter, r *http.Request, c *call, ver, id string) error {
	ctx := r.Context()
	q := r.URL.Query()
	offset, length := 1, 0
	if v := q.Get("offset"); v != "" {
		o, _, err := pageParams(r, 0)
		if err != nil {
			return err
		}
		offset = o
	}
	if _, l, err := pageParams(r, 0); err != nil {
		return err
	} else {
		length = l
	}
	// v1 shows 1000 actions when len < 1; v2 none when len is
	// absent or 0 (rest-api.md 4.1, 7.8).
	if ver != "v2" && length < 1 {
		length = 1000
	}
	if ver == "v2" && q.Get("len") != "" && strings.HasPrefix(strings.TrimSpace(q.Get("len")), "-") {
		length = 1000
	}
	var statuses []string
	if f := q.Get("filter"); f != "" {
		var err error
		if statuses, err = parseCoordActionFilter(f); err != nil {
			return err
		}
	}
	noActions := ver == "v2" && length < 1
	if noActions {
		length = 1
	}
	out, err := s.coords.CoordJobInfo(ctx, id, offset, length, q.Get("order") == "desc", statuses)
	if err != nil {
		return err
	}
	if noActions {
		// v2 lists no actions when len is absent or 0.
		cp := *out
		cp.Actions = []*rest.CoordAction{}
		out = &cp
	}
	m, err := s.coordMasker(ctx, c.user, id)
	if err != nil {
		return err
	}
	out = maskCoordJSON(out, m)
	out.In(zoneParam(r))
	writeJSON(w, out)
	return nil
}

// showCoordAction renders one coordinator action.
func (s *Server) showCoordAction(w http.ResponseWriter, r *http.Request, c *call, id string) error {
	ctx := r.Context()
	out, err := s.coords.CoordActionInfo(ctx, id)
	if err != nil {
		return err
	}
	m, err := s.coordMasker(ctx, c.user, vocab.JobOf(id))
	if err != nil {
		return err
	}
	if m != nil {
		out = maskCoordActionJSON(out, m)
	}
	out.In(zoneParam(r))
	writeJSON(w, out)
	return nil
}

// showRetries answers show=retries of a workflow action: one object per
// run that ended in a user retry, every value a string and absent ones
// left out, as Oozie's client reads them (rest-api.md 4.1). Times are GMT
// whatever the timezone parameter, as in Oozie.
func (s *Server) showRetries(w http.ResponseWriter, r *http.Request, id string) error {
	rs, err := s.engine.ActionRetries(r.Context(), id)
	if err != nil {
		return err
	}
	out := make([]map[string]string, 0, len(rs))
	for _, x := range rs {
		m := map[string]string{"attempt": itoa(x.Attempt)}
		if d := rest.Date(x.StartTime); !d.IsZero() {
			m["startTime"] = d.String()
		}
		if d := rest.Date(x.EndTime); !d.IsZero() {
			m["endTime"] = d.String()
		}
		if u := x.ConsoleURL; u != "" {
			m["consoleUrl"] = u
		} else if u := s.runConsole(id, x.Run); u != "" {
			m["consoleUrl"] = u
		}
		if x.ChildIDs != "" {
			m["externalChildIDs"] = x.ChildIDs
		}
		out = append(out, m)
	}
	writeJSON(w, map[string]any{"retries": out})
	return nil
}

// runConsole is the console URL of one run of a process action, "" when
// the run left no captured output.
func (s *Server) runConsole(id string, run int) string {
	if s.opts.BaseURL == "" || s.opts.DataDir == "" {
		return ""
	}
	if _, err := os.Lstat(filepath.Join(launch.WorkDir(s.opts.DataDir, id, run), "stdout")); err != nil {
		return ""
	}
	return s.opts.BaseURL + "/console/action/" + url.PathEscape(id) + "/stdout?attempt=" + itoa(run)
}

// parseCoordActionFilter reads the status terms of the coordinator actions
// filter (rest-api.md 7.2): status=X (repeated: OR) and status!=X, which
// the coordinator engine receives as "X" and "!X". nominaltime terms are
// not supported.
func parseCoordActionFilter(f string) ([]string, error) {
	bad := func(why string) error {
		return errorf(http.StatusBadRequest, "E0421", "Invalid job filter [%s], %s", f, why)
	}
	var out []string
	for _, tok := range strings.Split(f, ";") {
		if strings.TrimSpace(tok) == "" {
			continue
		}
		neg := false
		k, v, ok := strings.Cut(tok, "!=")
		if ok {
			neg = true
		} else if k, v, ok = strings.Cut(tok, "="); !ok {
			return nil, bad("elements must be <key><op><value>")
		}
		k = strings.ToLower(strings.TrimSpace(k))
		if k == "nominaltime" {
			return nil, bad("nominaltime filters are not supported by gozie")
		}
		if k != "status" || strings.ContainsAny(k, "<>") {
			return nil, bad("invalid key [" + k + "]")
		}
		v = strings.ToUpper(strings.TrimSpace(v))
		if !vocab.Known[vocab.CoordActionStatus](v) {
			return nil, bad("invalid status [" + v + "]")
		}
		if neg {
			v = "!" + v
		}
		out = append(out, v)
	}
	return out, nil
}

// fillConsole points an action's consoleUrl at its captured output when
// the executor left none and the action ran a process.
//
// It also shortens the external id of a local process action: the engine
// keeps the work directory as the id (it re-attaches by it), which is far
// too long for the client's tables.
func (s *Server) fillConsole(aj *rest.WorkflowAction, a *store.Action) {
	if s.opts.DataDir != "" {
		if short, ok := launch.LocalExternalID(a.ExternalID, s.actionDir(a)); ok {
			aj.ExternalID = rest.Str(short)
		}
	}
	if aj.ConsoleURL != "" || s.opts.BaseURL == "" || s.opts.DataDir == "" {
		return
	}
	if _, err := os.Lstat(filepath.Join(s.actionDir(a), "stdout")); err != nil {
		return // not a process action (fs, control nodes): nothing to show
	}
	u := s.opts.BaseURL + "/console/action/" + url.PathEscape(a.ID) + "/stdout"
	aj.ConsoleURL = rest.Str(u)
}

// actionDir is the work directory of an action's current attempt: in
// this server's data directory, or in the one of the server whose launch
// this server (or the one that recorded it) re-attached to after a take-over
// (launch.RunDir).
func (s *Server) actionDir(a *store.Action) string {
	return launch.RunDir(s.opts.DataDir, a.ID, a.Attempt, a.ExternalID)
}

// jobStatus returns the status of any kind of id.
func (s *Server) jobStatus(ctx context.Context, id, kind string) (string, error) {
	switch kind {
	case kindWf:
		j, err := s.engine.JobRecord(ctx, id)
		if err != nil {
			return "", err
		}
		return j.Status, nil
	case kindWfAction:
		jobID := vocab.JobOf(id)
		_, acts, err := s.engine.Job(ctx, jobID)
		if err == nil {
			for _, a := range acts {
				if a.ID == id {
					return a.Status, nil
				}
			}
		}
		return "", errorf(http.StatusBadRequest, engine.CodeActionNotFound, "Action does not exist [%s]", id)
	case kindCoord:
		v, err := s.coords.CoordJobInfo(ctx, id, 1, 1, false, nil)
		if err != nil {
			return "", err
		}
		return v.Status, nil
	case kindBundle:
		v, err := s.bundles.BundleJobInfo(ctx, id)
		if err != nil {
			return "", err
		}
		return v.Status, nil
	default:
		v, err := s.coords.CoordActionInfo(ctx, id)
		if err != nil {
			return "", err
		}
		return v.Status, nil
	}
}

// changeJob answers PUT /job/<id>?action=...
func (s *Server) changeJob(w http.ResponseWriter, r *http.Request, c *call, ver, id string) error {
	q := r.URL.Query()
	act := q.Get("action")
	kind := idKind(id)
	ctx := r.Context()
	switch act {
	case "start", "suspend", "resume", "kill", "rerun", "change", "coord-rerun", "bundle-rerun":
	case "sla-enable", "sla-disable", "sla-change":
		// rest-api.md 4.2: v2 only, for workflow, coordinator and bundle
		// jobs; refused by name on a server without SLA monitoring.
		if ver != "v2" {
			return errInvalidParam("Not supported in v1")
		}
		if s.opts.SLAs == nil {
			return errNoSLA()
		}
	case "ignore", "update":
		// rest-api.md 4.2: v2 only, coordinators only.
		if ver != "v2" {
			return errInvalidParam("Not supported in v1")
		}
		if kind != kindCoord {
			return errInvalidParam(act + " is only for coordinator jobs")
		}
	default:
		return errParamValue("action", act)
	}
	if kind == kindBundle && s.bundles == nil {
		return errNoBundles()
	}
	if (act == "bundle-rerun" && kind != kindBundle) || (act == "coord-rerun" && kind == kindBundle) {
		// Each kind's own rerun; plain rerun is every kind's.
		return errParamValue("action", act)
	}
	if kind == kindCoord && s.coords == nil {
		return errNoCoordinators()
	}
	if kind == kindWfAction || kind == kindCoordAction {
		return errParamValue("action", act)
	}
	// The server working the job authorizes, performs and audits the
	// command. One it could not be passed to never reached the owner:
	// this server audits the refusal.
	if done, err := s.forward(w, r, id); done || err != nil {
		if err != nil {
			s.audit(r, c, id, act, err)
		}
		return err
	}
	if err := s.authorize(ctx, c.user, id, kind); err != nil {
		s.audit(r, c, id, act, err)
		return err
	}
	err := s.applyChange(w, r, c, id, kind, act)
	if errors.Is(err, store.ErrNotOwner) {
		err = errJobElsewhere(id, "the job moved to another server while the command ran")
	}
	s.audit(r, c, id, act, err)
	return err
}

// applyChange performs one PUT /job action the caller may perform.
func (s *Server) applyChange(w http.ResponseWriter, r *http.Request, c *call, id, kind, act string) error {
	q := r.URL.Query()
	ctx := r.Context()
	var err error
	switch act {
	case "start":
		if kind != kindWf && kind != kindBundle {
			return errParamValue("action", act)
		}
		err = s.engine.StartJob(ctx, id)
	case "suspend":
		err = s.engine.Suspend(ctx, id)
	case "resume":
		err = s.engine.Resume(ctx, id)
	case "kill":
		if kind == kindCoord && q.Get("type") != "" && q.Get("scope") != "" {
			out, err := s.coords.CoordKillActions(ctx, id, q.Get("type"), q.Get("scope"))
			if err != nil {
				return err
			}
			return s.writeCoordActions(w, r, c, id, out)
		}
		err = s.engine.Kill(ctx, id)
	case "change":
		if kind == kindBundle {
			err = s.bundles.BundleChange(ctx, id, q.Get("value"))
			break
		}
		// Every other id is a coordinator's here (rest-api.md 4.2): a
		// workflow id is a coordinator job that does not exist.
		if s.coords == nil {
			return errNoCoordinators()
		}
		err = s.coords.CoordChange(ctx, id, q.Get("value"))
	case "ignore":
		if s.coords == nil {
			return errNoCoordinators()
		}
		out, err := s.coords.CoordIgnore(ctx, id, q.Get("type"), q.Get("scope"))
		if err != nil {
			return err
		}
		if out == nil {
			break // the job itself: 200 with no body
		}
		return s.writeCoordActions(w, r, c, id, out)
	case "update":
		return s.coordUpdate(w, r, c, id)
	case "coord-rerun":
		return s.coordRerun(w, r, c, id)
	case "bundle-rerun":
		err = s.bundleRerun(r, id)
	case "sla-enable", "sla-disable", "sla-change":
		err = s.slaCommand(r, id, act)
	case "rerun":
		if kind == kindBundle {
			err = s.bundleRerun(r, id)
			break
		}
		if kind == kindCoord {
			return s.coordRerun(w, r, c, id)
		}
		if kind != kindWf {
			return errParamValue("action", act)
		}
		err = s.wfRerun(r, c, id)
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// coordUpdate answers update: the body is the new configuration (empty:
// keep the job's), dryrun=true only reports, diff=false leaves the changes
// out of the answer. A caller who may not change what runs as the owner
// (ownConfOnly) may update with the job's own configuration only.
func (s *Server) coordUpdate(w http.ResponseWriter, r *http.Request, c *call, id string) error {
	if s.coords == nil {
		return errNoCoordinators()
	}
	if err := requireXML(r); err != nil {
		return err
	}
	props, err := readConf(r)
	if err != nil {
		return err
	}
	owner, err := s.jobOwner(r, id, kindCoord)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	diff, err := s.coords.CoordUpdate(r.Context(), id, props, coordengine.UpdateOptions{
		DryRun: q.Get("dryrun") == "true", ShowDiff: q.Get("diff") != "false", OwnConf: s.ownConfOnly(c.user, owner)})
	if err != nil {
		return errOwnConf(err, c.user, owner, kindCoord, id)
	}
	m, err := s.commandMasker(r.Context(), c.user, id)
	if err != nil {
		return err
	}
	writeJSON(w, map[string]any{"update": map[string]string{"diff": m.Text(diff)}})
	return nil
}

// coordRerun answers coord-rerun (and rerun of a coordinator id):
// rest-api.md 4.2, flags true only when "true".
func (s *Server) coordRerun(w http.ResponseWriter, r *http.Request, c *call, id string) error {
	if s.coords == nil {
		return errNoCoordinators()
	}
	if err := requireXML(r); err != nil {
		return err
	}
	q := r.URL.Query()
	out, err := s.coords.CoordRerun(r.Context(), id, q.Get("type"), q.Get("scope"),
		q.Get("refresh") == "true", q.Get("nocleanup") == "true", q.Get("failed") == "true")
	if err != nil {
		return err
	}
	return s.writeCoordActions(w, r, c, id, out)
}

// writeCoordActions answers a coordinator command with the actions it
// changed, masked for a caller the job does not name (commandMasker).
func (s *Server) writeCoordActions(w http.ResponseWriter, r *http.Request, c *call, id string, out []*rest.CoordAction) error {
	m, err := s.commandMasker(r.Context(), c.user, id)
	if err != nil {
		return err
	}
	writeJSON(w, map[string]any{"actions": maskCoordActions(out, m)})
	return nil
}

// authorize checks that user may change a job (rest-api.md 4: E0508 for
// workflows, E0509 for coordinators and bundles, both 401; Oozie's E0509
// text says "Coord job" for a bundle too).
func (s *Server) authorize(ctx context.Context, user, id, kind string) error {
	if !s.auth.opts.Authorization {
		return nil
	}
	var owner, group, acl string
	code, what := "E0508", "WF"
	if kind == kindWf {
		j, err := s.engine.JobRecord(ctx, id)
		if err != nil {
			return err
		}
		owner, group, acl = j.User, j.Group, j.ACL
	} else if kind == kindBundle {
		code, what = "E0509", "Coord"
		var err error
		if owner, group, acl, err = s.bundles.BundleOwner(ctx, id); err != nil {
			return err
		}
	} else {
		code, what = "E0509", "Coord"
		var err error
		if owner, group, acl, err = s.coords.CoordOwner(ctx, id); err != nil {
			return err
		}
	}
	if !s.auth.mayModify(user, owner, group, acl) {
		return errorf(http.StatusUnauthorized, code, "User [%s] not authorized for %s job [%s]", userOrQ(user), what, id)
	}
	return nil
}

// showGraph renders a workflow's DAG coloured by its nodes' statuses.
func (s *Server) showGraph(w http.ResponseWriter, r *http.Request, id string) error {
	j, acts, err := s.engine.Job(r.Context(), id)
	if err != nil {
		return err
	}
	format := strings.ToLower(r.URL.Query().Get("format"))
	switch format {
	case "":
		format = "png" // Oozie's default
	case "png", "svg", "dot":
	default:
		return &apiError{status: http.StatusNotFound, code: "E0307", msg: "E0307: Runtime error [unsupported graph format " + format + "]"}
	}
	app, err := workflow.ParseNoValidate([]byte(j.Definition))
	if err != nil {
		return err
	}
	status := map[string]string{}
	for _, a := range acts {
		status[a.Name] = a.Status
	}
	showKill := r.URL.Query().Get("show-kill")
	// layout (down, wrap, auto) is gozie's: how a long workflow is laid
	// out; Oozie's clients never send it and get one column.
	img, err := renderGraph(app, status, format, showKill == "true" || showKill == "yes" || showKill == "1", r.URL.Query().Get("layout"))
	if err != nil {
		return &apiError{status: http.StatusNotFound, code: "E0307", msg: "E0307: Runtime error [" + err.Error() + "]"}
	}
	switch format {
	case "dot":
		w.Header().Set("Content-Type", textType)
	case "png":
		w.Header().Set("Content-Type", "image/png")
	default:
		w.Header().Set("Content-Type", "image/svg+xml")
	}
	_, _ = w.Write(img)
	return nil
}

// renderGraph is the one place the server calls the workflow renderer.
func renderGraph(app *workflow.App, status map[string]string, format string, showKill bool, layout string) ([]byte, error) {
	return graph.Render(app, status, graph.Options{Format: format, HideKill: !showKill, Layout: layout})
}
