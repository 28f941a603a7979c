package kerberos

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/testservers"
)

// TestLogin is the server's login of the stores against a real KDC: a
// keytab login never has to be made again, a ticket cache's until is its
// TGT's end and past it the cache is refused; each refusal names the file
// and the keys to set, and only an unreachable KDC is ErrNoKDC.
func TestLogin(t *testing.T) {
	kdc := testservers.StartKDC(t)
	kdc.AddPrincipal("gozie/localhost", "")
	kdc.AddPrincipal("alice", "alice-pw")
	kt := kdc.Keytab("gozie/localhost")
	cc := kdc.Kinit(t, "alice", "alice-pw")
	dir := t.TempDir()
	badKT := filepath.Join(dir, "bad.keytab")
	if err := os.WriteFile(badKT, []byte("not a keytab"), 0o600); err != nil {
		t.Fatal(err)
	}
	conf, err := os.ReadFile(kdc.Krb5Conf())
	if err != nil {
		t.Fatal(err)
	}
	downConf := filepath.Join(dir, "down-krb5.conf")
	down := strings.ReplaceAll(string(conf), kdc.Addr(), fmt.Sprintf("127.0.0.1:%d", testservers.FreePort(t)))
	if err := os.WriteFile(downConf, []byte(down), 0o600); err != nil {
		t.Fatal(err)
	}
	const ktKey, prKey = "x.keytab.file", "x.kerberos.principal"
	keytab := func(kt, principal, conf string) Login {
		return Login{Keytab: kt, Principal: principal, Krb5Conf: conf, KeytabKey: ktKey, PrincipalKey: prKey}
	}
	cache := func(cc string) Login {
		return Login{CCache: cc, Krb5Conf: kdc.Krb5Conf(), KeytabKey: ktKey, PrincipalKey: prKey}
	}
	now := time.Now()
	cases := []struct {
		name  string
		login Login
		now   time.Time
		noKDC bool
		text  []string // "" when the login succeeds
	}{
		{"keytab", keytab(kt, "gozie/localhost", kdc.Krb5Conf()), now, false, nil},
		{"ticket cache", cache(cc), now, false, nil},
		{"expired ticket cache", cache(cc), now.Add(11 * time.Hour), false, []string{cc, "expired at", "kinit", ktKey, prKey}},
		{"no ticket cache", cache(filepath.Join(dir, "no-cache")), now, false, []string{"no-cache", "kinit", "FILE:", ktKey, prKey}},
		{"unreadable keytab", keytab(badKT, "gozie/localhost", kdc.Krb5Conf()), now, false, []string{"bad.keytab", ktKey}},
		{"principal not in the keytab", keytab(kt, "other/localhost", kdc.Krb5Conf()), now, false, []string{"other/localhost", kt, ktKey, prKey}},
		{"KDC down", keytab(kt, "gozie/localhost@"+kdc.Realm(), downConf), now, true, []string{"gozie/localhost@" + kdc.Realm(), "no KDC answered"}},
		{"missing krb5.conf", keytab(kt, "gozie/localhost", filepath.Join(dir, "no-krb5.conf")), now, false, []string{"no-krb5.conf", "KRB5_CONFIG"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl, until, err := c.login.Client(c.now)
			if c.text == nil {
				if err != nil {
					t.Fatal(err)
				}
				if cl == nil || (c.login.Keytab != "") != until.IsZero() {
					t.Fatalf("client %v, until %v", cl, until)
				}
				if !until.IsZero() && !until.After(c.now) {
					t.Errorf("until %v is not after %v", until, c.now)
				}
				return
			}
			if err == nil {
				t.Fatal("login succeeded")
			}
			t.Log(err)
			if errors.Is(err, ErrNoKDC) != c.noKDC || IsNoKDC(err) != c.noKDC {
				t.Errorf("ErrNoKDC = %v, want %v", errors.Is(err, ErrNoKDC), c.noKDC)
			}
			for _, w := range c.text {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not name %q", err, w)
				}
			}
		})
	}
}
