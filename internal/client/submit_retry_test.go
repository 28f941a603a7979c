package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/conf"
)

// TestSubmitRetrying: a submission carrying oozie.wf.external.id is sent
// again when its answer is lost (connection dropped) or the server answers
// 5xx, up to the attempts given; other failures, and submissions without
// an external id, are not repeated.
func TestSubmitRetrying(t *testing.T) {
	for _, tc := range []struct {
		name    string
		extID   string
		answers []string // per POST: "201", "503", "400", "drop"
		wantErr bool
		posts   int
		waits   string
	}{
		{"5xx then created", "req-1", []string{"503", "201"}, false, 2, "[1s]"},
		{"answer lost", "req-1", []string{"drop", "drop", "201"}, false, 3, "[1s 2s]"},
		{"gives up", "req-1", []string{"503", "503", "503", "503", "503"}, true, 4, "[1s 2s 4s]"},
		{"client error", "req-1", []string{"400", "201"}, true, 1, "[]"},
		{"safe mode", "req-1", []string{"safemode", "201"}, true, 1, "[]"},
		{"no external id", "", []string{"503", "201"}, true, 1, "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var bodies []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/oozie/versions" {
					fmt.Fprint(w, "[0,1,2]")
					return
				}
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				n := len(bodies)
				bodies = append(bodies, string(b))
				mu.Unlock()
				switch tc.answers[n] {
				case "drop":
					conn, _, err := w.(http.Hijacker).Hijack()
					if err == nil {
						conn.Close()
					}
				case "201":
					w.WriteHeader(http.StatusCreated)
					fmt.Fprint(w, `{"id":"0000001-x-W"}`)
				case "503":
					w.Header().Set("oozie-error-code", "E0603")
					w.Header().Set("oozie-error-message", "E0603: SQL error in operation, down")
					w.WriteHeader(http.StatusServiceUnavailable)
				case "safemode":
					w.Header().Set("oozie-error-code", "E0002")
					w.WriteHeader(http.StatusServiceUnavailable)
				case "400":
					w.Header().Set("oozie-error-code", "E0301")
					w.WriteHeader(http.StatusBadRequest)
				}
			}))
			defer srv.Close()
			var waits []time.Duration
			c := New(srv.URL+"/oozie", Options{Sleep: func(d time.Duration) { waits = append(waits, d) }})
			cf := conf.New()
			cf.Set("oozie.wf.application.path", "file:///a")
			if tc.extID != "" {
				cf.Set(PropExternalID, tc.extID)
			}
			id, _, err := c.SubmitRetrying(context.Background(), cf, true, 4)
			if (err != nil) != tc.wantErr || (err == nil && id != "0000001-x-W") {
				t.Fatalf("SubmitRetrying = %q, %v; want error %v", id, err, tc.wantErr)
			}
			if len(bodies) != tc.posts || fmt.Sprint(waits) != tc.waits {
				t.Fatalf("%d POSTs after waits %v, want %d after %s", len(bodies), waits, tc.posts, tc.waits)
			}
			re := regexp.MustCompile(`<name>oozie.wf.external.id</name>\s*<value>([^<]*)</value>`)
			for _, b := range bodies {
				if m := re.FindStringSubmatch(b); tc.extID != "" && (m == nil || m[1] != tc.extID) {
					t.Errorf("a POST without the external id %s:\n%s", tc.extID, b)
				}
			}
		})
	}
}
