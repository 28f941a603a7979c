package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/testservers"
)

// TestConsoleKerberosInBrowser opens the console of a Kerberos-only
// server (no anonymous reads) in headless Chromium holding a user's ticket
// cache: the browser answers the Negotiate challenge of the host it is
// told to trust, keeps the signed cookie naming the user, and the jobs page
// and the page's own API calls (a kill) run as that user. Without the
// allowlist, without a ticket, or with the port in the service name, the
// browser gets the 401.
//
// What Chromium (156, Linux) needs, found here: KRB5CCNAME and KRB5_CONFIG
// in its environment (it loads MIT's libgssapi_krb5 at run time);
// --auth-server-allowlist, its only Kerberos switch left: the CNAME and
// port settings are the policies DisableAuthNegotiateCnameLookup and
// EnableAuthNegotiatePort, set here as the same preferences in the
// profile's Local State (--disable-auth-negotiate-cname-lookup and
// --enable-auth-negotiate-port change nothing). By default it asks for
// HTTP/<host of the URL> without the port: HTTP/127.0.0.1 here. A profile
// that never met a Negotiate challenge refuses the first one and answers
// from the next load on (see "fresh profile").
func TestConsoleKerberosInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	if findChromium() == "" {
		t.Skip(noChromium)
	}
	kdc := testservers.StartKDC(t)
	kdc.AddPrincipal("HTTP/127.0.0.1", "")
	kdc.AddPrincipal("alice", "alice-pw")
	kt := kdc.Keytab("HTTP/127.0.0.1")
	keytab, err := os.ReadFile(kt)
	if err != nil {
		t.Fatal(err)
	}
	k := krbRealm{kdc: kdc, keytab: keytab, keytabPath: kt, alice: kdc.Kinit(t, "alice", "alice-pw")}
	e := newEnv(t, k.kerberized(t, "HTTP/127.0.0.1@GOZIE.TEST", nil))

	// alice's jobs, submitted with Negotiate; her cookie carries the
	// test's own REST calls afterwards.
	r := e.do("POST", "/oozie/v2/jobs?action=start", "application/xml;charset=UTF-8",
		confXML("oozie.wf.application.path", e.app("krb-done")), "Authorization", mustHeader(t, k, kdc, k.alice))
	if r.status != http.StatusCreated {
		t.Fatalf("submit with Negotiate: %d %s", r.status, r.body)
	}
	done := r.json(t)["id"].(string)
	var cookie string
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == cookieName {
			cookie = cookieName + "=" + c.Value
		}
	}
	if cookie == "" {
		t.Fatalf("no %s cookie after Negotiate: %v", cookieName, r.header)
	}
	gate := filepath.Join(e.dir, "gate")
	t.Cleanup(func() { os.WriteFile(gate, nil, 0o644) })
	wait := fmt.Sprintf("i=0; while test ! -e %s; do if test $i -ge 600; then break; fi; sleep 0.1; i=$((i+1)); done", gate)
	r = e.do("POST", "/oozie/v2/jobs?action=start", "application/xml;charset=UTF-8",
		confXML("oozie.wf.application.path", e.shellApp("krb-waits", wait)), "Cookie", cookie)
	if r.status != http.StatusCreated {
		t.Fatalf("submit with the cookie: %d %s", r.status, r.body)
	}
	running := r.json(t)["id"].(string)
	status := func(id string) any {
		return e.do("GET", "/oozie/v2/job/"+id+"?show=status", "", "", "Cookie", cookie).json(t)["status"]
	}
	waitFor(t, "alice's jobs SUCCEEDED and RUNNING", func() bool { return status(done) == "SUCCEEDED" && status(running) == "RUNNING" })

	page := e.ts.URL + "/oozie/console/"
	// Each browser gets a cache of its own: MIT stores the service
	// tickets it obtains there, and the KDC's log is to show each
	// browser's requests.
	ticket := func() []string {
		return []string{"KRB5CCNAME=FILE:" + kdc.Kinit(t, "alice", "alice-pw"), "KRB5_CONFIG=" + kdc.Krb5Conf()}
	}
	allow := []string{"--auth-server-allowlist=127.0.0.1"}
	navStatus := "performance.getEntriesByType('navigation')[0].responseStatus"
	text := func(s string) string { return "document.body && document.body.innerText.includes(" + jsString(s) + ")" }
	port := e.ts.URL[strings.LastIndex(e.ts.URL, ":")+1:]

	for _, c := range []struct {
		name  string
		flags []string
		env   []string
		port  bool   // auth.enable_negotiate_port
		kdc   string // what the KDC's log gains: "" no ticket asked for
	}{
		// Chromium negotiates with no server it is not told to trust.
		{"no allowlist", nil, ticket(), false, ""},
		// Trusted, but no ticket to offer.
		{"no ticket", allow, []string{"KRB5CCNAME=FILE:" + filepath.Join(t.TempDir(), "none"), "KRB5_CONFIG=" + kdc.Krb5Conf()}, false, ""},
		// HTTP/127.0.0.1:<port> is no principal of the KDC.
		{"port in the service name", allow, ticket(), true, "alice@GOZIE.TEST for HTTP/127.0.0.1:" + port + "@GOZIE.TEST, Server not found"},
	} {
		t.Run("refused: "+c.name, func(t *testing.T) {
			before := len(kdc.Log())
			b := startBrowserWith(t, browserOptions{flags: c.flags, env: c.env, localState: chromiumLocalState(true, c.port)})
			b.open(page)
			b.waitTrue("the 401", navStatus+" === 401 && "+text("Authentication required"))
			if v, _ := b.eval("document.body.innerText"); strings.Contains(fmt.Sprint(v), done) {
				t.Fatalf("refused page lists alice's job:\n%v", v)
			}
			if c.kdc == "" {
				if got := kdc.Log()[before:]; strings.Contains(got, "TGS_REQ") {
					t.Errorf("the browser asked the KDC for a ticket:\n%s", got)
				}
				return
			}
			waitFor(t, "the KDC's log of "+c.kdc, func() bool { return strings.Contains(kdc.Log()[before:], c.kdc) })
		})
	}

	t.Run("accepted", func(t *testing.T) {
		before := len(kdc.Log())
		b := startBrowserWith(t, browserOptions{flags: allow, env: ticket(), localState: chromiumLocalState(true, false)})
		// From / as a user would type it: the redirect, the challenge,
		// the negotiation, the jobs page with alice's jobs under her name,
		// at the first attempt.
		b.call(b.session, "Page.navigate", map[string]any{"url": e.ts.URL + "/"}, nil)
		b.waitTrue("jobs page", "document.location.pathname === '/oozie/console/' && "+text(done)+" && "+text(running))
		b.waitTrue("served with 200", navStatus+" === 200")
		b.waitTrue("alice as the jobs' user", "[...document.querySelectorAll('tr')].filter(r => r.innerText.includes("+jsString(done)+") || r.innerText.includes("+jsString(running)+")).every(r => /\\balice\\b/.test(r.innerText))")
		b.screenshot("kerberos-jobs")
		if got := kdc.Log()[before:]; !strings.Contains(got, "alice@GOZIE.TEST for HTTP/127.0.0.1@GOZIE.TEST") {
			t.Errorf("no service ticket for HTTP/127.0.0.1 in the KDC's log:\n%s", got)
		}
		// The browser holds the server's signed cookie naming alice's
		// principal and the kerberos method.
		var jar struct {
			Cookies []struct{ Name, Value string }
		}
		b.call(b.session, "Network.getCookies", map[string]any{"urls": []string{page}}, &jar)
		var got string
		for _, c := range jar.Cookies {
			if c.Name == cookieName {
				got = c.Value
			}
		}
		if !strings.Contains(got, "u=alice&p=alice@GOZIE.TEST&t=kerberos&e=") {
			t.Fatalf("browser's %s cookie %q", cookieName, got)
		}
		// The page's own API call runs as alice: she may kill her job
		// (anonymous requests are challenged; another user's kill would be
		// refused with E0508).
		b.open(page + "job/" + running)
		b.run(`document.querySelector('button.act[data-action=kill]').click()`)
		b.waitTrue("confirmation", "document.getElementById('confirm').open")
		b.run(`window.sameLoad = true; document.getElementById('confirm-ok').click()`)
		b.waitTrue("KILLED on the page", "window.sameLoad === true && !document.getElementById('confirm').open && document.getElementById('job-status').textContent === 'KILLED'")
		if s := status(running); s != "KILLED" {
			t.Errorf("REST status after the console's kill: %v", s)
		}
	})

	t.Run("fresh profile", func(t *testing.T) {
		// A profile that never met a Negotiate challenge: Chromium on
		// Linux refuses the first one (it loads no GSSAPI library in its
		// sandboxed network service), records it, restarts the service
		// unsandboxed, and negotiates from then on: a reload logs in.
		b := startBrowserWith(t, browserOptions{flags: allow, env: ticket(), localState: chromiumLocalState(false, false)})
		b.open(page)
		b.waitTrue("first answer", navStatus+" === 401 || "+text(done))
		first, _ := b.eval(navStatus)
		t.Logf("first visit of a fresh profile: %v", first)
		deadline := time.Now().Add(20 * time.Second)
		for {
			b.run(`window.oldPage = true`)
			b.call(b.session, "Page.reload", nil, nil)
			b.waitTrue("reload", "!window.oldPage && document.readyState === 'complete'")
			if v, _ := b.eval(navStatus + " === 200 && " + text(done)); v == true {
				return
			}
			if time.Now().After(deadline) {
				v, _ := b.eval(navStatus)
				t.Fatalf("a fresh profile still refused after 20s of reloads: %v", v)
			}
			time.Sleep(200 * time.Millisecond)
		}
	})
}

// chromiumLocalState is a profile's Local State (browser-wide
// preferences, as Chromium writes them) with CNAME lookups off for the
// service name, the port in it when port, and, when seen, the record that
// a Negotiate challenge was already met
// (net.received_http_auth_negotiate_headers): Chromium then starts its
// network service unsandboxed with the GSSAPI library allowed, and
// answers the first challenge.
func chromiumLocalState(seen, port bool) string {
	b, _ := json.Marshal(map[string]any{
		"auth": map[string]bool{"disable_negotiate_cname_lookup": true, "enable_negotiate_port": port},
		"net":  map[string]bool{"received_http_auth_negotiate_headers": seen},
	})
	return string(b)
}
