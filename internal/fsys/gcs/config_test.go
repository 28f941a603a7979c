package gcs

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/fsys"
)

// Every key the backend reads, its defaults, the precedence between the
// connector's old and new names, the emulator variable, and the messages
// of what is refused.
func TestParseSettings(t *testing.T) {
	defaults := settings{
		auth: authDefault, apiRoot: defaultRootURL, blockSize: 32 << 20, maxRetry: 10,
		connectTimeout: 5 * time.Second, readTimeout: 20 * time.Second, listPage: 1000,
	}
	cases := []struct {
		name string
		conf fsys.MapConfig
		env  string // STORAGE_EMULATOR_HOST
		want func(*settings)
		err  []string // substrings of the error; nil: no error
		cred bool     // the error matches fsys.ErrCredentials
	}{
		{name: "defaults", want: func(*settings) {}},
		{name: "key file", conf: fsys.MapConfig{KeyKeyFile: "/k.json"},
			want: func(s *settings) { s.auth, s.keyFile, s.keyFileKey = authKeyFile, "/k.json", KeyKeyFile }},
		{name: "old key file", conf: fsys.MapConfig{KeyKeyFileOld: " /old.json "},
			want: func(s *settings) { s.auth, s.keyFile, s.keyFileKey = authKeyFile, "/old.json", KeyKeyFileOld }},
		{name: "new key file wins", conf: fsys.MapConfig{KeyKeyFile: "/new.json", KeyKeyFileOld: "/old.json"},
			want: func(s *settings) { s.auth, s.keyFile, s.keyFileKey = authKeyFile, "/new.json", KeyKeyFile }},
		{name: "unauthenticated", conf: fsys.MapConfig{KeyAuthType: "UNAUTHENTICATED"},
			want: func(s *settings) { s.auth = authNone }},
		{name: "old auth type, any case", conf: fsys.MapConfig{KeyAuthTypeOld: "unauthenticated"},
			want: func(s *settings) { s.auth = authNone }},
		{name: "new auth type wins", conf: fsys.MapConfig{KeyAuthType: "APPLICATION_DEFAULT", KeyAuthTypeOld: "UNAUTHENTICATED"},
			want: func(*settings) {}},
		{name: "application default over a key file", conf: fsys.MapConfig{KeyAuthTypeOld: "APPLICATION_DEFAULT", KeyKeyFile: "/k.json"},
			want: func(s *settings) { s.keyFile, s.keyFileKey = "/k.json", KeyKeyFile }},
		{name: "compute engine is application default", conf: fsys.MapConfig{KeyAuthTypeOld: "COMPUTE_ENGINE"},
			want: func(*settings) {}},
		{name: "key file auth type", conf: fsys.MapConfig{KeyAuthType: "SERVICE_ACCOUNT_JSON_KEYFILE", KeyKeyFileOld: "/k.json"},
			want: func(s *settings) { s.auth, s.keyFile, s.keyFileKey = authKeyFile, "/k.json", KeyKeyFileOld }},
		{name: "key file auth type without a file", conf: fsys.MapConfig{KeyAuthTypeOld: "SERVICE_ACCOUNT_JSON_KEYFILE"},
			err: []string{KeyAuthTypeOld, KeyKeyFile, KeyKeyFileOld}, cred: true},
		{name: "unknown auth type", conf: fsys.MapConfig{KeyAuthType: "USER_CREDENTIALS"},
			err: []string{KeyAuthType + "=USER_CREDENTIALS", "UNAUTHENTICATED"}},
		{name: "emulator variable", env: "127.0.0.1:4443",
			want: func(s *settings) { s.auth, s.apiRoot = authNone, "http://127.0.0.1:4443/" }},
		{name: "emulator variable with a scheme", env: "https://emu:9000/", conf: fsys.MapConfig{KeyKeyFile: "/k.json"},
			want: func(s *settings) {
				s.auth, s.apiRoot, s.keyFile, s.keyFileKey = authNone, "https://emu:9000/", "/k.json", KeyKeyFile
			}},
		{name: "root URL", conf: fsys.MapConfig{KeyRootURL: "http://127.0.0.1:4443"},
			want: func(s *settings) { s.rootURL, s.apiRoot = "http://127.0.0.1:4443/", "http://127.0.0.1:4443/" }},
		{name: "root URL over the emulator variable", env: "emu:1", conf: fsys.MapConfig{KeyRootURL: "https://gcs.example/api/"},
			want: func(s *settings) {
				s.auth, s.rootURL, s.apiRoot = authNone, "https://gcs.example/api/", "https://gcs.example/api/"
			}},
		{name: "root URL not http", conf: fsys.MapConfig{KeyRootURL: "ftp://x/"}, err: []string{KeyRootURL}},
		{name: "root URL without host", conf: fsys.MapConfig{KeyRootURL: "localhost:4443"}, err: []string{KeyRootURL}},
		{name: "block size in bytes", conf: fsys.MapConfig{KeyBlockSize: "67108864"},
			want: func(s *settings) { s.blockSize = 64 << 20 }},
		{name: "block size with a unit", conf: fsys.MapConfig{KeyBlockSize: "128M"},
			want: func(s *settings) { s.blockSize = 128 << 20 }},
		{name: "block size in g", conf: fsys.MapConfig{KeyBlockSize: "1g"},
			want: func(s *settings) { s.blockSize = 1 << 30 }},
		{name: "block size zero", conf: fsys.MapConfig{KeyBlockSize: "0"}, err: []string{KeyBlockSize}},
		{name: "block size words", conf: fsys.MapConfig{KeyBlockSize: "big"}, err: []string{KeyBlockSize}},
		{name: "block size overflow", conf: fsys.MapConfig{KeyBlockSize: "99999999999e"}, err: []string{KeyBlockSize}},
		{name: "retries", conf: fsys.MapConfig{KeyMaxRetry: "3"}, want: func(s *settings) { s.maxRetry = 3 }},
		{name: "no retries", conf: fsys.MapConfig{KeyMaxRetry: "0"}, want: func(s *settings) { s.maxRetry = 0 }},
		{name: "negative retries", conf: fsys.MapConfig{KeyMaxRetry: "-1"}, err: []string{KeyMaxRetry}},
		{name: "list page", conf: fsys.MapConfig{KeyListPage: "3"}, want: func(s *settings) { s.listPage = 3 }},
		{name: "list page over the API's limit", conf: fsys.MapConfig{KeyListPage: "5000"},
			want: func(s *settings) { s.listPage = 1000 }},
		{name: "list page zero", conf: fsys.MapConfig{KeyListPage: "0"}, err: []string{KeyListPage}},
		{name: "timeouts in milliseconds and with units",
			conf: fsys.MapConfig{KeyConnectTimeout: "1500", KeyReadTimeout: "2m"},
			want: func(s *settings) { s.connectTimeout, s.readTimeout = 1500*time.Millisecond, 2*time.Minute }},
		{name: "timeouts in s and ms", conf: fsys.MapConfig{KeyConnectTimeout: "5s", KeyReadTimeout: "250ms"},
			want: func(s *settings) { s.connectTimeout, s.readTimeout = 5*time.Second, 250*time.Millisecond }},
		{name: "zero timeout", conf: fsys.MapConfig{KeyReadTimeout: "0"}, err: []string{KeyReadTimeout}},
		{name: "bad timeout", conf: fsys.MapConfig{KeyConnectTimeout: "soon"}, err: []string{KeyConnectTimeout}},
		{name: "project alone bills nothing", conf: fsys.MapConfig{KeyProjectID: "p1"}, want: func(*settings) {}},
		{name: "requester pays with the project", conf: fsys.MapConfig{KeyRequesterPays: "ENABLED", KeyProjectID: "p1"},
			want: func(s *settings) { s.userProject = "p1" }},
		{name: "requester pays with its own project",
			conf: fsys.MapConfig{KeyRequesterPays: "enabled", KeyProjectID: "p1", KeyRequesterPaysProject: "p2"},
			want: func(s *settings) { s.userProject = "p2" }},
		{name: "requester pays disabled", conf: fsys.MapConfig{KeyRequesterPays: "DISABLED", KeyProjectID: "p1"},
			want: func(*settings) {}},
		{name: "requester pays without a project", conf: fsys.MapConfig{KeyRequesterPays: "ENABLED"},
			err: []string{KeyRequesterPaysProject, KeyProjectID}},
		{name: "requester pays auto", conf: fsys.MapConfig{KeyRequesterPays: "AUTO", KeyProjectID: "p"},
			err: []string{KeyRequesterPays + "=AUTO"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseSettings(c.conf, func(k string) string {
				if k == EmulatorEnv {
					return c.env
				}
				return ""
			})
			if c.err != nil {
				if err == nil {
					t.Fatalf("no error, want one naming %q", c.err)
				}
				for _, s := range c.err {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not name %q", err, s)
					}
				}
				if errors.Is(err, fsys.ErrCredentials) != c.cred {
					t.Errorf("errors.Is(%v, ErrCredentials) = %v", err, !c.cred)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := defaults
			c.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestParseBytesAndDuration(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1k": 1 << 10, "2K": 2 << 10, "3m": 3 << 20, "1t": 1 << 40, "1p": 1 << 50, "1e": 1 << 60, " 42 ": 42} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "k", "1.5m", "8e", "1x"} {
		if got, err := parseBytes(in); err == nil {
			t.Errorf("parseBytes(%q) = %d, want an error", in, got)
		}
	}
	for in, want := range map[string]time.Duration{"10": 10 * time.Millisecond, "7ns": 7, "3us": 3 * time.Microsecond, "2s": 2 * time.Second, "1h": time.Hour, "1d": 24 * time.Hour, "4 s": 4 * time.Second} {
		if got, err := parseDuration(in); err != nil || got != want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "s", "1.5s", "1w"} {
		if got, err := parseDuration(in); err == nil {
			t.Errorf("parseDuration(%q) = %v, want an error", in, got)
		}
	}
}
