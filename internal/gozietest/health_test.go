package gozietest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/gozietest"
	"github.com/gozie/gozie/internal/store/postgres"
	"github.com/gozie/gozie/internal/testservers"
)

type readyBody struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
	Failed []string          `json:"failed"`
}

// probe GETs a health endpoint of srv, with a Host no server knows (a
// load balancer's): the health endpoints answer before the Host check.
func probe(t *testing.T, srv *gozietest.Server, path string) (int, readyBody) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(srv.URL, "/oozie")+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "lb.example.invalid"
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var body readyBody
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("%s: %d %s: %v", path, res.StatusCode, b, err)
	}
	return res.StatusCode, body
}

// TestHealthOnSQLite: a server of its own is live and ready, its store
// and migrations checked.
func TestHealthOnSQLite(t *testing.T) {
	srv := gozietest.NewServer(t, gozietest.Options{})
	if code, _ := probe(t, srv, "/health/live"); code != http.StatusOK {
		t.Fatalf("live: %d", code)
	}
	code, body := probe(t, srv, "/health/ready")
	if code != http.StatusOK || body.Checks["store"] != "ok" || body.Checks["migrations"] != "ok" || body.Checks["cluster"] != "" {
		t.Fatalf("ready: %d %+v", code, body)
	}
}

// TestHealthDuringOutage: a server on PostgreSQL through a proxy; with
// the database cut away it stays live but is not ready (503 naming the
// store), and is ready again once the database is back.
func TestHealthDuringOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("PostgreSQL outage: -short")
	}
	dsn := postgres.TestDSN(t)
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		t.Skipf("needs a postgres:// URL DSN to put a proxy in, have %q", dsn)
	}
	proxy := testservers.NewTCPProxy(t, u.Host)
	u.Host = proxy.Addr()
	srv := gozietest.NewServer(t, gozietest.Options{DB: u.String()})

	code, body := probe(t, srv, "/health/ready")
	if code != http.StatusOK || body.Checks["store"] != "ok" || body.Checks["migrations"] != "ok" || body.Checks["cluster"] != "ok" {
		t.Fatalf("ready before the outage: %d %+v", code, body)
	}
	proxy.Stop()
	code, body = probe(t, srv, "/health/ready")
	if code != http.StatusServiceUnavailable || body.Status != "not ready" || len(body.Failed) == 0 || body.Failed[0] != "store" {
		t.Fatalf("ready during the outage: %d %+v", code, body)
	}
	if code, _ := probe(t, srv, "/health/live"); code != http.StatusOK {
		t.Fatalf("live during the outage: %d", code)
	}
	// The engine's polls fail meanwhile, and the metrics say why.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for value(scrape(t, srv), "gozie_store_transaction_errors_total", "reason", "unavailable") < 1 {
		select {
		case <-ctx.Done():
			t.Fatal("no unavailable store transaction counted during the outage")
		case <-time.After(50 * time.Millisecond):
		}
	}
	proxy.Start()
	// The pool's connections were cut: the next ping opens a new one.
	for {
		code, body = probe(t, srv, "/health/ready")
		if code == http.StatusOK {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("not ready after the outage: %d %+v", code, body)
		case <-time.After(100 * time.Millisecond):
		}
	}
	if v := value(scrape(t, srv), "gozie_cluster_members"); v != 1 {
		t.Errorf("cluster members %v, want 1", v)
	}
}
