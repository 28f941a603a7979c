package redact

import (
	"fmt"
	"path"
	"strings"
	"unicode"
)

// Masker hides the values of secret-named properties from readers who
// may not see them: in configuration XML, in action XML, in Java
// properties and in free text such as log lines and program output. Its
// names are the built-in ones (SecretName) and those an operator adds
// (NewMasker).
//
// A nil *Masker masks nothing: it is what a reader who may see the
// secrets gets, so callers choose the masker once per request and use it
// without further checks.
type Masker struct {
	subs   []string // lower-cased substrings
	globs  []string // lower-cased path.Match patterns
	values []string // secret values masked wherever they appear, longest first
}

// NewMasker returns a masker that, besides the built-in names, treats as
// secret every name containing one of the comma-separated entries of
// extra, or, for an entry with a glob character (* ? [), matching it as a
// whole (path.Match); both ignore case. A malformed pattern is an error
// naming it.
func NewMasker(extra string) (*Masker, error) {
	m := &Masker{}
	for _, e := range strings.Split(extra, ",") {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "" {
			continue
		}
		if !strings.ContainsAny(e, "*?[") {
			m.subs = append(m.subs, e)
			continue
		}
		if _, err := path.Match(e, ""); err != nil {
			return nil, fmt.Errorf("bad pattern %q: %v", e, err)
		}
		m.globs = append(m.globs, e)
	}
	return m, nil
}

// SecretName reports whether the value of a property, variable or
// command-line flag of this name is a secret: a built-in secret name
// (the package's SecretName) or one of the masker's own. A nil masker
// knows no secret names.
func (m *Masker) SecretName(name string) bool {
	if m == nil {
		return false
	}
	if SecretName(name) {
		return true
	}
	if len(m.subs) == 0 && len(m.globs) == 0 {
		return false
	}
	n := strings.ToLower(strings.TrimSpace(name))
	for _, s := range m.subs {
		if strings.Contains(n, s) {
			return true
		}
	}
	for _, g := range m.globs {
		if ok, _ := path.Match(g, n); ok {
			return true
		}
	}
	return false
}

// secretWords make a name secret wherever they appear in it (any case).
var secretWords = []string{"secret", "password", "passwd", "passphrase", "token", "credential", "dsn"}

// secretKeys make a name secret when they appear in it with its
// separators (. _ -) removed: fs.azure.account.key.<account>,
// fs.s3a.encryption.key, *.private.key, api_key. An access key id
// (fs.s3a.access.key) names a key and is not among them.
var secretKeys = []string{"apikey", "accountkey", "privatekey", "encryptionkey"}

// SecretName reports whether a configuration key, environment variable or
// flag name holds a secret whose value is never shown to whom may not see
// it: names containing SECRET, PASSWORD, PASSWD, PASSPHRASE, TOKEN,
// CREDENTIAL or DSN; API, account, private and encryption keys
// (api.key, fs.azure.account.key.x, fs.gs.auth.service.account.private.key,
// fs.s3a.encryption.key); and, as Oozie masks names containing "pass",
// names with a part (between . _ - or a lower-to-upper case change) that
// is or ends in "pass" (keystore.pass, ssl.keypass, trustStorePass, but
// not bypass or compass) or, in names of several parts, is "pwd" (db.pwd,
// DB_PWD, but not PWD) or "keytab" (oozie.service.HadoopAccessorService.
// keytab.file, but not keytab); and Azure SAS tokens (fs.azure.sas.*).
// Case is ignored.
func SecretName(name string) bool {
	if !secretHint(name) {
		return false // most words of a log line: no allocation
	}
	n := strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	if strings.Contains(n, "key") {
		squeezed := strings.NewReplacer(".", "", "_", "", "-", "").Replace(n)
		for _, k := range secretKeys {
			if strings.Contains(squeezed, k) {
				return true
			}
		}
	}
	// A store's access: hadoop-azure's SAS tokens (fs.azure.sas.<c>.<a>),
	// and where a keytab is (oozie.service.HadoopAccessorService.keytab.file):
	// a keytab is a password in a file, and its path tells where to take it.
	if strings.HasPrefix(n, "fs.azure.sas.") {
		return true
	}
	if strings.Contains(n, "keytab") && len(nameParts(name)) > 1 {
		for _, p := range nameParts(name) {
			if p == "keytab" {
				return true
			}
		}
	}
	if !strings.Contains(n, "pass") && !strings.Contains(n, "pwd") {
		return false
	}
	parts := nameParts(name)
	for _, p := range parts {
		switch {
		case p == "pwd" && len(parts) > 1:
			return true
		case strings.HasSuffix(p, "pass") && p != "bypass" && p != "compass":
			return true
		}
	}
	return false
}

// nameParts splits a name into lower-cased parts at separators and at
// lower-to-upper case changes: trustStore.keyPass -> trust store key pass.
func nameParts(name string) []string {
	var parts []string
	var cur strings.Builder
	prevLower := false
	flush := func() {
		if cur.Len() > 0 {
			parts = append(parts, cur.String())
			cur.Reset()
		}
	}
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		cur.WriteRune(unicode.ToLower(r))
	}
	flush()
	return parts
}

// hints are in every secret name SecretName recognises.
var hints = []string{"secret", "pass", "token", "credential", "dsn", "key", "pwd", "sas"}

// secretHint reports whether name contains a hint, ignoring ASCII case,
// without allocating.
func secretHint(name string) bool {
	for _, h := range hints {
		for i := 0; i+len(h) <= len(name); i++ {
			j := 0
			for j < len(h) && name[i+j]|0x20 == h[j] {
				j++
			}
			if j == len(h) {
				return true
			}
		}
	}
	return false
}
