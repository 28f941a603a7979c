package server

import (
	"net/http"
	"net/http/httptest"
	"net/url"
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
		req, err := http.NewRequest(method, "http://127.0.0.1:11000"+target, strings.NewReader(body))
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

// FuzzQueryParams sends arbitrary values of the numeric and range query
// parameters (offset, len, logfilter, action scopes, jobs filter times) to
// the jobs, job info and job log resources of a real workflow job and of a
// coordinator id. Each must be answered without a panic and without a 5xx:
// out-of-range numbers are the client's error (400).
func FuzzQueryParams(f *testing.F) {
	seeds := []struct{ offset, length, logfilter, scope, filter string }{
		{"1", "50", "recent=3h;limit=10", "1-3", "startcreatedtime=-2d"},
		{"2", "9223372036854775807", "recent=9223372036854775807", "1-9223372036854775807", "endcreatedtime=-9223372036854775807m"},
		{"-2147483649", "2147483647", "start=-9223372036854775807;end=2026-01-01T00:00Z", "9223372036854775806-9223372036854775807", "status=RUNNING"},
		{"0", "-1", "limit=-1;loglevel=WARN|ERROR", "0,1,2-1", "user=joe;user=ann"},
		{" 3 ", "+7", "text=a=b;recent=99999999999999999999m", ",,", "startcreatedtime=2026-01-01T00:00Z"},
	}
	for _, s := range seeds {
		f.Add(s.offset, s.length, s.logfilter, s.scope, s.filter)
	}
	e := newEnv(quietTB{f})
	h := e.srv.Handler()
	get := func(target string) *httptest.ResponseRecorder {
		req, err := http.NewRequest("GET", "http://127.0.0.1:11000"+target, nil)
		if err != nil {
			return nil
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	// A real job, so the job resources get past the lookup to the
	// parameters.
	w := httptest.NewRecorder()
	req, _ := http.NewRequest("POST", "http://127.0.0.1:11000/oozie/v2/jobs?user.name=joe", strings.NewReader(
		confXML("oozie.wf.application.path", e.app("fuzz"))))
	req.Header.Set("Content-Type", "application/xml")
	h.ServeHTTP(w, req)
	if w.Code != http.StatusCreated {
		f.Fatalf("submit: %d %s", w.Code, w.Body)
	}
	id := strings.TrimSuffix(strings.TrimPrefix(w.Body.String(), `{"id":"`), `"}`)
	const coordID = "0000001-260101000000000-oozie-test-C"
	f.Fuzz(func(t *testing.T, offset, length, logfilter, scope, filter string) {
		q := func(kv ...string) string {
			v := url.Values{}
			for i := 0; i+1 < len(kv); i += 2 {
				v.Set(kv[i], kv[i+1])
			}
			return v.Encode()
		}
		targets := []string{
			"/oozie/v2/jobs?" + q("offset", offset, "len", length, "filter", filter),
			"/oozie/v1/jobs?" + q("jobtype", "coord", "offset", offset, "len", length, "filter", filter),
			"/oozie/v2/job/" + id + "?" + q("show", "info", "offset", offset, "len", length),
			"/oozie/v2/job/" + id + "?" + q("show", "log", "logfilter", logfilter),
			"/oozie/v2/job/" + id + "?" + q("show", "errorlog", "logfilter", logfilter),
			"/oozie/v2/job/" + coordID + "?" + q("show", "info", "offset", offset, "len", length, "filter", filter),
			"/oozie/v2/job/" + coordID + "?" + q("show", "log", "type", "action", "scope", scope, "logfilter", logfilter),
			"/oozie/v2/job/" + coordID + "?" + q("show", "missing-dependencies", "action-list", scope),
		}
		for _, target := range targets {
			w := get(target)
			if w == nil {
				continue
			}
			if w.Code >= 500 && w.Code != http.StatusServiceUnavailable {
				t.Fatalf("GET %s: %d %s", target, w.Code, w.Body.String())
			}
		}
	})
}
