package server

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/store"
)

// Secrets of job configurations are masked when they are read, per
// reader: the store keeps them whole (the steps need them), the job's
// owner, the users and groups of its ACL and admins see them, and every
// other reader gets the same pages with the values of secret-named
// properties (and those values wherever they appear: log lines, program
// output) replaced by redact.Mask. Reading is open to every authenticated
// user, so this is what keeps one user's passwords from the others.

// keyMaskNames is the server key adding secret names to the built-in ones.
const keyMaskNames = "gozie.configuration.mask.names"

// readerMasker returns how user sees the secrets of a job owned by owner
// with group and acl: nil (everything shown) for the owner, its ACL's
// users and groups, and admins; the server's masker for anybody else.
// Unlike mayModify it does not depend on gozie.authorization.enabled:
// with authorization off anyone may change a job, but a reader who is not
// named by it still does not see its secrets.
func (s *Server) readerMasker(user, owner, group, acl string) *redact.Masker {
	if s.auth.named(user, owner, group, acl) {
		return nil
	}
	return s.masker
}

// jobMasker is readerMasker for a workflow job, knowing the secret values
// of its configuration and of its actions' XML, which it also masks
// wherever they appear.
func (s *Server) jobMasker(user string, j *store.Job, acts []*store.Action) *redact.Masker {
	m := s.readerMasker(user, j.User, j.Group, j.ACL)
	if m == nil {
		return nil
	}
	docs := []string{j.Conf}
	for _, a := range acts {
		docs = append(docs, a.Conf)
	}
	return m.WithValues(m.SecretValues(docs...)...)
}

// coordMasker is jobMasker for a coordinator job (or the coordinator of
// an action id): its configuration is read only for a reader who gets a
// masker.
func (s *Server) coordMasker(ctx context.Context, user, id string) (*redact.Masker, error) {
	owner, group, acl, err := s.coords.CoordOwner(ctx, id)
	if err != nil {
		return nil, err
	}
	m := s.readerMasker(user, owner, group, acl)
	if m == nil {
		return nil, nil
	}
	info, err := s.coords.CoordJobInfo(ctx, id, 1, 1, false, nil)
	if err != nil {
		return nil, err
	}
	return m.WithValues(m.SecretValues(jsonString(info, "conf"))...), nil
}

// maskJobJSON masks a workflow job object for a reader.
func maskJobJSON(jj *engine.JobJSON, m *redact.Masker) {
	if m == nil {
		return
	}
	jj.Conf = maskPtr(jj.Conf, m.XML)
	for _, a := range jj.Actions {
		maskActionJSON(a, m)
	}
}

// maskActionJSON masks a workflow action object: its XML, its captured
// output (properties) and its error message.
func maskActionJSON(a *engine.ActionJSON, m *redact.Masker) {
	if m == nil {
		return
	}
	a.Conf = maskPtr(a.Conf, m.XML)
	a.Data = maskPtr(a.Data, m.Properties)
	a.ErrorMessage = maskPtr(a.ErrorMessage, m.Text)
}

func maskPtr(p *string, f func(string) string) *string {
	if p == nil {
		return nil
	}
	v := f(*p)
	return &v
}

// maskCoordJSON masks a coordinator job or action object as the
// coordinator engine returns it: conf, createdConf and runConf are XML,
// errorMessage text. Objects of other types (a test's fake engine) are
// masked through their JSON keys.
func maskCoordJSON(v any, m *redact.Masker) any {
	if m == nil {
		return v
	}
	switch o := v.(type) {
	case *coordengine.CoordJobJSON:
		c := *o
		c.Conf = maskPtr(c.Conf, m.XML)
		c.Actions = make([]*coordengine.CoordActionJSON, len(o.Actions))
		for i, a := range o.Actions {
			c.Actions[i] = maskCoordActionJSON(a, m)
		}
		return &c
	case *coordengine.CoordActionJSON:
		return maskCoordActionJSON(o, m)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var obj map[string]any
	if json.Unmarshal(b, &obj) != nil || obj == nil {
		return v
	}
	maskJSONKeys(obj, m)
	if acts, ok := obj["actions"].([]any); ok {
		for _, a := range acts {
			if am, ok := a.(map[string]any); ok {
				maskJSONKeys(am, m)
			}
		}
	}
	return obj
}

// maskCoordActions masks the list of coordinator actions a command
// answers with (kill, ignore, rerun).
func maskCoordActions(v any, m *redact.Masker) any {
	if m == nil {
		return v
	}
	if acts, ok := v.([]*coordengine.CoordActionJSON); ok {
		out := make([]*coordengine.CoordActionJSON, len(acts))
		for i, a := range acts {
			out[i] = maskCoordActionJSON(a, m)
		}
		return out
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var list []map[string]any
	if json.Unmarshal(b, &list) != nil {
		return v
	}
	for _, a := range list {
		maskJSONKeys(a, m)
	}
	return list
}

// commandMasker is coordMasker for the answer to a command: with
// authorization on only callers the job names get here, and see
// everything; with it off anyone may change a job, but not see its
// secrets in the answer.
func (s *Server) commandMasker(ctx context.Context, user, id string) (*redact.Masker, error) {
	if s.auth.opts.Authorization {
		return nil, nil
	}
	return s.coordMasker(ctx, user, id)
}

func maskCoordActionJSON(a *coordengine.CoordActionJSON, m *redact.Masker) *coordengine.CoordActionJSON {
	c := *a
	c.CreatedConf = maskPtr(c.CreatedConf, m.XML)
	c.RunConf = maskPtr(c.RunConf, m.XML)
	c.ErrorMessage = maskPtr(c.ErrorMessage, m.Text)
	return &c
}

// maskJSONKeys masks the configuration keys of a decoded JSON object.
func maskJSONKeys(obj map[string]any, m *redact.Masker) {
	for _, k := range []string{"conf", "createdConf", "runConf"} {
		if s, ok := obj[k].(string); ok {
			obj[k] = m.XML(s)
		}
	}
	if s, ok := obj["errorMessage"].(string); ok {
		obj["errorMessage"] = m.Text(s)
	}
}

// readerKey carries the authenticated user of a console request to the
// console's masker (consoleMasker).
type readerKey struct{}

// withReader returns r carrying its authenticated user for the console.
func withReader(r *http.Request, user string) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), readerKey{}, user))
}

// consoleMasker is console.Options.Masker: the masker of the request's
// reader for a job of owner, group and acl.
func (s *Server) consoleMasker(r *http.Request, owner, group, acl string) *redact.Masker {
	user, _ := r.Context().Value(readerKey{}).(string)
	return s.readerMasker(user, owner, group, acl)
}
