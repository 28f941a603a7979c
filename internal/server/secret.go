package server

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unicode"
	"unicode/utf8"

	"github.com/gozie/gozie/internal/fsys"
)

// The cookie signing key is derived from a secret that lives only on the
// servers (a configuration value or a private file), never in the store:
// anyone who can read the database — a backup, a replica, a monitoring
// role — could otherwise sign a cookie for an admin.
const (
	// GeneratedSecretFile is the data directory's own secret, generated
	// on first start when neither gozie.authentication.secret nor
	// gozie.authentication.secret.file is set.
	GeneratedSecretFile = "auth-secret"
	// minSecretFile is the shortest secret file accepted: 32 bytes, the
	// size of the HMAC-SHA256 key derived from it.
	minSecretFile = 32
	// maxSecretFile bounds what is read of a secret file.
	maxSecretFile = 64 << 10
)

// signingKeyLabel separates the cookie signing key from anything else
// that might one day be derived from the same secret; "v1" changes when
// the cookies' format does.
var signingKeyLabel = []byte("gozie hadoop.auth cookie signing key v1")

// SigningKey derives the key that signs hadoop.auth cookies from the
// server-local secret: HMAC-SHA256 keyed with the secret over a fixed
// label. Servers given the same secret derive the same key.
func SigningKey(secret []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write(signingKeyLabel)
	return m.Sum(nil)
}

// cookieSecret returns the server-local secret the signing key is derived
// from: gozie.authentication.secret when set, else the contents of
// gozie.authentication.secret.file, else the data directory's
// GeneratedSecretFile, created on first use. A file is read only when no
// other user may read or change it.
func cookieSecret(c Config, dataDir string) ([]byte, error) {
	if s := c["gozie.authentication.secret"]; s != "" {
		return []byte(s), nil
	}
	if p := c["gozie.authentication.secret.file"]; p != "" {
		return readSecretFile("gozie.authentication.secret.file", p)
	}
	p := filepath.Join(dataDir, GeneratedSecretFile)
	sec, err := readSecretFile("the cookie secret", p)
	if errors.Is(err, fs.ErrNotExist) {
		return generateSecret(p)
	}
	return sec, err
}

// readSecretFile reads a secret file (what names the setting it comes
// from in errors). Text is trimmed of surrounding white space, so an
// editor's final newline does not count; other content is used as it is.
func readSecretFile(what, p string) ([]byte, error) {
	b, err := fsys.ReadPrivateFile(context.Background(), p, maxSecretFile)
	if err != nil {
		return nil, fileError(what, p, err)
	}
	if isText(b) {
		b = bytes.TrimSpace(b)
	}
	if len(b) < minSecretFile {
		return nil, fmt.Errorf("%s %s: the secret is %d bytes long; it must be at least %d (for instance: head -c 48 /dev/urandom | base64 > %s)",
			what, p, len(b), minSecretFile, p)
	}
	return b, nil
}

// isText reports whether b is printable UTF-8 text (white space allowed).
func isText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if !unicode.IsPrint(r) && !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// generateSecret creates the data directory's secret: 32 random bytes,
// hex-encoded, written to a private temporary file that is then linked
// into place, so that a crash never leaves a partial secret and two
// starts racing keep the first one's.
func generateSecret(p string) ([]byte, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	sec := []byte(hex.EncodeToString(raw[:]))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(p), "."+GeneratedSecretFile+"-*")
	if err != nil {
		return nil, fmt.Errorf("the cookie secret %s: %w", p, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	// CreateTemp makes the file 0600 already; Chmod states it whatever
	// the umask.
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(append(sec, '\n'))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp, p)
	}
	if errors.Is(err, fs.ErrExist) {
		return readSecretFile("the cookie secret", p)
	}
	if err != nil {
		return nil, fmt.Errorf("the cookie secret %s: %w", p, err)
	}
	syncDir(filepath.Dir(p))
	return sec, nil
}

// syncDir makes a new directory entry durable; a failure only risks
// generating the secret once more after a power loss.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// fileError names the setting and the file of an error reading a file
// the configuration names, without repeating the path.
func fileError(what, p string, err error) error {
	var re *fsys.ReadError
	if errors.As(err, &re) {
		return fmt.Errorf("%s: %w", what, err) // it names the file
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s %s: %w", what, p, pe.Err)
	}
	return fmt.Errorf("%s %s: %w", what, p, err)
}
