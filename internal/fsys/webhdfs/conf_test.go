package webhdfs

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/fsys"
)

func TestParseSettings(t *testing.T) {
	ha := fsys.MapConfig{
		"dfs.nameservices":                    "Prod",
		"dfs.ha.namenodes.Prod":               "nn2,nn1",
		"dfs.namenode.http-address.Prod.nn1":  "NN1.example.com:9870",
		"dfs.namenode.http-address.Prod.nn2":  "nn2.example.com:9870",
		"dfs.namenode.https-address.Prod.nn1": "nn1.example.com:9871",
		"dfs.namenode.https-address.Prod.nn2": "nn2.example.com:9871",
	}
	with := func(base fsys.MapConfig, kv ...string) fsys.MapConfig {
		out := fsys.MapConfig{}
		for k, v := range base {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	cases := []struct {
		name   string
		scheme string
		auth   string
		conf   fsys.MapConfig
		bases  []string
		check  func(t *testing.T, s *settings)
		err    []string
	}{
		{name: "host and port", scheme: "webhdfs", auth: "nn:50070", conf: fsys.MapConfig{}, bases: []string{"http://nn:50070"}},
		{name: "default HTTP port", scheme: "webhdfs", auth: "nn", conf: fsys.MapConfig{}, bases: []string{"http://nn:9870"}},
		{name: "swebhdfs is HTTPS on 9871", scheme: "swebhdfs", auth: "nn", conf: fsys.MapConfig{}, bases: []string{"https://nn:9871"}},
		{name: "HA nameservice in order", scheme: "webhdfs", auth: "prod", conf: ha, bases: []string{"http://nn2.example.com:9870", "http://nn1.example.com:9870"}},
		{name: "HA nameservice over HTTPS", scheme: "swebhdfs", auth: "prod", conf: ha, bases: []string{"https://nn2.example.com:9871", "https://nn1.example.com:9871"}},
		{name: "HA NameNode without HTTP address", scheme: "webhdfs", auth: "prod", conf: with(ha, "dfs.ha.namenodes.Prod", "nn1,nn3"), err: []string{"dfs.namenode.http-address.Prod.nn3"}},
		{name: "HA NameNode address without port", scheme: "webhdfs", auth: "prod", conf: with(ha, "dfs.namenode.http-address.Prod.nn1", "nn1"), err: []string{"dfs.namenode.http-address.Prod.nn1=nn1", "host:port"}},
		{name: "nameservice without NameNodes", scheme: "webhdfs", auth: "prod", conf: with(ha, "dfs.ha.namenodes.Prod", " "), err: []string{"dfs.ha.namenodes.Prod"}},
		{name: "no authority", scheme: "webhdfs", auth: "", conf: fsys.MapConfig{}, err: []string{"webhdfs://host:port/path"}},
		{
			name: "defaults", scheme: "webhdfs", auth: "nn:1", conf: fsys.MapConfig{},
			check: func(t *testing.T, s *settings) {
				if s.connectTimeout != time.Minute || s.readTimeout != time.Minute || s.doas || s.csrf != "" || s.store != "webhdfs://nn:1" {
					t.Errorf("settings %+v", s)
				}
			},
		},
		{
			name: "timeouts with and without units", scheme: "webhdfs", auth: "nn:1",
			conf: fsys.MapConfig{"dfs.webhdfs.socket.connect-timeout": "2m", "dfs.webhdfs.socket.read-timeout": "1500"},
			check: func(t *testing.T, s *settings) {
				if s.connectTimeout != 2*time.Minute || s.readTimeout != 1500*time.Millisecond {
					t.Errorf("timeouts %v %v", s.connectTimeout, s.readTimeout)
				}
			},
		},
		{name: "bad timeout", scheme: "webhdfs", auth: "nn:1", conf: fsys.MapConfig{"dfs.webhdfs.socket.read-timeout": "soon"}, err: []string{"dfs.webhdfs.socket.read-timeout=soon"}},
		{
			name: "doas", scheme: "webhdfs", auth: "nn:1", conf: fsys.MapConfig{"gozie.webhdfs.doas": "TRUE"},
			check: func(t *testing.T, s *settings) {
				if !s.doas {
					t.Error("doas not set")
				}
			},
		},
		{name: "bad doas", scheme: "webhdfs", auth: "nn:1", conf: fsys.MapConfig{"gozie.webhdfs.doas": "yes"}, err: []string{"gozie.webhdfs.doas=yes"}},
		{
			name: "CSRF header, default name and methods", scheme: "webhdfs", auth: "nn:1", conf: fsys.MapConfig{"dfs.webhdfs.rest-csrf.enabled": "true"},
			check: func(t *testing.T, s *settings) {
				if s.csrf != "X-XSRF-HEADER" || !s.csrfIgnore["GET"] || s.csrfIgnore["PUT"] {
					t.Errorf("csrf %q ignore %v", s.csrf, s.csrfIgnore)
				}
			},
		},
		{
			name: "CSRF header, set name and methods", scheme: "webhdfs", auth: "nn:1",
			conf: fsys.MapConfig{"dfs.webhdfs.rest-csrf.enabled": "true", "dfs.webhdfs.rest-csrf.custom-header": "X-Gozie", "dfs.webhdfs.rest-csrf.methods-to-ignore": "get, put"},
			check: func(t *testing.T, s *settings) {
				if s.csrf != "X-Gozie" || !s.csrfIgnore["PUT"] || s.csrfIgnore["DELETE"] {
					t.Errorf("csrf %q ignore %v", s.csrf, s.csrfIgnore)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := parseSettings(c.scheme, c.auth, c.conf)
			if len(c.err) > 0 {
				if err == nil {
					t.Fatalf("no error: %+v", s)
				}
				for _, w := range c.err {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%q does not name %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.bases != nil && !slices.Equal(s.bases, c.bases) {
				t.Errorf("bases %v, want %v", s.bases, c.bases)
			}
			if c.check != nil {
				c.check(t, s)
			}
		})
	}
}

// TestParseKerberos reads the Kerberos keys: simple is no login, a
// keytab needs its principal and the reverse, a ticket cache comes from
// KRB5CCNAME (FILE: only), the SPNEGO principal of a NameNode replaces
// _HOST by its host.
func TestParseKerberos(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	krb := fsys.MapConfig{"hadoop.security.authentication": "Kerberos"}
	with := func(kv ...string) fsys.MapConfig {
		c := fsys.MapConfig{}
		for k, v := range krb {
			c[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			c[kv[i]] = kv[i+1]
		}
		return c
	}
	tests := []struct {
		name   string
		c      fsys.MapConfig
		env    map[string]string
		nilOK  bool
		ccache string
		err    string
	}{
		{"simple", fsys.MapConfig{}, nil, true, "", ""},
		{"unknown", fsys.MapConfig{"hadoop.security.authentication": "token"}, nil, false, "", "gozie knows simple and kerberos"},
		{"keytab without principal", with(keyKeytab, "/k"), nil, false, "", keyKeytab + " is set but " + keyPrincipal + " is not"},
		{"principal without keytab", with(keyPrincipal, "p@R"), nil, false, "", keyPrincipal + " is set but " + keyKeytab + " is not"},
		{"keytab", with(keyKeytab, "/k", keyPrincipal, "gozie/h@R"), nil, false, "", ""},
		{"cache of KRB5CCNAME", krb, map[string]string{"KRB5CCNAME": "FILE:/tmp/cc"}, false, "/tmp/cc", ""},
		{"keyring cache", krb, map[string]string{"KRB5CCNAME": "KEYRING:persistent:0"}, false, "", "only FILE: ticket caches"},
	}
	for _, tt := range tests {
		l, err := parseKerberos(tt.c, env(tt.env))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || (l == nil) != tt.nilOK || tt.ccache != "" && l.ccache != tt.ccache {
			t.Errorf("%s: %+v %v", tt.name, l, err)
		}
	}
	l, _ := parseKerberos(with(keyHTTPPrincipal, "HTTP/_HOST@R"), env(nil))
	if got := l.spn("https://NN1.example.com:9871"); got != "HTTP/nn1.example.com" {
		t.Errorf("spn %s", got)
	}
	l, _ = parseKerberos(krb, env(nil))
	if got := l.spn("http://127.0.0.1:9870"); got != "HTTP/127.0.0.1" {
		t.Errorf("default spn %s", got)
	}
}
