// Package gcs is gozie's Google Cloud Storage backend: it serves gs://
// paths (gs://bucket/path/to/object) through the JSON API of Google's Go
// client, configured by the Cloud Storage connector's keys
// (docs/storage.md lists them). Importing the package registers it
// with fsys; internal/fsys/all imports it.
//
// Cloud Storage has objects, not directories. A directory here is a
// prefix with objects below it, or a zero-length marker object whose name
// ends in "/" (what MkdirAll writes and what the connector writes too);
// Rename copies every object and then deletes the originals, so it is not
// atomic; chmod and chgrp are not supported and setrep does nothing.
package gcs

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/fsys"
)

// The configuration keys the backend reads: the GCS connector's names,
// plus gozie's UNAUTHENTICATED auth type for an emulator.
const (
	// KeyAuthType and KeyAuthTypeOld choose how to authenticate:
	// SERVICE_ACCOUNT_JSON_KEYFILE, APPLICATION_DEFAULT (COMPUTE_ENGINE is
	// taken as a synonym) or UNAUTHENTICATED. Unset: the key file when one
	// is configured, Application Default Credentials otherwise.
	KeyAuthType    = "google.cloud.auth.type"
	KeyAuthTypeOld = "fs.gs.auth.type"
	// KeyKeyFile and KeyKeyFileOld name a service-account JSON key file.
	KeyKeyFile    = "google.cloud.auth.service.account.json.keyfile"
	KeyKeyFileOld = "fs.gs.auth.service.account.json.keyfile"
	// KeyProjectID is the project requester-pays requests are billed to
	// when KeyRequesterPaysProject is unset.
	KeyProjectID = "fs.gs.project.id"
	// KeyRootURL overrides the API root (https://storage.googleapis.com/):
	// an emulator's address.
	KeyRootURL = "fs.gs.storage.root.url"
	// KeyBlockSize is the block size reported for objects (Hadoop sizes:
	// 67108864, 64m).
	KeyBlockSize = "fs.gs.block.size"
	// KeyMaxRetry is how many times a failed request (5xx, 408, 429, a
	// broken connection) is retried before the store counts as
	// unavailable.
	KeyMaxRetry = "fs.gs.http.max.retry"
	// KeyConnectTimeout and KeyReadTimeout bound connecting and waiting
	// for a response's headers (milliseconds, or a number with a unit:
	// 5s, 2m).
	KeyConnectTimeout = "fs.gs.http.connect-timeout"
	KeyReadTimeout    = "fs.gs.http.read-timeout"
	// KeyListPage is the page size of listings (at most 1000, the API's
	// limit).
	KeyListPage = "fs.gs.list.max.items.per.call"
	// KeyRequesterPays (DISABLED or ENABLED) bills requests to a project
	// of the caller's, for buckets that demand it:
	// KeyRequesterPaysProject, or KeyProjectID when that is unset.
	KeyRequesterPays        = "fs.gs.requester.pays.mode"
	KeyRequesterPaysProject = "fs.gs.requester.pays.project.id"
)

// EmulatorEnv is the variable Google's client libraries read for an
// emulator's host (host:port or a URL); set, it means no authentication.
const EmulatorEnv = "STORAGE_EMULATOR_HOST"

// Defaults of what the keys set.
const (
	defaultBlockSize      = 32 << 20
	defaultMaxRetry       = 10
	defaultConnectTimeout = 5 * time.Second
	defaultReadTimeout    = 20 * time.Second
	defaultListPage       = 1000
	defaultRootURL        = "https://storage.googleapis.com/"
)

// Authentication kinds.
const (
	authKeyFile = "SERVICE_ACCOUNT_JSON_KEYFILE"
	authDefault = "APPLICATION_DEFAULT"
	authNone    = "UNAUTHENTICATED"
)

func init() {
	fsys.Register(fsys.Backend{
		Name:         "Google Cloud Storage",
		Schemes:      []string{"gs"},
		ConfPrefixes: []string{"fs.gs.", "google.cloud."},
		Open:         open,
	})
}

// settings is a store's configuration, parsed once when it is opened.
type settings struct {
	auth       string // authKeyFile, authDefault or authNone
	keyFile    string // path of the key file (auth == authKeyFile)
	keyFileKey string // the key that named it, for messages
	// rootURL is the API root with a trailing slash; "" leaves the
	// choice to the library (Google's endpoint, or the emulator's).
	rootURL string
	// apiRoot is the API root in force (rootURL, the emulator's, or
	// Google's), where batch requests go.
	apiRoot        string
	blockSize      int64
	maxRetry       int
	connectTimeout time.Duration
	readTimeout    time.Duration
	listPage       int
	userProject    string // requester pays: the project billed, or ""
}

// open is the backend's Open: it parses the configuration only; the
// client, and the credentials it needs, are made on first use.
func open(_ context.Context, uri *url.URL, c fsys.Config) (fsys.FileSystem, error) {
	bucket := strings.ToLower(uri.Host)
	if bucket == "" || uri.User != nil || uri.Port() != "" {
		return nil, fmt.Errorf("gs: [%s] does not name a bucket (gs://bucket/path)", uri)
	}
	s, err := parseSettings(c, os.Getenv)
	if err != nil {
		return nil, err
	}
	return newFS(bucket, s), nil
}

// parseSettings reads every key the backend knows from c; getenv is
// os.Getenv but for tests.
func parseSettings(c fsys.Config, getenv func(string) string) (settings, error) {
	s := settings{
		blockSize: defaultBlockSize, maxRetry: defaultMaxRetry, listPage: defaultListPage,
		connectTimeout: defaultConnectTimeout, readTimeout: defaultReadTimeout,
	}
	get := func(k string) string {
		v, _ := c.Get(k)
		return strings.TrimSpace(v)
	}
	first := func(keys ...string) (string, string) {
		for _, k := range keys {
			if v := get(k); v != "" {
				return v, k
			}
		}
		return "", ""
	}
	s.keyFile, s.keyFileKey = first(KeyKeyFile, KeyKeyFileOld)
	auth, authKey := first(KeyAuthType, KeyAuthTypeOld)
	switch strings.ToUpper(auth) {
	case "":
		s.auth = authDefault
		if s.keyFile != "" {
			s.auth = authKeyFile
		}
	case authKeyFile:
		if s.keyFile == "" {
			return s, &credError{msg: fmt.Sprintf("gs: %s=%s but no key file is set: set %s (or %s) to the path of a service-account JSON key file",
				authKey, auth, KeyKeyFile, KeyKeyFileOld)}
		}
		s.auth = authKeyFile
	case authDefault, "COMPUTE_ENGINE":
		s.auth = authDefault
	case authNone:
		s.auth = authNone
	default:
		return s, fmt.Errorf("gs: %s=%s is not supported: use %s, %s or %s", authKey, auth, authKeyFile, authDefault, authNone)
	}
	s.apiRoot = defaultRootURL
	if host := strings.TrimSpace(getenv(EmulatorEnv)); host != "" {
		// As Google's libraries do: an emulator takes no credentials.
		s.auth = authNone
		if !strings.Contains(host, "://") {
			host = "http://" + host
		}
		s.apiRoot = strings.TrimSuffix(host, "/") + "/"
	}
	if v := get(KeyRootURL); v != "" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return s, fmt.Errorf("gs: %s=%s is not an http(s) URL", KeyRootURL, v)
		}
		s.rootURL = strings.TrimSuffix(v, "/") + "/"
		s.apiRoot = s.rootURL
	}
	if err := parseNumbers(&s, get); err != nil {
		return s, err
	}
	return s, parseRequesterPays(&s, get)
}

// parseNumbers reads the sizes, counts and durations.
func parseNumbers(s *settings, get func(string) string) error {
	if v := get(KeyBlockSize); v != "" {
		n, err := parseBytes(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("gs: %s=%s is not a positive size (bytes, or a number with k, m, g)", KeyBlockSize, v)
		}
		s.blockSize = n
	}
	if v := get(KeyMaxRetry); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("gs: %s=%s is not a count of retries", KeyMaxRetry, v)
		}
		s.maxRetry = n
	}
	if v := get(KeyListPage); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("gs: %s=%s is not a positive count", KeyListPage, v)
		}
		s.listPage = min(n, 1000) // the API's own maximum
	}
	for _, d := range []struct {
		key string
		to  *time.Duration
	}{{KeyConnectTimeout, &s.connectTimeout}, {KeyReadTimeout, &s.readTimeout}} {
		if v := get(d.key); v != "" {
			t, err := parseDuration(v)
			if err != nil || t <= 0 {
				return fmt.Errorf("gs: %s=%s is not a positive duration (milliseconds, or a number with ms, s, m, h)", d.key, v)
			}
			*d.to = t
		}
	}
	return nil
}

// parseRequesterPays reads the requester-pays mode and its project.
func parseRequesterPays(s *settings, get func(string) string) error {
	switch mode := strings.ToUpper(get(KeyRequesterPays)); mode {
	case "", "DISABLED":
		return nil
	case "ENABLED":
		p := get(KeyRequesterPaysProject)
		if p == "" {
			p = get(KeyProjectID)
		}
		if p == "" {
			return fmt.Errorf("gs: %s=ENABLED needs a project to bill: set %s or %s", KeyRequesterPays, KeyRequesterPaysProject, KeyProjectID)
		}
		s.userProject = p
		return nil
	default:
		return fmt.Errorf("gs: %s=%s is not supported: use DISABLED or ENABLED", KeyRequesterPays, mode)
	}
}

// parseBytes reads a size as Hadoop's Configuration.getLongBytes does: a
// number, optionally followed by k, m, g, t, p or e (powers of 1024).
func parseBytes(v string) (int64, error) {
	v = strings.ToLower(strings.TrimSpace(v))
	shift := 0
	if v != "" {
		if i := strings.IndexByte("kmgtpe", v[len(v)-1]); i >= 0 {
			shift = 10 * (i + 1)
			v = v[:len(v)-1]
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, err
	}
	if shift > 0 && (n > (1<<63-1)>>shift || n < -(1<<63)>>shift) {
		return 0, fmt.Errorf("size %s overflows", v)
	}
	return n << shift, nil
}

// parseDuration reads a duration as Hadoop's getTimeDuration does with
// milliseconds as the unit: a bare number is milliseconds, a suffix (ns,
// us, ms, s, m, h, d) names another unit.
func parseDuration(v string) (time.Duration, error) {
	v = strings.ToLower(strings.TrimSpace(v))
	units := []struct {
		suffix string
		unit   time.Duration
	}{
		{"ns", time.Nanosecond}, {"us", time.Microsecond}, {"ms", time.Millisecond},
		{"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}, {"d", 24 * time.Hour},
	}
	unit := time.Millisecond
	for _, u := range units {
		if num, ok := strings.CutSuffix(v, u.suffix); ok {
			v, unit = num, u.unit
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, err
	}
	return time.Duration(n) * unit, nil
}
