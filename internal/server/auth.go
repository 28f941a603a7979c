package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os/user"
	"slices"
	"strconv"
	"strings"
	"time"
)

// AuthOptions configure authentication (who is calling) and authorization
// (what they may change).
//
// Authentication follows Oozie's default "simple" mode: the caller names
// itself with the user.name query parameter, and the server answers with a
// signed hadoop.auth cookie the Java client sends back on later requests.
// Static bearer tokens and HTTP basic authentication are optional extras;
// Kerberos/SPNEGO is not supported.
type AuthOptions struct {
	// Secret signs hadoop.auth cookies; required.
	Secret []byte
	// TokenValidity is how long a cookie lasts; default 10 hours, Oozie's
	// 36000 s.
	TokenValidity time.Duration
	// AnonymousReads lets requests without a user read (GET); the
	// default configuration enables it.
	AnonymousReads bool
	// AnonymousWrites lets requests without a user change things
	// (submissions then need user.name in their configuration).
	AnonymousWrites bool
	// Authorization checks that job changes come from the job's owner, a
	// user or group of its oozie.job.acl, or an admin. Off, anyone may
	// change any job (Oozie's default).
	Authorization bool
	// AdminUsers may change any job and the system mode.
	AdminUsers []string
	// AdminGroups are OS groups whose members are admins.
	AdminGroups []string
	// Tokens maps static bearer tokens (Authorization: Bearer T) to users.
	Tokens map[string]string
	// BasicUsers maps users to passwords for HTTP basic authentication;
	// empty disables it. Use it over TLS only.
	BasicUsers map[string]string
	// GroupsOf lists the groups of a user for ACL checks; default the OS
	// groups (os/user).
	GroupsOf func(user string) []string
}

type authenticator struct {
	opts AuthOptions
	now  func() time.Time
}

func newAuthenticator(opts AuthOptions, now func() time.Time) (*authenticator, error) {
	if len(opts.Secret) == 0 {
		return nil, errors.New("server: an authentication secret is required")
	}
	if opts.TokenValidity <= 0 {
		opts.TokenValidity = 36000 * time.Second
	}
	if opts.GroupsOf == nil {
		opts.GroupsOf = osGroups
	}
	return &authenticator{opts: opts, now: now}, nil
}

// errAuthRequired is hadoop-auth's bare 401: no Oozie code.
func errAuthRequired(msg string) *apiError {
	return &apiError{status: http.StatusUnauthorized, msg: msg}
}

const cookieName = "hadoop.auth"

// authenticate identifies the caller: a valid hadoop.auth cookie, a bearer
// token, HTTP basic credentials, or the user.name parameter (which earns a
// cookie). It returns "" for an anonymous caller allowed to proceed.
func (a *authenticator) authenticate(w http.ResponseWriter, r *http.Request) (string, error) {
	if c, err := r.Cookie(cookieName); err == nil && c.Value != "" {
		if u, ok := a.verify(c.Value); ok {
			return u, nil
		}
		// A stale or forged cookie: the Java client re-authenticates on
		// 401 (rest-api.md 0.2, cached token).
		if r.Method == http.MethodOptions && r.URL.Query().Get("user.name") == "" {
			return "", errAuthRequired("Authentication failed: invalid or expired " + cookieName + " token")
		}
	}
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, cred, _ := strings.Cut(h, " ")
		switch strings.ToLower(scheme) {
		case "bearer":
			for tok, u := range a.opts.Tokens {
				if subtle.ConstantTimeCompare([]byte(tok), []byte(strings.TrimSpace(cred))) == 1 {
					return u, nil
				}
			}
			return "", errAuthRequired("Authentication failed: unknown bearer token")
		case "basic":
			if u, p, ok := r.BasicAuth(); ok && len(a.opts.BasicUsers) > 0 {
				if want, found := a.opts.BasicUsers[u]; found && subtle.ConstantTimeCompare([]byte(want), []byte(p)) == 1 {
					a.setCookie(w, u)
					return u, nil
				}
			}
			w.Header().Set("WWW-Authenticate", `Basic realm="gozie"`)
			return "", errAuthRequired("Authentication failed: bad user name or password")
		}
	}
	if u := strings.TrimSpace(userNameParam(r)); u != "" {
		a.setCookie(w, u)
		return u, nil
	}
	if r.Method == http.MethodOptions {
		return "", nil // the handshake's first step: no user yet
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		if a.opts.AnonymousReads {
			return "", nil
		}
	} else if a.opts.AnonymousWrites {
		return "", nil
	}
	return "", errAuthRequired("Authentication required: pass user.name, a " + cookieName + " cookie or credentials")
}

// userNameParam reads user.name from the query without parsing a form body.
func userNameParam(r *http.Request) string {
	return r.URL.Query().Get("user.name")
}

// sign computes the signature of a token's fields.
func (a *authenticator) sign(fields string) string {
	m := hmac.New(sha256.New, a.opts.Secret)
	m.Write([]byte(fields))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// token builds hadoop-auth's token text for a user.
func (a *authenticator) token(u string) string {
	exp := a.now().Add(a.opts.TokenValidity).UnixMilli()
	fields := fmt.Sprintf("u=%s&p=%s&t=simple&e=%d", u, u, exp)
	return fields + "&s=" + a.sign(fields)
}

func (a *authenticator) setCookie(w http.ResponseWriter, u string) {
	if strings.ContainsAny(u, "&=\";\\ \t\r\n") {
		return // not representable in the token; the user stays per-request
	}
	w.Header().Add("Set-Cookie", cookieName+`="`+a.token(u)+`"; Path=/; HttpOnly`)
}

// verify checks a token's signature and expiry and returns its user.
func (a *authenticator) verify(tok string) (string, bool) {
	tok = strings.Trim(tok, `"`)
	i := strings.LastIndex(tok, "&s=")
	if i < 0 {
		return "", false
	}
	fields, sig := tok[:i], tok[i+3:]
	if !hmac.Equal([]byte(sig), []byte(a.sign(fields))) {
		return "", false
	}
	vals, err := url.ParseQuery(fields)
	if err != nil {
		return "", false
	}
	exp, err := strconv.ParseInt(vals.Get("e"), 10, 64)
	if err != nil || a.now().UnixMilli() >= exp {
		return "", false
	}
	return vals.Get("u"), vals.Get("u") != ""
}

// isAdmin reports whether a user may change any job and the system mode.
func (a *authenticator) isAdmin(u string) bool {
	if u == "" {
		return false
	}
	if slices.Contains(a.opts.AdminUsers, u) {
		return true
	}
	if len(a.opts.AdminGroups) > 0 {
		for _, g := range a.opts.GroupsOf(u) {
			if slices.Contains(a.opts.AdminGroups, g) {
				return true
			}
		}
	}
	return false
}

// mayModify reports whether user u may change a job owned by owner, with
// the job's group and ACL (Hadoop ACL syntax: "user1,user2 group1,group2",
// "*" for everyone).
func (a *authenticator) mayModify(u, owner, group, acl string) bool {
	if !a.opts.Authorization {
		return true
	}
	if u == "" {
		return false
	}
	if u == owner || a.isAdmin(u) {
		return true
	}
	acl = strings.TrimSpace(acl)
	if acl == "*" {
		return true
	}
	users, groups, _ := strings.Cut(acl, " ")
	for _, x := range strings.Split(users, ",") {
		if strings.TrimSpace(x) == u {
			return true
		}
	}
	var allowedGroups []string
	for _, g := range strings.Split(groups, ",") {
		if g = strings.TrimSpace(g); g != "" {
			allowedGroups = append(allowedGroups, g)
		}
	}
	if group != "" {
		allowedGroups = append(allowedGroups, group)
	}
	if len(allowedGroups) == 0 {
		return false
	}
	for _, g := range a.opts.GroupsOf(u) {
		if slices.Contains(allowedGroups, g) {
			return true
		}
	}
	return false
}

// osGroups lists the OS groups of a user; unknown users have none.
func osGroups(name string) []string {
	u, err := user.Lookup(name)
	if err != nil {
		return nil
	}
	ids, err := u.GroupIds()
	if err != nil {
		return nil
	}
	var out []string
	for _, id := range ids {
		if g, err := user.LookupGroupId(id); err == nil {
			out = append(out, g.Name)
		}
	}
	return out
}
