package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/cluster"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/jobs"
	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/server"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/postgres"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// runServer is `gozie server`: the engine and the Oozie REST API on one
// port, until SIGTERM or SIGINT, which stop it gracefully (requests in
// flight finish; launched actions keep running and are re-attached to on
// the next start).
func runServer(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("server", "[-port N] [-data DIR] [-db DSN | -db-file FILE] [-config gozie-site.xml]", stderr)
	port := fs.Int("port", 0, "port to listen on (gozie.http.port, default 11000)")
	host := fs.String("host", "", "address to listen on (gozie.http.host)")
	data := fs.String("data", "", "data directory (gozie.data.dir; default $GOZIE_DATA or ~/.gozie)")
	db := fs.String("db", "", "store DSN: postgres://... (gozie.db; default SQLite in the data directory); a password here is visible to local users, see -db-file")
	dbFile := fs.String("db-file", "", "file holding the store DSN (gozie.db.file), which keeps its password off the command line")
	site := fs.String("config", "", "gozie-site.xml (Hadoop configuration format)")
	baseURL := fs.String("base-url", "", "public URL including /oozie (gozie.base.url)")
	tlsCert := fs.String("tls-cert", "", "TLS certificate (gozie.tls.cert)")
	tlsKey := fs.String("tls-key", "", "TLS key (gozie.tls.key)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file (for go tool pprof)")
	logLevel := fs.String("log-level", "", "log level of the request and transition lines: debug, info, warn or error (gozie.log.level, default info)")
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return flagStatus(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "Error: unexpected argument %q\n", rest[0])
		return exitUsage
	}
	if *db != "" && *dbFile != "" {
		fmt.Fprintln(stderr, "Error: -db and -db-file both name the store; give one, not both")
		return exitUsage
	}
	if redact.HasPassword(*db) {
		// Any local user sees the command line (ps, /proc/PID/cmdline)
		// for as long as the server runs; the environment and a private
		// file are the server's user's alone.
		fmt.Fprintln(stderr, "gozie: warning: the -db DSN carries a password, which every user of this host can read "+
			"in the process list while the server runs; pass the DSN in a file of mode 0600 (-db-file FILE or gozie.db.file) "+
			"or in the environment (GOZIE_DB, GOZIE_DB_FILE) instead")
	}
	cfg, err := server.LoadConfig(*site, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitUsage
	}
	for key, v := range map[string]string{"gozie.http.host": *host, "gozie.data.dir": *data, "gozie.db": *db, "gozie.db.file": *dbFile,
		"gozie.base.url": *baseURL, "gozie.tls.cert": *tlsCert, "gozie.tls.key": *tlsKey, "gozie.log.level": *logLevel} {
		if v != "" {
			cfg[key] = v
		}
	}
	// A flag naming the store overrides both ways of naming it below.
	if *db != "" {
		cfg["gozie.db.file"] = ""
	}
	if *dbFile != "" {
		cfg["gozie.db"] = ""
	}
	if *port != 0 {
		cfg["gozie.http.port"] = strconv.Itoa(*port)
	}
	if *cpuProfile != "" {
		// A flag rather than an HTTP endpoint: profiling is for whoever
		// starts the process, and nothing is exposed on the API port.
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(stderr, "Error: -cpuprofile: %v\n", err)
			return exitUsage
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, stop, cfg, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "Error: %s\n", redact.Secrets(diskFullError(cfg["gozie.data.dir"], err).Error()))
		return exitFail
	}
	return exitOK
}

// diskFullError replaces an error caused by a full data directory (a
// SQLite open that cannot create its shared-memory file reports only "disk
// I/O error") by one line that says so and names the directory.
func diskFullError(dir string, err error) error {
	if dir == "" || !(store.IsDiskFull(err) || action.IsNoSpace(err) || action.DiskFull(dir)) {
		return err
	}
	return fmt.Errorf("data directory %s: no space left on device (disk full); free space and start again", dir)
}

// newActionRegistry returns the action executors of a server or a local
// run with configuration cfg, the launch supervisor in supDir: both read
// the same keys, so that 'gozie run -site' behaves as the server would.
func newActionRegistry(cfg server.Config, supDir string) *action.Registry {
	reg := action.NewRegistry()
	action.RegisterBuiltins(reg, action.Options{RunAsUser: cfg.Bool("gozie.launch.as.user"),
		SupervisorDir: supDir, Site: cfg})
	return reg
}

// checkLaunchAsUser refuses gozie.launch.as.user on a server that is not
// root: it could not switch to the jobs' users, and silently running their
// steps as itself would be the surprise the key exists to avoid.
func checkLaunchAsUser(cfg server.Config, euid int) error {
	if cfg.Bool("gozie.launch.as.user") && euid != 0 {
		return fmt.Errorf("gozie.launch.as.user=true needs the server to run as root (it runs as uid %d); unset it to run every step as the server's user", euid)
	}
	return nil
}

// serve runs the server until ctx ends, then shuts it down gracefully;
// stop is called first so that a second signal ends the process at once.
func serve(ctx context.Context, stop func(), cfg server.Config, stdout, stderr io.Writer) error {
	dir := cfg["gozie.data.dir"]
	// Every log line, the engine's included, has its passwords masked:
	// store errors may quote the DSN.
	logf := func(format string, args ...any) { fmt.Fprintln(stderr, redact.Secrets(fmt.Sprintf(format, args...))) }
	if err := checkLaunchAsUser(cfg, os.Geteuid()); err != nil {
		return err
	}
	dsn, err := cfg.StoreDSN(logf)
	if err != nil {
		return err
	}
	cfg["gozie.db"] = dsn
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	unlock, err := lockDataDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	if err := privateLauncherDir(dir, logf); err != nil {
		return err
	}
	// Authentication settings first: a wrong gozie.authentication.type
	// stops the server before it opens the store or a port.
	auth, err := server.AuthFromConfig(cfg, dir)
	if err != nil {
		return err
	}
	var st store.Store
	shared := false
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		st, err = postgres.Open(ctx, dsn)
		shared = true
	} else if dsn != "" {
		return fmt.Errorf("gozie.db: unsupported DSN %q (want postgres://...; empty for SQLite)", redact.Secrets(dsn))
	} else {
		st, err = sqlite.OpenWith(ctx, filepath.Join(dir, "gozie.db"), sqlite.Options{Logf: logf})
	}
	if err != nil {
		return err
	}
	defer st.Close()

	addr := net.JoinHostPort(cfg["gozie.http.host"], cfg["gozie.http.port"])
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	base := strings.TrimRight(cfg["gozie.base.url"], "/")
	if base == "" {
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
	}
	slogger, err := newServerLog(stderr, cfg["gozie.log.level"])
	if err != nil {
		return err
	}
	// On PostgreSQL the server joins the servers sharing the store before
	// its engine starts, so that the engine takes up exactly the jobs it
	// owns (its own from before a restart included).
	var member *cluster.Member
	var place stepPlace
	if c, ok := st.(store.Cluster); ok && shared {
		if place, err = placeOf(dir); err != nil {
			return err
		}
		name := cfg["gozie.server.id"]
		if name == "" {
			name = net.JoinHostPort(place.host, strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
		}
		lease := time.Duration(cfg.Int("gozie.server.lease.s", 20)) * time.Second
		beat := time.Duration(cfg.Int("gozie.server.heartbeat.s", 5)) * time.Second
		hold := time.Duration(cfg.Int("gozie.server.takeover.hold.s", 60)) * time.Second
		if cfg["gozie.authentication.secret"] == "" && cfg["gozie.authentication.secret.file"] == "" {
			// A cookie one server signed is good at another (a load
			// balancer, a forwarded command) only if both derive the key
			// from the same secret, which never goes into the store.
			logf("gozie: hadoop.auth cookies are signed with a key derived from %s, this server's own secret: "+
				"servers behind one load balancer need the same secret (copy the file to each and set gozie.authentication.secret.file)",
				filepath.Join(dir, server.GeneratedSecretFile))
		}
		member, err = cluster.Join(ctx, cluster.Options{Store: c, Name: name, URL: base, Version: Version(),
			Lease: lease, Heartbeat: beat, Logf: logf, NoSpread: !cfg.Bool("gozie.server.spread"),
			Host: place.host, DataDir: place.dataDir, DataID: place.dataID, Hold: hold,
			Sees: func(s store.ServerInfo) bool { return action.SameDataDir(s.DataDir, s.DataID) }})
		if err != nil {
			return err
		}
	}
	// The supervisor outlives the server on purpose (a restart re-attaches
	// to it); it exits by itself once idle.
	reg := newActionRegistry(cfg, filepath.Join(dir, "launcher"))
	// Get and Expand, which every part of the server uses, read the
	// package default: set it once, before any configuration is expanded,
	// so runtime expansion agrees with the check at submission.
	// Zero or negative values keep the built-in defaults.
	if v := cfg.Int("gozie.conf.expand.value.max.bytes", 0); v > 0 {
		conf.DefaultExpandLimits.Value = v
	}
	if v := cfg.Int("gozie.conf.expand.total.max.bytes", 0); v > 0 {
		conf.DefaultExpandLimits.Total = v
	}
	maxDef, err := cfg.DefinitionMaxBytes()
	if err != nil {
		return err
	}
	eng, err := engine.New(engine.Options{
		Store: st, Actions: reg, DataDir: dir, SystemID: cfg["gozie.system.id"],
		PollInterval: time.Duration(cfg.Int("gozie.poll.interval.ms", 1000)) * time.Millisecond,
		CallbackURL:  base + "/callback", ConsoleURL: base, Logf: logf,
		OnTransition:              logTransition(slogger),
		NotificationTimeout:       time.Duration(cfg.Int("gozie.notification.timeout.s", 10)) * time.Second,
		NotificationRetries:       cfg.Int("gozie.notification.retries", 3),
		NotificationRetryInterval: time.Duration(cfg.Int("gozie.notification.retry.interval.s", 60)) * time.Second,
		MaxDefinitionBytes:        maxDef,
		MaxConfFileBytes:          int64(cfg.Int("gozie.conf.file.max.bytes", int(fsys.DefaultMaxConfFile))),
		Expand:                    conf.DefaultExpandLimits,
		MaxActionBytes:            cfg.Int("gozie.action.max.bytes", engine.DefaultMaxActionBytes),
		CrashJournal:              filepath.Join(dir, engine.CrashJournalFile),
		LeaseValid:                leaseValid(member),
		RunAsUser:                 cfg.Bool("gozie.launch.as.user"),
		DataID:                    place.dataID,
		Host:                      place.host,
		ServerID:                  memberID(member),
		MaxRunningActions:         cfg.Int("gozie.actions.max.concurrent", 0),
		StartSettle:               time.Duration(cfg.Int("gozie.actions.start.settle.ms", int(engine.DefaultStartSettle/time.Millisecond))) * time.Millisecond,
	})
	if err != nil {
		return err
	}
	coords := coordengine.New(eng, eng.Runtime(), coordengine.Options{
		MaterializationWindow: time.Duration(cfg.Int("gozie.coord.materialization.window.s", 3600)) * time.Second,
		InputCheckInterval:    time.Duration(cfg.Int("gozie.coord.input.check.interval.s", 60)) * time.Second,
		BatchSize:             cfg.Int("gozie.coord.batch.size", 10000),
		MinFrequencyMinutes:   cfg.Int("gozie.coord.min.frequency.minutes", 5),
	})
	logf("gozie: action types this server runs: %s", strings.Join(reg.Types(), ", "))
	opts := server.Options{Engine: jobs.New(eng, coords), Coordinators: coords, BaseURL: base, DataDir: dir, Auth: auth,
		Config: cfg, Version: Version(), Logf: logf, Log: slogger, HTTP: httpLimits(cfg, logf),
		AllowedHosts: cfg.List("gozie.http.allowed.hosts")}
	if member != nil {
		opts.Cluster = member
	}
	srv, err := server.New(opts)
	if err != nil {
		return err
	}
	if err := eng.Start(ctx); err != nil {
		return err
	}
	if member != nil {
		// The heartbeats stop with the server; its registration stays, so
		// that a restart under the same id takes its jobs back at once and
		// a server that does not come back is taken over after the lease.
		hctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go member.Run(hctx, eng)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l, cfg["gozie.tls.cert"], cfg["gozie.tls.key"]) }()
	fmt.Fprintf(stdout, "gozie server listening on %s (%s), data in %s\n", l.Addr(), base, dir)
	select {
	case err := <-done:
		_ = eng.Close()
		return err
	case <-ctx.Done():
	}
	// A second signal now stops the process at once.
	stop()
	fmt.Fprintln(stdout, "gozie server shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), time.Duration(cfg.Int("gozie.shutdown.timeout.s", 30))*time.Second)
	defer cancel()
	err = srv.Shutdown(sctx)
	if serr := <-done; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	// Actions the engine launched keep running; the next start re-attaches.
	_ = eng.Close()
	return err
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
	id, err := action.DataDirID(abs)
	if err != nil {
		return stepPlace{}, fmt.Errorf("data directory %s: identity: %w", abs, err)
	}
	h, _ := os.Hostname()
	if h == "" {
		h = "localhost"
	}
	return stepPlace{host: h, dataDir: abs, dataID: id}, nil
}

// memberID is the engine's view of a member's instance token, nil without
// one.
func memberID(m *cluster.Member) func() string {
	if m == nil {
		return nil
	}
	return m.ID
}

// leaseValid is the engine's lease check of a member, nil without one.
func leaseValid(m *cluster.Member) func() bool {
	if m == nil {
		return nil
	}
	return m.LeaseValid
}

// newServerLog is the server's structured log (log/slog, text lines on
// stderr, passwords masked): one line per request and one per job or
// action transition, at or above level (gozie.log.level).
func newServerLog(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if level == "" {
		level = "info"
	}
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("gozie.log.level: %q is not a level (debug, info, warn or error)", level)
	}
	return slog.New(slog.NewTextHandler(redactingWriter{w}, &slog.HandlerOptions{Level: l})), nil
}

// redactingWriter masks passwords in each line slog writes (one Write per
// record).
type redactingWriter struct{ w io.Writer }

func (r redactingWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, redact.Secrets(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// logTransition logs each line a workflow job's change wrote to its job
// log, at the job log line's level: a node started or ended, the job's
// status changed.
func logTransition(l *slog.Logger) func(engine.Transition) {
	return func(t engine.Transition) {
		for _, e := range t.Logs {
			level := slog.LevelInfo
			switch e.Level {
			case engine.LevelWarn:
				level = slog.LevelWarn
			case engine.LevelError:
				level = slog.LevelError
			}
			attrs := []slog.Attr{slog.String("job", e.JobID)}
			if _, node, ok := strings.Cut(e.ActionID, "@"); ok {
				attrs = append(attrs, slog.String("node", node))
			}
			msg, _, _ := strings.Cut(e.Message, "\n") // the stderr tail stays in the job log
			attrs = append(attrs, slog.String("status", t.Job.Status))
			l.LogAttrs(context.Background(), level, msg, attrs...)
		}
	}
}

// httpLimits reads the connection keys. The connection cap is lowered to
// leave room under the process's open-file limit (ulimit -n) for the
// store, action files and launched processes: a cap above it would turn a
// connection flood into "too many open files" everywhere else.
func httpLimits(cfg server.Config, logf func(string, ...any)) server.HTTPLimits {
	secs := func(key string, def int) time.Duration { return time.Duration(cfg.Int(key, def)) * time.Second }
	l := server.HTTPLimits{
		MaxConns:          cfg.Int("gozie.http.max.connections", server.DefaultHTTPLimits.MaxConns),
		ReadHeaderTimeout: secs("gozie.http.read.header.timeout.s", 10),
		ReadTimeout:       secs("gozie.http.read.timeout.s", 120),
		WriteTimeout:      secs("gozie.http.write.timeout.s", 120),
		IdleTimeout:       secs("gozie.http.idle.timeout.s", 60),
		MaxHeaderBytes:    cfg.Int("gozie.http.max.header.bytes", server.DefaultHTTPLimits.MaxHeaderBytes),
	}
	if files := openFileLimit(); files > 0 && l.MaxConns > 0 {
		if room := files - reservedFiles; l.MaxConns > room {
			l.MaxConns = max(room, 16)
			logf("gozie: gozie.http.max.connections lowered to %d to fit ulimit -n %d", l.MaxConns, files)
		}
	}
	return l
}

// reservedFiles is how many descriptors the connection cap leaves for
// everything but connections.
const reservedFiles = 256
