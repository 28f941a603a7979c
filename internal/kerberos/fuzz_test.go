package kerberos

import (
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/keytab"
)

// FuzzAccept: whatever a client sends as a Negotiate token, Accept
// refuses it with ErrRefused and never panics (the seeds are a real
// SPNEGO NegTokenInit prefix, a bare Kerberos token header and garbage).
func FuzzAccept(f *testing.F) {
	kt := keytab.New()
	if err := kt.AddEntry("HTTP/127.0.0.1", "GOZIE.TEST", "pw", time.Now(), 1, etypeID.AES256_CTS_HMAC_SHA1_96); err != nil {
		f.Fatal(err)
	}
	b, err := kt.Marshal()
	if err != nil {
		f.Fatal(err)
	}
	acc, err := NewAcceptor(b, "test.keytab", "*", "", nil)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		"YIIC", "YIICKQYGKwYBBQUCoIICHTCCAhmgDTALBgkqhkiG9xIBAgKiggIGBIICAmCCAf4GCSqGSIb3EgECAgEAboIB7TCCAemgAwIBBaEDAgEOogcDBQAgAAAA",
		"oRQwEqADCgEAoQsGCSqGSIb3EgECAg==", "YAYGBCoDBAU=",
	} {
		tok, _ := base64.StdEncoding.DecodeString(s)
		f.Add(tok)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, tok []byte) {
		if _, err := acc.Accept(tok); !errors.Is(err, ErrRefused) {
			t.Fatalf("Accept(%x) = %v, want ErrRefused", tok, err)
		}
	})
}

// FuzzParseRules: rules text never panics, and rules that parse map any
// principal without panicking.
func FuzzParseRules(f *testing.F) {
	for _, s := range []string{hadoopRules, lowerRules, secureModeRules, "RULE:[1:$1$", "RULE:[2:$9](x)s/(/y/"} {
		f.Add(s, "joe/admin@FOO.COM")
	}
	f.Fuzz(func(t *testing.T, text, principal string) {
		rs, err := ParseRules(text, "FOO.COM")
		if err != nil {
			return
		}
		rs.ShortName(principal)
	})
}
