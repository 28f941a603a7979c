package server

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/gozie/gozie/internal/kerberos"
)

// negotiate authenticates an Authorization: Negotiate request as
// hadoop-auth's KerberosAuthenticationHandler does: the SPNEGO token is
// verified against the keytab, the principal is mapped to its user name
// with the auth_to_local rules, the answer carries the server's token
// (the AP-REP of mutual authentication) in WWW-Authenticate, and a
// hadoop.auth cookie (t=kerberos, p=the principal) keeps the session.
// A refused token gets a 401 with a new Negotiate challenge.
func (a *authenticator) negotiate(w http.ResponseWriter, r *http.Request, cred string) (string, error) {
	refuse := func(why string) (string, error) {
		a.challenge(w)
		return "", errAuthRequired("Authentication failed: Kerberos: " + why)
	}
	tok, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
	if err != nil || len(tok) == 0 {
		return refuse("the Negotiate token is not base64")
	}
	acc, err := a.opts.Kerberos.Accept(tok)
	if err != nil {
		return refuse(strings.TrimPrefix(err.Error(), kerberos.ErrRefused.Error()+": "))
	}
	u, err := a.shortName(acc.Principal)
	if err != nil {
		return refuse(err.Error())
	}
	if len(acc.Reply) > 0 {
		w.Header().Set("WWW-Authenticate", "Negotiate "+base64.StdEncoding.EncodeToString(acc.Reply))
	}
	a.setPrincipalCookie(w, r, u, acc.Principal, MethodKerberos)
	return u, nil
}

// shortName maps an authenticated principal to the user gozie knows it
// as (auth_to_local rules), which must be a valid user name.
func (a *authenticator) shortName(principal string) (string, error) {
	u, err := a.opts.NameRules.ShortName(principal)
	if err != nil {
		return "", err
	}
	if !validUserName(u) {
		return "", errors.New("the auth_to_local rules map " + principal + " to " + strconv.Quote(u) + ", not a valid user name")
	}
	return u, nil
}

// validPrincipal reports whether a principal may go into a cookie's p=
// field: components that are valid user names (user@REALM,
// service/host@REALM).
func validPrincipal(p string) bool {
	parts := strings.Split(p, "/")
	if len(parts) > 2 {
		return false
	}
	for _, s := range parts {
		if !validUserName(s) {
			return false
		}
	}
	return true
}
