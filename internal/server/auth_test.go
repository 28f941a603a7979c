package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAuthHandshake follows the Java client (rest-api.md 0.2): OPTIONS
// without a user, OPTIONS with user.name earning a hadoop.auth cookie, then
// the real request with the cookie.
func TestAuthHandshake(t *testing.T) {
	e := newEnv(t)
	first := e.do("OPTIONS", "/oozie/v2/jobs", "", "")
	if first.status != 200 || first.header.Get("Www-Authenticate") != "" || first.header.Get("Set-Cookie") != "" {
		t.Fatalf("first OPTIONS: %d %v (must not ask for Negotiate)", first.status, first.header)
	}
	second := e.do("OPTIONS", "/oozie/v2/jobs?user.name=joe", "", "")
	cookie := second.header.Get("Set-Cookie")
	re := regexp.MustCompile(`^hadoop\.auth="(u=joe&p=joe&t=simple&e=\d+&s=[^"]+)"; Path=/; HttpOnly; SameSite=Lax$`)
	m := re.FindStringSubmatch(cookie)
	if second.status != 200 || m == nil {
		t.Fatalf("second OPTIONS: %d Set-Cookie %q", second.status, cookie)
	}
	token := m[1]
	app := e.app("auth")
	r := e.do("POST", "/oozie/v2/jobs", "application/xml", confXML("oozie.wf.application.path", app), "Cookie", `hadoop.auth="`+token+`"`)
	if r.status != 201 {
		t.Fatalf("submit with cookie: %d %s", r.status, r.body)
	}
	id := r.json(t)["id"].(string)
	if u := e.do("GET", "/oozie/v2/job/"+id, "", "").json(t)["user"]; u != "joe" {
		t.Errorf("job user %v, want joe (from the cookie)", u)
	}
	// A cached token is checked with OPTIONS: a forged one is 401 so the
	// client re-authenticates.
	forged := strings.Replace(token, "u=joe&p=joe", "u=root&p=root", 1)
	if r := e.do("OPTIONS", "/oozie/v2/jobs", "", "", "Cookie", `hadoop.auth="`+forged+`"`); r.status != 401 {
		t.Errorf("OPTIONS with a forged token: %d, want 401", r.status)
	}
	if r := e.do("PUT", "/oozie/v2/job/"+id+"?action=kill", "", "", "Cookie", `hadoop.auth="`+forged+`"`); r.status != 401 {
		t.Errorf("kill with a forged token: %d, want 401", r.status)
	}
	// Expired tokens are refused too.
	e.srv.auth.now = func() time.Time { return time.Now().Add(11 * time.Hour) }
	if _, ok := e.srv.auth.verify(token); ok {
		t.Errorf("token still valid after its validity")
	}
}

// TestAuthorization checks who may change a job: the owner, users and
// groups of oozie.job.acl, admins; others get 401 E0508.
func TestAuthorization(t *testing.T) {
	// Tokens alone would turn simple off; the cases mix both methods.
	e := newEnv(t, func(a *AuthOptions) {
		a.Tokens = map[string]string{"s3cret": "ann"}
		a.Methods = []string{MethodSimple, MethodToken}
	})
	app := e.app("acl")
	cases := []struct {
		name, who string
		hdr       []string
		allowed   bool
	}{
		{"owner", "user.name=joe", nil, true},
		{"stranger", "user.name=bob", nil, false},
		{"acl user", "user.name=ann", nil, true},
		{"acl group", "user.name=carl", nil, true},
		{"admin", "user.name=root", nil, true},
		{"bearer token of an acl user", "", []string{"Authorization", "Bearer s3cret"}, true},
		{"bad bearer token", "", []string{"Authorization", "Bearer nope"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := e.submit("joe", "", "oozie.wf.application.path", app, "oozie.job.acl", "ann ops")
			r := e.do("PUT", "/oozie/v2/job/"+id+"?action=kill&"+c.who, "", "", c.hdr...)
			if c.allowed && r.status != 200 {
				t.Fatalf("kill: %d %s", r.status, r.body)
			}
			if !c.allowed {
				if r.status != 401 {
					t.Fatalf("kill by %s: %d, want 401", c.who, r.status)
				}
				if c.who != "" && (r.header.Get("oozie-error-code") != "E0508" ||
					r.header.Get("oozie-error-message") != "E0508: User [bob] not authorized for WF job ["+id+"]") {
					t.Errorf("refusal: %v", r.header)
				}
			}
		})
	}
}

// TestConcurrentSubmissions submits from 20 goroutines at once.
func TestConcurrentSubmissions(t *testing.T) {
	e := newEnv(t)
	app := e.app("many")
	const n = 20
	ids := make(chan string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", e.ts.URL+"/oozie/v2/jobs?action=start&user.name=u"+fmt.Sprint(i%3),
				strings.NewReader(confXML("oozie.wf.application.path", app)))
			req.Header.Set("Content-Type", "application/xml")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 201 {
				t.Errorf("submit %d: %d %s", i, res.StatusCode, b)
				return
			}
			ids <- string(b)
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		seen[id] = true
	}
	if len(seen) != n {
		t.Fatalf("%d distinct ids, want %d", len(seen), n)
	}
	list := e.do("GET", "/oozie/v2/jobs?len=5&offset=3", "", "").json(t)
	if list["total"] != float64(n) || len(list["workflows"].([]any)) != 5 {
		t.Errorf("list total %v, page %d", list["total"], len(list["workflows"].([]any)))
	}
	u0 := e.do("GET", "/oozie/v2/jobs?filter=user%3Du0%3Buser%3Du1", "", "").json(t)
	if u0["total"] != float64(14) {
		t.Errorf("user=u0 OR u1: total %v, want 14", u0["total"])
	}
	// Bulk kill of what is left of user u2's jobs answers with the page.
	r := e.do("PUT", "/oozie/v2/jobs?action=kill&jobtype=wf&filter=user%3Du2&user.name=root", "", "")
	if r.status != 200 || r.json(t)["total"] != float64(6) {
		t.Errorf("bulk kill: %d %s", r.status, r.body)
	}
}

// TestGracefulShutdown checks that Shutdown waits for a request in flight
// and that the server stops accepting new ones.
func TestGracefulShutdown(t *testing.T) {
	e := newEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- e.srv.Serve(l, "", "") }()
	url := "http://" + l.Addr().String()
	// A submission whose body is still being sent.
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", url+"/oozie/v2/jobs?user.name=joe", pr)
	req.Header.Set("Content-Type", "application/xml")
	got := make(chan int, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			got <- 0
			return
		}
		res.Body.Close()
		got <- res.StatusCode
	}()
	body := confXML("oozie.wf.application.path", e.app("shut"))
	if _, err := pw.Write([]byte(body[:20])); err != nil {
		t.Fatal(err)
	}
	// Wait until the handler runs (it then blocks reading the body).
	for deadline := time.Now().Add(10 * time.Second); e.srv.metrics.requests.Load() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the request never reached the handler")
		}
		time.Sleep(time.Millisecond)
	}
	down := make(chan error, 1)
	go func() { down <- e.srv.Shutdown(context.Background()) }()
	select {
	case err := <-down:
		t.Fatalf("Shutdown returned (%v) with a request in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	pw.Write([]byte(body[20:]))
	pw.Close()
	if status := <-got; status != 201 {
		t.Fatalf("request in flight got %d, want 201", status)
	}
	if err := <-down; err != nil {
		t.Fatal(err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve returned %v", err)
	}
	if _, err := http.Get(url + "/oozie/versions"); err == nil {
		t.Errorf("server still accepts connections after Shutdown")
	}
}

func TestBasicAuth(t *testing.T) {
	e := newEnv(t, func(a *AuthOptions) { a.BasicUsers = map[string]string{"ann": "pw"} })
	app := e.app("basic")
	req := func(user, pass string) resp {
		r, _ := http.NewRequest("POST", e.ts.URL+"/oozie/v2/jobs", strings.NewReader(confXML("oozie.wf.application.path", app)))
		r.Header.Set("Content-Type", "application/xml")
		r.SetBasicAuth(user, pass)
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return resp{res.StatusCode, res.Header, b}
	}
	if r := req("ann", "pw"); r.status != 201 {
		t.Errorf("good password: %d %s", r.status, r.body)
	}
	if r := req("ann", "wrong"); r.status != 401 || r.header.Get("Www-Authenticate") == "" {
		t.Errorf("bad password: %d %v", r.status, r.header)
	}
}

// TestAuditLog checks that requests about a job, allowed or refused, are
// in its show=auditlog and not in its show=log.
func TestAuditLog(t *testing.T) {
	e := newEnv(t)
	id := e.submit("joe", "", "oozie.wf.application.path", e.app("audit"))
	e.do("PUT", "/oozie/v2/job/"+id+"?action=kill&user.name=bob", "", "")
	e.do("PUT", "/oozie/v2/job/"+id+"?action=kill&user.name=joe", "", "")
	audit := strings.Split(strings.TrimSpace(string(e.do("GET", "/oozie/v2/job/"+id+"?show=auditlog", "", "").body)), "\n")
	want := []string{
		"USER [joe] GROUP [-] APP [-] JOBID [" + id + "] OPERATION [submit] PARAMETER [" + id + "] STATUS [SUCCESS] HTTPCODE [200] ERRORCODE [null]",
		"USER [bob] GROUP [-] APP [-] JOBID [" + id + "] OPERATION [kill] PARAMETER [" + id + "] STATUS [FAILED] HTTPCODE [401] ERRORCODE [E0508]",
		"USER [joe] GROUP [-] APP [-] JOBID [" + id + "] OPERATION [kill] PARAMETER [" + id + "] STATUS [SUCCESS] HTTPCODE [200]",
	}
	if len(audit) != len(want) {
		t.Fatalf("auditlog:\n%s", strings.Join(audit, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(audit[i], " INFO oozieaudit - IP [127.0.0.1] "+w) {
			t.Errorf("audit line %d = %q, want %q", i, audit[i], w)
		}
	}
	if log := string(e.do("GET", "/oozie/v2/job/"+id+"?show=log", "", "").body); strings.Contains(log, "oozieaudit") {
		t.Errorf("show=log has audit lines:\n%s", log)
	}
}
