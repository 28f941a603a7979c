package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"

	"github.com/gozie/gozie/internal/cluster"
	"github.com/gozie/gozie/internal/store"
)

// Cluster is what the server needs of its membership when several servers
// share the store (package cluster's *Member): where a job's commands go,
// and which servers are alive.
type Cluster interface {
	ID() string
	Route(ctx context.Context, jobID string) (url string, local bool, err error)
	Live(ctx context.Context) ([]store.ServerInfo, error)
}

// forwardedHeader marks a request one server passed to another; the
// receiver handles it itself, so a request is forwarded at most once.
const forwardedHeader = "X-Gozie-Forwarded-By"

// errJobElsewhere is answered for a command on a job whose server is down
// (its jobs move to a live server within the lease) or that moved while
// the command ran: 503, so clients and load balancers try again. E0606 is
// Oozie's error for a job lock it could not get in time.
func errJobElsewhere(id string, err error) *apiError {
	return errorf(http.StatusServiceUnavailable, "E0606", "Could not get lock [%s]: %v; retry shortly", id, err)
}

// forward passes a request for job id to the server that works it, and
// reports whether it did (the response is written then). A job this server
// owns, a request already forwarded once, or a server without peers is
// handled here.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, id string) (bool, error) {
	if s.opts.Cluster == nil || r.Header.Get(forwardedHeader) != "" {
		return false, nil
	}
	job, _, _ := strings.Cut(id, "@")
	to, local, err := s.opts.Cluster.Route(r.Context(), job)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil // the handler answers E0604 as usual
	}
	if errors.Is(err, cluster.ErrOwnerDown) {
		return true, errJobElsewhere(id, err)
	}
	if err != nil || local {
		return false, err
	}
	target, err := url.Parse(to)
	if err != nil || target.Host == "" {
		return true, errJobElsewhere(id, errors.New("the owning server's URL is not usable: "+to))
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
		return true, errJobElsewhere(id, errors.New("the owning server did not answer"))
	}
	return true, nil
}
