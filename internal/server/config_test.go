package server

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestLoadConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	site := filepath.Join(dir, "gozie-site.xml")
	xml := `<configuration>
  <property><name>gozie.http.port</name><value>12000</value></property>
  <property><name>gozie.admin.users</name><value>oozie, root</value></property>
  <property><name>gozie.data.dir</name><value>/from/site</value></property>
</configuration>`
	if err := os.WriteFile(site, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GOZIE_HTTP_PORT": "13000", "GOZIE_DATA": "/from/env"}
	c, err := LoadConfig(site, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ key, want string }{
		{"gozie.http.port", "13000"},         // env over site
		{"gozie.data.dir", "/from/env"},      // GOZIE_DATA over site
		{"gozie.admin.users", "oozie, root"}, // site over default
		{"gozie.authorization.enabled", "true"},
		{"gozie.authentication.token.validity", "36000"},
	}
	for _, tc := range cases {
		if c[tc.key] != tc.want {
			t.Errorf("%s = %q, want %q", tc.key, c[tc.key], tc.want)
		}
	}
	if got := c.List("gozie.admin.users"); len(got) != 2 || got[1] != "root" {
		t.Errorf("List = %q", got)
	}
	if EnvName("gozie.authentication.simple.anonymous.allowed") != "GOZIE_AUTHENTICATION_SIMPLE_ANONYMOUS_ALLOWED" {
		t.Errorf("EnvName = %s", EnvName("gozie.authentication.simple.anonymous.allowed"))
	}
	if _, err := LoadConfig(filepath.Join(dir, "missing.xml"), os.Getenv); err == nil {
		t.Errorf("a missing site file is not an error")
	}
}

func TestLoadConfigRejectsNonIntegers(t *testing.T) {
	for _, tc := range []struct{ env, value string }{
		{"GOZIE_HTTP_PORT", "eleven"},
		{"GOZIE_POLL_INTERVAL_MS", "1s"},
		{"GOZIE_COORD_INPUT_CHECK_INTERVAL_S", "1.5"},
		{"GOZIE_AUTHENTICATION_TOKEN_VALIDITY", " "},
	} {
		env := map[string]string{"GOZIE_DATA": t.TempDir(), tc.env: tc.value}
		_, err := LoadConfig("", func(k string) string { return env[k] })
		if err == nil {
			t.Errorf("%s=%q accepted", tc.env, tc.value)
			continue
		}
		if !strings.Contains(err.Error(), "not an integer") {
			t.Errorf("%s=%q: error %q does not say what is wrong", tc.env, tc.value, err)
		}
	}
}

func TestAuthFromConfig(t *testing.T) {
	dir := t.TempDir()
	users := filepath.Join(dir, "users")
	if err := os.WriteFile(users, []byte("# comment\nann:pw1\nbob:pw2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig("", func(k string) string {
		return map[string]string{
			"GOZIE_DATA":                            dir,
			"GOZIE_AUTHENTICATION_TOKENS":           "t1=ann, t2=bob",
			"GOZIE_AUTHENTICATION_BASIC_USERS_FILE": users,
			"GOZIE_AUTHENTICATION_TOKEN_VALIDITY":   "60",
		}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	a, err := AuthFromConfig(c, dir)
	if err != nil {
		t.Fatal(err)
	}
	// Credentials configured without gozie.authentication.type: basic and
	// token, not simple, and so no anonymous requests.
	if a.Tokens["t2"] != "bob" || a.BasicUsers["ann"] != "pw1" || a.TokenValidity != time.Minute || a.AnonymousReads || a.AnonymousWrites ||
		strings.Join(a.Methods, ",") != "basic,token" {
		t.Errorf("auth options %+v", a)
	}
	// The generated secret is kept, so cookies survive a restart.
	b, err := AuthFromConfig(c, dir)
	if err != nil || string(b.Secret) != string(a.Secret) || len(a.Secret) < 32 {
		t.Errorf("secret not stable: %q vs %q (%v)", a.Secret, b.Secret, err)
	}
	if info, err := os.Stat(filepath.Join(dir, "auth-secret")); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("auth-secret: %v %v", info, err)
	}
	c["gozie.authentication.tokens"] = "broken"
	if _, err := AuthFromConfig(c, dir); err == nil {
		t.Errorf("a token without user accepted")
	}
}

// TestConfigKeysDocumented: every key the server reads is in a key table
// of docs/server.md or, for the keys of action types, docs/actions.md.
func TestConfigKeysDocumented(t *testing.T) {
	var doc []byte
	for _, name := range []string{"server.md", "actions.md"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
		if err != nil {
			t.Fatal(err)
		}
		doc = append(doc, b...)
	}
	for _, k := range ConfigKeys {
		// A row may name two keys: | `a`, `b` |.
		if !strings.Contains(string(doc), "| `"+k.Name+"`") && !strings.Contains(string(doc), ", `"+k.Name+"` |") {
			t.Errorf("%s is not in docs/server.md or docs/actions.md", k.Name)
		}
	}
}

// TestDefinitionMaxKeys: Oozie's
// oozie.service.WorkflowAppService.WorkflowDefinitionMaxLength is a real
// server key; gozie.definition.max.bytes wins when both are set (issue 13,
// point 17).
func TestDefinitionMaxKeys(t *testing.T) {
	const oozieKey = "oozie.service.WorkflowAppService.WorkflowDefinitionMaxLength"
	tests := []struct {
		name    string
		site    map[string]string
		env     map[string]string
		want    int64
		wantErr string
	}{
		{"default", nil, nil, 100000, ""},
		{"oozie key", map[string]string{oozieKey: "250000"}, nil, 250000, ""},
		{"gozie key", map[string]string{"gozie.definition.max.bytes": "300000"}, nil, 300000, ""},
		{"both: gozie wins", map[string]string{oozieKey: "250000", "gozie.definition.max.bytes": "300000"}, nil, 300000, ""},
		{"oozie key from the environment", nil, map[string]string{EnvName(oozieKey): "120000"}, 120000, ""},
		{"gozie env over oozie site", map[string]string{oozieKey: "250000"}, map[string]string{"GOZIE_DEFINITION_MAX_BYTES": "150000"}, 150000, ""},
		{"not an integer", map[string]string{oozieKey: "big"}, nil, 0, oozieKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("<configuration>")
			for k, v := range tt.site {
				b.WriteString("<property><name>" + k + "</name><value>" + v + "</value></property>")
			}
			b.WriteString("</configuration>")
			site := filepath.Join(t.TempDir(), "gozie-site.xml")
			if err := os.WriteFile(site, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := LoadConfig(site, func(k string) string {
				if k == "GOZIE_DATA" {
					return t.TempDir()
				}
				return tt.env[k]
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("LoadConfig: %v; want an error naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.DefinitionMaxBytes()
			if err != nil || got != tt.want {
				t.Errorf("DefinitionMaxBytes = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

// TestLoadConfigAlternatives: a setting given as a value or as a file
// (gozie.db / gozie.db.file, gozie.authentication.secret / .secret.file)
// is taken from the highest level that sets either key; one level setting
// both is ambiguous and refused.
func TestLoadConfigAlternatives(t *testing.T) {
	tests := []struct {
		name    string
		site    map[string]string
		env     map[string]string
		want    map[string]string
		wantErr string
	}{
		{name: "environment file over site value",
			site: map[string]string{"gozie.db": "postgres://site"}, env: map[string]string{"GOZIE_DB_FILE": "/env/dsn"},
			want: map[string]string{"gozie.db": "", "gozie.db.file": "/env/dsn"}},
		{name: "environment value over site file",
			site: map[string]string{"gozie.authentication.secret.file": "/site/secret"}, env: map[string]string{"GOZIE_AUTHENTICATION_SECRET": "v"},
			want: map[string]string{"gozie.authentication.secret": "v", "gozie.authentication.secret.file": ""}},
		{name: "site alone",
			site: map[string]string{"gozie.authentication.secret.file": "/site/secret"},
			want: map[string]string{"gozie.authentication.secret": "", "gozie.authentication.secret.file": "/site/secret"}},
		{name: "both in the site file",
			site:    map[string]string{"gozie.authentication.secret": "v", "gozie.authentication.secret.file": "/site/secret"},
			wantErr: "configuration keys gozie.authentication.secret and gozie.authentication.secret.file are both set"},
		{name: "both in the environment",
			env:     map[string]string{"GOZIE_DB": "postgres://env", "GOZIE_DB_FILE": "/env/dsn"},
			wantErr: "configuration keys gozie.db and gozie.db.file are both set"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			site := filepath.Join(dir, "gozie-site.xml")
			var b strings.Builder
			b.WriteString("<configuration>")
			for k, v := range tc.site {
				b.WriteString("<property><name>" + k + "</name><value>" + v + "</value></property>")
			}
			b.WriteString("</configuration>")
			if err := os.WriteFile(site, []byte(b.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"GOZIE_DATA": dir}
			for k, v := range tc.env {
				env[k] = v
			}
			c, err := LoadConfig(site, func(k string) string { return env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.want {
				if c[k] != v {
					t.Errorf("%s = %q, want %q", k, c[k], v)
				}
			}
		})
	}
}

// The basic users file holds passwords: one other users may read, a FIFO
// or a device is refused at start, naming the key and the file.
func TestBasicUsersFilePrivate(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "open")
	if err := os.WriteFile(open, []byte("ann:pw\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o644)
	cases := []struct{ path, want string }{
		{open, "chmod 600"},
		{fifo, "not a regular file"},
		{"/dev/zero", "not a regular file"},
		{filepath.Join(dir, "missing"), "no such file"},
	}
	for _, c := range cases {
		_, err := AuthFromConfig(Config{"gozie.authentication.basic.users.file": c.path}, dir)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "gozie.authentication.basic.users.file") {
			t.Errorf("%s: %v, want an error naming the key and saying %q", c.path, err, c.want)
		}
	}
}
