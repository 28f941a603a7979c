// Package assembly builds a gozie system from a site configuration: the
// store, the action registry, the workflow and coordinator engines, the
// cluster member (several servers on PostgreSQL) and the REST server.
// `gozie server`, `gozie run` and the test harness (internal/gozietest)
// all assemble through it, so a key read here is read the same way by
// each of them.
package assembly

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/action"
	_ "github.com/gozie/gozie/internal/action/all" // the built-in action types
	"github.com/gozie/gozie/internal/bundleengine"
	"github.com/gozie/gozie/internal/cluster"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/events"
	"github.com/gozie/gozie/internal/fsys"
	_ "github.com/gozie/gozie/internal/fsys/all" // the stores: hdfs, s3a, gs, abfs, ...
	"github.com/gozie/gozie/internal/jobs"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/metrics"
	"github.com/gozie/gozie/internal/purge"
	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/server"
	"github.com/gozie/gozie/internal/slatrack"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/postgres"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// Options are what an assembly needs beyond the site configuration.
type Options struct {
	// Config is the site configuration with its keys resolved
	// (server.LoadConfig); gozie.data.dir names the data directory and
	// gozie.db the store (a postgres:// DSN, or empty for SQLite in the
	// data directory). New may fill gozie.base.url.
	Config server.Config
	// Local assembles `gozie run`: SQLite, the workflow engine alone, no
	// cluster and no server, the engine tuned for one job in the
	// foreground rather than from the server's keys.
	Local bool
	// LocalCoordinators adds the coordinator and bundle engines to a Local
	// assembly: `gozie run` of a bundle runs its coordinators in-process.
	LocalCoordinators bool
	// Addr is the host:port the server listens on (New listens, once
	// the store is open); the port completes the default base URL and a
	// cluster member's name. Unused with Local.
	Addr string
	// Listener, when set, is used instead of listening on Addr (the test
	// harness listens first, to know its URL).
	Listener net.Listener
	// Auth, when set, replaces the authentication the configuration
	// describes (the test harness).
	Auth *server.AuthOptions
	// Registry replaces the action registry the configuration describes
	// (a test's executors, gozie run's test seam).
	Registry *action.Registry
	// Version is the server's build version (admin, cluster).
	Version string
	// Logf receives the operational lines; Log the structured ones
	// (requests), nil for none.
	Logf func(format string, args ...any)
	Log  *slog.Logger
	// OnTransition sees each committed workflow job change (the
	// transition log of a server, the progress lines of gozie run).
	OnTransition func(engine.Transition)
	// DefaultUser is the user of a submission that names none (gozie
	// run: the caller).
	DefaultUser string
	// HTTP are the server's connection limits.
	HTTP server.HTTPLimits
	// Tune, when set, adjusts the engines' options last (the test
	// harness: a short poll interval, a fixed system id).
	Tune func(*engine.Options, *coordengine.Options)
}

// System is an assembled gozie: New builds it, Start starts its engine
// and heartbeats, Close stops them and closes the store.
type System struct {
	DataDir  string
	BaseURL  string
	Store    store.Store
	Registry *action.Registry
	Engine   *engine.Engine
	// Coordinators is nil with Options.Local.
	Coordinators *coordengine.Engine
	// Bundles is nil with Options.Local.
	Bundles *bundleengine.Engine
	// SLA tracks the <sla:info> of jobs and actions; nil with
	// Options.Local.
	SLA *slatrack.Tracker
	// Events publishes job and SLA events to the broker of
	// gozie.events.url; nil without one.
	Events *events.Sink
	// Jobs is the one face over both engines the server serves.
	Jobs *jobs.Service
	// Member is the cluster membership on a shared store, else nil.
	Member *cluster.Member
	// Metrics are the server's Prometheus metrics; nil with
	// Options.Local.
	Metrics *metrics.Metrics
	// Purge deletes old jobs periodically (Oozie's PurgeService keys);
	// nil with Options.Local.
	Purge *purge.Service
	// Server is the REST API and console, Listener where it is to
	// serve; both nil with Options.Local.
	Server   *server.Server
	Listener net.Listener

	stopBeats context.CancelFunc
	started   bool
}

// New assembles a system. On error whatever it opened is closed again.
func New(ctx context.Context, o Options) (sys *System, err error) {
	cfg := o.Config
	dir := cfg["gozie.data.dir"]
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	var auth server.AuthOptions
	switch {
	case o.Auth != nil:
		auth = *o.Auth
	case !o.Local:
		// Authentication settings first: a wrong gozie.authentication.type
		// stops the server before it opens the store.
		if auth, err = server.AuthFromConfig(cfg, dir); err != nil {
			return nil, err
		}
	}
	// The stores and the mount table, before anything reads a path. The
	// namespace is the process's (fsys.Default): the engines, the
	// executors and the EL functions all reach files through it.
	ns, err := StorageNamespace(cfg)
	if err != nil {
		return nil, err
	}
	fsys.SetDefault(ns)
	st, shared, err := openStore(ctx, cfg, dir, o)
	if err != nil {
		return nil, err
	}
	sys = &System{DataDir: dir, Store: st}
	defer func() {
		if err != nil {
			sys.Close()
			sys = nil
		}
	}()
	if !o.Local {
		sys.Listener = o.Listener
		if sys.Listener == nil {
			if sys.Listener, err = net.Listen("tcp", o.Addr); err != nil {
				return sys, err
			}
		}
		sys.BaseURL = baseURL(cfg, sys.Listener)
	}
	var place stepPlace
	if c, ok := st.(store.Cluster); ok && shared {
		if place, err = placeOf(dir); err != nil {
			return sys, err
		}
		if sys.Member, err = join(ctx, c, cfg, o, sys.BaseURL, place, sys.Listener); err != nil {
			return sys, err
		}
	}
	sys.Registry = o.Registry
	if err := launch.CheckKerberos(launch.Options{RunAsUser: cfg.Bool("gozie.launch.as.user"), Site: cfg}); err != nil {
		return sys, err
	}
	if sys.Registry == nil {
		// The supervisor outlives the server on purpose (a restart
		// re-attaches to it); it exits by itself once idle.
		sys.Registry = NewRegistry(cfg, filepath.Join(dir, "launcher"))
	}
	if sys.Engine, sys.Coordinators, err = newEngines(st, sys.Registry, cfg, o, sys.BaseURL, place, sys.Member); err != nil {
		return sys, err
	}
	if sys.Coordinators != nil {
		sys.Bundles = bundleengine.New(sys.Engine, sys.Coordinators, sys.Engine.Runtime())
	}
	sys.Jobs = jobs.New(sys.Engine, sys.Coordinators, sys.Bundles)
	if o.Local {
		return sys, nil
	}
	sys.SLA = newTracker(cfg, sys.Engine, sys.BaseURL, o.Logf)
	if sys.Events, err = newSink(cfg, sys.Engine, o.Logf); err != nil {
		return sys, err
	}
	o.Logf("gozie: action types this server runs: %s", strings.Join(sys.Registry.Types(), ", "))
	o.Logf("gozie: stores this server reaches: %s", strings.Join(fsys.Schemes(), ", "))
	for _, m := range ns.Mounts() {
		o.Logf("gozie: mount %s -> %s", m.From, m.To)
	}
	opts := server.Options{Engine: sys.Jobs, Coordinators: sys.Coordinators, BaseURL: sys.BaseURL, DataDir: dir,
		Auth: auth, Config: cfg, Version: o.Version, Logf: o.Logf, Log: o.Log, HTTP: o.HTTP,
		AllowedHosts: cfg.List("gozie.http.allowed.hosts")}
	if sys.Bundles != nil {
		opts.Bundles = sys.Bundles
	}
	opts.SLAs = sys.SLA
	opts.Counters = func() map[string]int64 {
		return map[string]int64{"sla-calculator.sla-map": sys.SLA.Tracked()}
	}
	if sys.Member != nil {
		opts.Cluster = sys.Member
	}
	observe(sys, cfg, &opts)
	if sys.Purge, err = newPurge(cfg, st, sys.Engine, o.Logf); err != nil {
		return sys, err
	}
	if sys.Purge != nil {
		opts.Purge = func(params map[string][]string) error {
			c, err := purge.ParseRequest(sys.Purge.Config(), params)
			if err == nil {
				sys.Purge.Trigger(c)
			}
			return err
		}
	}
	sys.Server, err = server.New(opts)
	return sys, err
}

// Start starts the engine and, in a cluster, the member's heartbeats.
func (s *System) Start(ctx context.Context) error {
	if err := s.Engine.Start(ctx); err != nil {
		return err
	}
	s.started = true
	if s.SLA != nil {
		s.SLA.Start(ctx)
	}
	if s.Purge != nil {
		s.Purge.Start()
	}
	if s.Member != nil {
		// The heartbeats stop with the system; the registration stays, so
		// that a restart under the same id takes its jobs back at once and
		// a server that does not come back is taken over after the lease.
		hctx, cancel := context.WithCancel(context.Background())
		s.stopBeats = cancel
		go s.Member.Run(hctx, s.Engine)
	}
	return nil
}

// Close stops the engine (launched actions keep running; the next
// start re-attaches) and the heartbeats, and closes the store; the
// listener too, if nothing served on it.
func (s *System) Close() error {
	var err error
	if s.Listener != nil && !s.started {
		_ = s.Listener.Close()
	}
	if s.SLA != nil && s.started {
		s.SLA.Close()
	}
	if s.Purge != nil {
		s.Purge.Close()
	}
	if s.Engine != nil && s.started {
		err = s.Engine.Close()
	}
	if s.stopBeats != nil {
		s.stopBeats()
	}
	if s.Events != nil {
		err = errors.Join(err, s.Events.Close())
	}
	if s.Store != nil {
		err = errors.Join(err, s.Store.Close())
	}
	return err
}

// NewRegistry returns the action executors of a server or a local run
// with configuration cfg, the launch supervisor in supDir: both read the
// same keys, so that 'gozie run -site' behaves as the server would.
func NewRegistry(cfg server.Config, supDir string) *action.Registry {
	reg := action.NewRegistry()
	launch.RegisterBuiltins(reg, launch.Options{RunAsUser: cfg.Bool("gozie.launch.as.user"),
		SupervisorDir: supDir, Site: cfg})
	return reg
}

// openStore opens the store gozie.db names: PostgreSQL (shared by
// several servers) or SQLite in the data directory.
func openStore(ctx context.Context, cfg server.Config, dir string, o Options) (store.Store, bool, error) {
	dsn := cfg["gozie.db"]
	sqliteOpts := sqlite.Options{Logf: o.Logf}
	switch {
	case o.Local:
		st, err := sqlite.OpenWith(ctx, filepath.Join(dir, "gozie.db"), sqliteOpts)
		return st, false, err
	case strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://"):
		st, err := postgres.Open(ctx, dsn)
		return st, true, err
	case dsn != "":
		return nil, false, fmt.Errorf("gozie.db: unsupported DSN %q (want postgres://...; empty for SQLite)", redact.Secrets(dsn))
	}
	st, err := sqlite.OpenWith(ctx, filepath.Join(dir, "gozie.db"), sqliteOpts)
	return st, false, err
}

// baseURL is gozie.base.url, or the URL of the listener on this host
// (which New records in the configuration).
func baseURL(cfg server.Config, l net.Listener) string {
	base := strings.TrimRight(cfg["gozie.base.url"], "/")
	if base != "" || l == nil {
		return base
	}
	h, _ := os.Hostname()
	if h == "" {
		h = "localhost"
	}
	scheme := "http"
	if cfg["gozie.tls.cert"] != "" {
		scheme = "https"
	}
	base = fmt.Sprintf("%s://%s/oozie", scheme, net.JoinHostPort(h, strconv.Itoa(l.Addr().(*net.TCPAddr).Port)))
	cfg["gozie.base.url"] = base
	return base
}

// join makes the server a member of the servers sharing the store. It
// joins before its engine starts, so that the engine takes up exactly the
// jobs it owns (its own from before a restart included).
func join(ctx context.Context, c store.Cluster, cfg server.Config, o Options, base string, place stepPlace,
	l net.Listener) (*cluster.Member, error) {
	name := cfg["gozie.server.id"]
	if name == "" {
		name = net.JoinHostPort(place.host, strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
	}
	secs := func(key string, def int) time.Duration { return time.Duration(cfg.Int(key, def)) * time.Second }
	if cfg["gozie.authentication.secret"] == "" && cfg["gozie.authentication.secret.file"] == "" {
		// A cookie one server signed is good at another (a load balancer,
		// a forwarded command) only if both derive the key from the same
		// secret, which never goes into the store.
		o.Logf("gozie: hadoop.auth cookies are signed with a key derived from %s, this server's own secret: "+
			"servers behind one load balancer need the same secret (copy the file to each and set gozie.authentication.secret.file)",
			filepath.Join(cfg["gozie.data.dir"], server.GeneratedSecretFile))
	}
	return cluster.Join(ctx, cluster.Options{Store: c, Name: name, URL: base, Version: o.Version,
		Lease: secs("gozie.server.lease.s", 20), Heartbeat: secs("gozie.server.heartbeat.s", 5), Logf: o.Logf,
		NoSpread: !cfg.Bool("gozie.server.spread"), Host: place.host, DataDir: place.dataDir, DataID: place.dataID,
		Hold: secs("gozie.server.takeover.hold.s", 60),
		Sees: func(s store.ServerInfo) bool { return launch.SameDataDir(s.DataDir, s.DataID) }})
}

// stepPlace is where a server of several sharing a store keeps its
// steps, as it registers and records it with each start (the start
// intent): its host, its data directory and that directory's identity.
type stepPlace struct{ host, dataDir, dataID string }

// placeOf makes the data directory's identity file if it has none.
func placeOf(dir string) (stepPlace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return stepPlace{}, err
	}
	id, err := launch.DataDirID(abs)
	if err != nil {
		return stepPlace{}, fmt.Errorf("data directory %s: identity: %w", abs, err)
	}
	h, _ := os.Hostname()
	if h == "" {
		h = "localhost"
	}
	return stepPlace{host: h, dataDir: abs, dataID: id}, nil
}

// setExpandLimits sets the package default of configuration expansion,
// which Get and Expand everywhere read: once, before any configuration
// is expanded, so runtime expansion agrees with the check at submission.
// Zero or negative values keep the built-in defaults.
func setExpandLimits(cfg server.Config) {
	if v := cfg.Int("gozie.conf.expand.value.max.bytes", 0); v > 0 {
		conf.DefaultExpandLimits.Value = v
	}
	if v := cfg.Int("gozie.conf.expand.total.max.bytes", 0); v > 0 {
		conf.DefaultExpandLimits.Total = v
	}
}
