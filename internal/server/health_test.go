package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// recorder is a RequestObserver keeping what it was told.
type recorder struct {
	mu     sync.Mutex
	routes []string
	kinds  []string
}

func (r *recorder) Request(route, method string, code int, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.routes = append(r.routes, route+" "+method+" "+http.StatusText(code))
}

func (r *recorder) Submitted(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kinds = append(r.kinds, kind)
}

// TestReady: /health/ready runs the checks in order and names the failing
// ones in a 503, with the reason masked and cut to its first line; it and
// /health/live answer any Host, without authentication.
func TestReady(t *testing.T) {
	e := newEnv(t)
	fail := errors.New("postgres: connect: password=hunter2 refused\nsecond line")
	cases := []struct {
		name   string
		checks []ReadyCheck
		code   int
		failed []string
	}{
		{"none", nil, http.StatusOK, nil},
		{"all ok", []ReadyCheck{{"store", func(context.Context) error { return nil }}, {"cluster", func(context.Context) error { return nil }}},
			http.StatusOK, nil},
		{"store down", []ReadyCheck{{"store", func(context.Context) error { return &store.UnavailableError{Err: fail} }},
			{"cluster", func(context.Context) error { return nil }}}, http.StatusServiceUnavailable, []string{"store"}},
		{"slow", []ReadyCheck{{"store", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }}},
			http.StatusServiceUnavailable, []string{"store"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "slow" && testing.Short() {
				t.Skip("waits ReadyTimeout")
			}
			h := e.serverWith(t, func(o *Options) { o.Ready = c.checks }).Handler()
			rec := serve(h, http.MethodGet, "evil.example", PathReady)
			if rec.Code != c.code {
				t.Fatalf("ready: %d %s", rec.Code, rec.Body)
			}
			var body readyAnswer
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if strings.Join(body.Failed, ",") != strings.Join(c.failed, ",") || len(body.Checks) != len(c.checks) {
				t.Fatalf("ready body: %s", rec.Body)
			}
			if strings.Contains(rec.Body.String(), "hunter2") || strings.Contains(rec.Body.String(), "second line") {
				t.Fatalf("reason not masked or not cut: %s", rec.Body)
			}
			if rec := serve(h, http.MethodGet, "evil.example", PathLive); rec.Code != http.StatusOK {
				t.Fatalf("live: %d %s", rec.Code, rec.Body)
			}
			if rec := serve(h, http.MethodPost, "localhost", PathLive); rec.Code != http.StatusMethodNotAllowed {
				t.Fatalf("POST live: %d", rec.Code)
			}
		})
	}
}

// TestMetricsEndpoint: /metrics is open by default and behind the
// server's authentication with gozie.metrics.auth=true (anonymous reads
// refused there); without a Metrics handler it is 404; requests are
// observed by route pattern, never by path.
func TestMetricsEndpoint(t *testing.T) {
	e := newEnv(t)
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("gozie_up 1\n")) })
	obs := &recorder{}
	open := e.serverWith(t, func(o *Options) { o.Metrics, o.Observer = page, obs }).Handler()
	if rec := serve(open, http.MethodGet, "localhost", PathMetrics); rec.Code != http.StatusOK || rec.Body.String() != "gozie_up 1\n" {
		t.Fatalf("open: %d %s", rec.Code, rec.Body)
	}
	serve(open, http.MethodGet, "localhost", "/oozie/v2/job/0000001-200101000000000-oozie-W?show=info")
	serve(open, http.MethodGet, "evil.example", "/oozie/v2/jobs")
	obs.mu.Lock()
	got := strings.Join(obs.routes, "|")
	obs.mu.Unlock()
	want := "/metrics GET OK|/oozie/v2/job/ GET Bad Request| GET Misdirected Request"
	if got != want {
		t.Errorf("observed %q, want %q", got, want)
	}

	closed := e.serverWith(t, func(o *Options) {
		o.Metrics = page
		o.Config = map[string]string{keyMetricsAuth: "true"}
		o.Auth.Tokens = map[string]string{"tok": "prometheus"}
	}).Handler()
	if rec := serve(closed, http.MethodGet, "localhost", PathMetrics); rec.Code != http.StatusUnauthorized {
		t.Fatalf("anonymous with auth: %d %s", rec.Code, rec.Body)
	}
	if rec := serve(closed, http.MethodGet, "localhost", PathMetrics, "Authorization", "Bearer tok"); rec.Code != http.StatusOK {
		t.Fatalf("token with auth: %d %s", rec.Code, rec.Body)
	}
	none := e.serverWith(t, func(*Options) {}).Handler()
	if rec := serve(none, http.MethodGet, "localhost", PathMetrics); rec.Code != http.StatusNotFound {
		t.Fatalf("no metrics: %d", rec.Code)
	}
}
