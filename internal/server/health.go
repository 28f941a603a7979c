package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// Paths of the health endpoints and the metrics page: outside /oozie, where
// load balancers, Kubernetes and Prometheus look for them.
const (
	PathLive    = "/health/live"
	PathReady   = "/health/ready"
	PathMetrics = "/metrics"
)

// keyMetricsAuth makes /metrics follow the server's authentication.
const keyMetricsAuth = "gozie.metrics.auth"

// ReadyCheck is one condition of readiness: Check returns nil when it
// holds. Checks are given a context with ReadyTimeout.
type ReadyCheck struct {
	Name  string
	Check func(ctx context.Context) error
}

// ReadyTimeout bounds each readiness check: a database that does not
// answer within it is as good as down for a load balancer.
const ReadyTimeout = 2 * time.Second

// RequestObserver is told of each request the server answers and each
// job submitted through it (the server's metrics, package metrics).
type RequestObserver interface {
	// Request reports a request: route is the pattern of the handler
	// that served it, "" when none did (the Host check refused it).
	Request(route, method string, code int, took time.Duration)
	// Submitted reports a job submitted: "workflow", "coordinator" or
	// "bundle".
	Submitted(kind string)
}

// StoreChecks are the readiness checks of a store: "store" (it answers
// within the timeout) and "migrations" (its schema is the one this binary
// migrates to), both from one query when the store can be pinged
// (store.Pinger); without that, a trivial read. The second reads what the
// first found, so they must run in order and one probe at a time, as
// handleReady runs them.
func StoreChecks(st store.Store) []ReadyCheck {
	p, ok := st.(store.Pinger)
	if !ok {
		return []ReadyCheck{{Name: "store", Check: func(ctx context.Context) error {
			return st.View(ctx, func(store.Tx) error { return nil })
		}}}
	}
	// The migrations check reads the version the store check's ping
	// returned: one query per probe.
	var last struct {
		schema int
		err    error
	}
	return []ReadyCheck{
		{Name: "store", Check: func(ctx context.Context) error {
			last.schema, last.err = p.Ping(ctx)
			return last.err
		}},
		{Name: "migrations", Check: func(context.Context) error {
			switch {
			case last.err != nil:
				return errors.New("store did not answer")
			case last.schema < p.Schema():
				return vocab.Errorf("E0603", "schema version %d, this server needs %d", last.schema, p.Schema())
			}
			return nil
		}},
	}
}

// readyAnswer is the body of /health/ready.
type readyAnswer struct {
	Status string            `json:"status"` // "ready" or "not ready"
	Checks map[string]string `json:"checks"` // "ok" or why not
	Failed []string          `json:"failed,omitempty"`
}

// handleLive answers 200 while the process serves HTTP: nothing it could
// check would be better answered by a restart than by readiness.
func (s *Server) handleLive(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, &apiError{status: http.StatusMethodNotAllowed, msg: "Method Not Allowed"})
		return
	}
	writeJSON(w, map[string]string{"status": "live"})
}

// handleReady runs the readiness checks in order, each bounded by
// ReadyTimeout: 200 when all hold, 503 naming the failing ones otherwise.
// The reasons are short and masked: the endpoint needs no authentication.
// Checks run one after the other, since StoreChecks' second reads what
// its first found, and probes of one server are serialized so that a
// load balancer asking often costs one query at a time.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, &apiError{status: http.StatusMethodNotAllowed, msg: "Method Not Allowed"})
		return
	}
	s.readyMu.Lock()
	ans := readyAnswer{Status: "ready", Checks: map[string]string{}}
	for _, c := range s.opts.Ready {
		ctx, cancel := context.WithTimeout(r.Context(), ReadyTimeout)
		err := c.Check(ctx)
		cancel()
		if err == nil {
			ans.Checks[c.Name] = "ok"
			continue
		}
		ans.Checks[c.Name] = reason(err)
		ans.Failed = append(ans.Failed, c.Name)
	}
	s.readyMu.Unlock()
	if len(ans.Failed) > 0 {
		ans.Status = "not ready"
		w.Header().Set("Cache-Control", "no-store")
		writeJSONStatus(w, http.StatusServiceUnavailable, ans)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, ans)
}

// reason is the text of a failed check: its first line, passwords
// masked, at most 200 characters.
func reason(err error) string {
	msg := err.Error()
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		msg = "no answer within " + ReadyTimeout.String()
	case errors.Is(err, store.ErrUnavailable):
		msg = "unavailable: " + msg
	}
	msg, _, _ = strings.Cut(redact.Secrets(msg), "\n")
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	return msg
}

// handleMetrics serves the metrics page; with gozie.metrics.auth=true only
// to an authenticated user (anonymous reads are refused there).
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	if s.opts.Metrics == nil {
		writeError(w, &apiError{status: http.StatusNotFound, msg: "Not Found"})
		return
	}
	if strings.EqualFold(strings.TrimSpace(s.opts.Config[keyMetricsAuth]), "true") {
		user, err := s.auth.authenticate(w, r)
		if err == nil && user == "" {
			err = errAuthRequired("Authentication required: " + keyMetricsAuth + " is true")
		}
		if err != nil {
			writeError(w, err)
			return
		}
	}
	s.opts.Metrics.ServeHTTP(w, r)
}

// observe wraps the server's handler: it answers the health endpoints
// before the Host check (a load balancer or kubelet may name the server
// by any address, and they reveal nothing), and tells the observer of
// every request with the pattern that served it, never its path.
func (s *Server) observe(guarded http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		var route string
		switch r.URL.Path {
		case PathLive, PathReady:
			// Outside the guard, but JSON all the same.
			w.Header().Set("X-Content-Type-Options", "nosniff")
		}
		switch r.URL.Path {
		case PathLive:
			route = PathLive
			s.handleLive(sw, r)
		case PathReady:
			route = PathReady
			s.handleReady(sw, r)
		default:
			// The mux sets the pattern on the request it was given,
			// which the guard passes on unchanged.
			guarded.ServeHTTP(sw, r)
			route = r.Pattern
		}
		if s.opts.Observer != nil {
			code := sw.status
			if code == 0 {
				code = http.StatusOK
			}
			s.opts.Observer.Request(route, r.Method, code, time.Since(start))
		}
	})
}

// submitted tells the observer of a job submitted through the API.
func (s *Server) submitted(id string) {
	if s.opts.Observer == nil {
		return
	}
	kind := "workflow"
	switch {
	case vocab.IsCoordJob(id):
		kind = "coordinator"
	case vocab.IsBundleJob(id):
		kind = "bundle"
	}
	s.opts.Observer.Submitted(kind)
}
