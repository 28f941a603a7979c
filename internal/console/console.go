// Package console is gozie's web console: HTML pages of jobs, workflow
// and coordinator jobs and the system, served by `gozie server` under
// /oozie/console/ with every asset embedded in the binary.
//
// Pages are rendered on the server from the same engine and store queries
// the REST API answers from (so a page of 50 jobs out of 10,000 is one
// paged store query, and the pages work without JavaScript). A small
// script adds what needs the browser: live refresh without reloading,
// the confirmation step of the job controls and forms, and the action output
// viewer. Changes go through the REST API handler itself (authentication,
// authorization, audit and safe mode are the REST API's), unless the
// console is read-only.
package console

import (
	"bytes"
	"context"
	"embed"
	"encoding/xml"
	"errors"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// Prefix is the path the console is served under; the REST API's action
// output (/oozie/console/action/) lives beside it.
const Prefix = "/oozie/console/"

//go:embed assets
var assets embed.FS

// Options configure a Console. Engine is required.
type Options struct {
	Engine *engine.Engine
	// Coordinators serves the coordinator pages; nil shows no
	// coordinator jobs.
	Coordinators Coordinators
	// Bundles serves the bundle pages; nil shows no bundle jobs.
	Bundles Bundles
	// SLAs serves the SLA page and the SLA sections of the job pages;
	// nil shows no SLA.
	SLAs SLAs
	// API is the REST API handler; the console's kill, suspend and
	// resume requests are handed to it as PUT /oozie/v2/job/<id>.
	API http.Handler
	// ReadOnly hides the job controls and refuses the console's changes
	// (gozie.console.read.only).
	ReadOnly bool
	// Version, StoreKind and Mode are shown on the system page.
	Version   string
	StoreKind string
	Mode      func() string
	// Counters are the server's metrics by name (requests, errors, jobs
	// submitted, ...), summed up on the system page.
	Counters func() map[string]int64
	// ErrorOf turns an error of the engine or the store into the status,
	// Oozie code and message the REST API answers it with (logging what
	// the message hides); nil shows an engine error's code and text and
	// a generic E0307 for any other.
	ErrorOf func(err error) (status int, code, msg string)
	// ActionDir is the work directory of an action's run, where its
	// stdout and stderr files are.
	ActionDir func(*store.Action) string
	// Servers lists the live servers sharing the store (several
	// servers), with Self the instance serving the page; nil for a server
	// of its own.
	Servers func(ctx context.Context) ([]store.ServerInfo, error)
	Self    func() string
	// Masker tells how the request's reader sees the secrets of a job
	// owned by owner with group and acl: nil to show them, else the
	// masker that hides them. nil shows them to everyone.
	Masker func(r *http.Request, owner, group, acl string) *redact.Masker
	// Now is the clock the durations of running jobs are measured
	// against; nil is time.Now.
	Now func() time.Time
}

// Coordinators is what the console reads of the coordinator engine;
// *coordengine.Engine implements it.
type Coordinators interface {
	CoordJob(ctx context.Context, id string) (*store.CoordJob, error)
	CoordJobInfo(ctx context.Context, id string, offset, length int, desc bool, statuses []string) (*rest.CoordJob, error)
	CoordJobList(ctx context.Context, f store.JobFilter) ([]*rest.CoordJob, int, error)
	CoordMissingDependencies(ctx context.Context, id, rangeType, scope string) ([]coordengine.MissingDependencies, error)
}

// noCoordinators answers for a console without coordinators.
type noCoordinators struct{}

func (noCoordinators) CoordJob(ctx context.Context, id string) (*store.CoordJob, error) {
	return nil, &engine.Error{Code: engine.CodeJobNotFound, Msg: "Job does not exist [" + id + "]"}
}

func (noCoordinators) CoordJobInfo(ctx context.Context, id string, offset, length int, desc bool, statuses []string) (*rest.CoordJob, error) {
	return nil, &engine.Error{Code: engine.CodeJobNotFound, Msg: "Job does not exist [" + id + "]"}
}

func (noCoordinators) CoordJobList(ctx context.Context, f store.JobFilter) ([]*rest.CoordJob, int, error) {
	return nil, 0, nil
}

func (noCoordinators) CoordMissingDependencies(ctx context.Context, id, rangeType, scope string) ([]coordengine.MissingDependencies, error) {
	return nil, nil
}

// pagePolicy is the Content-Security-Policy of the console's pages: their
// own script, style sheet and images (the graph is the REST API's SVG)
// and nothing else; no inline script or style.
const pagePolicy = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// rawPolicy is the policy of what the console serves as data (an
// action's output): the REST API's, a sandbox that runs and loads nothing.
const rawPolicy = "sandbox; default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Console serves the console pages.
type Console struct {
	opts  Options
	pages map[string]*template.Template
	files http.Handler
}

// tailBytes is how much of an action's output the viewer shows; the
// whole file is a download away.
const tailBytes = 64 << 10

// jobsPageLen is the default page size of the jobs tables.
const jobsPageLen = 50

// New returns the console of an engine.
func New(opts Options) (*Console, error) {
	if opts.Engine == nil {
		return nil, errors.New("console: Engine is required")
	}
	if opts.Coordinators == nil {
		opts.Coordinators = noCoordinators{}
	}
	if opts.Bundles == nil {
		opts.Bundles = noBundles{}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Mode == nil {
		opts.Mode = func() string { return "NORMAL" }
	}
	c := &Console{opts: opts, pages: map[string]*template.Template{}}
	for _, p := range []string{"jobs", "workflow", "coordinator", "bundle", "runs", "system", "error", "sla"} {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(assets, "assets/layout.html", "assets/"+p+".html")
		if err != nil {
			return nil, err
		}
		c.pages[p] = t
	}
	static, err := fs.Sub(assets, "assets/static")
	if err != nil {
		return nil, err
	}
	c.files = http.StripPrefix(Prefix+"static/", http.FileServerFS(static))
	return c, nil
}

// Redirect returns where a request outside the console should go to reach
// it, or "" when it is not a console request: / always, /oozie?job=<id>
// and /oozie/?job=<id> (the consoleUrl of jobs and actions) to that job's
// page, and /oozie, whatever the client accepts, to the jobs page (Oozie's
// servlet container sends /oozie on to its console at /oozie/). /oozie/
// itself is the console (ServeRoot) where the server mounts it; here it is
// sent to the jobs page too, for a server that does not.
func Redirect(r *http.Request) string {
	if r.URL.Path == "/" {
		return Prefix
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return ""
	}
	switch r.URL.Path {
	case "/oozie", RootPath:
		if id := r.URL.Query().Get("job"); id != "" {
			return jobURL(id)
		}
		return Prefix
	}
	return ""
}

// RootPath is where Oozie serves its web console to every client, browser
// or not: GET /oozie/ answers the console's jobs page, not an error.
const RootPath = "/oozie/"

// ServeRoot answers GET or HEAD /oozie/ (RootPath) with the jobs page, as
// Oozie answers its console there whatever the client accepts; a job id
// in ?job= (the consoleUrl form) opens that job's page. The caller has
// authenticated the request.
func (c *Console) ServeRoot(w http.ResponseWriter, r *http.Request) {
	if id := r.URL.Query().Get("job"); id != "" {
		http.Redirect(w, r, jobURL(id), http.StatusFound)
		return
	}
	root := r.Clone(r.Context())
	root.URL.Path, root.URL.RawPath = Prefix, ""
	c.ServeHTTP(w, root)
}

// jobURL is the console page of a job or action id.
func jobURL(id string) string { return Prefix + "job/" + url.PathEscape(id) }

// ServeHTTP serves the console paths; the caller has authenticated the
// request (user is "" when anonymous).
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, Prefix)
	h := w.Header()
	// The pages load nothing from elsewhere and run no inline code: say
	// so, so that an injected tag could not either.
	h.Set("Content-Security-Policy", pagePolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	switch {
	case strings.HasPrefix(rest, "static/"):
		c.files.ServeHTTP(w, r)
	case r.Method == http.MethodPut && strings.HasPrefix(rest, "job/"):
		c.change(w, r, strings.TrimPrefix(rest, "job/"))
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		c.fail(w, r, failf(http.StatusMethodNotAllowed, codeInvalidResource, "Invalid resource [%s]: method %s not allowed here", r.URL.Path, r.Method))
	case rest == "" || rest == "jobs":
		c.jobs(w, r)
	case rest == "system":
		c.system(w, r)
	case rest == "runs":
		c.runs(w, r)
	case rest == "sla":
		c.slaPage(w, r)
	case strings.HasPrefix(rest, "job/"):
		c.job(w, r, strings.TrimPrefix(rest, "job/"))
	case strings.HasPrefix(rest, "tail/"):
		c.tail(w, r, strings.TrimPrefix(rest, "tail/"))
	default:
		c.fail(w, r, failf(http.StatusNotFound, codeInvalidResource, "Invalid resource [%s]: no console page", r.URL.Path))
	}
}

// page is what every template sees.
type page struct {
	Title    string
	Nav      string
	ReadOnly bool
	Live     bool // the page refreshes itself while true
	// Now is when the page is rendered: running jobs' durations end
	// there.
	Now  time.Time
	Data any
}

func (c *Console) render(w http.ResponseWriter, status int, name string, p page) {
	p.ReadOnly, p.Now = c.opts.ReadOnly, c.opts.Now()
	var b bytes.Buffer
	if err := c.pages[name].Execute(&b, p); err != nil {
		f := failf(http.StatusInternalServerError, codeRuntime, "Runtime error [console page %s: %v]", name, err)
		setErrorHeaders(w, f)
		http.Error(w, f.msg, f.status)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// change hands the console's controls to the REST API as
// PUT /oozie/v2/job/<id>?action=..., with the request's credentials, so
// that they are authorized and audited as any Oozie client's request.
// rerun-failed is a workflow rerun of the nodes that did not succeed
// (oozie.wf.rerun.failnodes=true), rerun-skip one that skips the nodes
// given as skip (oozie.wf.rerun.skip.nodes), both over the job's own
// configuration; coord-rerun and ignore pass type and scope (and
// refresh, nocleanup, failed), bundle-rerun coord-scope and date-scope
// (and refresh, nocleanup), change builds value from endtime,
// concurrency (not a bundle's) and pausetime; start is a bundle's.
func (c *Console) change(w http.ResponseWriter, r *http.Request, id string) {
	if c.opts.ReadOnly {
		writeError(w, failf(http.StatusForbidden, codeNotAuthorized, "Not authorized, the console is read-only (gozie.console.read.only=true)"))
		return
	}
	if c.opts.API == nil || id == "" || strings.Contains(id, "/") {
		writeError(w, failf(http.StatusBadRequest, codeParamValue, "Invalid parameter value, [id] = [%s]", id))
		return
	}
	q := r.URL.Query()
	act := q.Get("action")
	body := ""
	wf, coord, bundle := vocab.IsWorkflowJob(id), vocab.IsCoordJob(id), vocab.IsBundleJob(id)
	// fwdQ is what the REST API gets: the action's own parameters, and
	// user.name (a simple-auth caller authenticates there as anywhere).
	fwdQ := url.Values{}
	if u := q.Get("user.name"); u != "" {
		fwdQ.Set("user.name", u)
	}
	fwdQ.Set("action", act)
	switch act {
	case "kill", "suspend", "resume":
	case "start":
		if !bundle {
			writeError(w, failf(http.StatusBadRequest, codeParamValue, "Invalid parameter value, [action] = [%s]: for bundle jobs only", act))
			return
		}
	case "bundle-rerun":
		if !bundle {
			writeError(w, failf(http.StatusBadRequest, codeParamValue, "Invalid parameter value, [action] = [%s]: for bundle jobs only", act))
			return
		}
		for _, k := range []string{"coord-scope", "date-scope"} {
			if v := strings.TrimSpace(q.Get(k)); v != "" {
				fwdQ.Set(k, v)
			}
		}
		for _, k := range []string{"refresh", "nocleanup"} {
			fwdQ.Set(k, strconv.FormatBool(q.Get(k) == "true" || q.Get(k) == "on"))
		}
		body = confXML()
	case "rerun-failed", "rerun-skip":
		if !wf {
			writeError(w, failf(http.StatusBadRequest, codeParamValue, "Invalid parameter value, [action] = [%s]: for workflow jobs only", act))
			return
		}
		fwdQ.Set("action", "rerun")
		if act == "rerun-failed" {
			body = confXML("oozie.wf.rerun.failnodes", "true")
		} else {
			// The nodes not to run again; none reruns the whole workflow.
			body = confXML("oozie.wf.rerun.skip.nodes", strings.Join(splitList(strings.Join(q["skip"], ",")), ","))
		}
	case "coord-rerun", "ignore":
		if !coord {
			writeError(w, failf(http.StatusBadRequest, codeParamValue, "Invalid parameter value, [action] = [%s]: for coordinator jobs only", act))
			return
		}
		fwdQ.Set("type", q.Get("type"))
		fwdQ.Set("scope", strings.TrimSpace(q.Get("scope")))
		if act == "coord-rerun" {
			for _, k := range []string{"refresh", "nocleanup", "failed"} {
				if q.Get(k) == "true" || q.Get(k) == "on" {
					fwdQ.Set(k, "true")
				}
			}
			body = confXML()
		}
	case "change":
		if !coord && !bundle {
			writeError(w, failf(http.StatusBadRequest, codeParamValue, "Invalid parameter value, [action] = [%s]: for coordinator and bundle jobs only", act))
			return
		}
		// The form's fields become the REST API's value list; a bundle
		// has no concurrency (rest-api.md 7.4).
		keys := []string{"endtime", "concurrency", "pausetime"}
		if bundle {
			keys = []string{"endtime", "pausetime"}
		}
		var parts []string
		for _, k := range keys {
			if v := strings.TrimSpace(q.Get(k)); v != "" {
				parts = append(parts, k+"="+v)
			}
		}
		if len(parts) == 0 {
			writeError(w, failf(http.StatusBadRequest, codeMissingParam, "Missing parameter [endtime, concurrency or pausetime]: nothing to change"))
			return
		}
		fwdQ.Set("value", strings.Join(parts, ";"))
	default:
		writeError(w, failf(http.StatusBadRequest, codeParamValue, "Invalid parameter value, [action] = [%s]: not a console action", act))
		return
	}
	q = fwdQ
	fwd := r.Clone(r.Context())
	fwd.URL = &url.URL{Path: "/oozie/v2/job/" + id, RawQuery: q.Encode()}
	fwd.RequestURI = ""
	fwd.Body, fwd.ContentLength = http.NoBody, 0
	if body != "" {
		fwd.Body, fwd.ContentLength = io.NopCloser(strings.NewReader(body)), int64(len(body))
		fwd.Header.Set("Content-Type", "application/xml;charset=UTF-8")
	}
	c.opts.API.ServeHTTP(w, fwd)
}

// confXML is a configuration document of name, value pairs.
func confXML(kv ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><configuration>`)
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString("<property><name>")
		_ = xml.EscapeText(&b, []byte(kv[i]))
		b.WriteString("</name><value>")
		_ = xml.EscapeText(&b, []byte(kv[i+1]))
		b.WriteString("</value></property>")
	}
	b.WriteString("</configuration>")
	return b.String()
}

// tail serves the last tailBytes of an action's stdout or stderr:
// tail/<actionId>/stdout|stderr. Reading it needs what job info needs.
func (c *Console) tail(w http.ResponseWriter, r *http.Request, rest string) {
	id, stream, ok := strings.Cut(rest, "/")
	if !ok || (stream != "stdout" && stream != "stderr") || !strings.Contains(id, "@") {
		c.fail(w, r, failf(http.StatusNotFound, codeInvalidResource, "Invalid resource [%s]: no action output", rest))
		return
	}
	jobID := vocab.JobOf(id)
	j, acts, err := c.opts.Engine.Job(r.Context(), jobID)
	if err != nil {
		c.engineFail(w, r, err)
		return
	}
	m := c.jobMasker(r, j, acts)
	for _, a := range acts {
		if a.ID != id {
			continue
		}
		var text string
		if c.opts.ActionDir != nil {
			if text, _, err = readTail(filepath.Join(c.opts.ActionDir(a), stream), tailBytes); err != nil {
				c.engineFail(w, r, err)
				return
			}
		}
		h := w.Header()
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		// The output is the job's, not the console's.
		h.Set("Content-Security-Policy", rawPolicy)
		_, _ = io.WriteString(w, m.Text(text))
		return
	}
	c.fail(w, r, failf(http.StatusNotFound, engine.CodeActionNotFound, "Action does not exist [%s]", id))
}

// masker is how the request's reader sees the secrets of a job of owner,
// group and acl whose configuration documents are docs: nil when the
// reader may see them, else a masker that also hides their secret values
// wherever they appear.
func (c *Console) masker(r *http.Request, owner, group, acl string, docs ...string) *redact.Masker {
	if c.opts.Masker == nil {
		return nil
	}
	m := c.opts.Masker(r, owner, group, acl)
	return m.WithValues(m.SecretValues(docs...)...)
}

// jobMasker is masker for a workflow job and its actions.
func (c *Console) jobMasker(r *http.Request, j *store.Job, acts []*store.Action) *redact.Masker {
	docs := []string{j.Conf}
	for _, a := range acts {
		docs = append(docs, a.Conf)
	}
	return c.masker(r, j.User, j.Group, j.ACL, docs...)
}

// readTail returns the last n bytes of a file (from a line start when it
// cut the file) and whether it cut; a missing file is empty.
//
// The file is in a work directory the job's user may own: it is opened as
// launch.OpenOutput opens it (no link followed, no wait on a FIFO); a file
// that was replaced shows as empty.
func readTail(path string, n int64) (string, bool, error) {
	f, err := launch.OpenOutput(path)
	if err != nil {
		return "", false, nil
	}
	defer f.Close()
	b, cut, err := launch.TailOf(f, n)
	if err != nil {
		return "", false, err
	}
	if cut {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return string(b), cut, nil
}

// hasOutput reports whether an action ran a process (left a stdout file).
func (c *Console) hasOutput(a *store.Action) bool {
	if c.opts.ActionDir == nil {
		return false
	}
	f, err := launch.OpenOutput(filepath.Join(c.opts.ActionDir(a), "stdout"))
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// ctxOf is the request context (a helper so page code reads shorter).
func ctxOf(r *http.Request) context.Context { return r.Context() }
