package gcs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"
	"cloud.google.com/go/auth/httptransport"
	"cloud.google.com/go/storage"
	"github.com/googleapis/gax-go/v2"
	"google.golang.org/api/option"

	"github.com/gozie/gozie/internal/fsys"
)

// scope is the OAuth scope requested: gozie reads, writes and deletes
// objects.
const scope = storage.ScopeReadWrite

// gcsFS is one bucket. Its client is made on first use, so that opening
// a store does no I/O (Application Default Credentials may probe the
// metadata server) and a failure to find credentials is retried on the
// next call instead of being remembered for good.
type gcsFS struct {
	bucket string
	store  string // "gs://bucket", the form of every path handed in
	set    settings

	mu sync.Mutex
	cl *storage.Client
	hc *http.Client // the client's HTTP client, for batch requests
}

func newFS(bucket string, s settings) *gcsFS {
	return &gcsFS{bucket: bucket, store: "gs://" + bucket, set: s}
}

// client returns the bucket's client, making it on first use.
func (g *gcsFS) client() (*storage.Client, *http.Client, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cl != nil {
		return g.cl, g.hc, nil
	}
	cl, hc, err := g.newClient()
	if err != nil {
		return nil, nil, err
	}
	g.cl, g.hc = cl, hc
	return cl, hc, nil
}

// newClient makes a JSON-API client (never gRPC: emulators speak JSON)
// whose HTTP transport has the configured timeouts and whose retries
// stop after the configured count.
func (g *gcsFS) newClient() (*storage.Client, *http.Client, error) {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.DialContext = (&net.Dialer{Timeout: g.set.connectTimeout, KeepAlive: 30 * time.Second}).DialContext
	base.ResponseHeaderTimeout = g.set.readTimeout
	base.MaxIdleConnsPerHost = 32 // the parallel copies and deletes
	hc := &http.Client{Transport: base}
	// JSON reads (/storage/v1/b/B/o/O?alt=media) rather than the XML
	// API's /B/O: emulators serve those only to their "public host".
	opts := []option.ClientOption{option.WithHTTPClient(hc), storage.WithJSONReads()}
	if g.set.auth == authNone {
		opts = append(opts, option.WithoutAuthentication())
	} else {
		creds, err := g.credentials()
		if err != nil {
			return nil, nil, err
		}
		if err := httptransport.AddAuthorizationMiddleware(hc, creds); err != nil {
			return nil, nil, fmt.Errorf("gs: %s: %w", g.store, err)
		}
		opts = append(opts, option.WithAuthCredentials(creds))
	}
	if g.set.rootURL != "" {
		opts = append(opts, option.WithEndpoint(g.set.rootURL+"storage/v1/"))
	}
	// The context only scopes the construction, which does no I/O here:
	// the credentials are already made.
	cl, err := storage.NewClient(context.Background(), opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("gs: %s: making the client: %w", g.store, err)
	}
	cl.SetRetry(
		// Every call gozie makes may be repeated: writes replace a whole
		// object, deletes of a missing object are ignored, copies land
		// on the same name.
		storage.WithPolicy(storage.RetryAlways),
		storage.WithMaxAttempts(g.set.maxRetry+1),
		storage.WithBackoff(gax.Backoff{Initial: 100 * time.Millisecond, Max: 10 * time.Second, Multiplier: 2}),
	)
	return cl, hc, nil
}

// credentials finds the credentials the settings ask for: the key file,
// or Application Default Credentials.
func (g *gcsFS) credentials() (*auth.Credentials, error) {
	if g.set.auth == authKeyFile {
		return g.keyFileCredentials()
	}
	creds, err := credentials.DetectDefault(&credentials.DetectOptions{Scopes: []string{scope}})
	if err != nil {
		return nil, &credError{
			msg: fmt.Sprintf("gs: %s: no Google Cloud credentials: set %s (or %s) to a service-account JSON key file, "+
				"or GOOGLE_APPLICATION_CREDENTIALS, or run where Application Default Credentials are found; "+
				"for an emulator set %s=%s and %s",
				g.store, KeyKeyFile, KeyKeyFileOld, KeyAuthTypeOld, authNone, KeyRootURL),
			cause: err,
		}
	}
	return creds, nil
}

// keyFileCredentials reads the service-account key file. Its content is
// a secret: no message quotes it, which is why a file that is not JSON
// is reported by offset only.
func (g *gcsFS) keyFileCredentials() (*auth.Credentials, error) {
	fail := func(what string, cause error) error {
		return &credError{msg: fmt.Sprintf("gs: %s: the service-account key file [%s] (%s) %s", g.store, g.set.keyFile, g.set.keyFileKey, what), cause: cause}
	}
	b, err := os.ReadFile(g.set.keyFile)
	if err != nil {
		return nil, fail("cannot be read", err)
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fail(fmt.Sprintf("is not JSON (at byte %d)", se.Offset), nil)
		}
		return nil, fail("is not a JSON object", nil)
	}
	if head.Type != string(credentials.ServiceAccount) {
		return nil, fail(fmt.Sprintf("is of type %q, not %q", head.Type, credentials.ServiceAccount), nil)
	}
	creds, err := credentials.NewCredentialsFromJSON(credentials.ServiceAccount, b, &credentials.DetectOptions{Scopes: []string{scope}})
	if err != nil {
		return nil, fail("cannot be used", err)
	}
	return creds, nil
}

// credError is missing or refused credentials: it matches
// fsys.ErrCredentials, and fs.ErrPermission too when the store refused
// them (refused).
type credError struct {
	msg     string
	cause   error
	refused bool
}

func (e *credError) Error() string {
	if e.cause == nil {
		return e.msg
	}
	return e.msg + ": " + e.cause.Error()
}

// Unwrap makes the error match fsys.ErrCredentials, fs.ErrPermission when
// the store refused the credentials, and the cause.
func (e *credError) Unwrap() []error {
	out := []error{fsys.ErrCredentials}
	if e.refused {
		out = append(out, fs.ErrPermission)
	}
	if e.cause != nil {
		out = append(out, e.cause)
	}
	return out
}
