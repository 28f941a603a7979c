// Package s3 is the file-system backend of Amazon S3 and the stores that
// speak its API (MinIO, Ceph, versitygw, ...): the schemes s3a, s3 and
// s3n, all three alike (Hadoop's s3 and s3n connectors are gone, but
// users' paths still name them). It reads Hadoop S3A's configuration keys
// (fs.s3a.*, with S3A's per-bucket overrides fs.s3a.bucket.<bucket>.*),
// so that the settings users already have keep working.
//
// A directory is a prefix with objects below it or a zero-length marker
// object "prefix/"; see docs/storage.md for what each operation does
// on the store and what it costs in requests.
package s3

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	s3api "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"
	"github.com/aws/smithy-go/middleware"

	"github.com/gozie/gozie/internal/fsys"
)

// Schemes are the URI schemes this backend serves.
var Schemes = []string{"s3a", "s3", "s3n"}

func init() {
	fsys.Register(fsys.Backend{
		Name:         "S3",
		Schemes:      Schemes,
		ConfPrefixes: []string{"fs.s3a."},
		Open:         Open,
	})
}

// store is the backend of one bucket.
type store struct {
	cfg    *settings
	client *s3api.Client
	// root is scheme://bucket, the prefix of every path it is handed.
	root string
}

// Open returns the backend of the bucket uri names, configured from c.
// It makes no request: the client connects on first use, and credentials
// from the AWS default chain are looked for then.
func Open(ctx context.Context, uri *url.URL, c fsys.Config) (fsys.FileSystem, error) {
	scheme := strings.ToLower(uri.Scheme)
	if uri.User != nil {
		// Hadoop dropped secrets in URIs; never echo them.
		return nil, &credError{store: scheme + "://<user-info hidden>@" + uri.Host,
			msg: "credentials in the URI are not supported: set fs.s3a.access.key and fs.s3a.secret.key"}
	}
	bucket := strings.ToLower(uri.Host)
	if bucket == "" || uri.Port() != "" {
		return nil, fmt.Errorf("%s://%s: an S3 path names its bucket as the authority: %s://bucket/path", scheme, uri.Host, scheme)
	}
	cfg, err := readSettings(c, scheme, bucket)
	if err != nil {
		return nil, err
	}
	client, err := newClient(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.store, err)
	}
	return &store{cfg: cfg, client: client, root: cfg.store}, nil
}

// newClient builds the SDK client of one bucket. With static keys it
// reads nothing but the settings, so that a job's fs.s3a.* keys fully
// decide where it goes; without, it loads the AWS default configuration
// (environment, shared files, instance and container roles) for the
// credentials and, when no region is set, the region.
func newClient(ctx context.Context, cfg *settings) (*s3api.Client, error) {
	opts := s3api.Options{
		Region:       cfg.region,
		UsePathStyle: cfg.pathStyle,
		HTTPClient:   httpClient(cfg),
		APIOptions:   []func(*middleware.Stack) error{countRequests},
		// S3-compatible stores often lack the newer checksums the SDK
		// sends by default; send them only where an operation needs one.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	}
	if cfg.endpoint != "" {
		opts.BaseEndpoint = aws.String(cfg.endpoint)
	}
	if cfg.retries >= 0 {
		opts.RetryMaxAttempts = cfg.retries + 1
	}
	if cfg.accessKey != "" {
		opts.Credentials = aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(cfg.accessKey, cfg.secretKey, cfg.sessionToken))
		if opts.Region == "" {
			opts.Region = envRegion()
		}
		return s3api.New(opts), nil
	}
	// The SDK's own log lines (IMDS fallbacks) would land on the user's
	// terminal or the server log unasked; what matters reaches the
	// caller as the error, which names the keys to set.
	loadOpts := []func(*config.LoadOptions) error{config.WithLogger(logging.Nop{})}
	if cfg.region != "" {
		loadOpts = append(loadOpts, config.WithRegion(cfg.region))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, loadOpts...)
	if err != nil {
		return nil, fmt.Errorf("loading the AWS default configuration: %w", err)
	}
	if opts.Region == "" {
		opts.Region = awsCfg.Region
	}
	if opts.Region == "" {
		opts.Region = defaultRegion
	}
	opts.Credentials = aws.NewCredentialsCache(chainProvider{awsCfg.Credentials})
	return s3api.New(opts), nil
}

// envRegion is the region of the AWS environment variables, else
// us-east-1.
func envRegion() string {
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	return defaultRegion
}

// chainProvider marks the AWS default chain's failures, so that they are
// reported as missing credentials naming the keys to set.
type chainProvider struct{ p aws.CredentialsProvider }

func (c chainProvider) Retrieve(ctx context.Context) (aws.Credentials, error) {
	if c.p == nil {
		return aws.Credentials{}, &chainError{err: fmt.Errorf("no credentials provider")}
	}
	v, err := c.p.Retrieve(ctx)
	if err != nil {
		return v, &chainError{err: err}
	}
	return v, nil
}

// httpClient applies the connection settings: fs.s3a.connection.timeout
// is the time a connection may stay silent, establish.timeout the time to
// connect, connection.maximum the idle connections kept.
func httpClient(cfg *settings) *awshttp.BuildableClient {
	c := awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConnsPerHost = cfg.maxConns
		if t.MaxIdleConns < cfg.maxConns {
			t.MaxIdleConns = cfg.maxConns
		}
	})
	if cfg.connectTimeout > 0 {
		c = c.WithDialerOptions(func(d *net.Dialer) { d.Timeout = cfg.connectTimeout })
	}
	if cfg.readTimeout > 0 {
		c = c.WithReadTimeout(cfg.readTimeout)
	}
	return c
}

// key returns the object key of path p of this store, "" for the root.
func (s *store) key(op, p string) (string, error) {
	rest, ok := strings.CutPrefix(p, s.root)
	if !ok || (rest != "" && rest[0] != '/') {
		return "", &os.PathError{Op: op, Path: p, Err: fmt.Errorf("not a path of %s", s.root)}
	}
	return strings.TrimPrefix(rest, "/"), nil
}

// uri returns the path of key in this store's canonical form.
func (s *store) uri(key string) string {
	if key == "" {
		return s.root
	}
	return s.root + "/" + key
}

// parentKey returns the key of the directory holding key, "" for the
// bucket root.
func parentKey(key string) string {
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		return key[:i]
	}
	return ""
}
