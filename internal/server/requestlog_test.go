package server

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gozie/gozie/internal/jobs"
)

// lockedBuffer is a bytes.Buffer safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRequestLog is issue 14 point 12: the server logs one line per
// request at the level the options give, handshakes only at debug.
func TestRequestLog(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct {
		level       slog.Level
		wantOptions bool
	}{{slog.LevelInfo, false}, {slog.LevelDebug, true}} {
		var buf lockedBuffer
		srv, err := New(Options{Engine: jobs.New(e.eng, e.coords, nil), Coordinators: e.coords, BaseURL: e.base, DataDir: e.dir, Version: "test",
			Auth: AuthOptions{Secret: []byte("s"), AnonymousReads: true}, Logf: t.Logf,
			Log: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: tt.level}))})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv.Handler())
		for _, r := range []struct{ method, path string }{
			{http.MethodOptions, "/oozie/v2/jobs?user.name=joe"},
			{http.MethodGet, "/oozie/v2/jobs?jobtype=wf&filter=user%3Djoe"},
			{http.MethodGet, "/oozie/v2/job/0000099-000000000000000-oozie-test-W?show=info"},
		} {
			req, _ := http.NewRequest(r.method, ts.URL+r.path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		ts.Close()
		text := buf.String()
		lines := strings.Split(strings.TrimSpace(text), "\n")
		want := 2
		if tt.wantOptions {
			want = 3
		}
		if len(lines) != want {
			t.Fatalf("level %v: %d lines, want %d:\n%s", tt.level, len(lines), want, text)
		}
		for _, w := range []string{
			"level=INFO msg=request method=GET path=/oozie/v2/jobs jobtype=wf status=200 user=- duration=",
			"method=GET path=/oozie/v2/job/0000099-000000000000000-oozie-test-W show=info status=400",
		} {
			if !strings.Contains(text, w) {
				t.Errorf("level %v: log lacks %q:\n%s", tt.level, w, text)
			}
		}
		if strings.Contains(text, "filter") {
			t.Errorf("the query's other keys are logged:\n%s", text)
		}
		if tt.wantOptions && !strings.Contains(text, "level=DEBUG msg=request method=OPTIONS") {
			t.Errorf("no debug handshake line:\n%s", text)
		}
	}
}
