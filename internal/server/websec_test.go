package server

import (
	"context"
	"crypto/tls"
	"errors"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/jobs"
	"github.com/gozie/gozie/internal/store"
)

// The regression tests of issue 23 point 10 that concern what a browser
// may do with the server: the Host check (DNS rebinding), the security
// headers, show=definition and the hadoop.auth cookie.

// fakeCluster is a Cluster of fixed peers: enough for the Host check,
// which only reads the live servers' URLs.
type fakeCluster struct{ live []store.ServerInfo }

func (f fakeCluster) ID() string { return "self#1" }
func (f fakeCluster) Route(ctx context.Context, jobID string) (string, bool, error) {
	return "", true, nil
}
func (f fakeCluster) Live(ctx context.Context) ([]store.ServerInfo, error) { return f.live, nil }
func (f fakeCluster) Spread() string                                       { return "" }

// serverWith builds a second server over the env's engine with options
// changed by tweak, for tests of options newEnv does not set.
func (e *env) serverWith(t testing.TB, tweak func(*Options)) *Server {
	t.Helper()
	opts := Options{Engine: jobs.New(e.eng, e.coords, nil), Coordinators: e.coords, BaseURL: e.base, DataDir: e.dir, Version: "test", Logf: e.t.Logf,
		Auth: AuthOptions{Secret: []byte("test-secret"), AnonymousReads: true, Authorization: true, AdminUsers: []string{"root"}}}
	tweak(&opts)
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// serve sends one request to a handler with the given Host header.
func serve(h http.Handler, method, host, target string, hdr ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	req.Host = host
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestHostHeaderCheck: a page on a rebinding name (evil.example resolving
// to 127.0.0.1) could drive a server on the victim's machine, since the
// browser thinks the server is evil.example's. Requests whose Host is not
// a name of the server are refused before authentication.
func TestHostHeaderCheck(t *testing.T) {
	e := newEnv(t)
	hostname, _ := os.Hostname()
	srv := e.serverWith(t, func(o *Options) {
		o.BaseURL = "http://gozie.example.com:11000/oozie"
		o.AllowedHosts = []string{"lb.example.net", ".corp.example", " Mixed.Example.ORG "}
		o.Cluster = fakeCluster{live: []store.ServerInfo{
			{ID: "self#1", Name: "self", URL: "http://gozie.example.com:11000/oozie"},
			{ID: "peer#1", Name: "peer", URL: "http://peer.example:11001/oozie"},
		}}
	})
	cases := []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1:11000", true},
		{"127.0.0.1", true},
		{"10.1.2.3:80", true},
		{"[::1]:11000", true},
		{"[::1]", true},
		{"[fe80::1%25eth0]:11000", true},
		{"localhost:11000", true},
		{"LOCALHOST", true},
		{"localhost.", true},
		{"gozie.example.com:11000", true}, // the base URL's host
		{"gozie.example.com.:8080", true},
		{"lb.example.net", true},        // gozie.http.allowed.hosts
		{"mixed.example.org:443", true}, // trimmed, any case
		{"a.corp.example", true},        // .corp.example: the domain and below
		{"corp.example", true},
		{"peer.example:11001", true}, // another live server's base URL
		{"", true},                   // HTTP/1.0 without Host: no name to misdirect
		{"evil.example", false},
		{"rebind.attacker.test:11000", false},
		{"localhost.attacker.test", false},
		{"gozie.example.com.evil.test", false},
		{"xcorp.example", false},
		{"127.0.0.1.nip.io", false},
		{"lb.example.net.evil.test", false},
		{"[not-an-ip]", false},
	}
	if hostname != "" {
		cases = append(cases, struct {
			host string
			ok   bool
		}{strings.ToUpper(hostname) + ":11000", true})
	}
	for _, c := range cases {
		rec := serve(srv.Handler(), "GET", c.host, "/oozie/v2/admin/status")
		if c.ok {
			if rec.Code != http.StatusOK {
				t.Errorf("Host %q: %d %s, want 200", c.host, rec.Code, rec.Body)
			}
			continue
		}
		if rec.Code != http.StatusMisdirectedRequest || rec.Header().Get("oozie-error-code") != "E0303" {
			t.Errorf("Host %q: %d %q %s, want 421 E0303", c.host, rec.Code, rec.Header().Get("oozie-error-code"), rec.Body)
			continue
		}
		msg := rec.Header().Get("oozie-error-message")
		if !strings.Contains(msg, "[Host]") || !strings.Contains(msg, "gozie.http.allowed.hosts") {
			t.Errorf("Host %q: message %q does not say what to do", c.host, msg)
		}
		if !strings.Contains(rec.Body.String(), `"errorCode":"E0303"`) {
			t.Errorf("Host %q: body %s lacks the code", c.host, rec.Body)
		}
		// The server's own names are not listed to a page that can read
		// the answer.
		if hostname != "" && strings.Contains(strings.ToLower(rec.Body.String()), strings.ToLower(hostname)) {
			t.Errorf("Host %q: the refusal names the host name: %s", c.host, rec.Body)
		}
	}

	// Refused before authentication: no credential is looked at, no
	// cookie is issued, whatever the request carries.
	for _, c := range []struct {
		name string
		path string
		hdr  []string
	}{
		{"user.name", "/oozie/v2/jobs?user.name=joe", nil},
		{"disabled bearer token", "/oozie/v2/jobs", []string{"Authorization", "Bearer nope"}},
		{"forged cookie", "/oozie/v2/jobs", []string{"Cookie", `hadoop.auth="u=root&p=root&t=simple&e=1&s=x"`}},
		{"callback", "/oozie/callback?id=x@y&status=OK", nil},
		{"console", "/oozie/console/", nil},
	} {
		rec := serve(srv.Handler(), "GET", "evil.example:11000", c.path, c.hdr...)
		if rec.Code != http.StatusMisdirectedRequest || rec.Header().Get("Set-Cookie") != "" {
			t.Errorf("%s from evil.example: %d Set-Cookie %q, want 421 without a cookie", c.name, rec.Code, rec.Header().Get("Set-Cookie"))
		}
	}

	// "*" lets any Host in, for servers behind proxies that rewrite it.
	open := e.serverWith(t, func(o *Options) { o.AllowedHosts = []string{"*"} })
	if rec := serve(open.Handler(), "GET", "evil.example", "/oozie/v2/admin/status"); rec.Code != http.StatusOK {
		t.Errorf("gozie.http.allowed.hosts=*: %d %s", rec.Code, rec.Body)
	}
}

// TestHostCheckPeersRefreshed: a server that joins after the first request
// is allowed once the peers are read again (at most every
// hostPeersRefresh), and reading them costs no store query per request.
func TestHostCheckPeersRefreshed(t *testing.T) {
	e := newEnv(t)
	now := time.Unix(1000, 0)
	calls := 0
	fc := &countingCluster{calls: &calls}
	srv := e.serverWith(t, func(o *Options) {
		o.Cluster = fc
		o.Now = func() time.Time { return now }
	})
	if rec := serve(srv.Handler(), "GET", "late.example", "/oozie/v2/admin/status"); rec.Code != http.StatusMisdirectedRequest {
		t.Fatalf("unknown peer: %d", rec.Code)
	}
	fc.live = []store.ServerInfo{{ID: "late#1", URL: "http://late.example:11000/oozie"}}
	for range 10 {
		serve(srv.Handler(), "GET", "late.example", "/oozie/v2/admin/status")
	}
	if calls != 1 {
		t.Errorf("%d reads of the live servers within the refresh interval, want 1", calls)
	}
	now = now.Add(hostPeersRefresh)
	if rec := serve(srv.Handler(), "GET", "late.example", "/oozie/v2/admin/status"); rec.Code != http.StatusOK {
		t.Errorf("peer after the refresh: %d %s", rec.Code, rec.Body)
	}
	for range 10 {
		serve(srv.Handler(), "GET", "late.example", "/oozie/v2/admin/status")
	}
	if calls != 2 {
		t.Errorf("%d reads of the live servers, want 2", calls)
	}
}

// countingCluster counts the reads of its live servers.
type countingCluster struct {
	fakeCluster
	calls *int
}

func (c *countingCluster) Live(ctx context.Context) ([]store.ServerInfo, error) {
	*c.calls++
	return c.live, nil
}

// TestSecurityHeaders: REST responses lacked X-Content-Type-Options and a
// Content-Security-Policy, so a browser could sniff a job's log or
// definition into HTML and run its script. Every response now says
// nosniff; raw output gets a sandbox policy that runs nothing, console
// pages a policy that loads only the console's own files.
func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t)
	id := e.submit("joe", "start", "oozie.wf.application.path", e.app("headers"))
	e.waitStatus(id, "SUCCEEDED")
	const sandbox, page = "sandbox", "console"
	cases := []struct {
		method, path string
		policy       string
	}{
		{"GET", "/oozie/versions", sandbox},
		{"GET", "/oozie/v2/job/" + id, sandbox},
		{"GET", "/oozie/v2/job/" + id + "?show=log", sandbox},
		{"GET", "/oozie/v2/job/" + id + "?show=auditlog", sandbox},
		{"GET", "/oozie/v2/job/" + id + "?show=definition", sandbox},
		{"GET", "/oozie/v2/job/" + id + "?show=graph&format=svg", sandbox},
		{"GET", "/oozie/v2/job/" + id + "?show=graph&format=dot", sandbox},
		{"GET", "/oozie/v2/job/" + id + "?show=graph", sandbox},
		{"GET", "/oozie/console/action/" + id + "@prepare/stdout", sandbox},
		{"GET", "/oozie/v2/job/0000099-260101000000000-oozie-test-W", sandbox},
		{"GET", "/oozie/v2/admin/os-env?user.name=root", sandbox},
		{"OPTIONS", "/oozie/v2/jobs", sandbox},
		{"GET", "/oozie/callback?id=" + id + "@prepare&status=OK", sandbox},
		{"GET", "/nope", sandbox},
		{"GET", "/", sandbox},
		{"GET", "/oozie/console/", page},
		{"GET", "/oozie/console/job/" + id, page},
		{"GET", "/oozie/console/system", page},
		{"GET", "/oozie/console/static/console.js", page},
		{"GET", "/oozie/console/nope", page},
		{"GET", "/oozie/console/tail/" + id + "@prepare/stdout", sandbox},
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, c := range cases {
		req, err := http.NewRequest(c.method, e.ts.URL+c.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		h := res.Header
		if h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s (%d): X-Content-Type-Options %q", c.method, c.path, res.StatusCode, h.Get("X-Content-Type-Options"))
		}
		if h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s %s: X-Frame-Options %q", c.method, c.path, h.Get("X-Frame-Options"))
		}
		csp := h.Get("Content-Security-Policy")
		if !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s %s: CSP %q lacks frame-ancestors 'none'", c.method, c.path, csp)
		}
		switch c.policy {
		case sandbox:
			if !strings.Contains(csp, "sandbox") || !strings.Contains(csp, "default-src 'none'") {
				t.Errorf("%s %s: CSP %q, want a sandbox that loads nothing", c.method, c.path, csp)
			}
		case page:
			if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") || strings.Contains(csp, "sandbox") {
				t.Errorf("%s %s: CSP %q, want the console's own files only", c.method, c.path, csp)
			}
		}
	}
}

// TestDefinitionNeverRendered: show=definition returned the user's XML as
// application/xml for a browser to render, so XHTML with a script in a
// workflow would run on the server's origin. It stays application/xml
// (what Oozie sends; its client reads the body as text whatever the type)
// but is a download, in a sandbox, never sniffed.
func TestDefinitionNeverRendered(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.dir, "apps", "xhtml")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	wf := `<workflow-app xmlns="uri:oozie:workflow:1.0" name="xhtml">
  <!-- <html xmlns="http://www.w3.org/1999/xhtml"><script>alert(document.cookie)</script></html> -->
  <start to="end"/><end name="end"/>
</workflow-app>`
	if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	wfID := e.submit("joe", "", "oozie.wf.application.path", dir)
	coordApp := filepath.Join(e.dir, "coord-hourly")
	copyDir(t, "../../examples/apps/coord-hourly", coordApp)
	coordID := e.submit("joe", "", "oozie.coord.application.path", coordApp, "appDir", coordApp,
		"nameNode", "file:///", "jobTracker", "local", "queueName", "default")
	for _, id := range []string{wfID, coordID} {
		r := e.do("GET", "/oozie/v2/job/"+id+"?show=definition", "", "")
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", id, r.status, r.body)
		}
		h := r.header
		checks := []struct{ header, want string }{
			{"Content-Type", xmlType},
			{"X-Content-Type-Options", "nosniff"},
		}
		for _, c := range checks {
			if got := h.Get(c.header); got != c.want {
				t.Errorf("%s: %s %q, want %q", id, c.header, got, c.want)
			}
		}
		disp, params, err := mime.ParseMediaType(h.Get("Content-Disposition"))
		if err != nil || disp != "attachment" || params["filename"] != id+".xml" {
			t.Errorf("%s: Content-Disposition %q, want an attachment named %s.xml", id, h.Get("Content-Disposition"), id)
		}
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "sandbox") || !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%s: CSP %q", id, csp)
		}
		if !strings.Contains(string(r.body), "-app") {
			t.Errorf("%s: body %.200s", id, r.body)
		}
	}
	if r := e.do("GET", "/oozie/v2/job/"+wfID+"?show=definition", "", ""); string(r.body) != wf {
		t.Errorf("the definition changed on the way: %q", r.body)
	}
}

// TestAuthCookieAttributes: the hadoop.auth cookie lacked SameSite, so
// another site's form could send it along with a job change. It is
// HttpOnly and SameSite=Lax, and Secure when the request came over TLS.
func TestAuthCookieAttributes(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name   string
		tls    bool
		secure bool
	}{
		{"http", false, false},
		{"https", true, true},
	}
	for _, c := range cases {
		req := httptest.NewRequest("OPTIONS", "/oozie/v2/jobs?user.name=joe", nil)
		req.Host = "127.0.0.1:11000"
		if c.tls {
			req.TLS = &tls.ConnectionState{HandshakeComplete: true}
		}
		rec := httptest.NewRecorder()
		e.srv.Handler().ServeHTTP(rec, req)
		raw := rec.Header().Get("Set-Cookie")
		cookies := (&http.Response{Header: rec.Header()}).Cookies()
		if rec.Code != 200 || len(cookies) != 1 {
			t.Fatalf("%s: %d Set-Cookie %q", c.name, rec.Code, raw)
		}
		ck := cookies[0]
		if ck.Name != cookieName || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" || ck.Secure != c.secure {
			t.Errorf("%s: Set-Cookie %q: HttpOnly %v SameSite %v Path %q Secure %v, want HttpOnly, Lax, /, Secure %v",
				c.name, raw, ck.HttpOnly, ck.SameSite, ck.Path, ck.Secure, c.secure)
		}
		// The value stays quoted, as hadoop-auth writes it and Oozie's
		// Java client reads it.
		if !strings.HasPrefix(raw, cookieName+`="u=joe&`) {
			t.Errorf("%s: Set-Cookie %q", c.name, raw)
		}
	}
}

// TestAuthCookieSelection: with several hadoop.auth cookies (another path,
// another domain, a stale one), only the first was looked at, so a bad one
// hid a good one and the caller was anonymous. Each is tried in order.
func TestAuthCookieSelection(t *testing.T) {
	e := newEnv(t)
	good := e.srv.auth.token("joe", "joe", MethodSimple)
	other := e.srv.auth.token("ann", "ann", MethodSimple)
	forged := strings.Replace(good, "u=joe&p=joe", "u=root&p=root", 1)
	expired := func() string {
		now := e.srv.auth.now
		defer func() { e.srv.auth.now = now }()
		e.srv.auth.now = func() time.Time { return time.Now().Add(-11 * time.Hour) }
		return e.srv.auth.token("bob", "bob", MethodSimple)
	}()
	q := func(v string) string { return `"` + v + `"` }
	cases := []struct {
		name, cookie, method string
		user                 string // "" anonymous
		status               int    // of an OPTIONS; 0 to skip
	}{
		{"good only", cookieName + "=" + q(good), "GET", "joe", 0},
		{"forged then good", cookieName + "=" + q(forged) + "; " + cookieName + "=" + q(good), "GET", "joe", 0},
		{"expired then good", cookieName + "=" + q(expired) + "; " + cookieName + "=" + q(good), "GET", "joe", 0},
		{"empty then good", cookieName + "=; " + cookieName + "=" + q(good), "GET", "joe", 0},
		{"garbage then good", cookieName + "=%%%; " + cookieName + "=" + q(good), "GET", "joe", 0},
		{"good then forged", cookieName + "=" + q(good) + "; " + cookieName + "=" + q(forged), "GET", "joe", 0},
		{"two good: the first", cookieName + "=" + q(other) + "; " + cookieName + "=" + q(good), "GET", "ann", 0},
		{"other cookies around", "a=b; " + cookieName + "=" + q(forged) + "; c=d; " + cookieName + "=" + q(good), "GET", "joe", 0},
		{"forged only", cookieName + "=" + q(forged), "GET", "", 0},
		{"forged and expired, OPTIONS", cookieName + "=" + q(forged) + "; " + cookieName + "=" + q(expired), "OPTIONS", "", 401},
		{"forged then good, OPTIONS", cookieName + "=" + q(forged) + "; " + cookieName + "=" + q(good), "OPTIONS", "joe", 200},
	}
	for _, c := range cases {
		req := httptest.NewRequest(c.method, "/oozie/v2/jobs", nil)
		req.Header.Set("Cookie", c.cookie)
		rec := httptest.NewRecorder()
		u, err := e.srv.auth.authenticate(rec, req)
		if c.status == 401 {
			if ae, ok := err.(*apiError); !ok || ae.status != 401 {
				t.Errorf("%s: %q %v, want 401", c.name, u, err)
			}
			continue
		}
		if err != nil || u != c.user {
			t.Errorf("%s: user %q (%v), want %q", c.name, u, err, c.user)
		}
	}
}

// TestHostCheckLearnsCanonicalName: the host's FQDN, when the resolver
// knows one, is allowed after the one lookup made at start; a failed or
// slow lookup allows nothing more.
func TestHostCheckLearnsCanonicalName(t *testing.T) {
	cases := []struct {
		name   string
		lookup func(ctx context.Context, host string) (string, error)
		allow  bool
	}{
		{"found", func(ctx context.Context, host string) (string, error) { return "Web1.Corp.Example.", nil }, true},
		{"failed", func(ctx context.Context, host string) (string, error) { return "", errors.New("no such host") }, false},
		{"timed out", func(ctx context.Context, host string) (string, error) {
			<-ctx.Done()
			return "web1.corp.example", ctx.Err()
		}, false},
	}
	for _, c := range cases {
		g := newHostGuard("http://127.0.0.1:11000/oozie", nil, time.Now, nil)
		if g.allowed(context.Background(), "web1.corp.example:11000") {
			t.Fatalf("%s: allowed before the lookup", c.name)
		}
		ctx, cancel := context.WithCancel(context.Background())
		if c.name == "timed out" {
			cancel() // stands for the lookup's deadline passing
		}
		g.learnCanonical(ctx, c.lookup)
		cancel()
		if got := g.allowed(context.Background(), "web1.corp.example:11000"); got != c.allow {
			t.Errorf("%s: allowed %v, want %v", c.name, got, c.allow)
		}
	}
}

// BenchmarkGuard measures what every request pays for the security
// headers and the Host check, over a handler that does nothing ("none":
// the same handler unguarded).
func BenchmarkGuard(b *testing.B) {
	e := newEnv(b)
	s := e.serverWith(b, func(o *Options) { o.BaseURL = "http://gozie.example.com:11000/oozie" })
	noop := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	for _, c := range []struct {
		name, host string
		h          http.Handler
	}{
		{"none", "127.0.0.1:11000", noop},
		{"address", "127.0.0.1:11000", s.guard(noop)},
		{"name", "gozie.example.com:11000", s.guard(noop)},
	} {
		b.Run(c.name, func(b *testing.B) {
			req := localRequest("GET", "/oozie/v2/jobs")
			req.Host = c.host
			for b.Loop() {
				c.h.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}
