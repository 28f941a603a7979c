package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// TestAdminInfoNeedsAdmin: admin/configuration, os-env and
// java-sys-properties were readable by anyone; they need an admin unless
// gozie.admin.configuration.anonymous.read (AdminInfoAnonymous) is on.
func TestAdminInfoNeedsAdmin(t *testing.T) {
	closed := newEnv(t)
	open := newEnv(t, func(a *AuthOptions) { a.AdminInfoAnonymous = true })
	for _, res := range []string{"configuration", "os-env", "java-sys-properties"} {
		cases := []struct {
			name  string
			e     *env
			query string
			want  int
		}{
			{"anonymous", closed, "", 401},
			{"non-admin", closed, "?user.name=joe", 401},
			{"admin", closed, "?user.name=root", 200},
			{"anonymous, allowed", open, "", 200},
			{"non-admin, allowed", open, "?user.name=joe", 200},
		}
		for _, c := range cases {
			r := c.e.do("GET", "/oozie/v2/admin/"+res+c.query, "", "")
			if r.status != c.want {
				t.Errorf("%s %s: %d %s, want %d", res, c.name, r.status, r.body, c.want)
			}
			if c.want == 401 && r.header.Get("oozie-error-code") != "E0503" {
				t.Errorf("%s %s: code %q, want E0503", res, c.name, r.header.Get("oozie-error-code"))
			}
		}
	}
	// Other admin reads stay open.
	if r := closed.do("GET", "/oozie/v2/admin/build-version", "", ""); r.status != 200 {
		t.Errorf("build-version: %d", r.status)
	}
}

// TestAdminMapsMaskSecrets: admin/configuration showed the store DSN with
// its password, and os-env showed GOZIE_DB and PGPASSWORD-like variables.
func TestAdminMapsMaskSecrets(t *testing.T) {
	t.Setenv("PGPASSWORD", "env-pgpw")
	t.Setenv("GOZIE_DB", "postgres://gozie:env-dbpw@db/gozie")
	t.Setenv("GOZIE_TEST_API_TOKEN", "env-tokval")
	t.Setenv("SOME_DSN", "host=db password=env-kvpw")
	t.Setenv("GOZIE_AUTHENTICATION_BASIC_USERS_FILE", "/etc/gozie/env-users")
	e := newEnv(t)
	cfg := e.do("GET", "/oozie/v2/admin/configuration?user.name=root", "", "")
	env := e.do("GET", "/oozie/v2/admin/os-env?user.name=root", "", "")
	for _, leak := range []string{"dbpw", "tokval", "hidden"} {
		if strings.Contains(string(cfg.body), leak) {
			t.Errorf("admin/configuration shows %q: %s", leak, cfg.body)
		}
	}
	for _, leak := range []string{"env-pgpw", "env-dbpw", "env-tokval", "env-kvpw", "env-users"} {
		if strings.Contains(string(env.body), leak) {
			t.Errorf("admin/os-env shows %q", leak)
		}
	}
	// The rest of a DSN stays readable.
	if got := cfg.json(t)["gozie.db"]; got != "postgres://gozie:*****@db:5432/gozie" {
		t.Errorf("gozie.db shown as %v", got)
	}
	if got := env.json(t)["GOZIE_DB"]; got != "postgres://gozie:*****@db/gozie" {
		t.Errorf("GOZIE_DB shown as %v", got)
	}
}

// TestInternalErrorsHideDetails: a failing store answered 500 E0307 with
// the raw store error in the body; now the body is generic (E0603 for the
// store) and the error goes to the log with its password masked.
func TestInternalErrorsHideDetails(t *testing.T) {
	dir := t.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvOn(t, dir, st)
	var mu sync.Mutex
	var logged []string
	e.srv.opts.Logf = redactingLogf(func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, fmt.Sprintf(format, args...))
	})
	st.Close()
	r := e.do("GET", "/oozie/v2/job/0000001-260101000000000-oozie-test-W?show=info", "", "")
	if r.status != 500 || r.header.Get("oozie-error-code") != "E0603" {
		t.Fatalf("closed store: %d %v %s, want 500 E0603", r.status, r.header.Get("oozie-error-code"), r.body)
	}
	if strings.Contains(string(r.body), "closed") || strings.Contains(string(r.body), "sqlite") {
		t.Errorf("body carries the store error: %s", r.body)
	}
	mu.Lock()
	joined := strings.Join(logged, "\n")
	mu.Unlock()
	if !strings.Contains(joined, "closed") {
		t.Errorf("the store error was not logged: %q", joined)
	}

	// The log line of an error carrying a DSN has the password masked.
	e.srv.opts.Logf("gozie: %v", errors.New("postgres: connect: postgres://gozie:s3cret@db/gozie: refused"))
	mu.Lock()
	last := logged[len(logged)-1]
	mu.Unlock()
	if strings.Contains(last, "s3cret") || !strings.Contains(last, "gozie:*****@db") {
		t.Errorf("log line %q", last)
	}
}

// TestToAPIErrorInternal: errors without an Oozie code never put their
// text in the response.
func TestToAPIErrorInternal(t *testing.T) {
	cases := []struct {
		err        error
		code, leak string
	}{
		{store.Errorf("postgres: job x: failed to connect to postgres://u:pw1@h/d"), "E0603", "pw1"},
		{store.Errorf("sqlite: logs: %w", errors.New("disk I/O error at /secret/path")), "E0603", "/secret/path"},
		{store.NewSentinel("store: write in a read-only transaction"), "E0603", "read-only"},
		{errors.New("open /var/lib/gozie/x: permission denied"), "E0307", "/var/lib"},
	}
	for _, c := range cases {
		ae := toAPIError(c.err)
		if ae.status != http.StatusInternalServerError || ae.code != c.code || strings.Contains(ae.msg, c.leak) {
			t.Errorf("%v: %d %s %q", c.err, ae.status, ae.code, ae.msg)
		}
	}
}

// TestOSEnvMasksKeys: admin/os-env showed API keys (STRIPE_API_KEY,
// AWS_ACCESS_KEY_ID, a private key in the environment). Variables whose
// name contains KEY, any case, are masked like the secret names.
func TestOSEnvMasksKeys(t *testing.T) {
	cases := []struct {
		name, value string
		masked      bool
	}{
		{"GOZIE_TEST_STRIPE_API_KEY", "env-stripe", true},
		{"GOZIE_TEST_AWS_ACCESS_KEY_ID", "env-akid", true},
		{"gozie_test_private_key", "env-pem", true},
		{"GOZIE_TEST_KEYFILE", "env-keyfile", true},
		{"GOZIE_TEST_API_TOKEN", "env-token", true},
		{"GOZIE_TEST_PLAIN", "env-plain", false},
	}
	for _, c := range cases {
		t.Setenv(c.name, c.value)
	}
	e := newEnv(t)
	env := e.do("GET", "/oozie/v2/admin/os-env?user.name=root", "", "").json(t)
	for _, c := range cases {
		want := c.value
		if c.masked {
			want = "*****"
		}
		if got := env[c.name]; got != want {
			t.Errorf("%s shown as %v, want %q", c.name, got, want)
		}
	}
}
