package s3

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/gozie/gozie/internal/fsys"
)

// defaults is what an empty configuration gives bucket b.
func defaults() settings {
	return settings{store: "s3a://b", bucket: "b", blockSize: 32 << 20, partSize: 64 << 20,
		copyThreshold: 128 << 20, pageSize: 1000, retries: -1, maxConns: 64, bufferDir: os.TempDir()}
}

// Every key read, each with the bucket's override.
func TestReadSettings(t *testing.T) {
	cases := []struct {
		name string
		conf fsys.MapConfig
		set  func(*settings)
	}{
		{"empty", nil, func(*settings) {}},
		{"endpoint host", fsys.MapConfig{"fs.s3a.endpoint": "minio.local:9000"},
			func(s *settings) { s.endpoint, s.region = "https://minio.local:9000", "us-east-1" }},
		{"endpoint without TLS", fsys.MapConfig{"fs.s3a.endpoint": "minio.local:9000", "fs.s3a.connection.ssl.enabled": "false"},
			func(s *settings) { s.endpoint, s.region = "http://minio.local:9000", "us-east-1" }},
		{"endpoint URL", fsys.MapConfig{"fs.s3a.endpoint": "http://127.0.0.1:7070/", "fs.s3a.endpoint.region": "eu-west-3"},
			func(s *settings) { s.endpoint, s.region = "http://127.0.0.1:7070", "eu-west-3" }},
		{"AWS's global endpoint", fsys.MapConfig{"fs.s3a.endpoint": "s3.amazonaws.com"}, func(*settings) {}},
		{"region", fsys.MapConfig{"fs.s3a.region": "ap-south-1"}, func(s *settings) { s.region = "ap-south-1" }},
		{"endpoint.region wins", fsys.MapConfig{"fs.s3a.region": "ap-south-1", "fs.s3a.endpoint.region": "eu-north-1"},
			func(s *settings) { s.region = "eu-north-1" }},
		{"path style", fsys.MapConfig{"fs.s3a.path.style.access": "TRUE"}, func(s *settings) { s.pathStyle = true }},
		{"keys", fsys.MapConfig{"fs.s3a.access.key": "AK", "fs.s3a.secret.key": " SK ", "fs.s3a.session.token": "TOK"},
			func(s *settings) {
				s.accessKey, s.secretKey, s.sessionToken = "AK", "SK", "TOK"
				s.accessKeyName, s.secretKeyName = "fs.s3a.access.key", "fs.s3a.secret.key"
			}},
		{"empty keys mean the default chain", fsys.MapConfig{"fs.s3a.access.key": "", "fs.s3a.secret.key": ""}, func(*settings) {}},
		{"block size", fsys.MapConfig{"fs.s3a.block.size": "64m"}, func(s *settings) { s.blockSize = 64 << 20 }},
		{"block size in bytes", fsys.MapConfig{"fs.s3a.block.size": "1048576"}, func(s *settings) { s.blockSize = 1 << 20 }},
		{"block size in G", fsys.MapConfig{"fs.s3a.block.size": "1G"}, func(s *settings) { s.blockSize = 1 << 30 }},
		{"parts", fsys.MapConfig{"fs.s3a.multipart.size": "8M", "fs.s3a.multipart.threshold": "16m"},
			func(s *settings) { s.partSize, s.copyThreshold = 8<<20, 16<<20 }},
		{"paging", fsys.MapConfig{"fs.s3a.paging.maximum": "100"}, func(s *settings) { s.pageSize = 100 }},
		{"paging above S3's", fsys.MapConfig{"fs.s3a.paging.maximum": "5000"}, func(*settings) {}},
		{"retries", fsys.MapConfig{"fs.s3a.attempts.maximum": "0"}, func(s *settings) { s.retries = 0 }},
		{"timeouts in ms", fsys.MapConfig{"fs.s3a.connection.timeout": "200000", "fs.s3a.connection.establish.timeout": "5000"},
			func(s *settings) { s.readTimeout, s.connectTimeout = 200*time.Second, 5*time.Second }},
		{"timeouts with units", fsys.MapConfig{"fs.s3a.connection.timeout": "2m", "fs.s3a.connection.establish.timeout": "30s"},
			func(s *settings) { s.readTimeout, s.connectTimeout = 2*time.Minute, 30*time.Second }},
		{"connections", fsys.MapConfig{"fs.s3a.connection.maximum": "500"}, func(s *settings) { s.maxConns = 500 }},
		{"buffer dirs", fsys.MapConfig{"fs.s3a.buffer.dir": "/a, /b"}, func(s *settings) { s.bufferDir = "/a" }},
	}
	for _, c := range cases {
		want := defaults()
		c.set(&want)
		got, err := readSettings(c.conf, "s3a", "b")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("%s:\n got %+v\nwant %+v", c.name, *got, want)
		}
	}
}

// fs.s3a.bucket.<bucket>.<rest> replaces fs.s3a.<rest> for that bucket
// alone, even with an empty value, as S3A's does.
func TestPerBucketSettings(t *testing.T) {
	conf := fsys.MapConfig{
		"fs.s3a.endpoint":                    "global.example:9000",
		"fs.s3a.access.key":                  "GLOBAL",
		"fs.s3a.secret.key":                  "GLOBALSECRET",
		"fs.s3a.bucket.my.bucket.endpoint":   "http://mine.example",
		"fs.s3a.bucket.my.bucket.secret.key": "MINE",
		"fs.s3a.bucket.my.bucket.block.size": "128M",
		"fs.s3a.bucket.other.endpoint":       "",
		"fs.s3a.bucket.other.region":         "eu-west-1",
	}
	mine, err := readSettings(conf, "s3a", "my.bucket")
	if err != nil {
		t.Fatal(err)
	}
	if mine.endpoint != "http://mine.example" || mine.accessKey != "GLOBAL" || mine.secretKey != "MINE" ||
		mine.secretKeyName != "fs.s3a.bucket.my.bucket.secret.key" || mine.accessKeyName != "fs.s3a.access.key" || mine.blockSize != 128<<20 {
		t.Fatalf("my.bucket: %+v", mine)
	}
	other, err := readSettings(conf, "s3", "other")
	if err != nil {
		t.Fatal(err)
	}
	if other.endpoint != "" || other.region != "eu-west-1" || other.secretKey != "GLOBALSECRET" || other.store != "s3://other" {
		t.Fatalf("other: %+v", other)
	}
	third, err := readSettings(conf, "s3a", "third")
	if err != nil {
		t.Fatal(err)
	}
	if third.endpoint != "https://global.example:9000" || third.region != "us-east-1" || third.blockSize != 32<<20 {
		t.Fatalf("third: %+v", third)
	}
}

// Values that cannot be read are errors naming the key; credentials
// half set are ErrCredentials naming both keys; no secret is echoed.
func TestSettingErrors(t *testing.T) {
	cases := []struct {
		conf fsys.MapConfig
		want string
		cred bool
	}{
		{fsys.MapConfig{"fs.s3a.endpoint": "ftp://host"}, "fs.s3a.endpoint=ftp://host", false},
		{fsys.MapConfig{"fs.s3a.endpoint": "http://"}, "fs.s3a.endpoint=http://", false},
		{fsys.MapConfig{"fs.s3a.connection.ssl.enabled": "maybe"}, "fs.s3a.connection.ssl.enabled=maybe", false},
		{fsys.MapConfig{"fs.s3a.path.style.access": "1x"}, "fs.s3a.path.style.access=1x", false},
		{fsys.MapConfig{"fs.s3a.block.size": "12q"}, "fs.s3a.block.size=12q", false},
		{fsys.MapConfig{"fs.s3a.block.size": "0"}, "fs.s3a.block.size=0", false},
		{fsys.MapConfig{"fs.s3a.multipart.size": "4M"}, "fs.s3a.multipart.size=4M: at least", false},
		{fsys.MapConfig{"fs.s3a.multipart.threshold": "x"}, "fs.s3a.multipart.threshold=x", false},
		{fsys.MapConfig{"fs.s3a.paging.maximum": "0"}, "fs.s3a.paging.maximum=0", false},
		{fsys.MapConfig{"fs.s3a.attempts.maximum": "-1"}, "fs.s3a.attempts.maximum=-1", false},
		{fsys.MapConfig{"fs.s3a.connection.timeout": "5 fortnights"}, "fs.s3a.connection.timeout=5 fortnights", false},
		{fsys.MapConfig{"fs.s3a.connection.establish.timeout": "s"}, "fs.s3a.connection.establish.timeout=s", false},
		{fsys.MapConfig{"fs.s3a.connection.maximum": "many"}, "fs.s3a.connection.maximum=many", false},
		{fsys.MapConfig{"fs.s3a.bucket.b.block.size": "-5"}, "fs.s3a.bucket.b.block.size=-5", false},
		{fsys.MapConfig{"fs.s3a.access.key": "AK"}, "fs.s3a.access.key is set but fs.s3a.secret.key is not", true},
		{fsys.MapConfig{"fs.s3a.secret.key": "TOPSECRET"}, "fs.s3a.secret.key is set but fs.s3a.access.key is not", true},
		{fsys.MapConfig{"fs.s3a.access.key": "AK", "fs.s3a.bucket.b.secret.key": ""}, "fs.s3a.access.key is set but fs.s3a.bucket.b.secret.key is not", true},
	}
	for _, c := range cases {
		_, err := readSettings(c.conf, "s3a", "b")
		if err == nil || !strings.Contains(err.Error(), c.want) || errors.Is(err, fsys.ErrCredentials) != c.cred {
			t.Fatalf("%v: %v, want %q (credentials: %v)", c.conf, err, c.want, c.cred)
		}
		if strings.Contains(err.Error(), "TOPSECRET") {
			t.Fatalf("a secret in %v", err)
		}
	}
}

func TestParseBytesAndDurations(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "512": 512, "32M": 32 << 20, "64m": 64 << 20, "1k": 1024, "2G": 2 << 30, "1t": 1 << 40} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "M", "1.5M", "-1", "12q", "99999999999e"} {
		if got, err := parseBytes(in); err == nil {
			t.Errorf("parseBytes(%q) = %d, want an error", in, got)
		}
	}
	for in, want := range map[string]time.Duration{"200000": 200 * time.Second, "10ms": 10 * time.Millisecond,
		"30s": 30 * time.Second, "5m": 5 * time.Minute, "1h": time.Hour, "1d": 24 * time.Hour, "7 S": 7 * time.Second} {
		if got, err := parseDuration(in); err != nil || got != want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "s", "1w", "-5s", "1.5s"} {
		if got, err := parseDuration(in); err == nil {
			t.Errorf("parseDuration(%q) = %v, want an error", in, got)
		}
	}
}

// apiError is a store's error answer as the SDK hands it over.
func apiError(status int, code string) error {
	return &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
		Err:      &smithy.GenericAPIError{Code: code, Message: "words of the store"},
	}
}

// The mapping of the answers a test server cannot be made to give
// (throttling, 5xx), beside those the server tests see for real.
func TestClassify(t *testing.T) {
	s := &store{cfg: &settings{store: "s3a://b", bucket: "b", accessKeyName: "fs.s3a.access.key", secretKeyName: "fs.s3a.secret.key"}}
	cases := []struct {
		err  error
		want []error
		not  []error
	}{
		{apiError(404, "NoSuchKey"), []error{fs.ErrNotExist}, []error{fsys.ErrUnavailable}},
		{apiError(404, "NotFound"), []error{fs.ErrNotExist}, nil},
		{apiError(404, "NoSuchBucket"), []error{fs.ErrNotExist}, nil},
		{apiError(403, "AccessDenied"), []error{fs.ErrPermission}, []error{fsys.ErrCredentials}},
		{apiError(403, "Forbidden"), []error{fs.ErrPermission}, []error{fsys.ErrCredentials}},
		{apiError(403, "SignatureDoesNotMatch"), []error{fsys.ErrCredentials, fs.ErrPermission}, nil},
		{apiError(403, "InvalidAccessKeyId"), []error{fsys.ErrCredentials, fs.ErrPermission}, nil},
		{apiError(400, "ExpiredToken"), []error{fsys.ErrCredentials}, nil},
		{apiError(404, "XAdminUserNotFound"), []error{fsys.ErrCredentials}, []error{fs.ErrNotExist}},
		{apiError(503, "SlowDown"), []error{fsys.ErrUnavailable}, nil},
		{apiError(500, "InternalError"), []error{fsys.ErrUnavailable}, nil},
		{apiError(502, "BadGateway"), []error{fsys.ErrUnavailable}, nil},
		{apiError(429, "TooManyRequests"), []error{fsys.ErrUnavailable}, nil},
		{apiError(400, "RequestTimeout"), []error{fsys.ErrUnavailable}, nil},
		{apiError(409, "ObjectParentIsFile"), []error{fs.ErrExist}, nil},
		{apiError(400, "InvalidArgument"), nil, []error{fs.ErrNotExist, fs.ErrExist, fs.ErrPermission, fsys.ErrUnavailable, fsys.ErrCredentials}},
		{&smithyhttp.RequestSendError{Err: errors.New("connection reset by peer")}, []error{fsys.ErrUnavailable}, nil},
	}
	for _, c := range cases {
		err := s.fail("stat", "s3a://b/k", c.err)
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Path != "s3a://b/k" {
			t.Fatalf("%v: %v is not a *fs.PathError naming the path", c.err, err)
		}
		for _, w := range c.want {
			if !errors.Is(err, w) {
				t.Errorf("%v: %v does not match %v", c.err, err, w)
			}
		}
		for _, n := range c.not {
			if errors.Is(err, n) {
				t.Errorf("%v: %v matches %v", c.err, err, n)
			}
		}
	}
	if err := s.fail("stat", "s3a://b/k", apiError(301, "PermanentRedirect")); !strings.Contains(err.Error(), "fs.s3a.endpoint.region") {
		t.Errorf("a redirect = %v, want the region keys named", err)
	}
}
