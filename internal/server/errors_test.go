package server

import (
	"net/http"
	"strings"
	"testing"
)

// TestRequestValidation walks the rows of rest-api.md 0.3 and the error
// codes of 9.1 the server produces: status, oozie-error-code header, and
// the JSON error body.
func TestRequestValidation(t *testing.T) {
	e := newEnv(t)
	missing := "/oozie/v2/job/0000099-260101000000000-oozie-test-W"
	cases := []struct {
		name, method, path, ct, body string
		status                       int
		code                         string
	}{
		{"trailing slash on jobs", "GET", "/oozie/v2/jobs/", "", "", 404, ""},
		{"resource with slash", "GET", "/oozie/v2/job/a/b", "", "", 400, "E0301"},
		{"unknown admin resource", "GET", "/oozie/v2/admin/nope", "", "", 400, "E0301"},
		{"v0 lacks queue-dump", "GET", "/oozie/v0/admin/queue-dump", "", "", 400, "E0301"},
		{"POST admin", "POST", "/oozie/v2/admin/status?user.name=joe", "", "", 400, "E0301"},
		{"DELETE jobs", "DELETE", "/oozie/v2/jobs?user.name=joe", "", "", 400, "E0301"},
		{"DELETE job", "DELETE", missing + "?user.name=joe", "", "", 400, "E0301"},
		{"action on GET job", "GET", missing + "?action=kill", "", "", 400, "E0302"},
		{"show on PUT job", "PUT", missing + "?show=info&user.name=joe", "", "", 400, "E0302"},
		{"v1 errorlog", "GET", "/oozie/v1/job/x-W?show=errorlog", "", "", 400, "E0302"},
		{"bad show", "GET", missing + "?show=nope", "", "", 400, "E0303"},
		{"PUT job without action", "PUT", missing + "?user.name=joe", "", "", 400, "E0305"},
		{"bad job action", "PUT", missing + "?action=explode&user.name=joe", "", "", 400, "E0303"},
		{"status without systemmode", "PUT", "/oozie/v2/admin/status?user.name=root", "", "", 400, "E0305"},
		{"bad systemmode", "PUT", "/oozie/v2/admin/status?systemmode=BAD&user.name=root", "", "", 400, "E1603"},
		{"v0 safemode not boolean", "PUT", "/oozie/v0/admin/status?safemode=maybe&user.name=root", "", "", 400, "E0304"},
		{"systemmode by non-admin", "PUT", "/oozie/v2/admin/status?systemmode=SAFEMODE&user.name=joe", "", "", 401, "E0503"},
		{"submit without content type", "POST", "/oozie/v2/jobs?user.name=joe", "", "<configuration/>", 400, "E0300"},
		{"submit as text", "POST", "/oozie/v2/jobs?user.name=joe", "text/plain", "<configuration/>", 400, "E0300"},
		{"submit bad action", "POST", "/oozie/v2/jobs?action=go&user.name=joe", "application/xml", "<configuration/>", 400, "E0303"},
		{"submit without app path", "POST", "/oozie/v2/jobs?user.name=joe", "application/xml", "<configuration/>", 400, "E0302"},
		{"submit two app paths", "POST", "/oozie/v2/jobs?user.name=joe", "application/xml",
			confXML("oozie.wf.application.path", "/a", "oozie.coord.application.path", "/b"), 400, "E0302"},
		{"submit missing app dir", "POST", "/oozie/v2/jobs?user.name=joe", "application/xml",
			confXML("oozie.wf.application.path", "/no/such/dir"), 400, "E0504"},
		{"submit garbage body", "POST", "/oozie/v2/jobs?user.name=joe", "application/xml", "<configuration><property>", 400, "E0303"},
		{"submit body over the limit", "POST", "/oozie/v2/jobs?user.name=joe", "application/xml",
			"<configuration>" + strings.Repeat(" ", maxBody) + "</configuration>", 400, "E0303"},
		{"anonymous submit without user.name", "POST", "/oozie/v2/jobs", "application/xml", "<configuration/>", 400, "E0401"},
		{"anonymous kill", "PUT", missing + "?action=kill", "", "", 401, "E0500"},
		{"bad offset", "GET", "/oozie/v2/jobs?offset=abc", "", "", 400, "E1603"},
		{"status filter is case-sensitive", "GET", "/oozie/v2/jobs?filter=status%3Drunning", "", "", 400, "E0420"},
		{"filter without =", "GET", "/oozie/v2/jobs?filter=user", "", "", 400, "E0420"},
		{"bulk without filter", "PUT", "/oozie/v2/jobs?action=kill&jobtype=wf&user.name=joe", "", "", 400, "E1603"},
		{"bulk bad action", "PUT", "/oozie/v2/jobs?action=start&jobtype=wf&user.name=joe", "", "", 400, "E0303"},
		{"unknown job", "GET", missing, "", "", 400, "E0604"},
		{"unknown action", "GET", missing + "@x", "", "", 400, "E0605"},
		{"graph of a coordinator", "GET", "/oozie/v2/job/0000001-260101000000000-oozie-test-C?show=graph", "", "", 400, "E0306"},
		{"kill unknown job", "PUT", missing + "?action=kill&user.name=joe", "", "", 400, "E0604"},
		{"rerun without xml", "PUT", missing + "?action=rerun&user.name=joe", "", "", 400, "E0604"},
		{"callback without id", "GET", "/oozie/callback?status=OK", "", "", 400, "E0402"},
		{"callback POST not text", "POST", "/oozie/callback?id=x&status=OK", "application/xml", "a=b", 400, "E0300"},
		{"validate without file", "POST", "/oozie/v2/validate?user=joe&user.name=joe", "application/xml", "<x/>", 400, "E0305"},
		{"validate invalid coordinator", "POST", "/oozie/v2/validate?file=/c.xml&user=joe&user.name=joe", "application/xml", "<coordinator-app/>", 400, "E0701"},
		{"validate invalid", "POST", "/oozie/v2/validate?file=/w.xml&user=joe&user.name=joe", "application/xml", "<workflow-app/>", 400, "E0701"},
		{"bad logfilter", "GET", missing + "?show=log&logfilter=loglevel%3DLOUD", "", "", 400, "E0302"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(c.method, c.path, c.ct, c.body)
			if r.status != c.status || r.header.Get("oozie-error-code") != c.code {
				t.Fatalf("%d %q (%s), want %d %q", r.status, r.header.Get("oozie-error-code"), r.header.Get("oozie-error-message"), c.status, c.code)
			}
			if r.header.Get("X-Frame-Options") != "DENY" {
				t.Errorf("no X-Frame-Options: DENY")
			}
			body := r.json(t)
			if body["httpStatusCode"] != float64(c.status) {
				t.Errorf("body %s", r.body)
			}
			if c.code != "" && !strings.HasPrefix(r.header.Get("oozie-error-message"), c.code+": ") && c.code != "E1603" {
				t.Errorf("message %q lacks the code prefix", r.header.Get("oozie-error-message"))
			}
		})
	}
}

// TestSystemMode checks that writes other than admin ones are refused with
// 503 E0002 outside NORMAL mode, and reads still work.
func TestSystemMode(t *testing.T) {
	e := newEnv(t)
	app := e.app("sm")
	for _, mode := range []string{ModeSafeMode, ModeNoWebService} {
		if r := e.do("PUT", "/oozie/v2/admin/status?systemmode="+mode+"&user.name=root", "", ""); r.status != 200 {
			t.Fatalf("set %s: %d %s", mode, r.status, r.body)
		}
		if got := e.do("GET", "/oozie/v1/admin/status", "", "").json(t)["systemMode"]; got != mode {
			t.Errorf("systemMode %v, want %s", got, mode)
		}
		if got := e.do("GET", "/oozie/v0/admin/status", "", "").json(t)["safeMode"]; got != true {
			t.Errorf("v0 safeMode %v", got)
		}
		r := e.do("POST", "/oozie/v2/jobs?user.name=joe", "application/xml", confXML("oozie.wf.application.path", app))
		if r.status != http.StatusServiceUnavailable || r.header.Get("oozie-error-code") != "E0002" ||
			r.header.Get("oozie-error-message") != "System is in safe mode" {
			t.Errorf("%s submit: %d %v", mode, r.status, r.header)
		}
		if r := e.do("GET", "/oozie/v2/jobs", "", ""); r.status != 200 {
			t.Errorf("%s list: %d", mode, r.status)
		}
	}
	if r := e.do("PUT", "/oozie/v2/admin/status?systemmode=NORMAL&user.name=root", "", ""); r.status != 200 {
		t.Fatal(r.status)
	}
	e.submit("joe", "", "oozie.wf.application.path", app)
}

func TestAdminResources(t *testing.T) {
	e := newEnv(t)
	if r := e.do("GET", "/oozie/versions", "", ""); string(r.body) != "[0,1,2]" {
		t.Errorf("versions %s", r.body)
	}
	cases := []struct{ path, key string }{
		{"/oozie/v2/admin/build-version", "buildInfo"},
		{"/oozie/v2/admin/available-timezones", "available-timezones"},
		{"/oozie/v2/admin/queue-dump", "uniqueMapDump"},
		{"/oozie/v2/admin/instrumentation", "counters"},
		{"/oozie/v2/admin/metrics", "histograms"},
		{"/oozie/v1/admin/configuration", "gozie.http.port"},
		{"/oozie/v0/admin/os-env", ""},
		{"/oozie/v2/admin/java-sys-properties", "os.name"},
	}
	for _, c := range cases {
		// configuration, os-env and java-sys-properties need an admin.
		r := e.do("GET", c.path+"?user.name=root", "", "")
		if r.status != 200 {
			t.Errorf("%s: %d %s", c.path, r.status, r.body)
			continue
		}
		m := r.json(t)
		if _, ok := m[c.key]; c.key != "" && !ok {
			t.Errorf("%s lacks %s: %.200s", c.path, c.key, r.body)
		}
	}
	if cfg := e.do("GET", "/oozie/v2/admin/configuration?user.name=root", "", "").json(t); cfg["gozie.authentication.secret"] != "*****" {
		t.Errorf("secret shown: %v", cfg["gozie.authentication.secret"])
	}
	tz := e.do("GET", "/oozie/v2/admin/available-timezones", "", "").json(t)["available-timezones"].([]any)
	found := false
	for _, z := range tz {
		if z.(map[string]any)["timezoneId"] == "America/Los_Angeles" {
			found = z.(map[string]any)["timezoneDisplayName"] == "PST (America/Los_Angeles)"
		}
	}
	if !found {
		t.Errorf("America/Los_Angeles missing or misnamed")
	}
}

func TestLogFilterParse(t *testing.T) {
	cases := []struct {
		in     string
		ok     bool
		levels int
		limit  int
	}{
		{"", true, -1, 0},
		{"loglevel=WARN|ERROR;limit=5", true, 2, 5},
		{"loglevel=ALL", true, -1, 0},
		{"recent=3h;text=foo", true, -1, 0},
		{"start=2026-01-01T00:00Z;end=2026-01-02 00:00:00,000", true, -1, 0},
		{"loglevel=LOUD", false, 0, 0},
		{"limit=x", false, 0, 0},
		{"nonsense", false, 0, 0},
		{"color=red", false, 0, 0},
	}
	for _, c := range cases {
		f, err := parseLogFilter(c.in, testNow)
		if (err == nil) != c.ok {
			t.Errorf("%q: err %v, want ok=%v", c.in, err, c.ok)
			continue
		}
		if err != nil {
			if code := toAPIError(err).code; code != "E0302" {
				t.Errorf("%q: code %s", c.in, code)
			}
			continue
		}
		levels := -1
		if f.levels != nil {
			levels = len(f.levels)
		}
		if levels != c.levels || f.limit != c.limit {
			t.Errorf("%q: levels %d limit %d", c.in, levels, f.limit)
		}
	}
}

// TestErrorBodiesCarryCode: error bodies had only httpStatusCode and
// errorMessage, and some messages (safe mode, E1603, the console's
// refusals and error pages) do not start with their code, so a client
// reading the body could not tell the code. Every error response now
// carries its Oozie code in the body as in the oozie-error-code header;
// the REST API's keys stay. Answers without an Oozie code (hadoop-auth's
// bare 401, a path outside every servlet) carry none in either.
func TestErrorBodiesCarryCode(t *testing.T) {
	e := newEnv(t)
	ro := e.serverWith(t, func(o *Options) { o.Config = map[string]string{"gozie.console.read.only": "true"} }).Handler()
	rw := e.srv.Handler()
	missing := "0000099-260101000000000-oozie-test-W"
	id := e.submit("joe", "", "oozie.wf.application.path", e.app("codes"))
	cases := []struct {
		name         string
		h            http.Handler
		method, path string
		code         string
		html         bool // a console page: the code is on the page
	}{
		{"unknown job", rw, "GET", "/oozie/v2/job/" + missing, "E0604", false},
		{"bad offset", rw, "GET", "/oozie/v2/jobs?offset=abc", "E1603", false},
		{"bad systemmode", rw, "PUT", "/oozie/v2/admin/status?systemmode=BAD&user.name=root", "E1603", false},
		{"not authorized", rw, "PUT", "/oozie/v2/job/" + id + "?action=kill&user.name=bob", "E0508", false},
		{"anonymous kill", rw, "PUT", "/oozie/v2/job/" + id + "?action=kill", "E0500", false},
		{"callback without id", rw, "GET", "/oozie/callback?status=OK", "E0402", false},
		{"console action output of a missing job", rw, "GET", "/oozie/console/action/" + missing + "@x/stdout", "E0604", false},
		{"console change of a missing job", rw, "PUT", "/oozie/console/job/" + missing + "?action=kill&user.name=joe", "E0604", false},
		{"console unsupported action", rw, "PUT", "/oozie/console/job/" + id + "?action=explode&user.name=joe", "E0303", false},
		{"console ignore of a workflow", rw, "PUT", "/oozie/console/job/" + id + "?action=ignore&user.name=joe", "E0303", false},
		{"console coordinator change without values", rw, "PUT", "/oozie/console/job/0000001-260101000000000-oozie-test-C?action=change&user.name=joe", "E0305", false},
		{"console read-only", ro, "PUT", "/oozie/console/job/" + id + "?action=kill&user.name=joe", "E0500", false},
		{"console page of a missing job", rw, "GET", "/oozie/console/job/" + missing, "E0604", true},
		{"console page of a missing coordinator", rw, "GET", "/oozie/console/job/0000099-260101000000000-oozie-test-C", "E0604", true},
		{"console unknown page", rw, "GET", "/oozie/console/nope", "E0301", true},
		{"console POST", rw, "POST", "/oozie/console/jobs?user.name=joe", "E0301", true},
		{"console tail of a missing action", rw, "GET", "/oozie/console/tail/" + id + "@nope/stdout", "E0605", true},
		{"no Oozie code: outside the servlets", rw, "GET", "/nope", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := serve(c.h, c.method, "127.0.0.1", c.path)
			r := resp{rec.Code, rec.Header(), rec.Body.Bytes()}
			if r.status < 400 {
				t.Fatalf("%d %s, want an error", r.status, r.body)
			}
			if got := r.header.Get("oozie-error-code"); got != c.code {
				t.Errorf("oozie-error-code %q, want %q (%s)", got, c.code, r.body)
			}
			if c.html {
				if !strings.Contains(string(r.body), c.code+": ") {
					t.Errorf("the page does not show %s:\n%s", c.code, r.body)
				}
				return
			}
			body := r.json(t)
			if body["httpStatusCode"] != float64(r.status) || body["errorMessage"] == nil {
				t.Errorf("body %s lacks Oozie's keys", r.body)
			}
			got, has := body["errorCode"]
			if c.code == "" {
				if has {
					t.Errorf("body %s has a code, the header none", r.body)
				}
				return
			}
			if got != c.code {
				t.Errorf("body %s: errorCode %v, want %s", r.body, got, c.code)
			}
		})
	}

	// Safe mode's message has no code prefix (as Oozie's): the body
	// carries it anyway.
	if r := e.do("PUT", "/oozie/v2/admin/status?systemmode=SAFEMODE&user.name=root", "", ""); r.status != 200 {
		t.Fatalf("safe mode: %d", r.status)
	}
	r := e.do("PUT", "/oozie/v2/job/"+id+"?action=kill&user.name=joe", "", "")
	if r.status != 503 || r.json(t)["errorCode"] != "E0002" || r.json(t)["errorMessage"] != "System is in safe mode" {
		t.Errorf("safe mode refusal: %d %s", r.status, r.body)
	}
}
