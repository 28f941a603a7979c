package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHealthCommand: gozie health asks /health/live or /health/ready at
// the root of the server named by -oozie, and exits 0 when it answers
// 200, 1 when it answers otherwise or not at all, 2 for a wrong command
// line; it prints the status and the failing checks.
func TestHealthCommand(t *testing.T) {
	ready := true
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/health/live":
			w.Write([]byte(`{"status":"live"}`))
		case r.URL.Path == "/health/ready" && ready:
			w.Write([]byte(`{"status":"ready","checks":{"store":"ok"}}`))
		case r.URL.Path == "/health/ready":
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"status":"not ready","checks":{"store":"unavailable: connection refused"},"failed":["store"]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer ts.Close()
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	cases := []struct {
		name  string
		args  []string
		ready bool
		code  int
		out   string
	}{
		{"live", []string{"-oozie", ts.URL + "/oozie"}, true, exitOK, "live"},
		{"ready", []string{"-oozie", ts.URL + "/oozie/", "-ready"}, true, exitOK, "ready"},
		{"not ready", []string{"-ready", "-oozie", ts.URL + "/oozie"}, false, exitFail, "not ready; store: unavailable: connection refused"},
		{"live while not ready", []string{"-oozie", ts.URL + "/oozie"}, false, exitOK, "live"},
		{"no server", []string{"-oozie", dead.URL + "/oozie"}, true, exitFail, ""},
		{"bad url", []string{"-oozie", "localhost:11000"}, true, exitUsage, ""},
		{"argument", []string{"-oozie", ts.URL, "extra"}, true, exitUsage, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ready = c.ready
			var out, errOut bytes.Buffer
			if code := Main(append([]string{"health"}, c.args...), &out, &errOut); code != c.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, c.code, out.String(), errOut.String())
			}
			if got := strings.TrimSpace(out.String()); got != c.out {
				t.Fatalf("stdout %q, want %q", got, c.out)
			}
		})
	}
}
