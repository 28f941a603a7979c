// Package redact keeps secrets out of what gozie shows: admin resources,
// error bodies and logs, and the configurations, logs and output of jobs
// to readers who may not see them. It masks the passwords a store DSN or
// any other URL may carry, tells which configuration or environment names
// hold secrets outright (SecretName), and masks their values in XML,
// properties and text (Masker).
package redact

import (
	"regexp"
	"strings"
)

// Mask replaces a secret value.
const Mask = "*****"

var (
	// urlPassword matches the password of a URL's user info
	// (scheme://user:password@host). The user name is kept: it helps an
	// operator and is not a secret. The password runs to the last '@'
	// before the path so that an unescaped '@' in it is masked too.
	urlPassword = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^:/?#@\s]*):[^\s/?#]*@`)
	// kvPassword matches password=value in a keyword DSN
	// ("host=db password=x"), a quoted one ("password='a b'"), and a URL
	// query parameter (?password=x&...).
	// No word boundary before the name: PGPASSWORD=x in a line is masked
	// too.
	kvPassword = regexp.MustCompile(`(?i)((?:password|passwd)\s*=\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s&'"]+)`)
)

// Secrets returns s with every password it can recognise masked: the
// password of URLs (postgres://user:pw@host/db) and password=... settings
// of keyword DSNs and query strings. s may be a DSN, an error message or a
// log line; the text around the password is kept so it stays useful.
func Secrets(s string) string {
	if !strings.Contains(s, "@") && !strings.Contains(strings.ToLower(s), "pass") {
		return s // the common case: nothing that could carry a password
	}
	return kvPassword.ReplaceAllString(urlPasswords(s), "${1}"+Mask)
}

// HasPassword reports whether s carries a password Secrets would mask: a
// URL's user-info password, or a password= setting of a keyword DSN or a
// query string.
func HasPassword(s string) bool { return Secrets(s) != s }

// urlPasswords masks the passwords of the URLs in s.
func urlPasswords(s string) string {
	if !strings.Contains(s, "@") || !strings.Contains(s, "://") {
		return s
	}
	return urlPassword.ReplaceAllString(s, "${1}:"+Mask+"@")
}
