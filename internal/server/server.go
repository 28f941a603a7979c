// Package server is gozie's Oozie-compatible REST API: /oozie/versions,
// the v0/v1/v2 admin, jobs and job resources, /oozie/callback and
// /oozie/v2/validate, with the paths, parameters, status codes, error
// headers and JSON shapes of the Oozie Web Services API, so that the oozie
// command line and other Oozie clients work against it unchanged.
//
// The server is a thin layer over *engine.Engine: it parses requests,
// authenticates and authorizes them, and renders what the engine returns.
// Coordinator requests go to Options.Coordinators (the coordinator engine,
// package coordengine) when it is set.
package server

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gozie/gozie/internal/console"
	"github.com/gozie/gozie/internal/jobs"
	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/store"
)

// System modes of admin/status (rest-api.md 2).
const (
	ModeNormal       = "NORMAL"
	ModeNoWebService = "NOWEBSERVICE"
	ModeSafeMode     = "SAFEMODE"
)

// Options configure a Server. Engine is required.
type Options struct {
	Engine *jobs.Service
	// BaseURL is the server's public URL including the context path, e.g.
	// http://host:11000/oozie; job consoleUrl values start with it.
	BaseURL string
	// DataDir is where action work directories live (the engine's
	// DataDir); action stdout and stderr are served from it.
	DataDir string
	// Auth configures authentication and authorization.
	Auth AuthOptions
	// Config is the effective configuration shown by admin/configuration.
	Config map[string]string
	// Version is reported by admin/build-version.
	Version string
	// Logf receives request errors, with passwords masked; default
	// log.Printf.
	Logf func(format string, args ...any)
	// Log, when set, receives one line per request (method, path, status,
	// user, duration): the handshake OPTIONS at debug level, server
	// errors at error level, the rest at info. nil logs no requests.
	Log *slog.Logger
	// Now is the clock for cookies and uptime; default time.Now.
	Now func() time.Time
	// HTTP bounds connections and their timeouts; zero fields take the
	// defaults of DefaultHTTPLimits.
	HTTP HTTPLimits
	// ProxyUsers are the users that may act for others (doAs); nil reads
	// them from Config (ProxyUsersFromConfig).
	ProxyUsers *ProxyUsers
	// Coordinators serves the coordinator requests; nil answers them
	// E0302 (coordinator jobs are not supported by this server).
	Coordinators Coordinators
	// Bundles serves the bundle requests; nil answers them E0302 (bundle
	// jobs are not supported by this server).
	Bundles Bundles
	// Counters, when set, adds counters of other parts of the system to
	// admin/instrumentation and admin/metrics (the SLA tracker's
	// sla-calculator.sla-map).
	Counters func() map[string]int64
	// SLAs serves GET /v2/sla and the sla-enable, sla-disable and
	// sla-change job commands; nil answers them as a server without SLA
	// monitoring (404 and E1027).
	SLAs SLAs
	// AllowedHosts are names, besides the server's own, that requests may
	// carry in their Host header (gozie.http.allowed.hosts): a name
	// (lb.example.com), a domain and every name below it (.example.com),
	// or "*" for any Host, behind a proxy that rewrites it. See hostGuard.
	AllowedHosts []string
	// Cluster, when several servers share the store, routes the commands
	// for a job to the server working it and lists the live servers; nil
	// for a server of its own.
	Cluster Cluster
	// Metrics serves GET /metrics (the Prometheus page, package metrics);
	// nil answers 404 there. gozie.metrics.auth=true puts it behind the
	// server's authentication (health.go).
	Metrics http.Handler
	// Observer, when set, is told of every request and submission.
	Observer RequestObserver
	// Ready are the checks of GET /health/ready, run in order; none:
	// ready whenever the process serves.
	Ready []ReadyCheck
	// Purge starts a purge with the parameters of PUT /v2/admin/purge
	// (wf, coord, bundle, limit, oldCoordAction) in the background; an
	// error refuses the parameters. nil answers it as any unknown admin
	// resource (E0301).
	Purge func(params map[string][]string) error
}

// HTTPLimits bound what one client can hold of the server: connections,
// time and header bytes.
type HTTPLimits struct {
	// MaxConns caps open connections; at the cap the longest idle one is
	// closed to make room (see limitListener). Negative: no cap.
	MaxConns int
	// ReadHeaderTimeout bounds reading a request's header, including the
	// wait for the first byte of a new connection.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, body included.
	ReadTimeout time.Duration
	// WriteTimeout bounds writing a response; responses written in parts
	// (job logs, action output) extend it for each part, so it bounds a
	// stalled client rather than a long download.
	WriteTimeout time.Duration
	// IdleTimeout closes keep-alive connections waiting for a next request.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds the request line and headers.
	MaxHeaderBytes int
}

// DefaultHTTPLimits are the limits of a server whose HTTPLimits fields are
// zero. Oozie clients send small requests at once and read answers
// promptly, so the timeouts are generous for them and short for a client
// that holds a connection without using it.
var DefaultHTTPLimits = HTTPLimits{
	MaxConns:          1024,
	ReadHeaderTimeout: 10 * time.Second,
	ReadTimeout:       2 * time.Minute,
	WriteTimeout:      2 * time.Minute,
	IdleTimeout:       time.Minute,
	MaxHeaderBytes:    64 << 10,
}

func (l HTTPLimits) withDefaults() HTTPLimits {
	d := DefaultHTTPLimits
	if l.MaxConns == 0 {
		l.MaxConns = d.MaxConns
	}
	if l.ReadHeaderTimeout <= 0 {
		l.ReadHeaderTimeout = d.ReadHeaderTimeout
	}
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = d.ReadTimeout
	}
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = d.WriteTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = d.IdleTimeout
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = d.MaxHeaderBytes
	}
	return l
}

// Server serves the REST API.
type Server struct {
	opts    Options
	engine  *jobs.Service
	coords  Coordinators // nil when the server has no coordinator engine
	bundles Bundles      // nil when the server has no bundle engine
	auth    *authenticator
	hosts   *hostGuard
	// proxyUsers may act for other users (doas.go).
	proxyUsers *ProxyUsers
	masker     *redact.Masker // secret names of job configurations (masking.go)
	mux        http.Handler
	mode       atomic.Value // string
	metrics    *metrics
	started    time.Time

	// readyMu serializes readiness probes (health.go).
	readyMu sync.Mutex

	mu       sync.Mutex
	http     *http.Server
	listener *limitListener // nil without a connection cap
	// shareLibDir is the share library directory the last
	// admin/update_sharelib found (sharelib.go).
	shareLibDir string
}

// New returns a server for the engine. It does not listen until Serve.
func New(opts Options) (*Server, error) {
	if opts.Engine == nil {
		return nil, errors.New("server: Engine is required")
	}
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	opts.Logf = redactingLogf(opts.Logf)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	opts.HTTP = opts.HTTP.withDefaults()
	auth, err := newAuthenticator(opts.Auth, opts.Now)
	if err != nil {
		return nil, err
	}
	masker, err := redact.NewMasker(opts.Config[keyMaskNames])
	if err != nil {
		return nil, fmt.Errorf("server: configuration key %s: %v", keyMaskNames, err)
	}
	s := &Server{opts: opts, engine: opts.Engine, auth: auth, masker: masker, metrics: newMetrics(), started: opts.Now()}
	if s.proxyUsers = opts.ProxyUsers; s.proxyUsers == nil {
		if s.proxyUsers, err = ProxyUsersFromConfig(opts.Config); err != nil {
			return nil, fmt.Errorf("server: proxy users: %v", err)
		}
	}
	if s.proxyUsers.GroupsOf == nil {
		s.proxyUsers.GroupsOf = auth.opts.GroupsOf
	}
	s.coords = opts.Coordinators
	s.bundles = opts.Bundles
	var live func(context.Context) ([]store.ServerInfo, error)
	if opts.Cluster != nil {
		live = opts.Cluster.Live
	}
	s.hosts = newHostGuard(opts.BaseURL, opts.AllowedHosts, opts.Now, live)
	s.mode.Store(ModeNormal)
	s.mux = s.routes()
	return s, nil
}

// redactingLogf masks the passwords any line may carry (store errors, DSNs)
// before it reaches logf: every server log line goes through it.
func redactingLogf(logf func(string, ...any)) func(string, ...any) {
	return func(format string, args ...any) {
		logf("%s", redact.Secrets(fmt.Sprintf(format, args...)))
	}
}

// Handler returns the server's HTTP handler, for tests and embedding.
func (s *Server) Handler() http.Handler { return s.mux }

// SystemMode returns the current system mode.
func (s *Server) SystemMode() string { return s.mode.Load().(string) }

// Serve accepts connections on l until Shutdown; it returns
// http.ErrServerClosed after a graceful shutdown.
func (s *Server) Serve(l net.Listener, tlsCert, tlsKey string) error {
	lim := s.opts.HTTP
	hs := &http.Server{
		Handler:           s.mux,
		ReadHeaderTimeout: lim.ReadHeaderTimeout,
		ReadTimeout:       lim.ReadTimeout,
		WriteTimeout:      lim.WriteTimeout,
		IdleTimeout:       lim.IdleTimeout,
		MaxHeaderBytes:    lim.MaxHeaderBytes,
	}
	if lim.MaxConns > 0 {
		ll := newLimitListener(l, lim.MaxConns)
		l, hs.ConnState = ll, ll.connState
		s.mu.Lock()
		s.listener = ll
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.http = hs
	s.mu.Unlock()
	// The host's FQDN, when the resolver knows one, is one of its names
	// too; looked up once, meanwhile requests by it are refused.
	go s.hosts.learnCanonical(context.Background(), net.DefaultResolver.LookupCNAME)
	if tlsCert != "" {
		return hs.ServeTLS(l, tlsCert, tlsKey)
	}
	return hs.Serve(l)
}

// Shutdown stops accepting connections and waits for requests in flight
// (and so the transactions they run) to finish, or for ctx to end. Actions
// the engine launched keep running; the engine re-attaches to them when it
// starts again.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	hs := s.http
	s.mu.Unlock()
	if hs == nil {
		return nil
	}
	return hs.Shutdown(ctx)
}

// routes builds the handler tree. The path layout is Oozie's (rest-api.md
// 0.1): exact /versions and /vN/jobs, prefix /vN/admin/ and /vN/job/.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/oozie/versions", s.api(false, s.handleVersions))
	for _, v := range []string{"v0", "v1", "v2"} {
		ver := v
		mux.HandleFunc("/oozie/"+v+"/admin/", s.api(true, func(w http.ResponseWriter, r *http.Request, c *call) error {
			return s.handleAdmin(w, r, c, ver, resourceAfter(r.URL.Path, "/oozie/"+ver+"/admin/"))
		}))
		mux.HandleFunc("/oozie/"+v+"/jobs", s.api(false, func(w http.ResponseWriter, r *http.Request, c *call) error {
			return s.handleJobs(w, r, c, ver)
		}))
		mux.HandleFunc("/oozie/"+v+"/job/", s.api(false, func(w http.ResponseWriter, r *http.Request, c *call) error {
			return s.handleJob(w, r, c, ver, resourceAfter(r.URL.Path, "/oozie/"+ver+"/job/"))
		}))
	}
	mux.HandleFunc("/oozie/v2/sla", s.api(false, s.handleSLA))
	mux.HandleFunc("/oozie/v2/sla/", s.api(false, s.handleSLA))
	mux.HandleFunc("/oozie/v2/validate", s.api(false, s.handleValidate))
	mux.HandleFunc("/oozie/v2/validate/", s.api(false, s.handleValidate))
	mux.HandleFunc(PathMetrics, s.handleMetrics)
	mux.HandleFunc("/oozie/callback", s.handleCallback)
	mux.HandleFunc("/oozie/callback/", s.handleCallback)
	mux.HandleFunc("/oozie/console/action/", s.api(false, s.handleConsole))
	if cons, err := s.console(mux); err == nil {
		mux.HandleFunc(console.Prefix, s.api(false, func(w http.ResponseWriter, r *http.Request, c *call) error {
			cons.ServeHTTP(w, withReader(r, c.user))
			return nil
		}))
		// Oozie serves its console at /oozie/ to any client, not only to
		// one asking for HTML: so does gozie (other methods keep the 404).
		mux.HandleFunc("GET "+console.RootPath+"{$}", s.api(false, func(w http.ResponseWriter, r *http.Request, c *call) error {
			cons.ServeRoot(w, withReader(r, c.user))
			return nil
		}))
	} else {
		s.opts.Logf("gozie: web console disabled: %v", err)
	}
	rest := func(w http.ResponseWriter, r *http.Request) {
		// The web console: / and /oozie, and the consoleUrl form
		// /oozie?job=<id>.
		if to := console.Redirect(r); to != "" {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		// Outside Oozie's servlets Jetty answers a bare 404 error page.
		writeError(w, &apiError{status: http.StatusNotFound, msg: "Not Found"})
	}
	mux.HandleFunc("/", rest)
	// Straight to the console, not through the mux's own redirect to
	// /oozie/ that its pattern there would otherwise cause.
	mux.HandleFunc("GET /oozie", rest)
	return s.observe(s.guard(mux))
}

// console builds the web console over the server's engine; its job
// controls are handed to the REST API handler (api) itself.
func (s *Server) console(api http.Handler) (*console.Console, error) {
	storeKind := "sqlite"
	if strings.HasPrefix(s.opts.Config["gozie.db"], "postgres") {
		storeKind = "postgres"
	}
	coords, _ := s.coords.(console.Coordinators) // nil: the console shows no coordinators
	bundles, _ := s.bundles.(console.Bundles)    // nil: the console shows no bundles
	opts := console.Options{Engine: s.engine.Workflows, Coordinators: coords, Bundles: bundles, API: api, ReadOnly: strings.EqualFold(strings.TrimSpace(s.opts.Config["gozie.console.read.only"]), "true"),
		Version: s.opts.Version, StoreKind: storeKind, Mode: s.SystemMode, ActionDir: s.actionDir,
		Counters: s.metrics.counters, ErrorOf: s.consoleError, Masker: s.consoleMasker}
	if s.opts.SLAs != nil {
		opts.SLAs = s.opts.SLAs
	}
	if s.opts.Cluster != nil {
		opts.Servers, opts.Self = s.opts.Cluster.Live, s.opts.Cluster.ID
	}
	return console.New(opts)
}

// consoleError is how the console reports an error: as the REST API
// would, with what the message hides in the server log.
func (s *Server) consoleError(err error) (int, string, string) {
	ae := toAPIError(err)
	if ae.status >= 500 {
		s.opts.Logf("gozie: console: %v", err)
	}
	return ae.status, ae.code, ae.msg
}

// resourceAfter is the servlet's resource: the path after prefix, trimmed.
func resourceAfter(path, prefix string) string {
	return strings.TrimSpace(strings.TrimPrefix(path, prefix))
}

// call is what a handler knows about the request beyond net/http: the
// user it acts as ("" when anonymous): the authenticated user, or the one
// its doAs names when a proxy user (proxy) acts for it (doas.go).
type call struct {
	user  string
	proxy string
}

type apiHandler func(w http.ResponseWriter, r *http.Request, c *call) error

// api wraps a handler with what every Oozie servlet does first: the OPTIONS
// authentication handshake, authentication, the safe-mode check (admin
// servlets are exempt), metrics, and error rendering.
func (s *Server) api(admin bool, h apiHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		s.metrics.requests.Add(1)
		defer func() { s.metrics.observe(time.Since(start)) }()
		c := &call{}
		if s.opts.Log != nil {
			sw := &statusWriter{ResponseWriter: w}
			w = sw
			// Deferred before recoverPanic, so it runs after it and logs
			// the 500 a panic was turned into.
			defer func() { s.logRequest(r, sw.status, c.logUser(), time.Since(start)) }()
		}
		defer s.recoverPanic(w, r)
		user, err := s.auth.authenticate(w, r)
		c.user = user
		if err != nil {
			s.metrics.errors.Add(1)
			writeError(w, err)
			return
		}
		if r.Method == http.MethodOptions {
			// Answered like Oozie's empty servlet: 200, no body; the
			// authentication above set the cookie when user.name came.
			w.Header().Set("Allow", "GET, HEAD, POST, PUT, OPTIONS")
			w.WriteHeader(http.StatusOK)
			return
		}
		eff, proxy, aerr := s.doAs(r, user)
		if aerr != nil {
			s.metrics.errors.Add(1)
			writeError(w, aerr)
			return
		}
		c.user, c.proxy = eff, proxy
		if !admin && r.Method != http.MethodGet && s.SystemMode() != ModeNormal {
			s.metrics.errors.Add(1)
			writeError(w, errSafeMode)
			return
		}
		if err := h(w, r, c); err != nil {
			s.metrics.errors.Add(1)
			ae := toAPIError(err)
			if ae.status >= 500 {
				// The response says only "see the server log": the
				// detail is here, with any password masked (Logf).
				s.opts.Logf("gozie: %s %s: %v", r.Method, r.URL.Path, err)
			}
			writeError(w, ae)
		}
	}
}

// statusWriter remembers the status of a response for the request log.
// Unwrap lets http.ResponseController reach the connection (write
// deadlines of streamed logs).
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logRequest writes a request's line. The query is left out but for the
// keys that say what was asked (action, show, jobtype): the rest may hold
// filters or names nobody needs in a log, and never a secret then.
func (s *Server) logRequest(r *http.Request, status int, user string, d time.Duration) {
	if status == 0 {
		status = http.StatusOK
	}
	level := slog.LevelInfo
	switch {
	case r.Method == http.MethodOptions:
		level = slog.LevelDebug
	case status >= 500:
		level = slog.LevelError
	}
	attrs := []slog.Attr{slog.String("method", r.Method), slog.String("path", r.URL.Path)}
	q := r.URL.Query()
	for _, k := range []string{"action", "show", "jobtype"} {
		if v := q.Get(k); v != "" {
			attrs = append(attrs, slog.String(k, v))
		}
	}
	if user == "" {
		user = "-"
	}
	attrs = append(attrs, slog.Int("status", status), slog.String("user", user),
		slog.Duration("duration", d.Round(time.Microsecond)))
	s.opts.Log.LogAttrs(context.Background(), level, "request", attrs...)
}

// recoverPanic turns a handler panic into 500 E0307 and a logged stack,
// so that one bad request costs one answer rather than a dropped
// connection (net/http's own recovery). The fuzz tests treat any such
// answer as a failure. http.ErrAbortHandler keeps its meaning.
func (s *Server) recoverPanic(w http.ResponseWriter, r *http.Request) {
	p := recover()
	if p == nil {
		return
	}
	if p == http.ErrAbortHandler {
		panic(p)
	}
	s.metrics.errors.Add(1)
	s.opts.Logf("gozie: panic serving %s %s: %v\n%s", r.Method, r.URL.RequestURI(), p, debug.Stack())
	writeError(w, internalError(fmt.Errorf("panic: %v", p)))
}

// handleVersions answers GET /oozie/versions with [0,1,2].
func (s *Server) handleVersions(w http.ResponseWriter, r *http.Request, c *call) error {
	if r.Method != http.MethodGet {
		return errInvalidResource("versions")
	}
	writeJSON(w, []int{0, 1, 2})
	return nil
}
