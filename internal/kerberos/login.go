package kerberos

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/krberror"
)

// ErrNoKDC is wrapped by a login error when no KDC of the realm answered:
// the KDCs are down or unreachable, a state that passes, unlike wrong
// credentials. Every other error of Login is about the credentials
// (krb5.conf, keytab, principal, ticket cache) and needs an operator.
var ErrNoKDC = errors.New("no KDC answered")

// Login is how a server logs in to Kerberos as itself: with a keytab and
// principal, else from a ticket cache file (one a cron'd kinit keeps
// fresh). The stores that talk to a Kerberized Hadoop (fsys/hdfs,
// fsys/webhdfs) share it, each wrapping its errors in its own kinds.
type Login struct {
	Keytab, Principal string // a keytab login when Keytab is set
	CCache            string // the ticket cache file otherwise
	Krb5Conf          string // the krb5.conf to read
	// KeytabKey and PrincipalKey name the settings Keytab and Principal
	// come from, so that a message says what to change.
	KeytabKey, PrincipalKey string
}

// Client logs in the way l says. It returns the client and when it must
// be made again: never (zero time) for a keytab login, which gokrb5
// renews by itself; the end of the ticket-granting ticket for a ticket
// cache, which gokrb5 cannot renew, so that a cache refreshed by a cron'd
// kinit is read again. now is the time a cache's ticket is checked at.
//
// Errors wrap ErrNoKDC when no KDC answered, and never carry key
// material: gokrb5's messages name principals, files and KDC error codes
// only.
func (l Login) Client(now time.Time) (*client.Client, time.Time, error) {
	cfg, err := config.Load(l.Krb5Conf)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("reading krb5.conf %s (set KRB5_CONFIG to use another file): %v", l.Krb5Conf, err)
	}
	if l.Keytab != "" {
		cl, err := l.keytabLogin(cfg)
		return cl, time.Time{}, err
	}
	cc, err := credentials.LoadCCache(l.CCache)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("no usable Kerberos ticket cache at %s (%v): run kinit as the server's user, point KRB5CCNAME at a FILE: cache, or set %s and %s", l.CCache, shortPathError(err), l.KeytabKey, l.PrincipalKey)
	}
	cl, err := client.NewFromCCache(cc, cfg, client.DisablePAFXFAST(true))
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("Kerberos ticket cache %s: %v: run kinit again, or set %s and %s", l.CCache, err, l.KeytabKey, l.PrincipalKey)
	}
	until := tgtEnd(cc)
	if !until.IsZero() && now.After(until) {
		return nil, time.Time{}, fmt.Errorf("the ticket in Kerberos ticket cache %s expired at %s: run kinit again, or set %s and %s", l.CCache, until.Format(time.RFC3339), l.KeytabKey, l.PrincipalKey)
	}
	return cl, until, nil
}

// keytabLogin logs in with the keytab and principal; a principal without
// realm is in krb5.conf's default realm.
func (l Login) keytabLogin(cfg *config.Config) (*client.Client, error) {
	kt, err := keytab.Load(l.Keytab)
	if err != nil {
		return nil, fmt.Errorf("reading keytab %s (%s): %v", l.Keytab, l.KeytabKey, shortPathError(err))
	}
	name, realm, _ := strings.Cut(l.Principal, "@")
	if realm == "" {
		realm = cfg.LibDefaults.DefaultRealm
	}
	cl := client.NewWithKeytab(name, realm, kt, cfg, client.DisablePAFXFAST(true))
	if err := cl.Login(); err != nil {
		if IsNoKDC(err) {
			return nil, fmt.Errorf("Kerberos login as %s: %w: %v", l.Principal, ErrNoKDC, err)
		}
		return nil, fmt.Errorf("Kerberos login as %s with keytab %s (%s, %s): %v", l.Principal, l.Keytab, l.PrincipalKey, l.KeytabKey, err)
	}
	return cl, nil
}

// IsNoKDC reports whether err, from gokrb5, says no KDC could be reached
// (its NetworkingError): a login or a service ticket to try again later.
func IsNoKDC(err error) bool {
	var ke krberror.Krberror
	return errors.Is(err, ErrNoKDC) || errors.As(err, &ke) && ke.RootCause == krberror.NetworkingError
}

// tgtEnd is the end time of the cache's first ticket-granting ticket,
// zero when it holds none (gokrb5 refuses such a cache itself).
func tgtEnd(cc *credentials.CCache) time.Time {
	for _, e := range cc.GetEntries() {
		if len(e.Server.PrincipalName.NameString) > 0 && e.Server.PrincipalName.NameString[0] == "krbtgt" {
			return e.EndTime
		}
	}
	return time.Time{}
}

// shortPathError words a file error without repeating the path the
// message already names.
func shortPathError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
