package webhdfs

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	krbclient "github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/spnego"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/kerberos"
)

// Keys of a Kerberized WebHDFS, under Hadoop's and Oozie's names so that a
// core-site.xml and an oozie-site.xml work unchanged.
const (
	keyAuth = "hadoop.security.authentication"
	// keyHTTPPrincipal is the NameNode's SPNEGO principal (HTTP/_HOST@R
	// on most clusters); without it, HTTP/<NameNode host>.
	keyHTTPPrincipal = "dfs.web.authentication.kerberos.principal"
	keyKeytab        = "oozie.service.HadoopAccessorService.keytab.file"
	keyPrincipal     = "oozie.service.HadoopAccessorService.kerberos.principal"
)

// kerberosLogin is the server's Kerberos login of a store: a keytab and
// principal, else the ticket cache of KRB5CCNAME.
type kerberosLogin struct {
	keytab, principal string
	ccache            string
	krb5conf          string
	httpPrincipal     string // keyHTTPPrincipal, "" for HTTP/<host>

	mu    sync.Mutex
	cl    *krbclient.Client
	until time.Time // when cl must be made again; zero: never (keytab)
}

// parseKerberos reads the Kerberos settings of c; nil when the cluster
// uses simple authentication.
func parseKerberos(c fsys.Config, getenv func(string) string) (*kerberosLogin, error) {
	switch a, _ := c.Get(keyAuth); strings.ToLower(strings.TrimSpace(a)) {
	case "", "simple":
		return nil, nil
	case "kerberos":
	default:
		return nil, fmt.Errorf("%s=%s: gozie knows simple and kerberos", keyAuth, a)
	}
	l := &kerberosLogin{krb5conf: "/etc/krb5.conf"}
	if k := getenv("KRB5_CONFIG"); k != "" {
		l.krb5conf, _, _ = strings.Cut(k, ":")
	}
	kt, _ := c.Get(keyKeytab)
	pr, _ := c.Get(keyPrincipal)
	l.keytab, l.principal = strings.TrimSpace(kt), strings.TrimSpace(pr)
	hp, _ := c.Get(keyHTTPPrincipal)
	l.httpPrincipal = strings.TrimSpace(hp)
	switch {
	case l.keytab != "" && l.principal == "":
		return nil, fmt.Errorf("%w: %s is set but %s is not", fsys.ErrCredentials, keyKeytab, keyPrincipal)
	case l.keytab == "" && l.principal != "":
		return nil, fmt.Errorf("%w: %s is set but %s is not", fsys.ErrCredentials, keyPrincipal, keyKeytab)
	case l.keytab != "":
		if h, err := os.Hostname(); err == nil {
			l.principal = strings.ReplaceAll(l.principal, "_HOST", strings.ToLower(h))
		}
	default:
		cc := getenv("KRB5CCNAME")
		if cc == "" {
			cc = fmt.Sprintf("/tmp/krb5cc_%d", os.Getuid())
		}
		if rest, ok := strings.CutPrefix(cc, "FILE:"); ok {
			cc = rest
		} else if strings.Contains(cc, ":") && !strings.HasPrefix(cc, "/") {
			return nil, fmt.Errorf("%w: KRB5CCNAME=%s: only FILE: ticket caches can be read; set %s and %s", fsys.ErrCredentials, cc, keyKeytab, keyPrincipal)
		}
		l.ccache = cc
	}
	return l, nil
}

// client returns the logged-in client, logging in at first use. A keytab
// client renews its ticket-granting ticket by itself before it expires
// (gokrb5's session renewal) and logs in again when it cannot; a ticket
// cache is read again once its ticket has expired, so that a cache a
// cron'd kinit refreshes keeps serving.
func (l *kerberosLogin) client(store string) (*krbclient.Client, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if l.cl != nil && (l.until.IsZero() || now.Before(l.until)) {
		return l.cl, nil
	}
	kl := kerberos.Login{
		Keytab: l.keytab, Principal: l.principal, CCache: l.ccache, Krb5Conf: l.krb5conf,
		KeytabKey: keyKeytab, PrincipalKey: keyPrincipal,
	}
	cl, until, err := kl.Client(now)
	if err != nil {
		return nil, loginError(store, err)
	}
	l.cl, l.until = cl, until
	return cl, nil
}

// loginError gives a failed login the store's kinds: unavailable when no
// KDC answered (the effect runtime retries), a credentials error
// otherwise.
func loginError(store string, err error) error {
	if errors.Is(err, kerberos.ErrNoKDC) {
		return &fsys.UnavailableError{Store: store, Err: err}
	}
	return fmt.Errorf("%w: %w", fsys.ErrCredentials, err)
}

// shortName is the server principal's first component: the user the
// NameNode maps it to with the default auth_to_local rule.
func (l *kerberosLogin) shortName() string {
	name := l.principal
	if l.cl != nil && l.cl.Credentials != nil {
		name = l.cl.Credentials.UserName()
	}
	name, _, _ = strings.Cut(name, "@")
	name, _, _ = strings.Cut(name, "/")
	return name
}

// spn is the SPNEGO service principal of the NameNode at base: the
// configured one with _HOST replaced by its host, else HTTP/<host>.
func (l *kerberosLogin) spn(base string) string {
	host := base
	if u, err := url.Parse(base); err == nil {
		host = u.Hostname()
		if h, _, err := net.SplitHostPort(u.Host); err == nil {
			host = h
		}
	}
	host = strings.ToLower(host)
	if l.httpPrincipal != "" {
		p, _, _ := strings.Cut(strings.ReplaceAll(l.httpPrincipal, "_HOST", host), "@")
		return p
	}
	return "HTTP/" + host
}

// authenticate adds the SPNEGO Authorization header for the NameNode at
// base to req, as Hadoop's KerberosAuthenticator does on each connection.
func (l *kerberosLogin) authenticate(req *http.Request, base, store string) error {
	cl, err := l.client(store)
	if err != nil {
		return err
	}
	if err := spnego.SetSPNEGOHeader(cl, req, l.spn(base)); err != nil {
		if kerberos.IsNoKDC(err) {
			return &fsys.UnavailableError{Store: store, Err: fmt.Errorf("Kerberos service ticket for %s: no KDC answered: %v", l.spn(base), err)}
		}
		return fmt.Errorf("%w: Kerberos service ticket for %s: %v", fsys.ErrCredentials, l.spn(base), err)
	}
	return nil
}
