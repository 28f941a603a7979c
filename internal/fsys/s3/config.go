package s3

import (
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/fsys"
)

// Defaults where a key is unset.
const (
	defaultBlockSize = 32 << 20 // what S3A reports, fs.s3a.block.size
	// defaultPartSize is S3A's fs.s3a.multipart.size: the part size of
	// multipart uploads and copies, and the size up to which an upload
	// is one PUT.
	defaultPartSize = 64 << 20
	// minPartSize is S3's own floor for every part but the last.
	minPartSize = 5 << 20
	// defaultCopyThreshold is S3A's fs.s3a.multipart.threshold: larger
	// objects are copied (renamed) part by part.
	defaultCopyThreshold = 128 << 20
	// maxSingleCopy is S3's ceiling for one CopyObject.
	maxSingleCopy = 5 << 30
	// defaultPageSize is the most keys S3 returns in one listing.
	defaultPageSize = 1000
	// defaultMaxConns bounds the idle connections kept to the store.
	defaultMaxConns = 64
	defaultRegion   = "us-east-1"
)

// settings is what the backend of one bucket runs with, read from the
// fs.s3a.* keys with the bucket's fs.s3a.bucket.<bucket>.* overrides.
type settings struct {
	store  string // scheme://bucket, as errors name it
	bucket string
	// endpoint is a URL with its scheme; "" lets the SDK find AWS's
	// endpoint for the region.
	endpoint  string
	region    string
	pathStyle bool

	// Static credentials; all empty means the AWS default chain.
	accessKey, secretKey, sessionToken string
	// keyNames are the keys that gave the static credentials (per-bucket
	// ones where those were set), named when the store refuses them.
	accessKeyName, secretKeyName string

	blockSize      int64
	partSize       int64
	copyThreshold  int64
	pageSize       int32
	retries        int // -1: the SDK's default attempts
	connectTimeout time.Duration
	readTimeout    time.Duration
	maxConns       int
	bufferDir      string
}

// lookup reads fs.s3a.<rest> for one bucket: S3A's rule is that
// fs.s3a.bucket.<bucket>.<rest>, when set, replaces fs.s3a.<rest>.
type lookup struct {
	c      fsys.Config
	bucket string
}

// get returns the value of fs.s3a.<rest> for the bucket, trimmed, and the
// key it came from; ok is false when neither key is set.
func (l lookup) get(rest string) (val, key string, ok bool) {
	if l.c == nil {
		return "", "fs.s3a." + rest, false
	}
	key = "fs.s3a.bucket." + l.bucket + "." + rest
	if v, ok := l.c.Get(key); ok {
		return strings.TrimSpace(v), key, true
	}
	key = "fs.s3a." + rest
	v, ok := l.c.Get(key)
	return strings.TrimSpace(v), key, ok
}

// str returns the value of fs.s3a.<rest>, "" when unset.
func (l lookup) str(rest string) string {
	v, _, _ := l.get(rest)
	return v
}

// boolean reads a true/false key.
func (l lookup) boolean(rest string, def bool) (bool, error) {
	v, key, ok := l.get(rest)
	if !ok || v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(strings.ToLower(v))
	if err != nil {
		return false, fmt.Errorf("%s=%s: want true or false", key, v)
	}
	return b, nil
}

// bytes reads a size in Hadoop's form (a number of bytes, or a number
// with one of the suffixes k, m, g, t, p, e, in either case).
func (l lookup) bytes(rest string, def, min int64) (int64, error) {
	v, key, ok := l.get(rest)
	if !ok || v == "" {
		return def, nil
	}
	n, err := parseBytes(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%s: %v", key, v, err)
	}
	if n < min {
		return 0, fmt.Errorf("%s=%s: at least %d bytes", key, v, min)
	}
	return n, nil
}

// integer reads a whole number no smaller than min.
func (l lookup) integer(rest string, def, min int) (int, error) {
	v, key, ok := l.get(rest)
	if !ok || v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min {
		return 0, fmt.Errorf("%s=%s: want a whole number of at least %d", key, v, min)
	}
	return n, nil
}

// duration reads a time in Hadoop's form: milliseconds, or a number with
// a unit (ns, us, ms, s, m, h, d).
func (l lookup) duration(rest string) (time.Duration, error) {
	v, key, ok := l.get(rest)
	if !ok || v == "" {
		return 0, nil
	}
	d, err := parseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%s: %v", key, v, err)
	}
	return d, nil
}

// parseBytes reads Hadoop's byte sizes ("32M", "64m", "134217728").
func parseBytes(v string) (int64, error) {
	if v == "" {
		return 0, fmt.Errorf("not a size in bytes")
	}
	mult := int64(1)
	if last := v[len(v)-1]; last < '0' || last > '9' {
		shift, ok := map[byte]uint{'k': 10, 'm': 20, 'g': 30, 't': 40, 'p': 50, 'e': 60}[lower(last)]
		if !ok {
			return 0, fmt.Errorf("unknown size suffix %q (want k, m, g, t, p or e)", last)
		}
		mult, v = int64(1)<<shift, v[:len(v)-1]
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 || (n > 0 && mult > (1<<63-1)/n) {
		return 0, fmt.Errorf("not a size in bytes")
	}
	return n * mult, nil
}

func lower(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// parseDuration reads Hadoop's durations: a bare number is milliseconds,
// the unit of every fs.s3a timeout.
func parseDuration(v string) (time.Duration, error) {
	i := len(v)
	for i > 0 && (v[i-1] < '0' || v[i-1] > '9') {
		i--
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v[:i]), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("not a duration (milliseconds, or a number with ns, us, ms, s, m, h or d)")
	}
	units := map[string]time.Duration{"": time.Millisecond, "ns": time.Nanosecond, "us": time.Microsecond,
		"ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	u, ok := units[strings.ToLower(strings.TrimSpace(v[i:]))]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q (want ns, us, ms, s, m, h or d)", v[i:])
	}
	return time.Duration(n) * u, nil
}

// readSettings reads the settings of bucket from c. A key with a value
// that cannot be read is an error naming it; a secret's value is never
// part of an error.
func readSettings(c fsys.Config, scheme, bucket string) (*settings, error) {
	l := lookup{c: c, bucket: bucket}
	s := &settings{store: scheme + "://" + bucket, bucket: bucket}
	var err error
	if s.endpoint, err = readEndpoint(l); err != nil {
		return nil, err
	}
	s.region = l.str("endpoint.region")
	if s.region == "" {
		s.region = l.str("region")
	}
	if s.region == "" && s.endpoint != "" {
		s.region = defaultRegion
	}
	if s.pathStyle, err = l.boolean("path.style.access", false); err != nil {
		return nil, err
	}
	if err := readCredentials(l, s); err != nil {
		return nil, err
	}
	if err := readTuning(l, s); err != nil {
		return nil, err
	}
	return s, nil
}

// readEndpoint turns fs.s3a.endpoint (a host, host:port or URL) into a
// URL: plain HTTP for an http:// URL or fs.s3a.connection.ssl.enabled
// false, HTTPS otherwise. AWS's global endpoint means "let the SDK pick
// the region's", as S3A treats it.
func readEndpoint(l lookup) (string, error) {
	v, key, _ := l.get("endpoint")
	ssl, err := l.boolean("connection.ssl.enabled", true)
	if err != nil {
		return "", err
	}
	switch strings.TrimSuffix(strings.ToLower(v), "/") {
	case "", "s3.amazonaws.com", "https://s3.amazonaws.com":
		return "", nil
	}
	if !strings.Contains(v, "://") {
		scheme := "https://"
		if !ssl {
			scheme = "http://"
		}
		v = scheme + v
	}
	u, err := url.Parse(v)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("%s=%s: want a host name, host:port or an http(s) URL", key, v)
	}
	return strings.TrimSuffix(v, "/"), nil
}

// readCredentials reads the static keys. Both or neither of the access and
// secret key must be set: neither means the AWS default chain.
func readCredentials(l lookup, s *settings) error {
	var ak, sk bool
	s.accessKey, s.accessKeyName, ak = l.get("access.key")
	s.secretKey, s.secretKeyName, sk = l.get("secret.key")
	ak, sk = ak && s.accessKey != "", sk && s.secretKey != ""
	s.sessionToken = l.str("session.token")
	store := s.store
	switch {
	case ak && !sk:
		return &credError{store: store, msg: fmt.Sprintf("%s is set but %s is not: set both, or neither to use the AWS default credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, an instance role)", s.accessKeyName, s.secretKeyName)}
	case sk && !ak:
		return &credError{store: store, msg: fmt.Sprintf("%s is set but %s is not: set both, or neither to use the AWS default credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, an instance role)", s.secretKeyName, s.accessKeyName)}
	case !ak:
		s.accessKey, s.secretKey, s.accessKeyName, s.secretKeyName = "", "", "", ""
	}
	return nil
}

// readTuning reads the sizes, timeouts and limits.
func readTuning(l lookup, s *settings) error {
	var err error
	if s.blockSize, err = l.bytes("block.size", defaultBlockSize, 1); err != nil {
		return err
	}
	if s.partSize, err = l.bytes("multipart.size", defaultPartSize, minPartSize); err != nil {
		return err
	}
	if s.copyThreshold, err = l.bytes("multipart.threshold", defaultCopyThreshold, minPartSize); err != nil {
		return err
	}
	page, err := l.integer("paging.maximum", defaultPageSize, 1)
	if err != nil {
		return err
	}
	s.pageSize = int32(min(page, defaultPageSize)) // S3 never returns more
	if s.retries, err = l.integer("attempts.maximum", -1, 0); err != nil {
		return err
	}
	if s.connectTimeout, err = l.duration("connection.establish.timeout"); err != nil {
		return err
	}
	if s.readTimeout, err = l.duration("connection.timeout"); err != nil {
		return err
	}
	if s.maxConns, err = l.integer("connection.maximum", defaultMaxConns, 1); err != nil {
		return err
	}
	s.bufferDir = l.str("buffer.dir")
	if i := strings.IndexByte(s.bufferDir, ','); i >= 0 { // S3A takes a list
		s.bufferDir = strings.TrimSpace(s.bufferDir[:i])
	}
	if s.bufferDir == "" {
		s.bufferDir = os.TempDir()
	}
	return nil
}
