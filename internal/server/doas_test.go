package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/jobs"
)

// TestProxyUsersValidate is Oozie's ProxyUserService as a table: a proxy
// user acts from its hosts (by address, range or name, both ways of name
// resolution) for the members of its groups; anyone else is refused with
// Oozie's messages.
func TestProxyUsersValidate(t *testing.T) {
	groups := map[string][]string{"alice": {"analysts"}, "bob": {"ops", "users"}, "eve": nil}
	p, err := ProxyUsersFromConfig(map[string]string{
		"oozie.service.ProxyUserService.proxyuser.hue.hosts":    "hue.example.com, 10.1.0.0/16",
		"oozie.service.ProxyUserService.proxyuser.hue.groups":   "analysts,ops",
		"oozie.service.ProxyUserService.proxyuser.any.hosts":    "*",
		"oozie.service.ProxyUserService.proxyuser.any.groups":   "*",
		"oozie.service.ProxyUserService.proxyuser.ip.hosts":     "192.0.2.7,::1",
		"oozie.service.ProxyUserService.proxyuser.ip.groups":    "users",
		"oozie.service.ProxyUserService.proxyuser.named.hosts":  "edge1.example.com",
		"oozie.service.ProxyUserService.proxyuser.named.groups": "*",
		"unrelated.key": "x",
	})
	if err != nil {
		t.Fatal(err)
	}
	p.GroupsOf = func(u string) []string { return groups[u] }
	p.LookupHost = func(_ context.Context, h string) ([]string, error) {
		if h == "hue.example.com" {
			return []string{"192.0.2.10"}, nil
		}
		return nil, errors.New("no such host")
	}
	p.LookupAddr = func(_ context.Context, a string) ([]string, error) {
		if a == "192.0.2.20" {
			return []string{"edge1.example.com."}, nil
		}
		return nil, errors.New("no name")
	}
	if got := strings.Join(p.Users(), ","); got != "any,hue,ip,named" {
		t.Errorf("users %s", got)
	}
	tests := []struct {
		proxy, remote, doAs string
		err                 string // "" allowed
	}{
		{"hue", "192.0.2.10", "alice", ""},      // host by name, group analysts
		{"hue", "10.1.200.3", "bob", ""},        // host by range, group ops
		{"hue", "::ffff:10.1.0.1", "alice", ""}, // IPv4-mapped address
		{"hue", "192.0.2.11", "alice", "Unauthorized host [192.0.2.11] for proxyuser [hue]"},
		{"hue", "192.0.2.10", "eve", "Unauthorized proxyuser [hue] for user [eve], not in proxyuser groups"},
		{"any", "203.0.113.9", "eve", ""},
		{"ip", "192.0.2.7", "bob", ""},
		{"ip", "::1", "bob", ""},
		{"ip", "127.0.0.1", "bob", "Unauthorized host [127.0.0.1] for proxyuser [ip]"},
		{"ip", "192.0.2.7", "alice", "Unauthorized proxyuser [ip] for user [alice], not in proxyuser groups"},
		{"named", "192.0.2.20", "eve", ""}, // by the name the address resolves back to
		{"named", "192.0.2.21", "eve", "Unauthorized host [192.0.2.21] for proxyuser [named]"},
		{"joe", "192.0.2.10", "alice", "User [joe] not defined as proxyuser"},
		{"", "192.0.2.10", "alice", "User [] not defined as proxyuser"},
	}
	for _, tt := range tests {
		err := p.Validate(context.Background(), tt.proxy, tt.remote, tt.doAs)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.err {
			t.Errorf("%s from %s as %s: %q, want %q", tt.proxy, tt.remote, tt.doAs, got, tt.err)
		}
	}
}

// TestProxyUsersConfig refuses half-configured proxy users as Oozie does
// (E0551) and hosts that are no host (E0550).
func TestProxyUsersConfig(t *testing.T) {
	const pre = "oozie.service.ProxyUserService.proxyuser."
	tests := []struct {
		name string
		c    map[string]string
		err  string
	}{
		{"hosts without groups", map[string]string{pre + "hue.hosts": "*"}, "E0551: Missing [" + pre + "hue.groups] property"},
		{"groups without hosts", map[string]string{pre + "hue.groups": "*"}, "E0551: Missing [" + pre + "hue.hosts] property"},
		{"bad host", map[string]string{pre + "hue.hosts": "a b", pre + "hue.groups": "*"}, "E0550: Could not normalize host name [a b]"},
		{"none", map[string]string{}, ""},
	}
	for _, tt := range tests {
		_, err := ProxyUsersFromConfig(tt.c)
		if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.err)
		}
	}
}

// TestDoAs is issue 30's proxy users over REST: hue, a proxy user for the
// group ops from loopback, submits for carl (in ops); the job is carl's
// (its JSON, its ACL checks), and the audit line names both. Acting for a
// user outside the groups, from another host, or as a user that is no
// proxy user is refused with Oozie's E1400 and message.
func TestDoAs(t *testing.T) {
	const pre = "oozie.service.ProxyUserService.proxyuser."
	e := newEnvConfigured(t, map[string]string{
		pre + "hue.hosts": "127.0.0.1,::1", pre + "hue.groups": "ops",
		pre + "far.hosts": "192.0.2.1", pre + "far.groups": "*",
	})
	r := e.do("POST", "/oozie/v2/jobs?user.name=hue&doAs=carl", "application/xml;charset=UTF-8",
		confXML("oozie.wf.application.path", e.app("doas")))
	if r.status != http.StatusCreated {
		t.Fatalf("submit as carl by hue: %d %s", r.status, r.header.Get("oozie-error-message"))
	}
	id := r.json(t)["id"].(string)
	job := e.do("GET", "/oozie/v2/job/"+id+"?show=info", "", "").json(t)
	if job["user"] != "carl" {
		t.Errorf("job user %v, want carl", job["user"])
	}
	if c, _ := job["conf"].(string); !strings.Contains(strings.Join(strings.Fields(c), ""), "<name>user.name</name><value>carl</value>") {
		t.Errorf("user.name of the configuration is not carl:\n%s", c)
	}

	refused := []struct{ name, query, msg string }{
		{"not in the groups", "user.name=hue&doAs=joe", "Unauthorized proxyuser [hue] for user [joe], not in proxyuser groups"},
		{"another host", "user.name=far&doAs=joe", "Unauthorized host [127.0.0.1] for proxyuser [far]"},
		{"no proxy user", "user.name=joe&doAs=carl", "User [joe] not defined as proxyuser"},
		{"anonymous", "doAs=carl", "an anonymous request cannot act as [carl]"},
	}
	for _, tt := range refused {
		method, path := "PUT", "/oozie/v2/job/"+id+"?action=kill&"
		if tt.name == "anonymous" {
			method, path = "GET", "/oozie/v2/jobs?" // anonymous reads are allowed, doAs is not
		}
		r := e.do(method, path+tt.query, "", "")
		msg := r.header.Get("oozie-error-message")
		if r.status != http.StatusUnauthorized || r.header.Get("oozie-error-code") != "E1400" || !strings.Contains(msg, tt.msg) {
			t.Errorf("%s: %d %s %q, want 401 E1400 %q", tt.name, r.status, r.header.Get("oozie-error-code"), msg, tt.msg)
		}
	}
	if r := e.do("GET", "/oozie/v2/jobs?user.name=hue&doAs=bad%20name", "", ""); r.status != http.StatusBadRequest {
		t.Errorf("invalid doAs: %d", r.status)
	}
	// hue acting for carl may kill carl's job: the ACL check sees carl.
	if r := e.do("PUT", "/oozie/v2/job/"+id+"?action=kill&user.name=hue&doAs=carl", "", ""); r.status != http.StatusOK {
		t.Fatalf("kill as carl by hue: %d %s", r.status, r.header.Get("oozie-error-message"))
	}
	audit := string(e.do("GET", "/oozie/v2/job/"+id+"?show=auditlog", "", "").body)
	for _, want := range []string{"USER [carl (proxy hue)] GROUP [-] APP [-] JOBID [" + id + "] OPERATION [submit]",
		"USER [carl (proxy hue)] GROUP [-] APP [-] JOBID [" + id + "] OPERATION [kill]"} {
		if !strings.Contains(audit, want) {
			t.Errorf("audit log lacks %q:\n%s", want, audit)
		}
	}
}

// TestDoAsACL: a proxy user acting for someone gets that user's rights,
// not its own: hue (an admin here) acting for joe cannot kill carl's job.
func TestDoAsACL(t *testing.T) {
	const pre = "oozie.service.ProxyUserService.proxyuser."
	e := newEnvConfigured(t, map[string]string{pre + "hue.hosts": "*", pre + "hue.groups": "*"},
		func(a *AuthOptions) { a.AdminUsers = append(a.AdminUsers, "hue") })
	id := e.submit("carl", "", "oozie.wf.application.path", e.app("acl"))
	r := e.do("PUT", "/oozie/v2/job/"+id+"?action=kill&user.name=hue&doAs=joe", "", "")
	if r.status != http.StatusUnauthorized || r.header.Get("oozie-error-code") != "E0508" {
		t.Errorf("kill of carl's job by hue as joe: %d %s", r.status, r.header.Get("oozie-error-code"))
	}
	if r := e.do("PUT", "/oozie/v2/job/"+id+"?action=kill&user.name=hue", "", ""); r.status != http.StatusOK {
		t.Errorf("kill by hue, admin: %d %s", r.status, r.header.Get("oozie-error-message"))
	}
}

// TestDoAsRequestLog: the request log line names the user acted for and
// the proxy user.
func TestDoAsRequestLog(t *testing.T) {
	e := newEnv(t)
	var buf lockedBuffer
	p, err := ProxyUsersFromConfig(map[string]string{
		"oozie.service.ProxyUserService.proxyuser.hue.hosts": "*", "oozie.service.ProxyUserService.proxyuser.hue.groups": "*"})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Engine: jobs.New(e.eng, e.coords, nil), Coordinators: e.coords, BaseURL: e.base, DataDir: e.dir, Version: "test",
		Auth: AuthOptions{Secret: []byte("s"), AnonymousReads: true}, Logf: t.Logf, ProxyUsers: p,
		Log: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	res, err := http.Get(ts.URL + "/oozie/v2/jobs?user.name=hue&doAs=alice")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if !strings.Contains(buf.String(), `user="alice (proxy hue)"`) {
		t.Errorf("request log: %s", buf.String())
	}
}
