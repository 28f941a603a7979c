package kerberos

import (
	"encoding/base64"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/testservers"
)

// realm is a KDC with alice and the service HTTP/127.0.0.1, alice's
// ticket cache and the service's keytab.
type realm struct {
	kdc            *testservers.KDC
	ccache, keytab string
}

func newRealm(t *testing.T) realm {
	kdc := testservers.StartKDC(t)
	kdc.AddPrincipal("alice", "alice-pw")
	kdc.AddPrincipal("HTTP/127.0.0.1", "")
	kdc.AddPrincipal("HTTP/other.host", "")
	return realm{kdc: kdc, ccache: kdc.Kinit(t, "alice", "alice-pw"), keytab: kdc.Keytab("HTTP/127.0.0.1", "HTTP/other.host")}
}

// negotiate returns alice's header for spn and its pending reply check.
func (r realm) negotiate(t *testing.T, spn string) ([]byte, *Pending) {
	t.Helper()
	in, err := NewInitiator(r.ccache, r.kdc.Krb5Conf())
	if err != nil {
		t.Fatal(err)
	}
	if got := in.Principal(); got != "alice@GOZIE.TEST" {
		t.Fatalf("Principal = %q", got)
	}
	h, p, err := in.Negotiate(spn)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(h, "Negotiate "))
	if err != nil {
		t.Fatal(err)
	}
	return tok, p
}

// TestAcceptor runs the SPNEGO exchange against a real KDC's tickets:
// accepted with a mutual-authentication reply the initiator verifies;
// refused for another service, a replay and an expired ticket.
func TestAcceptor(t *testing.T) {
	r := newRealm(t)
	acc, err := NewAcceptor(mustRead(t, r.keytab), r.keytab, "HTTP/_HOST@GOZIE.TEST", "127.0.0.1", nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, pending := r.negotiate(t, "HTTP/127.0.0.1")
	got, err := acc.Accept(tok)
	if err != nil {
		t.Fatal(err)
	}
	if got.Principal != "alice@GOZIE.TEST" || got.Expires.Before(time.Now()) {
		t.Fatalf("accepted %+v", got)
	}
	if err := pending.Verify("Negotiate " + base64.StdEncoding.EncodeToString(got.Reply)); err != nil {
		t.Fatalf("mutual authentication: %v", err)
	}
	// The reply of another exchange does not verify this one.
	tok2, pending2 := r.negotiate(t, "HTTP/127.0.0.1")
	if err := pending2.Verify("Negotiate " + base64.StdEncoding.EncodeToString(got.Reply)); err == nil {
		t.Fatal("a reply to another authenticator verified")
	}
	if _, err := acc.Accept(tok2); err != nil {
		t.Fatal(err)
	}

	t.Run("replay", func(t *testing.T) {
		_, err := acc.Accept(tok)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "replayed") {
			t.Fatalf("replay: %v", err)
		}
	})
	t.Run("another service's ticket", func(t *testing.T) {
		tok, _ := r.negotiate(t, "HTTP/other.host")
		_, err := acc.Accept(tok)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "not this server's HTTP/127.0.0.1@GOZIE.TEST") {
			t.Fatalf("other service: %v", err)
		}
		// "*" accepts any HTTP/* principal of the keytab.
		any, err := NewAcceptor(mustRead(t, r.keytab), r.keytab, "*", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := any.Accept(tok); err != nil {
			t.Fatalf("* acceptor: %v", err)
		}
	})
	t.Run("expired ticket", func(t *testing.T) {
		later := func() time.Time { return got.Expires.Add(MaxClockSkew + time.Minute) }
		acc, err := NewAcceptor(mustRead(t, r.keytab), r.keytab, "HTTP/127.0.0.1@GOZIE.TEST", "", later)
		if err != nil {
			t.Fatal(err)
		}
		tok, _ := r.negotiate(t, "HTTP/127.0.0.1")
		if _, err := acc.Accept(tok); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "expired") {
			t.Fatalf("expired: %v", err)
		}
	})
	t.Run("garbage", func(t *testing.T) {
		for _, tok := range [][]byte{nil, []byte("x"), []byte{0x60, 0x03, 0x06, 0x01, 0x00}} {
			if _, err := acc.Accept(tok); !errors.Is(err, ErrRefused) {
				t.Errorf("%x: %v", tok, err)
			}
		}
	})
}

func TestNewAcceptorRefused(t *testing.T) {
	r := newRealm(t)
	for _, c := range []struct{ path, principal, want string }{
		{r.keytab, "HTTP/nothere@GOZIE.TEST", "holds no key for HTTP/nothere@GOZIE.TEST"},
		{r.keytab, "HTTP/127.0.0.1", "is not HTTP/host@REALM"},
		{r.keytab + ".missing", "*", "keytab " + r.keytab + ".missing"},
	} {
		b, _ := os.ReadFile(c.path)
		if _, err := NewAcceptor(b, c.path, c.principal, "", nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want %q", c.path, c.principal, err, c.want)
		}
	}
}

func TestCCachePath(t *testing.T) {
	for _, c := range []struct{ env, want, err string }{
		{"FILE:/tmp/cc", "/tmp/cc", ""},
		{"/tmp/cc2", "/tmp/cc2", ""},
		{"KEYRING:persistent:1000", "", "reads only FILE:"},
	} {
		got, err := CCachePath(func(string) string { return c.env })
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v", c.env, err)
			}
		} else if got != c.want || err != nil {
			t.Errorf("%s: %q %v", c.env, got, err)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
