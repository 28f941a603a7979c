package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os/user"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/kerberos"
)

// Authentication methods of gozie.authentication.type.
const (
	// MethodSimple is Oozie's pseudo authentication: the caller names
	// itself with the user.name query parameter.
	MethodSimple = "simple"
	// MethodBasic is HTTP basic authentication against BasicUsers.
	MethodBasic = "basic"
	// MethodToken is a static bearer token of Tokens.
	MethodToken = "token"
	// MethodKerberos is SPNEGO (Authorization: Negotiate) with Kerberos
	// tickets, checked by AuthOptions.Kerberos (spnego.go).
	MethodKerberos = "kerberos"
)

// AuthOptions configure authentication (who is calling) and authorization
// (what they may change).
//
// Authentication follows Oozie's default "simple" mode: the caller names
// itself with the user.name query parameter, and the server answers with a
// signed hadoop.auth cookie the Java client sends back on later requests.
// Kerberos (SPNEGO, as hadoop-auth's KerberosAuthenticationHandler),
// static bearer tokens and HTTP basic authentication are the other
// methods.
type AuthOptions struct {
	// Secret is the key that signs hadoop.auth cookies; required.
	// AuthFromConfig derives it (SigningKey) from a secret that never
	// enters the store.
	Secret []byte
	// TokenValidity is how long a cookie lasts; default 10 hours, Oozie's
	// 36000 s.
	TokenValidity time.Duration
	// Methods are the accepted authentication methods (MethodSimple,
	// MethodBasic, MethodToken, MethodKerberos). Empty derives them from
	// what is configured: basic when BasicUsers is non-nil, token when
	// Tokens is, kerberos when Kerberos is, and simple only when none is,
	// so that configuring credentials never leaves user.name open beside
	// them.
	Methods []string
	// AnonymousReads lets requests without a user read (GET), whatever
	// the methods; AuthFromConfig turns it on by default only when simple
	// is accepted.
	AnonymousReads bool
	// AnonymousWrites lets requests without a user change things
	// (submissions then need user.name in their configuration).
	AnonymousWrites bool
	// Authorization checks that job changes come from the job's owner, a
	// user or group of its oozie.job.acl, or an admin. Off, anyone may
	// change any job (Oozie's default).
	Authorization bool
	// StrictSimpleUser turns off two leniencies of simple authentication
	// that Oozie's users rely on: a submission without an authenticated
	// user (its configuration's user.name then names the owner) and a
	// configuration user.name that differs from the authenticated user
	// (replaced by it). Strict, both are refused.
	StrictSimpleUser bool
	// ServerUser is the OS user running the server: an admin out of the
	// box, so that whoever started the server can use admin operations
	// without configuring anything (AuthFromConfig sets it).
	ServerUser string
	// AdminUsers may change any job and the system mode.
	AdminUsers []string
	// AdminGroups are OS groups whose members are admins.
	AdminGroups []string
	// AdminInfoAnonymous lets any caller read admin/configuration,
	// admin/os-env and admin/java-sys-properties; otherwise they need an
	// admin when Authorization is on.
	AdminInfoAnonymous bool
	// Tokens maps static bearer tokens (Authorization: Bearer T) to users.
	Tokens map[string]string
	// BasicUsers maps users to passwords for HTTP basic authentication
	// (non-nil, even empty, means a users file is configured). Use it over
	// TLS only.
	BasicUsers map[string]string
	// GroupsOf lists the groups of a user for ACL checks; default the OS
	// groups (os/user).
	GroupsOf func(user string) []string
	// Kerberos verifies SPNEGO tokens (the service's keytab); non-nil
	// enables MethodKerberos.
	Kerberos *kerberos.Acceptor
	// NameRules map a Kerberos principal to its user name (auth_to_local);
	// nil is Hadoop's DEFAULT rule with the service principal's realm.
	NameRules *kerberos.Rules
}

type authenticator struct {
	opts    AuthOptions
	now     func() time.Time
	methods map[string]bool
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
	methods, err := resolveMethods(opts.Methods, configured{opts.BasicUsers != nil, opts.Tokens != nil, opts.Kerberos != nil})
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if opts.Kerberos != nil && opts.NameRules == nil {
		if opts.NameRules, err = kerberos.ParseRules("DEFAULT", opts.Kerberos.Realm()); err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
	}
	// Every user a credential maps to must be able to hold a cookie and
	// appear in logs and filters unescaped.
	for _, u := range opts.Tokens {
		if !validUserName(u) {
			return nil, fmt.Errorf("server: a bearer token maps to the invalid user name %q", u)
		}
	}
	for u := range opts.BasicUsers {
		if !validUserName(u) {
			return nil, fmt.Errorf("server: basic user %q: invalid user name", u)
		}
	}
	return &authenticator{opts: opts, now: now, methods: methods}, nil
}

// configured says which credentials the configuration holds.
type configured struct{ basic, tokens, kerberos bool }

// resolveMethods checks the accepted methods against what is configured,
// or derives them when none are named (see AuthOptions.Methods).
func resolveMethods(names []string, have configured) (map[string]bool, error) {
	m := map[string]bool{}
	if len(names) == 0 {
		m[MethodBasic], m[MethodToken], m[MethodKerberos] = have.basic, have.tokens, have.kerberos
		m[MethodSimple] = !have.basic && !have.tokens && !have.kerberos
		return m, nil
	}
	for _, n := range names {
		switch n = strings.ToLower(strings.TrimSpace(n)); n {
		case MethodSimple:
		case MethodBasic:
			if !have.basic {
				return nil, errors.New("authentication method basic needs a users file (gozie.authentication.basic.users.file)")
			}
		case MethodToken:
			if !have.tokens {
				return nil, errors.New("authentication method token needs tokens (gozie.authentication.tokens)")
			}
		case MethodKerberos:
			if !have.kerberos {
				return nil, errors.New("authentication method kerberos needs a keytab (gozie.authentication.kerberos.keytab) and its HTTP principal (gozie.authentication.kerberos.principal)")
			}
		default:
			return nil, fmt.Errorf("unknown authentication method %q (want simple, basic, token or kerberos)", n)
		}
		m[n] = true
	}
	return m, nil
}

// errAuthRequired is hadoop-auth's bare 401: no Oozie code.
func errAuthRequired(msg string) *apiError {
	return &apiError{status: http.StatusUnauthorized, msg: msg}
}

// errMethodDisabled refuses a credential of a method the server does not
// accept. E0500 ("Not authorized") is Oozie's closest code: the caller is
// refused before any authorization check could run.
func errMethodDisabled(method, what string) *apiError {
	return errorf(http.StatusUnauthorized, "E0500", "Not authorized, authentication method [%s] (%s) is not enabled", method, what)
}

const cookieName = "hadoop.auth"

// Bounds of a user name (validUserName).
const maxUserName = 256

// validUserName reports whether u may be a user: 1 to 256 ASCII letters,
// digits, '.', '_', '-' and '@' (Kerberos-style user@REALM), not starting
// with '.', '-' or '@' (so it never reads as a flag or a relative path),
// optionally ending with one '$' (machine accounts, host$). Nothing else:
// user names go into cookies, log lines, ACLs and job filters unescaped.
func validUserName(u string) bool {
	if len(u) == 0 || len(u) > maxUserName {
		return false
	}
	u = strings.TrimSuffix(u, "$")
	if u == "" {
		return false
	}
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_':
		case c == '.' || c == '-' || c == '@':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// errBadUserName refuses a user.name that is not a valid user name; the
// value is quoted so the message cannot be mistaken for a real user.
func errBadUserName(u string) *apiError {
	if len(u) > 64 {
		u = u[:64] + "..."
	}
	return errParamValue("user.name", strconv.Quote(u))
}

// authenticate identifies the caller and returns "" for an anonymous caller
// allowed to proceed. Credentials of a method the server does not accept
// are refused first (401 E0500), so that a disabled method never
// authenticates and never falls back to another. Then, in order: a valid
// hadoop.auth cookie of an accepted method, a bearer token, HTTP basic
// credentials, the user.name parameter (which earns a cookie), and the
// anonymous rules.
func (a *authenticator) authenticate(w http.ResponseWriter, r *http.Request) (string, error) {
	name, hasName := userNameParam(r)
	if hasName && !a.methods[MethodSimple] {
		return "", errMethodDisabled(MethodSimple, "user.name")
	}
	scheme, cred, hasAuth := authorization(r)
	if hasAuth {
		switch scheme {
		case "bearer":
			if !a.methods[MethodToken] {
				return "", errMethodDisabled(MethodToken, "Authorization: Bearer")
			}
		case "basic":
			if !a.methods[MethodBasic] {
				return "", errMethodDisabled(MethodBasic, "Authorization: Basic")
			}
		case "negotiate":
			if !a.methods[MethodKerberos] {
				return "", errMethodDisabled(MethodKerberos, "Authorization: Negotiate")
			}
		}
	}
	if u, sent := a.cookieUser(r); u != "" {
		return u, nil
	} else if sent && r.Method == http.MethodOptions && !hasName {
		// A stale, forged or no longer accepted cookie: the Java client
		// re-authenticates on 401 (rest-api.md 0.2, cached token); with
		// Kerberos on, the challenge tells it to start SPNEGO.
		if a.methods[MethodKerberos] {
			w.Header().Add("WWW-Authenticate", "Negotiate")
		}
		return "", errAuthRequired("Authentication failed: invalid or expired " + cookieName + " token")
	}
	switch scheme {
	case "bearer":
		for tok, u := range a.opts.Tokens {
			if subtle.ConstantTimeCompare([]byte(tok), []byte(strings.TrimSpace(cred))) == 1 {
				// No cookie: the token goes with every request anyway,
				// and a cookie would outlive the token's removal from
				// the configuration.
				return u, nil
			}
		}
		return "", errAuthRequired("Authentication failed: unknown bearer token")
	case "basic":
		if u, p, ok := r.BasicAuth(); ok {
			if want, found := a.opts.BasicUsers[u]; found && subtle.ConstantTimeCompare([]byte(want), []byte(p)) == 1 {
				a.setCookie(w, r, u, MethodBasic)
				return u, nil
			}
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="gozie"`)
		return "", errAuthRequired("Authentication failed: bad user name or password")
	case "negotiate":
		return a.negotiate(w, r, cred)
	}
	if hasName {
		u := strings.TrimSpace(name)
		if !validUserName(u) {
			return "", errBadUserName(name)
		}
		a.setCookie(w, r, u, MethodSimple)
		return u, nil
	}
	if r.Method == http.MethodOptions && a.methods[MethodKerberos] {
		// The Java client's handshake: a Negotiate challenge makes its
		// KerberosAuthenticator start SPNEGO (anything else makes it
		// fall back to user.name).
		a.challenge(w)
		return "", errAuthRequired("Authentication required: " + a.howTo())
	}
	if r.Method == http.MethodOptions && a.methods[MethodSimple] {
		return "", nil // the handshake's first step: no user yet
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
		if a.opts.AnonymousReads {
			return "", nil
		}
	} else if a.opts.AnonymousWrites {
		return "", nil
	} else if a.methods[MethodSimple] && !a.opts.StrictSimpleUser {
		if isSubmission(r) {
			// Oozie's simple authentication lets a submission in
			// without a user: its configuration's user.name (or the
			// user parameter the plain OozieClient adds) names the
			// owner (submitUser).
			return "", nil
		}
		if u := strings.TrimSpace(r.URL.Query().Get("user")); u != "" && isRerun(r) {
			// The plain OozieClient (no handshake) names its user only
			// with this parameter, on reruns as on submissions; simple
			// authentication takes it as user.name. No cookie: the
			// parameter is not the handshake's.
			if !validUserName(u) {
				return "", errBadUserName(u)
			}
			return u, nil
		}
	}
	a.challenge(w)
	if a.methods[MethodSimple] && r.Method != http.MethodGet && r.Method != http.MethodHead {
		// With a code, so that Oozie's client prints the reason rather
		// than a bare HTTP status.
		return "", errorf(http.StatusUnauthorized, "E0500",
			"Not authorized, a request without a user may only read; %s", a.howTo())
	}
	return "", errAuthRequired("Authentication required: " + a.howTo())
}

// isRerun reports a workflow rerun: PUT /oozie/vN/job/<id>?action=rerun.
func isRerun(r *http.Request) bool {
	return r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/job/") && r.URL.Query().Get("action") == "rerun"
}

// isSubmission reports a job submission (or dry run): POST /oozie/vN/jobs.
func isSubmission(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	switch r.URL.Path {
	case "/oozie/v0/jobs", "/oozie/v1/jobs", "/oozie/v2/jobs":
		return true
	}
	return false
}

// challenge names the header methods a client may answer a 401 with.
func (a *authenticator) challenge(w http.ResponseWriter) {
	if a.methods[MethodBasic] {
		w.Header().Add("WWW-Authenticate", `Basic realm="gozie"`)
	}
	if a.methods[MethodToken] {
		w.Header().Add("WWW-Authenticate", `Bearer realm="gozie"`)
	}
	if a.methods[MethodKerberos] {
		w.Header().Add("WWW-Authenticate", "Negotiate")
	}
}

// howTo lists the credentials the server accepts, for the 401 message.
func (a *authenticator) howTo() string {
	var ways []string
	if a.methods[MethodSimple] {
		ways = append(ways, "user.name")
	}
	ways = append(ways, "a "+cookieName+" cookie")
	if a.methods[MethodBasic] {
		ways = append(ways, "basic credentials")
	}
	if a.methods[MethodToken] {
		ways = append(ways, "a bearer token")
	}
	if a.methods[MethodKerberos] {
		ways = append(ways, "Kerberos (SPNEGO: curl --negotiate, gozie -auth KERBEROS after kinit)")
	}
	return "pass " + strings.Join(ways, ", ")
}

// userNameParam reads user.name from the query without parsing a form
// body; present reports the parameter with a non-blank value.
func userNameParam(r *http.Request) (name string, present bool) {
	name = r.URL.Query().Get("user.name")
	return name, strings.TrimSpace(name) != ""
}

// authorization splits the Authorization header into its lower-cased
// scheme and credentials.
func authorization(r *http.Request) (scheme, cred string, ok bool) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", "", false
	}
	scheme, cred, _ = strings.Cut(strings.TrimSpace(h), " ")
	return strings.ToLower(scheme), cred, true
}

// sign computes the signature of a token's fields.
func (a *authenticator) sign(fields string) string {
	m := hmac.New(sha256.New, a.opts.Secret)
	m.Write([]byte(fields))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// token builds hadoop-auth's token text for user u (principal p: the
// Kerberos principal, else u) authenticated by method, which goes in the
// t= field so the cookie is accepted only while that method is.
func (a *authenticator) token(u, p, method string) string {
	exp := a.now().Add(a.opts.TokenValidity).UnixMilli()
	fields := fmt.Sprintf("u=%s&p=%s&t=%s&e=%d", u, p, method, exp)
	return fields + "&s=" + a.sign(fields)
}

// cookieUser returns the user of the first hadoop.auth cookie of the
// request that verifies, and whether the request sent any. Every one is
// tried in order: a browser sends the cookies of several paths or
// domains, and a stale one listed first must not hide a good one.
func (a *authenticator) cookieUser(r *http.Request) (user string, sent bool) {
	for _, c := range r.CookiesNamed(cookieName) {
		if c.Value == "" {
			continue
		}
		sent = true
		if u, ok := a.verify(c.Value); ok {
			return u, true
		}
	}
	return "", sent
}

// setCookie sends the user's hadoop.auth cookie: HttpOnly (no script
// reads it), SameSite=Lax (another site's form or script cannot make the
// browser send it with a job change; following a link to the console
// still does), and Secure when the request came over TLS. The value is
// quoted, as hadoop-auth writes it and Oozie's client reads it.
func (a *authenticator) setCookie(w http.ResponseWriter, r *http.Request, u, method string) {
	a.setPrincipalCookie(w, r, u, u, method)
}

// setPrincipalCookie is setCookie for user u authenticated as principal p.
func (a *authenticator) setPrincipalCookie(w http.ResponseWriter, r *http.Request, u, p, method string) {
	if !validUserName(u) || !validPrincipal(p) {
		return // never reached: callers validate; a cookie must not carry it
	}
	attrs := "; Path=/; HttpOnly; SameSite=Lax"
	if r.TLS != nil {
		attrs += "; Secure"
	}
	w.Header().Add("Set-Cookie", cookieName+`="`+a.token(u, p, method)+`"`+attrs)
}

// verify checks a token's signature, expiry and method and returns its
// user. The fields are split on '&' and '=' without any decoding: the user
// is compared exactly as it was issued, so %61lice is not alice.
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
	vals := map[string]string{}
	for _, f := range strings.Split(fields, "&") {
		k, v, ok := strings.Cut(f, "=")
		if _, dup := vals[k]; !ok || dup {
			return "", false
		}
		vals[k] = v
	}
	exp, err := strconv.ParseInt(vals["e"], 10, 64)
	if err != nil || a.now().UnixMilli() >= exp {
		return "", false
	}
	if !a.methods[vals["t"]] {
		return "", false // issued by a method that is not accepted (now)
	}
	u := vals["u"]
	return u, validUserName(u)
}

// isAdmin reports whether a user may change any job and the system mode.
func (a *authenticator) isAdmin(u string) bool {
	if u == "" {
		return false
	}
	if u == a.opts.ServerUser || slices.Contains(a.opts.AdminUsers, u) {
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

// errNotAdmin refuses an admin-only request, saying who the admins are and
// which keys make more.
func (a *authenticator) errNotAdmin(u string) *apiError {
	who := "admins are the users of gozie.admin.users and members of gozie.admin.groups"
	if a.opts.ServerUser != "" {
		who = fmt.Sprintf("admins are the server's OS user [%s], the users of gozie.admin.users and members of gozie.admin.groups", a.opts.ServerUser)
	}
	return errorf(http.StatusUnauthorized, "E0503", "User [%s] does not have admin privileges; %s", userOrQ(u), who)
}

// mayModify reports whether user u may change a job owned by owner, with
// the job's group and ACL (Hadoop ACL syntax: "user1,user2 group1,group2",
// "*" for everyone).
func (a *authenticator) mayModify(u, owner, group, acl string) bool {
	return !a.opts.Authorization || a.named(u, owner, group, acl)
}

// named reports whether user u is the owner of a job with group and acl,
// a user or group member its ACL names, or an admin: those who may change
// it when authorization is on, and who see its secrets always.
func (a *authenticator) named(u, owner, group, acl string) bool {
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
