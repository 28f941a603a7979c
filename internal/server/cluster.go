package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/cluster"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// Cluster is what the server needs of its membership when several servers
// share the store (package cluster's *Member): where a job's commands go,
// and which servers are alive.
type Cluster interface {
	ID() string
	Route(ctx context.Context, jobID string) (url string, local bool, err error)
	Live(ctx context.Context) ([]store.ServerInfo, error)
	// Spread names a less loaded server for a new submission, "" to
	// keep it here.
	Spread() string
}

// forwardedHeader marks a request one server passed to another; the
// receiver handles it itself, so a request is forwarded at most once.
const forwardedHeader = "X-Gozie-Forwarded-By"

// errJobElsewhere is answered for a command on a job whose server is down
// (its jobs move to a live server within the lease) or that moved while
// the command ran: 503, so clients and load balancers try again. E0606 is
// Oozie's error for a job lock it could not get in time. The message
// names the job and, in why, the server working it, which is what an
// operator looking at the refusal (or its audit line) needs to know.
func errJobElsewhere(id, why string) *apiError {
	return errorf(http.StatusServiceUnavailable, "E0606", "Could not get lock [%s]: %s; retry shortly", id, why)
}

// isJobElsewhere reports a refusal of errJobElsewhere.
func isJobElsewhere(err error) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.code == "E0606"
}

// forward passes a request for job id to the server that works it, and
// reports whether it did (the response is written then). A job this server
// owns, a request already forwarded once, or a server without peers is
// handled here. A job whose server cannot be reached is errJobElsewhere.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, id string) (bool, error) {
	if s.opts.Cluster == nil || r.Header.Get(forwardedHeader) != "" {
		return false, nil
	}
	job := vocab.JobOf(id)
	to, local, err := s.opts.Cluster.Route(r.Context(), job)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil // the handler answers E0604 as usual
	}
	if errors.Is(err, cluster.ErrOwnerDown) {
		// Route's error names the job and the owner's instance.
		return true, errJobElsewhere(id, err.Error())
	}
	if err != nil || local {
		return false, err
	}
	return true, s.proxy(w, r, to, id)
}

// proxy passes the request to the server at base URL to and writes its
// answer; an unusable URL or a server that does not answer is
// errJobElsewhere (nothing was written then).
func (s *Server) proxy(w http.ResponseWriter, r *http.Request, to, id string) error {
	target, err := url.Parse(to)
	if err != nil || target.Host == "" {
		return errJobElsewhere(id, "the URL of the server working it is not usable: "+to)
	}
	var proxyErr error
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// The path is kept: every gozie server serves the same
			// /oozie paths, whatever its base URL's host.
			pr.Out.URL.Scheme, pr.Out.URL.Host, pr.Out.Host = target.Scheme, target.Host, target.Host
			pr.SetXForwarded()
			pr.Out.Header.Set(forwardedHeader, s.opts.Cluster.ID())
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			proxyErr = err
		},
	}
	s.metrics.forwarded.Add(1)
	proxy.ServeHTTP(w, r)
	if proxyErr != nil {
		s.opts.Logf("gozie: forward %s %s to %s: %v", r.Method, r.URL.Path, target.Host, proxyErr)
		return errJobElsewhere(id, s.serverAt(r.Context(), to)+" working it did not answer")
	}
	return nil
}

// serverAt names the server whose base URL is to for a refusal: its
// gozie.server.id and URL, or the URL alone when the live servers cannot
// be read. Only refusals pay for the lookup.
func (s *Server) serverAt(ctx context.Context, to string) string {
	if live, err := s.opts.Cluster.Live(ctx); err == nil {
		for _, srv := range live {
			if srv.URL == to {
				return "the server " + srv.Name + " (" + to + ")"
			}
		}
	}
	return "the server at " + to
}

// spread passes a new submission to a less loaded server when this one has
// clearly more unfinished jobs than another live one (Cluster.Spread),
// and reports whether it did. A dry run creates no job and stays here, as
// does a submission another server already passed on, and one the chosen
// server does not answer.
func (s *Server) spread(w http.ResponseWriter, r *http.Request) bool {
	if s.opts.Cluster == nil || r.Header.Get(forwardedHeader) != "" || r.URL.Query().Get("action") == "dryrun" {
		return false
	}
	to := s.opts.Cluster.Spread()
	if to == "" {
		return false
	}
	// The body must survive a failed attempt: the submission then
	// stays here.
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	err = s.proxy(w, r.Clone(r.Context()), to, "submission")
	r.Body = io.NopCloser(bytes.NewReader(body))
	return err == nil
}

// forwardCommand sends one job command (kill, suspend, resume) of a bulk
// request to the server owning the job, with the caller's credentials, and
// reports whether the job is another server's (then done is true and err
// says whether the command failed there). A server that could not be
// reached is errJobElsewhere: the owner never saw the command, so the
// caller audits the refusal; any other error is the owner's answer, which
// the owner audited.
func (s *Server) forwardCommand(r *http.Request, id, act string) (bool, error) {
	if s.opts.Cluster == nil || r.Header.Get(forwardedHeader) != "" {
		return false, nil
	}
	to, local, err := s.opts.Cluster.Route(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && local) {
		return false, nil
	}
	if errors.Is(err, cluster.ErrOwnerDown) {
		return true, errJobElsewhere(id, err.Error())
	}
	if err != nil {
		return true, err
	}
	target, err := url.Parse(to)
	if err != nil || target.Host == "" {
		return true, errJobElsewhere(id, "the URL of the server working it is not usable: "+to)
	}
	q := url.Values{"action": {act}}
	if u := r.URL.Query().Get("user.name"); u != "" {
		q.Set("user.name", u)
	}
	u := url.URL{Scheme: target.Scheme, Host: target.Host, Path: "/oozie/v2/job/" + id, RawQuery: q.Encode()}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, u.String(), nil)
	if err != nil {
		return true, err
	}
	for _, h := range []string{"Authorization", "Cookie"} {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	req.Header.Set(forwardedHeader, s.opts.Cluster.ID())
	s.metrics.forwarded.Add(1)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.opts.Logf("gozie: forward bulk %s %s to %s: %v", act, id, target.Host, err)
		return true, errJobElsewhere(id, s.serverAt(r.Context(), to)+" working it did not answer")
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		return true, fmt.Errorf("%s answered %d: %s %s", target.Host, res.StatusCode, res.Header.Get("oozie-error-message"), strings.TrimSpace(string(body)))
	}
	return true, nil
}
