package cli

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestJobRunResendsWithExternalID: `gozie job -run` names a workflow
// submission with a random oozie.wf.external.id (or the user's own) and
// sends it again after a 503, so a lost answer does not create a second
// job; coordinators are sent once and get no external id.
func TestJobRunResendsWithExternalID(t *testing.T) {
	for _, tc := range []struct {
		name     string
		props    string
		args     []string
		answers  []int
		exit     int
		posts    int
		idPrefix string // "" means no external id is sent
	}{
		{"random id, retried", "oozie.wf.application.path=file:///apps/x\n", nil, []int{503, 201}, 0, 2, "gozie-cli-"},
		{"user's id kept", "oozie.wf.application.path=file:///apps/x\n", []string{"-D", "oozie.wf.external.id=mine"}, []int{503, 503, 201}, 0, 3, "mine"},
		{"coordinator sent once", "oozie.coord.application.path=file:///apps/c\n", nil, []int{503, 201}, 255, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pinEnv(t)
			var waits []time.Duration
			retrySleep = func(d time.Duration) { waits = append(waits, d) }
			var mu sync.Mutex
			var bodies []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.URL.Path == "/oozie/versions":
					fmt.Fprint(w, "[0,1,2]")
					return
				case r.Method != http.MethodPost:
					return // the authentication handshake
				}
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				n := len(bodies)
				bodies = append(bodies, string(b))
				mu.Unlock()
				if tc.answers[n] != http.StatusCreated {
					w.Header().Set("oozie-error-code", "E0603")
					w.Header().Set("oozie-error-message", "E0603: SQL error in operation, down")
					w.WriteHeader(tc.answers[n])
					return
				}
				w.WriteHeader(http.StatusCreated)
				fmt.Fprint(w, `{"id":"0000001-x-W"}`)
			}))
			t.Cleanup(srv.Close)
			props := filepath.Join(t.TempDir(), "job.properties")
			if err := os.WriteFile(props, []byte(tc.props), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			args := append([]string{"job", "-run", "-config", props, "-oozie", srv.URL + "/oozie"}, tc.args...)
			if code := Main(args, &stdout, &stderr); code != tc.exit {
				t.Fatalf("exit %d, want %d: %s %s", code, tc.exit, stdout.String(), stderr.String())
			}
			if len(bodies) != tc.posts {
				t.Fatalf("%d POSTs, want %d (waits %v)", len(bodies), tc.posts, waits)
			}
			re := regexp.MustCompile(`<name>oozie.wf.external.id</name>\s*<value>([^<]*)</value>`)
			var first string
			for i, b := range bodies {
				m := re.FindStringSubmatch(b)
				switch {
				case tc.idPrefix == "" && m != nil:
					t.Errorf("POST %d carries an external id %q", i, m[1])
				case tc.idPrefix != "" && (m == nil || !strings.HasPrefix(m[1], tc.idPrefix)):
					t.Errorf("POST %d: external id %v, want prefix %q", i, m, tc.idPrefix)
				case m != nil && first != "" && m[1] != first:
					t.Errorf("POST %d: external id %q differs from the first %q", i, m[1], first)
				case m != nil:
					first = m[1]
				}
			}
			if tc.exit == 0 && stdout.String() != "job: 0000001-x-W\n" {
				t.Errorf("stdout %q", stdout.String())
			}
		})
	}
}
