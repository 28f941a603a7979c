package gcs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"

	"github.com/gozie/gozie/internal/fsys"
)

// The error classes of what the client library returns. The real
// server's answers are exercised in gcs_test.go; this table covers the
// statuses an emulator never gives (401, 403, 429, 5xx) in the shapes
// the library returns them.
func TestMapErr(t *testing.T) {
	g := newFS("b", settings{auth: authKeyFile, keyFileKey: KeyKeyFile})
	refusedConn := &url.Error{Op: "Get", URL: "http://127.0.0.1:1/x", Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	token := func(code int) error {
		return &url.Error{Op: "Get", URL: "https://storage.googleapis.com/x", Err: &auth.Error{Response: &http.Response{StatusCode: code}, Body: []byte(`{"error":"invalid_grant"}`)}}
	}
	api := func(code int) error { return &googleapi.Error{Code: code, Message: http.StatusText(code)} }
	const (
		notExist = iota
		exist
		permission
		credentials
		unavailable
		other
		canceled
	)
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"object missing", storage.ErrObjectNotExist, notExist},
		{"bucket missing", storage.ErrBucketNotExist, notExist},
		{"404", api(404), notExist},
		{"409", api(409), exist},
		{"412", fmt.Errorf("wrapped: %w", api(412)), exist},
		{"403", api(403), permission},
		{"401", api(401), credentials},
		{"token refused", token(400), credentials},
		{"token service down", token(503), unavailable},
		{"token service throttling", token(429), unavailable},
		{"408", api(408), unavailable},
		{"429", api(429), unavailable},
		{"500", api(500), unavailable},
		{"503 after retries", fmt.Errorf("retry failed after 3 attempts; last error: %w", api(503)), unavailable},
		{"400", api(400), other},
		{"connection refused", refusedConn, unavailable},
		{"connection reset", &url.Error{Op: "Get", URL: "u", Err: syscall.ECONNRESET}, unavailable},
		{"cut short", io.ErrUnexpectedEOF, unavailable},
		{"deadline", context.DeadlineExceeded, unavailable},
		{"header timeout", &url.Error{Op: "Get", URL: "u", Err: timeoutErr{}}, unavailable},
		{"no such host", &url.Error{Op: "Get", URL: "u", Err: &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}}, unavailable},
		{"bad key in the transport", &url.Error{Op: "Get", URL: "u", Err: errors.New("credentials: private key should be a PEM")}, other},
		{"canceled", context.Canceled, canceled},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := g.mapErr("stat", "gs://b/k", c.err)
			is := map[int]bool{
				notExist:    errors.Is(err, fs.ErrNotExist),
				exist:       errors.Is(err, fs.ErrExist),
				permission:  errors.Is(err, fs.ErrPermission),
				credentials: errors.Is(err, fsys.ErrCredentials),
				unavailable: errors.Is(err, fsys.ErrUnavailable),
				canceled:    errors.Is(err, context.Canceled),
			}
			for class, ok := range is {
				want := class == c.want || c.want == credentials && class == permission // refused credentials are a refusal too
				if ok != want {
					t.Errorf("mapErr(%v) = %v: class %d is %v", c.err, err, class, ok)
				}
			}
			if c.want == unavailable && !strings.Contains(err.Error(), "gs://b") {
				t.Errorf("unavailable error %q does not name the store", err)
			}
			if c.want == credentials && !strings.Contains(err.Error(), KeyKeyFile) {
				t.Errorf("credentials error %q does not name %s", err, KeyKeyFile)
			}
			var pe *fs.PathError
			if (c.want == notExist || c.want == exist || c.want == permission) && (!errors.As(err, &pe) || pe.Path != "gs://b/k") {
				t.Errorf("mapErr(%v) = %#v, want a *fs.PathError naming the path", c.err, err)
			}
		})
	}
	if g.mapErr("x", "p", nil) != nil {
		t.Fatal("mapErr(nil) is not nil")
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "net/http: timeout awaiting response headers" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }
