package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzHandler sends arbitrary methods, paths, queries and bodies to the
// REST API. Whatever arrives, the server must answer (never panic) and
// must not answer 5xx: garbage is the client's error, and a 500 would mean
// a request reached code that did not expect it. Oozie's 503 for the
// inactive metrics/instrumentation resource and system modes is allowed.
func FuzzHandler(f *testing.F) {
	seeds := []struct{ method, target, ct, body string }{
		{"GET", "/oozie/versions", "", ""},
		{"GET", "/oozie/v2/jobs?jobtype=coord&filter=status%3DRUNNING;user%3Djoe&offset=2&len=3", "", ""},
		{"POST", "/oozie/v2/jobs?action=start&user.name=joe", "application/xml", "<configuration><property><name>oozie.wf.application.path</name><value>/x</value></property></configuration>"},
		{"PUT", "/oozie/v2/job/0000001-260101000000000-oozie-test-W?action=rerun&user.name=joe", "application/xml", "<configuration/>"},
		{"GET", "/oozie/v2/job/0000001-260101000000000-oozie-test-C@3?show=allruns", "", ""},
		{"GET", "/oozie/v2/job/x?show=log&logfilter=limit%3D-1;recent%3Dzz", "", ""},
		{"PUT", "/oozie/v2/admin/status?systemmode=SAFEMODE&user.name=root", "", ""},
		{"OPTIONS", "/oozie/v2/jobs?user.name=%00", "", ""},
		{"GET", "/oozie/callback?id=a@b&status=%ff", "", ""},
		{"POST", "/oozie/v2/validate?file=../../etc/passwd&user=joe&user.name=joe", "application/xml", "<workflow-app"},
	}
	for _, s := range seeds {
		f.Add(s.method, s.target, s.ct, s.body)
	}
	// The server and engine log through the TB they are built with, and a
	// fuzz target may not log through the F.
	e := newEnv(quietTB{f})
	h := e.srv.Handler()
	f.Fuzz(func(t *testing.T, method, target, ct, body string) {
		if !strings.HasPrefix(target, "/") {
			target = "/" + target
		}
		req, err := http.NewRequest(method, "http://gozie.test"+target, strings.NewReader(body))
		if err != nil {
			return // not an HTTP request a client could send
		}
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 && w.Code != http.StatusServiceUnavailable {
			t.Fatalf("%s %s (%q, %q): %d %s", method, target, ct, body, w.Code, w.Body.String())
		}
		// Leave the server as the next input expects it.
		e.srv.mode.Store(ModeNormal)
	})
}

// quietTB is a testing.TB whose Logf drops the line.
type quietTB struct{ testing.TB }

func (quietTB) Logf(string, ...any) {}
