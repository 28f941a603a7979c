package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// matrixNow is the fixed clock of the authentication matrix.
var matrixNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// cookieFor signs a hadoop.auth token for user u as if method had issued it.
func cookieFor(a *authenticator, u, method string) string {
	return `hadoop.auth="` + a.token(u, u, method) + `"`
}

// TestAuthenticationMatrix is the whole table of docs/server.md: each
// configuration (gozie.authentication.type and the anonymous keys, through
// AuthFromConfig as the server builds them) against each credential a
// client can present. Before the methods were explicit, user.name
// authenticated anyone (admins included) on servers configured for tokens
// or basic authentication.
func TestAuthenticationMatrix(t *testing.T) {
	dir := t.TempDir()
	users := filepath.Join(dir, "users")
	if err := os.WriteFile(users, []byte("bob:pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const (
		tokens = "gozie.authentication.tokens"
		file   = "gozie.authentication.basic.users.file"
		typ    = "gozie.authentication.type"
		anon   = "gozie.authentication.simple.anonymous.allowed"
		writes = "gozie.authentication.anonymous.writes"
		strict = "gozie.authentication.simple.strict.user"
	)
	configs := map[string]map[string]string{
		"default":             {},
		"default no anon":     {anon: "false"},
		"tokens, no type":     {tokens: "tok-ann=ann"},
		"basic, no type":      {file: users},
		"simple,token":        {typ: "simple,token", tokens: "tok-ann=ann"},
		"basic,token":         {typ: "basic,token", file: users, tokens: "tok-ann=ann"},
		"token, anon allowed": {typ: "token", tokens: "tok-ann=ann", anon: "true", writes: "true"},
		"token, writes only":  {typ: "token", tokens: "tok-ann=ann", writes: "true"},
		"strict":              {strict: "true"},
	}
	type cred struct {
		method, query string
		header        []string // name, value
		cookie        string   // method of a hadoop.auth cookie for carl
	}
	creds := map[string]cred{
		"none GET":           {method: "GET"},
		"none PUT":           {method: "PUT"},
		"none OPTIONS":       {method: "OPTIONS"},
		"none POST":          {method: "POST"}, // a submission
		"user.name GET":      {method: "GET", query: "user.name=root"},
		"user.name PUT":      {method: "PUT", query: "user.name=root"},
		"user.name bad":      {method: "GET", query: "user.name=a%26b"},
		"bearer good":        {method: "PUT", header: []string{"Authorization", "Bearer tok-ann"}},
		"bearer bad":         {method: "PUT", header: []string{"Authorization", "Bearer nope"}},
		"basic good":         {method: "PUT", header: []string{"Authorization", "Basic Ym9iOnB3"}}, // bob:pw
		"basic bad":          {method: "PUT", header: []string{"Authorization", "Basic Ym9iOng="}}, // bob:x
		"simple cookie":      {method: "PUT", cookie: MethodSimple},
		"basic cookie":       {method: "PUT", cookie: MethodBasic},
		"simple cookie GET":  {method: "GET", cookie: MethodSimple},
		"basic cookie GET":   {method: "GET", cookie: MethodBasic},
		"user.name + bearer": {method: "PUT", query: "user.name=root", header: []string{"Authorization", "Bearer tok-ann"}},
	}
	// want: "user:<name>[ cookie:<method>]", "anon", "401" (hadoop-auth's
	// bare 401), or "<status> <code>". The grid is the table of
	// docs/server.md, one column per configuration.
	columns := []string{"default", "tokens, no type", "basic, no type", "simple,token", "basic,token", "token, anon allowed"}
	grid := []struct {
		cred string
		want [6]string
	}{
		{"none GET", [6]string{"anon", "401", "401", "anon", "401", "anon"}},
		{"none PUT", [6]string{"401 E0500", "401", "401", "401 E0500", "401", "anon"}},
		{"none POST", [6]string{"anon", "401", "401", "anon", "401", "anon"}},
		{"none OPTIONS", [6]string{"anon", "401", "401", "anon", "401", "anon"}},
		{"user.name PUT", [6]string{"user:root cookie:simple", "401 E0500", "401 E0500", "user:root cookie:simple", "401 E0500", "401 E0500"}},
		{"user.name bad", [6]string{"400 E0303", "401 E0500", "401 E0500", "400 E0303", "401 E0500", "401 E0500"}},
		{"bearer good", [6]string{"401 E0500", "user:ann", "401 E0500", "user:ann", "user:ann", "user:ann"}},
		{"bearer bad", [6]string{"401 E0500", "401", "401 E0500", "401", "401", "401"}},
		{"basic good", [6]string{"401 E0500", "401 E0500", "user:bob cookie:basic", "401 E0500", "user:bob cookie:basic", "401 E0500"}},
		{"basic bad", [6]string{"401 E0500", "401 E0500", "401", "401 E0500", "401", "401 E0500"}},
		{"simple cookie", [6]string{"user:carl", "401", "401", "user:carl", "401", "anon"}},
		{"simple cookie GET", [6]string{"user:carl", "401", "401", "user:carl", "401", "anon"}},
		{"basic cookie", [6]string{"401 E0500", "401", "user:carl", "401 E0500", "user:carl", "anon"}},
		{"basic cookie GET", [6]string{"anon", "401", "user:carl", "anon", "user:carl", "anon"}},
		{"user.name + bearer", [6]string{"401 E0500", "401 E0500", "401 E0500", "user:ann", "401 E0500", "401 E0500"}},
	}
	cases := []struct{ config, cred, want string }{
		{"default", "user.name GET", "user:root cookie:simple"},
		{"default no anon", "none GET", "401"},
		{"default no anon", "none OPTIONS", "anon"}, // the handshake's first step
		{"default no anon", "user.name GET", "user:root cookie:simple"},
		{"token, writes only", "none GET", "401"},
		{"token, writes only", "none PUT", "401"},
		{"strict", "none POST", "401 E0500"},
		{"strict", "none PUT", "401 E0500"},
	}
	for _, row := range grid {
		for i, col := range columns {
			cases = append(cases, struct{ config, cred, want string }{col, row.cred, row.want[i]})
		}
	}
	auths := map[string]*authenticator{}
	for name, kv := range configs {
		env := map[string]string{"GOZIE_DATA": dir, "GOZIE_AUTHENTICATION_SECRET": "matrix"}
		for k, v := range kv {
			env[EnvName(k)] = v
		}
		c, err := LoadConfig("", func(k string) string { return env[k] })
		if err != nil {
			t.Fatal(err)
		}
		opts, err := AuthFromConfig(c, dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		a, err := newAuthenticator(opts, func() time.Time { return matrixNow })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		auths[name] = a
	}
	for _, tc := range cases {
		t.Run(tc.config+"/"+tc.cred, func(t *testing.T) {
			a, cr := auths[tc.config], creds[tc.cred]
			if a == nil || cr.method == "" {
				t.Fatalf("unknown config or credential")
			}
			r := httptest.NewRequest(cr.method, "/oozie/v2/jobs?"+cr.query, nil)
			if cr.header != nil {
				r.Header.Set(cr.header[0], cr.header[1])
			}
			if cr.cookie != "" {
				r.Header.Set("Cookie", cookieFor(a, "carl", cr.cookie))
			}
			w := httptest.NewRecorder()
			u, err := a.authenticate(w, r)
			got := "anon"
			switch {
			case err != nil:
				ae := toAPIError(err)
				got = strings.TrimSpace(fmt.Sprintf("%d %s", ae.status, ae.code))
			case u != "":
				got = "user:" + u
				if sc := w.Header().Get("Set-Cookie"); sc != "" {
					i := strings.Index(sc, "&t=")
					got += " cookie:" + strings.SplitN(sc[i+3:], "&", 2)[0]
				}
			}
			if got != tc.want {
				t.Errorf("got %q, want %q (error %v)", got, tc.want, err)
			}
			if err == nil && u == "" && w.Header().Get("Set-Cookie") != "" {
				t.Errorf("anonymous request earned a cookie: %s", w.Header().Get("Set-Cookie"))
			}
		})
	}
}

// TestAuthenticationTypeErrors: naming a method without what it needs, or
// an unknown one, stops the server at start with a message naming the key.
func TestAuthenticationTypeErrors(t *testing.T) {
	dir := t.TempDir()
	users := filepath.Join(dir, "users")
	if err := os.WriteFile(users, []byte("bob:pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		typ, tokens, file string
		wantErr           string // "" for accepted
	}{
		{"basic", "", "", "basic needs a users file"},
		{"token", "", "", "token needs tokens"},
		{"simple,kerberos", "", "", "kerberos needs a keytab"},
		{"simple,ntlm", "", "", `unknown authentication method "ntlm"`},
		{"simple,token", "", users, "token needs tokens"},
		{"basic", "", users, ""},
		{"SIMPLE, Token", "t=ann", "", ""},
		{"simple", "t=ann", users, ""}, // credentials configured but not accepted
	}
	for _, c := range cases {
		env := map[string]string{"GOZIE_DATA": dir, "GOZIE_AUTHENTICATION_TYPE": c.typ,
			"GOZIE_AUTHENTICATION_TOKENS": c.tokens, "GOZIE_AUTHENTICATION_BASIC_USERS_FILE": c.file}
		cfg, err := LoadConfig("", func(k string) string { return env[k] })
		if err != nil {
			t.Fatal(err)
		}
		_, err = AuthFromConfig(cfg, dir)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("type %q: %v", c.typ, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), "gozie.authentication.type") || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("type %q: error %v, want one naming gozie.authentication.type and %q", c.typ, err, c.wantErr)
		}
	}
	// The same checks guard AuthOptions given directly.
	if _, err := newAuthenticator(AuthOptions{Secret: []byte("x"), Methods: []string{MethodBasic}}, time.Now); err == nil {
		t.Errorf("basic without users accepted")
	}
	if _, err := newAuthenticator(AuthOptions{Secret: []byte("x"), Tokens: map[string]string{"t": "a b"}}, time.Now); err == nil {
		t.Errorf("a token mapping to an invalid user name accepted")
	}
}

// TestUserNameParamNeverAuthenticatesBesideTokens reproduces the reported
// defect end to end: with bearer tokens configured, a request carrying no
// credential but ?user.name=<admin> switched the system mode and killed
// another user's job.
func TestUserNameParamNeverAuthenticatesBesideTokens(t *testing.T) {
	e := newEnv(t, func(a *AuthOptions) { a.Tokens = map[string]string{"joe-token": "joe"} })
	sub := e.do("POST", "/oozie/v2/jobs", "application/xml", confXML("oozie.wf.application.path", e.app("victim")),
		"Authorization", "Bearer joe-token")
	if sub.status != 201 {
		t.Fatalf("submit with joe's token: %d %s", sub.status, sub.body)
	}
	id := sub.json(t)["id"].(string)
	for _, path := range []string{
		"/oozie/v2/admin/status?systemmode=SAFEMODE&user.name=root",
		"/oozie/v2/job/" + id + "?action=kill&user.name=root",
		"/oozie/v2/jobs?action=kill&jobtype=wf&user.name=root",
	} {
		r := e.do("PUT", path, "", "")
		if r.status != 401 || r.header.Get("oozie-error-code") != "E0500" || !strings.Contains(string(r.body), "E0500") {
			t.Errorf("PUT %s: %d %v %s, want 401 E0500", path, r.status, r.header.Get("oozie-error-code"), r.body)
		}
		if sc := r.header.Get("Set-Cookie"); sc != "" {
			t.Errorf("PUT %s earned a cookie: %s", path, sc)
		}
	}
	if m := e.srv.SystemMode(); m != ModeNormal {
		t.Errorf("system mode %s after user.name=root", m)
	}
	if st := e.do("GET", "/oozie/v2/job/"+id+"?show=status", "", "", "Authorization", "Bearer joe-token").json(t)["status"]; st == "KILLED" {
		t.Errorf("job killed by user.name=root")
	}
}

// TestCookieUserNotDecoded reproduces the cookie defect: a token issued to
// "%61lice" was percent-decoded by url.ParseQuery and accepted as alice (an
// admin here). User names are compared exactly as issued, and such a name
// is not a valid user at all.
func TestCookieUserNotDecoded(t *testing.T) {
	e := newEnv(t, func(a *AuthOptions) { a.AdminUsers = []string{"alice"} })
	a := e.srv.auth
	sign := func(fields string) string { return `hadoop.auth="` + fields + "&s=" + a.sign(fields) + `"` }
	exp := time.Now().Add(time.Hour).UnixMilli()
	cases := []struct {
		name, cookie string
		status       int
	}{
		{"exact admin", sign(fmt.Sprintf("u=alice&p=alice&t=simple&e=%d", exp)), 200},
		{"percent-encoded admin", sign(fmt.Sprintf("u=%%61lice&p=%%61lice&t=simple&e=%d", exp)), 401},
		{"plus-encoded", sign(fmt.Sprintf("u=al+ice&p=al+ice&t=simple&e=%d", exp)), 401},
		{"duplicate user field", sign(fmt.Sprintf("u=bob&u=alice&p=bob&t=simple&e=%d", exp)), 401},
		{"unknown method", sign(fmt.Sprintf("u=alice&p=alice&t=kerberos&e=%d", exp)), 401},
		{"no method", sign(fmt.Sprintf("u=alice&p=alice&e=%d", exp)), 401},
	}
	for _, c := range cases {
		r := e.do("PUT", "/oozie/v2/admin/status?systemmode=NORMAL", "", "", "Cookie", c.cookie)
		if r.status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, r.status, r.body, c.status)
		}
	}
}

// TestUserNameValidation: user.name is checked before it authenticates or
// earns a cookie (400 E0303), and only valid names are issued cookies.
func TestUserNameValidation(t *testing.T) {
	cases := []struct {
		name string
		ok   bool
	}{
		{"joe", true},
		{"joe.smith", true},
		{"svc_etl-2", true},
		{"joe@EXAMPLE.COM", true},
		{"host01$", true},
		{"_svc", true},
		{"0day", true},
		{strings.Repeat("a", 256), true},
		{strings.Repeat("a", 257), false},
		{"", false},
		{"$", false},
		{"jo$e", false},
		{"-joe", false},
		{".joe", false},
		{"@joe", false},
		{"jo e", false},
		{"a&b", false},
		{"a=b", false},
		{"%61lice", false},
		{"joe/host", false},
		{"jöe", false},
		{"joe\n", false},
		{`joe"`, false},
	}
	e := newEnv(t)
	for _, c := range cases {
		if got := validUserName(c.name); got != c.ok {
			t.Errorf("validUserName(%q) = %v, want %v", c.name, got, c.ok)
		}
		if c.name == "" || strings.TrimSpace(c.name) != c.name {
			continue // blank means no user.name; trailing space is trimmed
		}
		q := "user.name=" + url.QueryEscape(c.name)
		r := e.do("OPTIONS", "/oozie/v2/jobs?"+q, "", "")
		cookie := r.header.Get("Set-Cookie")
		if c.ok && (r.status != 200 || cookie == "") {
			t.Errorf("%q: %d, cookie %q", c.name, r.status, cookie)
		}
		if !c.ok && (r.status != 400 || r.header.Get("oozie-error-code") != "E0303" || cookie != "") {
			t.Errorf("%q: %d %s, cookie %q; want 400 E0303 and no cookie", c.name, r.status, r.header.Get("oozie-error-code"), cookie)
		}
	}
}

// TestBearerTokenEarnsNoCookie: a static token goes with every request; a
// cookie would keep the user authenticated after the token is removed.
func TestBearerTokenEarnsNoCookie(t *testing.T) {
	e := newEnv(t, func(a *AuthOptions) { a.Tokens = map[string]string{"tok": "ann"} })
	r := e.do("GET", "/oozie/v2/jobs", "", "", "Authorization", "Bearer tok")
	if r.status != 200 || r.header.Get("Set-Cookie") != "" {
		t.Errorf("bearer: %d, Set-Cookie %q", r.status, r.header.Get("Set-Cookie"))
	}
}

// TestBasicCookieRecordsMethod: a cookie earned by basic credentials says
// t=basic and stops being accepted when basic is turned off.
func TestBasicCookieRecordsMethod(t *testing.T) {
	basic := newEnv(t, func(a *AuthOptions) { a.BasicUsers = map[string]string{"ann": "pw"} })
	req, _ := http.NewRequest("GET", basic.ts.URL+"/oozie/v2/jobs", nil)
	req.SetBasicAuth("ann", "pw")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	var tok string
	for _, c := range res.Cookies() {
		if c.Name == cookieName {
			tok = strings.Trim(c.Value, `"`)
		}
	}
	if !strings.Contains(tok, "&t=basic&") {
		t.Fatalf("basic cookie %q", tok)
	}
	if u, ok := basic.srv.auth.verify(tok); !ok || u != "ann" {
		t.Errorf("basic cookie not accepted back: %q %v", u, ok)
	}
	// The same secret, simple only: the basic cookie is refused.
	simple, err := newAuthenticator(AuthOptions{Secret: []byte("test-secret")}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := simple.verify(tok); ok {
		t.Errorf("a basic cookie accepted with basic off")
	}
}

// TestAnonymousSubmissionUserName: with anonymous writes a submission
// names its owner in its configuration; that name is held to the same
// rules as user.name.
func TestAnonymousSubmissionUserName(t *testing.T) {
	e := newEnv(t, func(a *AuthOptions) { a.AnonymousWrites = true })
	app := e.app("anon")
	cases := []struct {
		user   string
		status int
		code   string
	}{
		{"joe", 201, ""},
		{"jo e", 400, "E0303"},
		{"%61lice", 400, "E0303"},
	}
	for _, c := range cases {
		r := e.do("POST", "/oozie/v2/jobs", "application/xml", confXML("user.name", c.user, "oozie.wf.application.path", app))
		if r.status != c.status || r.header.Get("oozie-error-code") != c.code {
			t.Errorf("anonymous submission as %q: %d %s %s", c.user, r.status, r.header.Get("oozie-error-code"), r.body)
		}
	}
}
