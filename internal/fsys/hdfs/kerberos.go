package hdfs

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	krbclient "github.com/jcmturner/gokrb5/v8/client"
	krbconfig "github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/krberror"

	"github.com/gozie/gozie/internal/fsys"
)

// kerberosClient logs the server in to Kerberos the way l says. It returns
// the client and when it must be made again: never (zero time) for a
// keytab login, which gokrb5 renews by itself; the end of the ticket-
// granting ticket for a ticket cache, which gokrb5 cannot renew, so that a
// cache refreshed by a cron'd kinit is read again.
//
// Errors never carry key material: gokrb5's messages name principals,
// files and KDC error codes only.
func (l login) kerberosClient(store string) (*krbclient.Client, time.Time, error) {
	cfg, err := krbconfig.Load(l.krb5conf)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("%w: reading krb5.conf %s (set KRB5_CONFIG to use another file): %v", fsys.ErrCredentials, l.krb5conf, err)
	}
	if l.keytab != "" {
		return l.keytabLogin(store, cfg)
	}
	cc, err := credentials.LoadCCache(l.ccache)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("%w: no usable Kerberos ticket cache at %s (%v): run kinit as the server's user, point KRB5CCNAME at a FILE: cache, or set %s and %s", fsys.ErrCredentials, l.ccache, shortErr(err), keyKeytab, keyPrincipal)
	}
	cl, err := krbclient.NewFromCCache(cc, cfg, krbclient.DisablePAFXFAST(true))
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("%w: Kerberos ticket cache %s: %v: run kinit again, or set %s and %s", fsys.ErrCredentials, l.ccache, err, keyKeytab, keyPrincipal)
	}
	until := time.Time{}
	for _, e := range cc.GetEntries() {
		if len(e.Server.PrincipalName.NameString) > 0 && e.Server.PrincipalName.NameString[0] == "krbtgt" {
			until = e.EndTime
			break
		}
	}
	if !until.IsZero() && time.Now().After(until) {
		return nil, time.Time{}, fmt.Errorf("%w: the ticket in Kerberos ticket cache %s expired at %s: run kinit again, or set %s and %s", fsys.ErrCredentials, l.ccache, until.Format(time.RFC3339), keyKeytab, keyPrincipal)
	}
	return cl, until, nil
}

// keytabLogin logs in with the keytab and principal of the Oozie keys.
func (l login) keytabLogin(store string, cfg *krbconfig.Config) (*krbclient.Client, time.Time, error) {
	kt, err := keytab.Load(l.keytab)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("%w: reading keytab %s (%s): %v", fsys.ErrCredentials, l.keytab, keyKeytab, shortErr(err))
	}
	name, realm, _ := strings.Cut(l.principal, "@")
	if realm == "" {
		realm = cfg.LibDefaults.DefaultRealm
	}
	cl := krbclient.NewWithKeytab(name, realm, kt, cfg, krbclient.DisablePAFXFAST(true))
	if err := cl.Login(); err != nil {
		var ke krberror.Krberror
		if errors.As(err, &ke) && ke.RootCause == krberror.NetworkingError {
			return nil, time.Time{}, &fsys.UnavailableError{Store: store, Err: fmt.Errorf("Kerberos login as %s: no KDC answered: %v", l.principal, err)}
		}
		return nil, time.Time{}, fmt.Errorf("%w: Kerberos login as %s with keytab %s (%s, %s): %v", fsys.ErrCredentials, l.principal, l.keytab, keyPrincipal, keyKeytab, err)
	}
	return cl, time.Time{}, nil
}

// shortErr words a file error without repeating the path.
func shortErr(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
