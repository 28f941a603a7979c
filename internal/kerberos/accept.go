package kerberos

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/jcmturner/gofork/encoding/asn1"
	"github.com/jcmturner/gokrb5/v8/asn1tools"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/asnAppTag"
	"github.com/jcmturner/gokrb5/v8/iana/chksumtype"
	"github.com/jcmturner/gokrb5/v8/iana/flags"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/iana/msgtype"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/spnego"
	"github.com/jcmturner/gokrb5/v8/types"
)

// MaxClockSkew is how far a client's clock may be from the server's, as
// in krb5.conf's clockskew default.
const MaxClockSkew = 5 * time.Minute

// tokIDAPReq and tokIDAPRep are the GSS-API Kerberos token ids (RFC 1964
// 1.1) in front of an AP-REQ and an AP-REP.
var (
	tokIDAPReq = []byte{0x01, 0x00}
	tokIDAPRep = []byte{0x02, 0x00}
)

// ErrRefused wraps every reason a token is not accepted: the caller
// answers 401 with a new challenge, whatever the reason.
var ErrRefused = errors.New("kerberos: token refused")

// Acceptor verifies the SPNEGO (or bare Kerberos) tokens of clients
// against the service's keytab, as hadoop-auth's
// KerberosAuthenticationHandler does with the JDK's GSS-API.
type Acceptor struct {
	kt      *keytab.Keytab
	service *types.PrincipalName // nil: any HTTP/* principal of the keytab
	realm   string               // the service principal's realm, with service
	now     func() time.Time
	replays replayCache
}

// NewAcceptor reads the keytab (its bytes; path names it in errors).
// principal is the service
// principal tickets must be for (HTTP/host@REALM; _HOST is replaced by
// host, lower-cased), or "*" for any HTTP/* principal the keytab holds,
// as hadoop-auth allows. now is the clock (time.Now when nil).
func NewAcceptor(b []byte, path, principal, host string, now func() time.Time) (*Acceptor, error) {
	kt := keytab.New()
	if err := kt.Unmarshal(b); err != nil {
		return nil, fmt.Errorf("keytab %s: %v", path, err)
	}
	if now == nil {
		now = time.Now
	}
	a := &Acceptor{kt: kt, now: now, replays: replayCache{seen: map[replayKey]time.Time{}}}
	principal = strings.TrimSpace(principal)
	if principal == "*" {
		if !a.hasHTTP("", "") {
			return nil, fmt.Errorf("keytab %s holds no HTTP/* principal", path)
		}
		return a, nil
	}
	principal = strings.ReplaceAll(principal, "_HOST", strings.ToLower(host))
	name, realm, ok := strings.Cut(principal, "@")
	if !ok || name == "" || realm == "" {
		return nil, fmt.Errorf("service principal %q is not HTTP/host@REALM (or *)", principal)
	}
	pn := types.NewPrincipalName(1, name) // KRB_NT_PRINCIPAL; the type is not compared
	a.service, a.realm = &pn, realm
	if !a.hasHTTP(name, realm) {
		return nil, fmt.Errorf("keytab %s holds no key for %s", path, principal)
	}
	return a, nil
}

// Realm is the service principal's realm (with "*", that of the
// keytab's first HTTP/* principal): the default realm of auth_to_local
// rules when krb5.conf names none.
func (a *Acceptor) Realm() string {
	if a.realm != "" {
		return a.realm
	}
	for _, e := range a.kt.Entries {
		if len(e.Principal.Components) > 0 && e.Principal.Components[0] == "HTTP" {
			return e.Principal.Realm
		}
	}
	return ""
}

// hasHTTP reports whether the keytab holds name@realm, or any HTTP/*
// principal when name is "".
func (a *Acceptor) hasHTTP(name, realm string) bool {
	for _, e := range a.kt.Entries {
		p := strings.Join(e.Principal.Components, "/")
		if name == "" && strings.HasPrefix(p, "HTTP/") || p == name && e.Principal.Realm == realm {
			return true
		}
	}
	return false
}

// Accepted is a client that authenticated.
type Accepted struct {
	// Principal is the client's principal, name@REALM.
	Principal string
	// Reply is the token to send back in "WWW-Authenticate: Negotiate
	// <base64>": a NegTokenResp (accept-completed) carrying the AP-REP
	// when the client asked for mutual authentication, or a bare
	// Kerberos AP-REP for a bare Kerberos token.
	Reply []byte
	// Expires is the end time of the client's ticket.
	Expires time.Time
}

// Accept verifies one token of an Authorization: Negotiate header
// (decoded from base64). Any failure wraps ErrRefused and says why.
func (a *Acceptor) Accept(token []byte) (acc Accepted, err error) {
	defer func() {
		// The token comes from anyone who can reach the port; a parser
		// below that panics on it refuses it instead.
		if p := recover(); p != nil {
			acc, err = Accepted{}, refused("malformed token (%v)", p)
		}
	}()
	mech, mechToken, spnegoWrapped, err := unwrap(token)
	if err != nil {
		return Accepted{}, refused("%v", err)
	}
	var krb spnego.KRB5Token
	if err := krb.Unmarshal(mechToken); err != nil || !krb.IsAPReq() {
		return Accepted{}, refused("not a Kerberos AP-REQ: %v", err)
	}
	req := &krb.APReq
	if err := a.verify(req); err != nil {
		return Accepted{}, err
	}
	rep, err := apRep(req)
	if err != nil {
		return Accepted{}, refused("building the AP-REP: %v", err)
	}
	acc = Accepted{
		Principal: req.Authenticator.CName.PrincipalNameString() + "@" + req.Authenticator.CRealm,
		Expires:   req.Ticket.DecryptedEncPart.EndTime,
	}
	if !mutualRequested(req) {
		rep = nil
	}
	if !spnegoWrapped {
		acc.Reply = rep
		return acc, nil
	}
	resp := spnego.NegTokenResp{NegState: asn1.Enumerated(spnego.NegStateAcceptCompleted), SupportedMech: mech, ResponseToken: rep}
	if acc.Reply, err = resp.Marshal(); err != nil {
		return Accepted{}, refused("building the NegTokenResp: %v", err)
	}
	return acc, nil
}

// unwrap finds the Kerberos token in a SPNEGO NegTokenInit (the first
// mechanism the client proposes must be Kerberos, as it is for MIT, Java
// and browsers; no second round trip is offered) or takes a bare Kerberos
// token as it is.
func unwrap(token []byte) (mech asn1.ObjectIdentifier, mechToken []byte, wrapped bool, err error) {
	var oid asn1.ObjectIdentifier
	if _, err := asn1.UnmarshalWithParams(token, &oid, "application,explicit,tag:0"); err == nil && oid.Equal(gssapi.OIDKRB5.OID()) {
		return oid, token, false, nil
	}
	var st spnego.SPNEGOToken
	if err := st.Unmarshal(token); err != nil {
		return nil, nil, false, fmt.Errorf("not a SPNEGO token: %v", err)
	}
	if !st.Init {
		return nil, nil, false, errors.New("not a SPNEGO NegTokenInit")
	}
	init := st.NegTokenInit
	if len(init.MechTypes) == 0 || len(init.MechTokenBytes) == 0 {
		return nil, nil, false, errors.New("the NegTokenInit carries no Kerberos token")
	}
	first := init.MechTypes[0]
	if !first.Equal(gssapi.OIDKRB5.OID()) && !first.Equal(gssapi.OIDMSLegacyKRB5.OID()) {
		return nil, nil, false, fmt.Errorf("the client prefers mechanism %s, not Kerberos", first)
	}
	return first, init.MechTokenBytes, true, nil
}

// verify checks the AP-REQ: the ticket decrypts with the keytab and is
// for the configured service, it is valid now, the authenticator
// decrypts, names the ticket's client and is fresh, and it was not seen
// before (RFC 4120 3.2.3).
func (a *Acceptor) verify(req *messages.APReq) error {
	sname := req.Ticket.SName.PrincipalNameString()
	if a.service != nil {
		if sname != a.service.PrincipalNameString() || !strings.EqualFold(req.Ticket.Realm, a.realm) {
			return refused("the ticket is for %s@%s, not this server's %s@%s", sname, req.Ticket.Realm, a.service.PrincipalNameString(), a.realm)
		}
	} else if !strings.HasPrefix(sname, "HTTP/") {
		return refused("the ticket is for %s@%s, not an HTTP/* principal", sname, req.Ticket.Realm)
	}
	if ok, err := req.Verify(a.kt, MaxClockSkew, types.HostAddress{}, nil); err != nil || !ok {
		return refused("%v", shortKrbError(err))
	}
	now := a.now()
	tk := req.Ticket.DecryptedEncPart
	if now.Add(-MaxClockSkew).After(tk.EndTime) {
		return refused("the ticket of %s expired at %s", req.Authenticator.CName.PrincipalNameString(), tk.EndTime.UTC().Format(time.RFC3339))
	}
	if !tk.StartTime.IsZero() && now.Add(MaxClockSkew).Before(tk.StartTime) {
		return refused("the ticket is not valid before %s", tk.StartTime.UTC().Format(time.RFC3339))
	}
	ct := req.Authenticator.CTime.Add(time.Duration(req.Authenticator.Cusec) * time.Microsecond)
	if d := now.Sub(ct); d > MaxClockSkew || d < -MaxClockSkew {
		return refused("the authenticator's time %s is more than %s from the server's", ct.UTC().Format(time.RFC3339), MaxClockSkew)
	}
	key := replayKey{client: req.Authenticator.CName.PrincipalNameString() + "@" + req.Authenticator.CRealm, service: sname, ctime: ct}
	if !a.replays.add(key, now) {
		return refused("replayed authenticator of %s", key.client)
	}
	return nil
}

// shortKrbError is the first line of a gokrb5 error (they carry a stack
// of causes).
func shortKrbError(err error) string {
	if err == nil {
		return "the AP-REQ does not verify"
	}
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// mutualRequested reports whether the client asked for mutual
// authentication: the AP option, or the GSS-API checksum's flag (RFC 4121
// 4.1.1), which is how MIT and Java ask.
func mutualRequested(req *messages.APReq) bool {
	if types.IsFlagSet(&req.APOptions, flags.APOptionMutualRequired) {
		return true
	}
	c := req.Authenticator.Cksum
	if c.CksumType != chksumtype.GSSAPI || len(c.Checksum) < 24 {
		return false
	}
	return binary.LittleEndian.Uint32(c.Checksum[20:24])&uint32(gssapi.ContextFlagMutual) != 0
}

// encAPRepPart is EncAPRepPart (RFC 4120 5.5.2) for marshalling; the
// subkey is left out (the client's own subkey or the session key then
// protects the context, which HTTP never uses after authentication).
type encAPRepPart struct {
	CTime          time.Time `asn1:"generalized,explicit,tag:0"`
	Cusec          int       `asn1:"explicit,tag:1"`
	SequenceNumber int64     `asn1:"optional,explicit,tag:3"`
}

// apRepMsg is AP-REP for marshalling.
type apRepMsg struct {
	PVNO    int                 `asn1:"explicit,tag:0"`
	MsgType int                 `asn1:"explicit,tag:1"`
	EncPart types.EncryptedData `asn1:"explicit,tag:2"`
}

// apRep builds the GSS-API Kerberos token holding the AP-REP that
// answers req: the authenticator's ctime and cusec, encrypted with the
// ticket's session key under key usage 12, which proves to the client
// that the server could decrypt its ticket.
func apRep(req *messages.APReq) ([]byte, error) {
	seq, err := rand.Int(rand.Reader, big.NewInt(1<<30))
	if err != nil {
		return nil, err
	}
	part := encAPRepPart{CTime: req.Authenticator.CTime.UTC(), Cusec: req.Authenticator.Cusec, SequenceNumber: seq.Int64() + 1}
	b, err := asn1.Marshal(part)
	if err != nil {
		return nil, err
	}
	b = asn1tools.AddASNAppTag(b, asnAppTag.EncAPRepPart)
	enc, err := crypto.GetEncryptedData(b, req.Ticket.DecryptedEncPart.Key, keyusage.AP_REP_ENCPART, 0)
	if err != nil {
		return nil, err
	}
	rb, err := asn1.Marshal(apRepMsg{PVNO: 5, MsgType: msgtype.KRB_AP_REP, EncPart: enc})
	if err != nil {
		return nil, err
	}
	rb = asn1tools.AddASNAppTag(rb, asnAppTag.APREP)
	oid, err := asn1.Marshal(gssapi.OIDKRB5.OID())
	if err != nil {
		return nil, err
	}
	tok := append(append(oid, tokIDAPRep...), rb...)
	return asn1tools.AddASNAppTag(tok, 0), nil
}

// refused is an ErrRefused with a reason.
func refused(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, args...))
}

// replayKey identifies one authenticator: its client, the service and
// its time to the microsecond.
type replayKey struct {
	client, service string
	ctime           time.Time
}

// replayCache remembers the authenticators accepted within the clock
// skew; older ones are refused by the time check anyway, so they are
// dropped.
type replayCache struct {
	mu    sync.Mutex
	seen  map[replayKey]time.Time
	sweep time.Time // when old entries are dropped next
}

// add records k at now and reports whether it was new.
func (c *replayCache) add(k replayKey, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now.After(c.sweep) {
		// Not on every request: a sweep walks the whole cache.
		for old := range c.seen {
			if now.Sub(old.ctime) > MaxClockSkew {
				delete(c.seen, old)
			}
		}
		c.sweep = now.Add(MaxClockSkew / 10)
	}
	if _, dup := c.seen[k]; dup {
		return false
	}
	c.seen[k] = now
	return true
}
