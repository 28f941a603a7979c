package server

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gozie/gozie/internal/engine"
)

// In run-as mode (gozie.launch.as.user) a job's steps run as its owner. A
// user the job's ACL lets rerun or update it could otherwise point it at
// their own application, or change its properties, and have that run as
// the owner. So there, only the owner and admins may change what a job
// runs; everybody else allowed to change the job may rerun or update it
// with its own application and properties (failed nodes, skip lists, a
// coordinator's definition read again). Outside run-as mode the steps run
// as the server's user whoever asks, and an ACL member may change the
// properties, as in Oozie.

// runAsMode reports gozie.launch.as.user, which the server reads from the
// same configuration as the executors.
func (s *Server) runAsMode() bool {
	return Config(s.opts.Config).Bool("gozie.launch.as.user")
}

// ownConfOnly reports whether user may change a job of owner only with
// the job's own application and properties.
func (s *Server) ownConfOnly(user, owner string) bool {
	return s.runAsMode() && user != owner && !s.auth.isAdmin(user)
}

// errOwnConf turns an engine's refusal of a change of application or
// properties (*engine.ConfChangeError) into the authorization error of
// the job's kind (E0508 workflows, E0509 coordinators), saying what was
// refused and why; other errors are returned as they are.
func errOwnConf(err error, user, owner, kind, id string) error {
	var ce *engine.ConfChangeError
	if !errors.As(err, &ce) {
		return err
	}
	code, what := "E0508", "WF"
	if kind == kindCoord {
		code, what = "E0509", "Coord"
	}
	return errorf(http.StatusUnauthorized, code,
		"User [%s] not authorized for %s job [%s]: it runs as its owner [%s] (gozie.launch.as.user is true), so only the owner or an admin may change its application or properties; changed: %s. Rerun it with its own configuration, or ask its owner",
		userOrQ(user), what, id, owner, strings.Join(ce.Names, ", "))
}

// jobOwner returns the owner of a workflow, coordinator or bundle job.
func (s *Server) jobOwner(r *http.Request, id, kind string) (string, error) {
	if kind == kindBundle {
		owner, _, _, err := s.bundles.BundleOwner(r.Context(), id)
		return owner, err
	}
	if kind == kindCoord {
		owner, _, _, err := s.coords.CoordOwner(r.Context(), id)
		return owner, err
	}
	j, err := s.engine.JobRecord(r.Context(), id)
	if err != nil {
		return "", err
	}
	return j.User, nil
}

// wfRerun reruns workflow id with props for the caller: with the job's own
// configuration only, and without taking the caller's user.name into it,
// when ownConfOnly says so.
func (s *Server) wfRerun(r *http.Request, c *call, id string) error {
	if err := requireXML(r); err != nil {
		return err
	}
	props, err := readConf(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	owner, err := s.jobOwner(r, id, kindWf)
	if err != nil {
		return err
	}
	if s.ownConfOnly(c.user, owner) {
		return errOwnConf(s.engine.RerunOwnConf(ctx, id, props), c.user, owner, kindWf, id)
	}
	var note string
	if c.user != "" {
		if note, err = s.submitUser(r, props, c.user); err != nil {
			return err
		}
	}
	if err := s.engine.Rerun(ctx, id, props); err != nil {
		return err
	}
	if note != "" {
		if lerr := s.engine.Note(ctx, id, "WARN", note); lerr != nil {
			s.opts.Logf("gozie: job %s: %s (not logged: %v)", id, note, lerr)
		}
	}
	return nil
}
