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
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gozie/gozie/internal/assembly"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/server"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
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
	if dir == "" || !(store.IsDiskFull(err) || launch.IsNoSpace(err) || launch.DiskFull(dir)) {
		return err
	}
	return fmt.Errorf("data directory %s: no space left on device (disk full); free space and start again", dir)
}

// newActionRegistry returns the action executors of a server or a local
// run (assembly.NewRegistry).
var newActionRegistry = assembly.NewRegistry

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
	slogger, err := newServerLog(stderr, cfg["gozie.log.level"])
	if err != nil {
		return err
	}
	sys, err := assembly.New(ctx, assembly.Options{Config: cfg, Addr: net.JoinHostPort(cfg["gozie.http.host"], cfg["gozie.http.port"]),
		Version: Version(), Logf: logf, Log: slogger, OnTransition: logTransition(slogger), HTTP: httpLimits(cfg, logf)})
	if err != nil {
		return err
	}
	defer sys.Close()
	if err := sys.Start(ctx); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- sys.Server.Serve(sys.Listener, cfg["gozie.tls.cert"], cfg["gozie.tls.key"]) }()
	fmt.Fprintf(stdout, "gozie server listening on %s (%s), data in %s\n", sys.Listener.Addr(), sys.BaseURL, dir)
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	// A second signal now stops the process at once.
	stop()
	fmt.Fprintln(stdout, "gozie server shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), time.Duration(cfg.Int("gozie.shutdown.timeout.s", 30))*time.Second)
	defer cancel()
	err = sys.Server.Shutdown(sctx)
	if serr := <-done; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	// Actions the engine launched keep running; the next start re-attaches.
	return err
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
			if _, node, ok := vocab.SplitID(e.ActionID); ok {
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
