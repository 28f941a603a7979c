package server

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/vocab"
	"github.com/gozie/gozie/internal/workflow"
)

// handleCallback serves /oozie/callback?id=<actionId>&status=<status>: no
// authentication, answered at once (rest-api.md 8.3).
func (s *Server) handleCallback(w http.ResponseWriter, r *http.Request) {
	s.metrics.callbacks.Add(1)
	switch r.Method {
	case http.MethodGet:
	case http.MethodPost:
		if s.SystemMode() != ModeNormal {
			writeError(w, errSafeMode)
			return
		}
		if err := requireContentType(r, "text/plain"); err != nil {
			writeError(w, err)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 4096))
		if len(body) > 2048 {
			writeError(w, errorf(http.StatusBadRequest, "E0403", "Invalid callback data, data too long"))
			return
		}
	default:
		writeError(w, errInvalidResource("callback"))
		return
	}
	raw := r.URL.RawQuery
	id, okID := rawParam(raw, "id=")
	status, okStatus := rawParam(raw, "status=")
	if !okID || !okStatus {
		writeError(w, errorf(http.StatusBadRequest, "E0402", "Invalid callback ID [%s]", raw))
		return
	}
	// Processing is asynchronous in Oozie: an unknown action is only
	// logged, and the caller always gets 200. A callback for another
	// server's job goes to that server. One that cannot reach it is
	// refused (503: the sender may try again) and audited; nothing is
	// lost meanwhile, since the server taking the job over checks the
	// action anyway.
	if done, err := s.forward(w, r, id); done || err != nil {
		switch {
		case isJobElsewhere(err):
			s.opts.Logf("gozie: callback %s: %v", id, err)
			job := vocab.JobOf(id)
			s.auditParam(r, "", job, "callback", id, err)
			writeError(w, err)
		case err != nil:
			s.opts.Logf("gozie: callback %s: %v", id, err)
			w.WriteHeader(http.StatusOK)
		}
		return
	}
	if err := s.engine.Callback(context.WithoutCancel(r.Context()), id, status); err != nil {
		s.opts.Logf("gozie: callback %s: %v", id, err)
	}
	w.WriteHeader(http.StatusOK)
}

// rawParam finds key in a raw query by substring search, as Oozie's
// callback servlet does, and URL-decodes its value.
func rawParam(raw, key string) (string, bool) {
	i := strings.Index(raw, key)
	if i < 0 {
		return "", false
	}
	v := raw[i+len(key):]
	if j := strings.IndexByte(v, '&'); j >= 0 {
		v = v[:j]
	}
	dec, err := url.QueryUnescape(v)
	if err != nil {
		return "", false
	}
	return dec, true
}

func requireContentType(r *http.Request, want string) error {
	ct := r.Header.Get("Content-Type")
	mt, _, _ := strings.Cut(ct, ";")
	if strings.ToLower(strings.TrimSpace(mt)) != want {
		return errContentType(ct)
	}
	return nil
}

// handleValidate serves POST /oozie/v2/validate?file=&user=: the request
// body is the XML (a workflow definition).
func (s *Server) handleValidate(w http.ResponseWriter, r *http.Request, c *call) error {
	if r.Method != http.MethodPost {
		return errInvalidResource("validate")
	}
	q := r.URL.Query()
	for _, p := range []string{"file", "user"} {
		if !q.Has(p) {
			return errMissingParam(p)
		}
	}
	if err := requireXML(r); err != nil {
		return err
	}
	file := q.Get("file")
	if strings.HasPrefix(file, "hdfs://") {
		return errorf(http.StatusBadRequest, "E0505", "File does not exist, %s", file)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return err
	}
	// The code path of gozie validate: the same mistake gets the same
	// code. There are no job properties here, so a coordinator gets its
	// schema checks only. Oozie answers with the same text for every kind.
	opts := engine.ValidateOptions{Workflow: workflow.DefaultOptions(), MaxDefinitionBytes: s.engine.MaxDefinitionBytes()}
	opts.Workflow.ExtensionActions = workflow.DefaultExtensionActions()
	opts.Workflow.DefaultNameNode, opts.Workflow.DefaultJobTracker = s.engine.ActionDefaults()
	opts.Credentials = s.engine.CredentialProviders()
	for _, t := range s.engine.ActionTypes() {
		opts.Workflow.ExtensionActions[t] = true // custom types of the configuration too
	}
	if _, err := engine.ValidateDefinition(body, file, opts); err != nil {
		msg := err.Error() + vocab.Location(err) // the place, as gozie validate prints it
		code := engine.ErrorCode(err)
		if code == "" {
			code = workflow.CodeSchema
		} else {
			msg = strings.TrimPrefix(strings.TrimPrefix(msg, code), ": ")
		}
		if code == workflow.CodeSchema {
			// Oozie's wording names the file.
			msg = "XML schema error, " + file + ", " + strings.TrimPrefix(msg, "XML schema error, ")
		}
		return errorf(http.StatusBadRequest, code, "%s", msg)
	}
	writeJSON(w, map[string]string{"validate": "Valid workflow-app"})
	return nil
}

// dryrunWorkflow checks a workflow submission without creating a job:
// the application must load and validate, and its parameters resolve.
func (s *Server) dryrunWorkflow(ctx context.Context, props *conf.Config) error {
	appPath, _ := props.Get(propWfPath)
	p := strings.TrimPrefix(strings.TrimSpace(appPath), "file://")
	p = strings.TrimPrefix(p, "file:")
	if strings.Contains(p, "://") {
		return errorf(http.StatusBadRequest, "E0711", "Invalid application URI [%s]", appPath)
	}
	info, err := os.Stat(p)
	if err != nil {
		return errorf(http.StatusBadRequest, engine.CodeAppDirMissing, "App directory [%s] does not exist", appPath)
	}
	def := p
	if info.IsDir() {
		def = filepath.Join(p, "workflow.xml")
	}
	// Read as the job's user would be when the server acts for its users.
	user, _ := props.Get(engine.PropUser)
	ctx, err = s.engine.JobUserContext(ctx, user)
	if err != nil {
		return err
	}
	data, err := s.engine.ReadDefinition(ctx, def)
	if err != nil {
		if engine.ErrorCode(err) != "" {
			return err
		}
		return errorf(http.StatusBadRequest, engine.CodeAppDefMissing, "App definition [%s] does not exist", def)
	}
	if dp := filepath.Join(filepath.Dir(def), "config-default.xml"); info.IsDir() {
		d, err := s.engine.ReadConfFile(ctx, dp)
		if engine.ErrorCode(err) != "" {
			return err
		}
		if err == nil {
			props.MergeDefaults(d)
		}
	}
	if err := s.engine.CheckExpansion(props); err != nil {
		return err
	}
	opts := workflow.DefaultOptions()
	opts.ExtensionActions = workflow.DefaultExtensionActions()
	for _, t := range s.engine.ActionTypes() {
		opts.ExtensionActions[t] = true // custom types of the configuration too
	}
	opts.MaxDefinitionLength = int(s.engine.MaxDefinitionBytes())
	app, err := workflow.Parse(data, opts)
	if err != nil {
		return err
	}
	_, err = app.ApplyParameters(props.Has)
	return err
}
