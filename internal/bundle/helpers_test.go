package bundle

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/conf"
)

// memFiles reads from a map; an absent name is fs.ErrNotExist.
func memFiles(files map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
}

// doc is a bundle-app document of namespace version v ("0.1", "0.2").
func doc(v, attrs, body string) string {
	if attrs == "" {
		attrs = `name="b"`
	}
	return `<bundle-app xmlns="uri:oozie:bundle:` + v + `" ` + attrs + `>` + body + `</bundle-app>`
}

// coordEl is a <coordinator> with the given attributes and body.
func coordEl(attrs, body string) string {
	return `<coordinator ` + attrs + `>` + body + `</coordinator>`
}

// props builds a job configuration from name=value pairs.
func props(pairs ...string) *conf.Config {
	c := conf.New()
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		c.Set(k, v)
	}
	return c
}

// wantErr checks err against an expected code and message part ("" code:
// no error expected).
func wantErr(t *testing.T, err error, code, part string) {
	t.Helper()
	if code == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want %s %q", code, part)
	}
	if got := ErrorCode(err); got != code {
		t.Fatalf("code %s, want %s: %v", got, code, err)
	}
	if !strings.Contains(err.Error(), part) {
		t.Fatalf("error %q does not contain %q", err.Error(), part)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T is not a coded *Error", err)
	}
}
