package hdfs

import (
	"errors"
	"fmt"
	"time"

	krbclient "github.com/jcmturner/gokrb5/v8/client"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/kerberos"
)

// kerberosClient logs the server in to Kerberos the way l says (see
// kerberos.Login.Client): the client, and when it must be made again
// (zero for a keytab login, the ticket-granting ticket's end for a
// ticket cache).
func (l login) kerberosClient(store string, now time.Time) (*krbclient.Client, time.Time, error) {
	kl := kerberos.Login{
		Keytab: l.keytab, Principal: l.principal, CCache: l.ccache, Krb5Conf: l.krb5conf,
		KeytabKey: keyKeytab, PrincipalKey: keyPrincipal,
	}
	cl, until, err := kl.Client(now)
	if err != nil {
		return nil, time.Time{}, loginError(store, err)
	}
	return cl, until, nil
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
