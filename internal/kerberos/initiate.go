package kerberos

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jcmturner/gofork/encoding/asn1"
	"github.com/jcmturner/gokrb5/v8/asn1tools"
	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/chksumtype"
	"github.com/jcmturner/gokrb5/v8/iana/flags"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/spnego"
	"github.com/jcmturner/gokrb5/v8/types"
)

// Initiator authenticates a user to HTTP services with the tickets of
// the user's ticket cache, as the oozie command does after kinit.
type Initiator struct {
	cl     *client.Client
	ccache string
}

// CCachePath is the ticket cache the user's tools use: KRB5CCNAME (a
// FILE: cache or a plain path), else /tmp/krb5cc_<uid>. Other cache types
// (KEYRING:, KCM:, DIR:, MEMORY:) cannot be read by gozie and are
// refused with a hint.
func CCachePath(getenv func(string) string) (string, error) {
	v := strings.TrimSpace(getenv("KRB5CCNAME"))
	if v == "" {
		return filepath.Join(os.TempDir(), "krb5cc_"+strconv.Itoa(os.Getuid())), nil
	}
	if p, ok := strings.CutPrefix(v, "FILE:"); ok {
		return p, nil
	}
	if i := strings.IndexByte(v, ':'); i > 0 && !strings.Contains(v[:i], "/") {
		return "", fmt.Errorf("KRB5CCNAME=%s: gozie reads only FILE: ticket caches; run kinit -c FILE:/tmp/krb5cc_%d (and export KRB5CCNAME=FILE:/tmp/krb5cc_%d)", v, os.Getuid(), os.Getuid())
	}
	return v, nil
}

// Krb5ConfPath is the krb5.conf the user's tools use: the first file of
// KRB5_CONFIG, else /etc/krb5.conf.
func Krb5ConfPath(getenv func(string) string) string {
	if v := strings.TrimSpace(getenv("KRB5_CONFIG")); v != "" {
		first, _, _ := strings.Cut(v, ":")
		return first
	}
	return "/etc/krb5.conf"
}

// DefaultRealm is the default_realm of the krb5.conf at path, "" when
// it cannot be read or names none.
func DefaultRealm(path string) string {
	cfg, err := config.Load(path)
	if err != nil {
		return ""
	}
	return cfg.LibDefaults.DefaultRealm
}

// NewInitiator loads the ticket cache and krb5.conf at the given paths.
func NewInitiator(ccachePath, krb5conf string) (*Initiator, error) {
	cfg, err := config.Load(krb5conf)
	if err != nil {
		return nil, fmt.Errorf("krb5.conf %s: %v (set KRB5_CONFIG to the cluster's krb5.conf)", krb5conf, shortKrbError(err))
	}
	cc, err := credentials.LoadCCache(ccachePath)
	if err != nil {
		return nil, fmt.Errorf("no Kerberos ticket cache at %s (%v): run kinit first", ccachePath, shortKrbError(err))
	}
	if err := tgtExpired(cc, time.Now()); err != nil {
		return nil, fmt.Errorf("Kerberos ticket cache %s: %v: run kinit again", ccachePath, err)
	}
	cl, err := client.NewFromCCache(cc, cfg, client.DisablePAFXFAST(true))
	if err != nil {
		return nil, fmt.Errorf("Kerberos ticket cache %s: %v: run kinit again", ccachePath, shortKrbError(err))
	}
	return &Initiator{cl: cl, ccache: ccachePath}, nil
}

// tgtExpired reports a cache whose ticket-granting tickets all ended
// before now: gokrb5's own words for it name no ticket and no time.
func tgtExpired(cc *credentials.CCache, now time.Time) error {
	var last time.Time
	for _, c := range cc.GetEntries() {
		if len(c.Server.PrincipalName.NameString) == 0 || c.Server.PrincipalName.NameString[0] != "krbtgt" {
			continue
		}
		if c.EndTime.After(now) {
			return nil
		}
		if c.EndTime.After(last) {
			last = c.EndTime
		}
	}
	if last.IsZero() {
		return nil // no TGT at all: gokrb5 says so
	}
	return fmt.Errorf("its ticket-granting ticket expired at %s", last.UTC().Format(time.RFC3339))
}

// Principal is the user's principal, name@REALM.
func (in *Initiator) Principal() string {
	return in.cl.Credentials.CName().PrincipalNameString() + "@" + in.cl.Credentials.Realm()
}

// Pending is a sent token waiting for the server's mutual-authentication
// reply.
type Pending struct {
	key   types.EncryptionKey
	ctime time.Time
	cusec int
}

// Negotiate returns the value of an Authorization header ("Negotiate
// <base64 SPNEGO NegTokenInit>") for the service principal spn
// (HTTP/host), asking for mutual authentication.
func (in *Initiator) Negotiate(spn string) (string, *Pending, error) {
	tkt, key, err := in.cl.GetServiceTicket(spn)
	if err != nil {
		return "", nil, fmt.Errorf("no Kerberos service ticket for %s with the tickets of %s: %s (is the ticket cache's TGT still valid? run kinit)", spn, in.ccache, shortKrbError(err))
	}
	auth, err := types.NewAuthenticator(in.cl.Credentials.Realm(), in.cl.Credentials.CName())
	if err != nil {
		return "", nil, err
	}
	// The GSS-API checksum (RFC 4121 4.1.1): no channel bindings, and the
	// flags asking for mutual authentication.
	ck := make([]byte, 24)
	binary.LittleEndian.PutUint32(ck[0:4], 16)
	binary.LittleEndian.PutUint32(ck[20:24], uint32(gssapi.ContextFlagMutual|gssapi.ContextFlagInteg|gssapi.ContextFlagConf))
	auth.Cksum = types.Checksum{CksumType: chksumtype.GSSAPI, Checksum: ck}
	req, err := messages.NewAPReq(tkt, key, auth)
	if err != nil {
		return "", nil, err
	}
	types.SetFlag(&req.APOptions, flags.APOptionMutualRequired)
	rb, err := req.Marshal()
	if err != nil {
		return "", nil, err
	}
	oid, _ := asn1.Marshal(gssapi.OIDKRB5.OID())
	mech := asn1tools.AddASNAppTag(append(append(oid, tokIDAPReq...), rb...), 0)
	st := spnego.SPNEGOToken{Init: true, NegTokenInit: spnego.NegTokenInit{
		MechTypes:      []asn1.ObjectIdentifier{gssapi.OIDKRB5.OID()},
		MechTokenBytes: mech,
	}}
	b, err := st.Marshal()
	if err != nil {
		return "", nil, err
	}
	return "Negotiate " + base64.StdEncoding.EncodeToString(b), &Pending{key: key, ctime: auth.CTime, cusec: auth.Cusec}, nil
}

// Verify checks the server's WWW-Authenticate reply: a Negotiate token
// whose AP-REP decrypts with the session key and returns the
// authenticator's time, which only the holder of the service's key can
// produce.
func (p *Pending) Verify(header string) error {
	scheme, b64, _ := strings.Cut(strings.TrimSpace(header), " ")
	if !strings.EqualFold(scheme, "Negotiate") || strings.TrimSpace(b64) == "" {
		return errors.New("the server did not answer with a Negotiate token (mutual authentication failed)")
	}
	tok, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return fmt.Errorf("the server's Negotiate token is not base64: %v", err)
	}
	mechTok := tok
	if len(tok) > 0 && tok[0] == 0xa1 {
		var resp spnego.NegTokenResp
		if err := resp.Unmarshal(tok); err != nil {
			return fmt.Errorf("the server's NegTokenResp: %v", err)
		}
		if resp.NegState != asn1.Enumerated(spnego.NegStateAcceptCompleted) {
			return fmt.Errorf("the server's negotiation state is %d, not accept-completed", resp.NegState)
		}
		mechTok = resp.ResponseToken
	}
	var krb spnego.KRB5Token
	if err := krb.Unmarshal(mechTok); err != nil || !krb.IsAPRep() {
		return fmt.Errorf("the server's reply holds no AP-REP (%v)", err)
	}
	plain, err := crypto.DecryptEncPart(krb.APRep.EncPart, p.key, keyusage.AP_REP_ENCPART)
	if err != nil {
		return fmt.Errorf("the server's AP-REP does not decrypt with the session key: %v", shortKrbError(err))
	}
	var part messages.EncAPRepPart
	if err := part.Unmarshal(plain); err != nil {
		return fmt.Errorf("the server's AP-REP: %v", shortKrbError(err))
	}
	if !part.CTime.Equal(p.ctime.Truncate(time.Second)) || part.Cusec != p.cusec {
		return errors.New("the server's AP-REP does not return this request's authenticator time")
	}
	return nil
}
