// Package gozietest starts a whole gozie server for tests, in the style of
// net/http/httptest: NewServer assembles it (internal/assembly, as `gozie
// server` does) on a temporary data directory and SQLite store, serves it
// on a local port, and stops it when the test ends. Options.DB puts it on
// PostgreSQL instead.
package gozietest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/assembly"
	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/purge"
	"github.com/gozie/gozie/internal/server"
)

// Options configure a test server; the zero value is a server with the
// built-in action types, anonymous reads and no authorization.
type Options struct {
	// Config sets site keys (gozie-site.xml names) over the defaults.
	Config map[string]string
	// Auth is the server's authentication; nil reads Config.
	Auth *server.AuthOptions
	// Registry replaces the built-in action types.
	Registry *action.Registry
	// PollInterval is the engine's poll interval (default 20ms).
	PollInterval time.Duration
	// SystemID is the engine's system id ("" the engine's default).
	SystemID string
	// DefaultUser is the user of a submission that names none.
	DefaultUser string
	// BaseURL is the server's public URL including /oozie; default the
	// URL it is served on.
	BaseURL string
	// DB is the store's DSN (gozie.db: postgres://...); empty for SQLite
	// in the data directory.
	DB string
	// Clock is the engines' clock; nil is the wall clock. A test whose
	// jobs act at minute boundaries (pause times, nominal times) gives
	// one a few seconds before such a boundary.
	Clock engine.Clock
	// DataDir is the server's data directory; "" a new t.TempDir (a test
	// restoring a backup starts a server on a directory it filled).
	DataDir string
}

// Server is a started test server.
type Server struct {
	// URL is the REST API's base, http://127.0.0.1:PORT/oozie.
	URL string
	// DataDir is the server's data directory (a t.TempDir).
	DataDir string
	// HTTP is the test HTTP server serving it.
	HTTP *httptest.Server
	*assembly.System
}

// NewServer starts a server for t; it is stopped and its store closed
// when t ends.
func NewServer(t testing.TB, o Options) *Server {
	t.Helper()
	dir := o.DataDir
	if dir == "" {
		dir = t.TempDir()
	}
	cfg, err := server.LoadConfig("", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	// No periodic purge unless a test asks for one: the fixtures of many
	// tests carry times long past, which a round 10 s after the start
	// would delete under them.
	cfg[purge.KeyInterval] = "-1"
	for k, v := range o.Config {
		cfg[k] = v
	}
	cfg["gozie.data.dir"], cfg["gozie.db"], cfg["gozie.db.file"] = dir, o.DB, ""
	var h http.Handler = http.NotFoundHandler()
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	url := "http://" + hs.Listener.Addr().String() + "/oozie"
	if o.BaseURL == "" {
		o.BaseURL = url
	}
	cfg["gozie.base.url"] = o.BaseURL
	reg := o.Registry
	if reg == nil {
		reg = action.NewRegistry()
		launch.RegisterBuiltins(reg, launch.Options{})
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	sys, err := assembly.New(ctx, assembly.Options{Config: cfg, Listener: hs.Listener, Auth: o.Auth, Registry: reg,
		DefaultUser: o.DefaultUser, Logf: t.Logf, Tune: func(eo *engine.Options, co *coordengine.Options) {
			eo.PollInterval, eo.SystemID = o.PollInterval, o.SystemID
			if o.Clock != nil {
				eo.Clock = o.Clock
			}
			if eo.PollInterval == 0 {
				eo.PollInterval = 20 * time.Millisecond
			}
		}})
	if err != nil {
		hs.Close()
		t.Fatal(err)
	}
	if err := sys.Start(ctx); err != nil {
		sys.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { sys.Close() })
	h = sys.Server.Handler()
	hs.Start()
	t.Cleanup(hs.Close)
	return &Server{URL: url, DataDir: dir, HTTP: hs, System: sys}
}

// ClockFrom returns a clock that reads start now and from then on runs at
// the wall clock's pace, its timers the wall clock's: pause, kick-off and
// nominal times are whole minutes, and a server on ClockFrom(boundary -
// a few seconds) reaches such a time in those seconds, not in up to a
// minute.
func ClockFrom(start time.Time) engine.Clock { return offsetClock(time.Until(start)) }

// offsetClock is the wall clock moved by a fixed offset.
type offsetClock time.Duration

func (c offsetClock) Now() time.Time { return time.Now().Add(time.Duration(c)) }

func (offsetClock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
