package server

import (
	"context"
	"net/http"

	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/rest"
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
	return m.WithValues(m.SecretValues(string(info.Conf))...), nil
}

// maskJobJSON masks a workflow job bean for a reader.
func maskJobJSON(jj *rest.WorkflowJob, m *redact.Masker) {
	if m == nil {
		return
	}
	jj.Conf = maskStr(jj.Conf, m.XML)
	for _, a := range jj.Actions {
		maskActionJSON(a, m)
	}
}

// maskActionJSON masks a workflow action bean: its XML, its captured
// output (properties) and its error message.
func maskActionJSON(a *rest.WorkflowAction, m *redact.Masker) {
	if m == nil {
		return
	}
	a.Conf = maskStr(a.Conf, m.XML)
	a.Data = maskStr(a.Data, m.Properties)
	a.ErrorMessage = maskStr(a.ErrorMessage, m.Text)
}

// maskStr masks a bean string; an unset one stays unset.
func maskStr(s rest.Str, f func(string) string) rest.Str {
	if s == "" {
		return ""
	}
	return rest.Str(f(string(s)))
}

// maskCoordJSON returns a coordinator job bean masked for a reader:
// conf, createdConf and runConf are XML, errorMessage text. The engine's
// bean is copied, not changed.
func maskCoordJSON(o *rest.CoordJob, m *redact.Masker) *rest.CoordJob {
	if m == nil {
		return o
	}
	c := *o
	c.Conf = maskStr(c.Conf, m.XML)
	c.Actions = maskCoordActions(o.Actions, m)
	return &c
}

// maskCoordActions masks a list of coordinator action beans (a job's, or
// the answer of kill, ignore and rerun).
func maskCoordActions(acts []*rest.CoordAction, m *redact.Masker) []*rest.CoordAction {
	if m == nil {
		return acts
	}
	out := make([]*rest.CoordAction, len(acts))
	for i, a := range acts {
		out[i] = maskCoordActionJSON(a, m)
	}
	return out
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

func maskCoordActionJSON(a *rest.CoordAction, m *redact.Masker) *rest.CoordAction {
	c := *a
	c.CreatedConf = maskStr(c.CreatedConf, m.XML)
	c.RunConf = maskStr(c.RunConf, m.XML)
	c.ErrorMessage = maskStr(c.ErrorMessage, m.Text)
	return &c
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
