package server

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/kerberos"
	"github.com/gozie/gozie/internal/testservers"
)

// krbRealm is a KDC with the server's principal HTTP/127.0.0.1, alice
// and bob, and their ticket caches.
type krbRealm struct {
	kdc          *testservers.KDC
	keytab       []byte
	keytabPath   string
	alice, other string // ticket caches: alice@GOZIE.TEST, alice@OTHER.TEST
	otherKDC     *testservers.KDC
}

func newKrbRealm(t *testing.T) krbRealm {
	t.Helper()
	kdc := testservers.StartKDC(t)
	kdc.AddPrincipal("HTTP/127.0.0.1", "")
	kdc.AddPrincipal("alice", "alice-pw")
	// A second realm the server's rules do not map (DEFAULT maps only
	// GOZIE.TEST), whose HTTP key the server holds too.
	other := testservers.StartKDCRealm(t, "OTHER.TEST")
	other.AddPrincipal("HTTP/127.0.0.1", "")
	other.AddPrincipal("alice", "alice-pw")
	kt := kdc.Keytab("HTTP/127.0.0.1")
	b, err := os.ReadFile(kt)
	if err != nil {
		t.Fatal(err)
	}
	otherKt, err := os.ReadFile(other.Keytab("HTTP/127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	// Both realms' keys in one keytab (the same layout twice, so the
	// entries can simply follow each other after the version bytes).
	both := append(append([]byte{}, b...), otherKt[2:]...)
	return krbRealm{kdc: kdc, keytab: both, keytabPath: kt,
		alice: kdc.Kinit(t, "alice", "alice-pw"), other: other.Kinit(t, "alice", "alice-pw"), otherKDC: other}
}

// header returns a fresh Negotiate header from a ticket cache of kdc.
func (k krbRealm) header(t *testing.T, kdc *testservers.KDC, ccache string) (string, *kerberos.Pending) {
	t.Helper()
	in, err := kerberos.NewInitiator(ccache, kdc.Krb5Conf())
	if err != nil {
		t.Fatal(err)
	}
	h, p, err := in.Negotiate("HTTP/127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return h, p
}

// kerberized configures a server for SPNEGO with principal and the
// realm's keytab, its clock now.
func (k krbRealm) kerberized(t *testing.T, principal string, now func() time.Time, more ...func(*AuthOptions)) func(*AuthOptions) {
	return func(a *AuthOptions) {
		acc, err := kerberos.NewAcceptor(k.keytab, k.keytabPath, principal, "127.0.0.1", now)
		if err != nil {
			t.Fatal(err)
		}
		a.Kerberos, a.Methods, a.AnonymousReads = acc, []string{MethodKerberos}, false
		for _, f := range more {
			f(a)
		}
	}
}

// isChallenge reports a 401 with the Negotiate challenge.
func isChallenge(r resp) bool {
	return r.status == http.StatusUnauthorized && strings.Contains(strings.Join(r.header.Values("WWW-Authenticate"), ","), "Negotiate")
}

// TestSPNEGO: a Kerberos client is accepted with a mutual-authentication
// reply and a hadoop.auth cookie naming its principal, which carries the
// session; what must be refused gets the 401 Negotiate challenge.
func TestSPNEGO(t *testing.T) {
	k := newKrbRealm(t)
	e := newEnv(t, k.kerberized(t, "HTTP/127.0.0.1@GOZIE.TEST", nil))

	h, pending := k.header(t, k.kdc, k.alice)
	r := e.do("POST", "/oozie/v2/jobs", "application/xml;charset=UTF-8", confXML("oozie.wf.application.path", e.app("krb")), "Authorization", h)
	if r.status != http.StatusCreated {
		t.Fatalf("submit with Negotiate: %d %s %v", r.status, r.body, r.header)
	}
	if err := pending.Verify(r.header.Get("WWW-Authenticate")); err != nil {
		t.Fatalf("mutual authentication: %v", err)
	}
	id := r.json(t)["id"].(string)
	var cookie string
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == cookieName {
			cookie = c.Value
		}
	}
	if !strings.Contains(cookie, "u=alice&p=alice@GOZIE.TEST&t=kerberos&e=") {
		t.Fatalf("cookie %q", cookie)
	}
	info := e.do("GET", "/oozie/v2/job/"+id+"?show=info", "", "", "Cookie", cookieName+"="+cookie)
	if info.status != 200 || info.json(t)["user"] != "alice" {
		t.Fatalf("info with the cookie: %d %s", info.status, info.body)
	}

	t.Run("replayed authenticator", func(t *testing.T) {
		h, _ := k.header(t, k.kdc, k.alice)
		if r := e.do("GET", "/oozie/v2/jobs", "", "", "Authorization", h); r.status != 200 {
			t.Fatalf("first: %d %s", r.status, r.body)
		}
		if r := e.do("GET", "/oozie/v2/jobs", "", "", "Authorization", h); !isChallenge(r) || !strings.Contains(r.header.Get("oozie-error-message")+string(r.body), "replayed") {
			t.Fatalf("replay: %d %s %v", r.status, r.body, r.header)
		}
	})
	t.Run("other realm", func(t *testing.T) {
		// A ticket of OTHER.TEST for a service of OTHER.TEST: not this
		// server's principal.
		h, _ := k.header(t, k.otherKDC, k.other)
		if r := e.do("GET", "/oozie/v2/jobs", "", "", "Authorization", h); !isChallenge(r) {
			t.Fatalf("other realm: %d %s", r.status, r.body)
		}
		// With "*" the ticket decrypts, but DEFAULT maps only the
		// default realm's users.
		e2 := newEnv(t, k.kerberized(t, "*", nil))
		h, _ = k.header(t, k.otherKDC, k.other)
		r := e2.do("GET", "/oozie/v2/jobs", "", "", "Authorization", h)
		if !isChallenge(r) || !strings.Contains(string(r.body)+r.header.Get("oozie-error-message"), "no auth_to_local rule applies to alice@OTHER.TEST") {
			t.Fatalf("other realm with *: %d %s %v", r.status, r.body, r.header)
		}
		// A rule for that realm lets it in.
		rules, err := kerberos.ParseRules(`RULE:[1:$1@$0](.*@OTHER\.TEST)s/@.*/_other/ DEFAULT`, "GOZIE.TEST")
		if err != nil {
			t.Fatal(err)
		}
		e3 := newEnv(t, k.kerberized(t, "*", nil, func(a *AuthOptions) { a.NameRules = rules }))
		h, _ = k.header(t, k.otherKDC, k.other)
		r = e3.do("POST", "/oozie/v2/jobs", "application/xml;charset=UTF-8", confXML("oozie.wf.application.path", e3.app("krb")), "Authorization", h)
		if r.status != http.StatusCreated {
			t.Fatalf("mapped other realm: %d %s", r.status, r.body)
		}
		if got := e3.do("GET", "/oozie/v2/job/"+r.json(t)["id"].(string)+"?show=info", "", "", "Authorization", mustHeader(t, k, k.otherKDC, k.other)); got.json(t)["user"] != "alice_other" {
			t.Fatalf("user %v", got.json(t)["user"])
		}
	})
	t.Run("expired ticket", func(t *testing.T) {
		later := func() time.Time { return time.Now().Add(11 * time.Hour) } // tickets last 10h
		e := newEnv(t, k.kerberized(t, "HTTP/127.0.0.1@GOZIE.TEST", later))
		h, _ := k.header(t, k.kdc, k.alice)
		r := e.do("GET", "/oozie/v2/jobs", "", "", "Authorization", h)
		if !isChallenge(r) || !strings.Contains(string(r.body)+r.header.Get("oozie-error-message"), "expired") {
			t.Fatalf("expired: %d %s", r.status, r.body)
		}
	})
	t.Run("forged and expired cookies", func(t *testing.T) {
		exp := time.Now().Add(time.Hour).UnixMilli()
		forged := fmt.Sprintf("u=alice&p=alice@GOZIE.TEST&t=kerberos&e=%d", exp)
		expiredFields := fmt.Sprintf("u=alice&p=alice@GOZIE.TEST&t=kerberos&e=%d", time.Now().Add(-time.Minute).UnixMilli())
		for name, c := range map[string]string{
			"forged":   forged + "&s=" + e.srv.auth.sign(forged+"x"),
			"unsigned": forged,
			"expired":  expiredFields + "&s=" + e.srv.auth.sign(expiredFields),
		} {
			for _, m := range []string{"PUT", "OPTIONS", "GET"} {
				r := e.do(m, "/oozie/v2/job/"+id+"?action=kill", "", "", "Cookie", cookieName+`="`+c+`"`)
				if !isChallenge(r) {
					t.Errorf("%s cookie, %s: %d %s %v", name, m, r.status, r.body, r.header)
				}
			}
		}
	})
	t.Run("no credentials", func(t *testing.T) {
		for _, m := range []string{"GET", "OPTIONS", "PUT"} {
			if r := e.do(m, "/oozie/v2/job/"+id+"?action=kill", "", ""); !isChallenge(r) {
				t.Errorf("%s without credentials: %d %s %v", m, r.status, r.body, r.header)
			}
		}
		if r := e.do("GET", "/oozie/v2/jobs?user.name=alice", "", ""); r.status != 401 || r.header.Get("oozie-error-code") != "E0500" {
			t.Errorf("user.name with kerberos only: %d %v", r.status, r.header)
		}
		if r := e.do("GET", "/oozie/v2/jobs", "", "", "Authorization", "Negotiate !!!"); !isChallenge(r) {
			t.Errorf("garbage token: %d", r.status)
		}
	})
	t.Run("anonymous reads allowed", func(t *testing.T) {
		e := newEnv(t, k.kerberized(t, "HTTP/127.0.0.1@GOZIE.TEST", nil, func(a *AuthOptions) { a.AnonymousReads = true }))
		if r := e.do("GET", "/oozie/v2/jobs", "", ""); r.status != 200 {
			t.Errorf("anonymous GET: %d", r.status)
		}
		if r := e.do("POST", "/oozie/v2/jobs", "application/xml;charset=UTF-8", confXML("oozie.wf.application.path", e.app("krb"))); !isChallenge(r) {
			t.Errorf("anonymous POST: %d", r.status)
		}
		// The Java client's OPTIONS handshake is still challenged.
		if r := e.do("OPTIONS", "/oozie/v2/jobs", "", ""); !isChallenge(r) {
			t.Errorf("anonymous OPTIONS: %d", r.status)
		}
	})
	t.Run("console", func(t *testing.T) {
		// A browser is challenged, negotiates, and its cookie then
		// carries the console's own API calls.
		if r := e.do("GET", "/oozie/", "", ""); !isChallenge(r) {
			t.Fatalf("console without credentials: %d", r.status)
		}
		r := e.do("GET", "/oozie/", "", "", "Authorization", mustHeader(t, k, k.kdc, k.alice))
		if r.status != 200 || !strings.Contains(r.header.Get("Content-Type"), "text/html") || !strings.Contains(r.header.Get("Set-Cookie"), "t=kerberos") {
			t.Fatalf("console with Negotiate: %d %v", r.status, r.header)
		}
	})
	t.Run("kill with a fresh token", func(t *testing.T) {
		h, _ := k.header(t, k.kdc, k.alice)
		if r := e.do("PUT", "/oozie/v2/job/"+id+"?action=kill", "", "", "Authorization", h); r.status != 200 {
			t.Fatalf("kill: %d %s", r.status, r.body)
		}
	})
}

func mustHeader(t *testing.T, k krbRealm, kdc *testservers.KDC, cc string) string {
	h, _ := k.header(t, kdc, cc)
	return h
}

// TestKerberosConfig: the SPNEGO keys under gozie's and Oozie's names,
// and what stops the server at start.
func TestKerberosConfig(t *testing.T) {
	kdc := testservers.StartKDC(t)
	kdc.AddPrincipal("HTTP/127.0.0.1", "")
	kt := kdc.Keytab("HTTP/127.0.0.1")
	t.Setenv("KRB5_CONFIG", kdc.Krb5Conf())
	open := filepath.Join(t.TempDir(), "open.keytab")
	b, err := os.ReadFile(kt)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(open, b, 0o644); err != nil {
		t.Fatal(err)
	}
	const handler = "org.apache.hadoop.security.authentication.server.KerberosAuthenticationHandler"
	for _, c := range []struct {
		name    string
		keys    map[string]string
		methods string // accepted methods when no error
		anon    bool
		err     string
	}{
		{"gozie keys", map[string]string{"gozie.authentication.type": "kerberos", "gozie.authentication.kerberos.keytab": kt,
			"gozie.authentication.kerberos.principal": "HTTP/127.0.0.1@GOZIE.TEST"}, "kerberos", false, ""},
		{"Oozie keys and class name", map[string]string{"oozie.authentication.type": handler, "oozie.authentication.kerberos.keytab": kt,
			"oozie.authentication.kerberos.principal": "HTTP/127.0.0.1@GOZIE.TEST", "oozie.authentication.simple.anonymous.allowed": "true",
			"oozie.authentication.kerberos.name.rules": "RULE:[1:$1] DEFAULT"}, "kerberos", false, ""}, // Oozie's anonymous key is simple's alone
		{"gozie's anonymous key", map[string]string{"gozie.authentication.type": "kerberos", "gozie.authentication.kerberos.keytab": kt,
			"gozie.authentication.kerberos.principal": "*", "gozie.authentication.simple.anonymous.allowed": "true"}, "kerberos", true, ""},
		{"Oozie's anonymous key with simple", map[string]string{"gozie.authentication.type": "simple,kerberos", "gozie.authentication.kerberos.keytab": kt,
			"gozie.authentication.kerberos.principal": "*", "oozie.authentication.simple.anonymous.allowed": "false"}, "simple,kerberos", false, ""},
		{"keytab alone turns kerberos on", map[string]string{"gozie.authentication.kerberos.keytab": kt,
			"gozie.authentication.kerberos.principal": "*"}, "kerberos", false, ""},
		{"with simple", map[string]string{"gozie.authentication.type": "simple,kerberos", "gozie.authentication.kerberos.keytab": kt,
			"gozie.authentication.kerberos.principal": "*"}, "simple,kerberos", true, ""},
		{"Oozie's keytab default", map[string]string{"gozie.authentication.type": "kerberos", "oozie.service.HadoopAccessorService.keytab.file": kt,
			"gozie.authentication.kerberos.principal": "HTTP/_HOST@GOZIE.TEST"}, "", false, "holds no key for HTTP/"},
		{"no keytab", map[string]string{"gozie.authentication.type": "kerberos"}, "", false, "kerberos needs a keytab"},
		{"no principal", map[string]string{"gozie.authentication.type": "kerberos", "gozie.authentication.kerberos.keytab": kt}, "", false, "gozie.authentication.kerberos.principal"},
		{"keytab others may read", map[string]string{"gozie.authentication.type": "kerberos", "gozie.authentication.kerberos.keytab": open,
			"gozie.authentication.kerberos.principal": "*"}, "", false, "0644"},
		{"bad rules", map[string]string{"gozie.authentication.type": "kerberos", "gozie.authentication.kerberos.keytab": kt,
			"gozie.authentication.kerberos.principal": "*", "gozie.authentication.kerberos.name.rules": "RULE:[3:$1]"}, "", false, "gozie.authentication.kerberos.name.rules"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg, err := LoadConfig("", func(k string) string {
				if k == "GOZIE_DATA" {
					return dir
				}
				return ""
			})
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range c.keys {
				cfg[k] = v
			}
			a, err := AuthFromConfig(cfg, dir)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(a.Methods, ","); got != c.methods || a.AnonymousReads != c.anon || a.Kerberos == nil || a.NameRules == nil {
				t.Fatalf("methods %q anonymous reads %v kerberos %v, want %q %v", got, a.AnonymousReads, a.Kerberos != nil, c.methods, c.anon)
			}
		})
	}
}
