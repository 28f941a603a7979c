package hdfs

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/fsys"
)

// siteXML renders properties as a Hadoop configuration file.
func siteXML(props ...string) string {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\"?>\n<configuration>\n")
	for i := 0; i+1 < len(props); i += 2 {
		b.WriteString("  <property><name>" + props[i] + "</name><value>" + props[i+1] + "</value></property>\n")
	}
	b.WriteString("</configuration>\n")
	return b.String()
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadConfDir(t *testing.T) {
	t.Setenv("HADOOP_USER_NAME", "alice")
	cases := []struct {
		name  string
		files map[string]string
		want  map[string]string // keys that must have these values
		err   string            // substring of the error, "" for none
	}{
		{
			name: "core and hdfs site, hdfs-site wins",
			files: map[string]string{
				"core-site.xml": siteXML("fs.defaultFS", "hdfs://mycluster", "hadoop.security.authentication", "simple", "dfs.replication", "1"),
				"hdfs-site.xml": siteXML("dfs.nameservices", "mycluster", "dfs.replication", "3"),
			},
			want: map[string]string{"fs.defaultFS": "hdfs://mycluster", "dfs.nameservices": "mycluster", "dfs.replication": "3", "hadoop.security.authentication": "simple"},
		},
		{
			name: "final in core-site holds",
			files: map[string]string{
				"core-site.xml": `<configuration><property><name>fs.defaultFS</name><value>hdfs://a:8020</value><final>true</final></property></configuration>`,
				"hdfs-site.xml": siteXML("fs.defaultFS", "hdfs://b:8020"),
			},
			want: map[string]string{"fs.defaultFS": "hdfs://a:8020"},
		},
		{
			name:  "variables expand, user.name from the login user",
			files: map[string]string{"core-site.xml": siteXML("hadoop.tmp.dir", "/tmp/hadoop-${user.name}", "dfs.namenode.name.dir", "${hadoop.tmp.dir}/name")},
			want:  map[string]string{"hadoop.tmp.dir": "/tmp/hadoop-alice", "dfs.namenode.name.dir": "/tmp/hadoop-alice/name"},
		},
		{
			name:  "only hdfs-site",
			files: map[string]string{"hdfs-site.xml": siteXML("dfs.ha.namenodes.ns", "nn1,nn2")},
			want:  map[string]string{"dfs.ha.namenodes.ns": "nn1,nn2"},
		},
		{
			name:  "mapred-site is not read",
			files: map[string]string{"mapred-site.xml": siteXML("mapreduce.framework.name", "yarn")},
			want:  map[string]string{},
		},
		{
			name:  "malformed XML names file and line",
			files: map[string]string{"hdfs-site.xml": "<configuration>\n  <property>\n    <name>x</name>\n  </propertyy>\n</configuration>\n"},
			err:   "hdfs-site.xml:4",
		},
		{
			name:  "property without a name",
			files: map[string]string{"core-site.xml": "<configuration>\n<property><value>v</value></property>\n</configuration>"},
			err:   "core-site.xml:2: property without <name>",
		},
		{
			name:  "wrong root element",
			files: map[string]string{"core-site.xml": "<?xml version=\"1.0\"?>\n<conf></conf>"},
			err:   "core-site.xml:2: root element is <conf>",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, c.files)
			got, err := LoadConfDir(dir)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range c.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
			if len(c.want) == 0 && len(got) != 0 {
				t.Errorf("got %v, want nothing", got)
			}
		})
	}
	t.Run("unset dir is empty", func(t *testing.T) {
		got, err := LoadConfDir("")
		if err != nil || len(got) != 0 {
			t.Fatalf("LoadConfDir(\"\") = %v, %v", got, err)
		}
		t.Setenv("HADOOP_CONF_DIR", "")
		if got, err := LoadConfEnv(); err != nil || len(got) != 0 {
			t.Fatalf("LoadConfEnv() with HADOOP_CONF_DIR unset = %v, %v", got, err)
		}
	})
	t.Run("missing dir is an error", func(t *testing.T) {
		_, err := LoadConfDir(filepath.Join(t.TempDir(), "nope"))
		if err == nil || !strings.Contains(err.Error(), "HADOOP_CONF_DIR") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("HADOOP_CONF_DIR", func(t *testing.T) {
		t.Setenv("HADOOP_CONF_DIR", writeFiles(t, map[string]string{"core-site.xml": siteXML("fs.defaultFS", "hdfs://x:1")}))
		if got, err := LoadConfEnv(); err != nil || got["fs.defaultFS"] != "hdfs://x:1" {
			t.Fatalf("LoadConfEnv() = %v, %v", got, err)
		}
	})
}

// A loaded HA configuration resolves to its NameNodes in the order of
// dfs.ha.namenodes, whatever the case of the authority.
func TestLoadedHAConfiguration(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"core-site.xml": siteXML("fs.defaultFS", "hdfs://ProdCluster"),
		"hdfs-site.xml": siteXML(
			"dfs.nameservices", "ProdCluster",
			"dfs.ha.namenodes.ProdCluster", "nn2, nn1,nn3",
			"dfs.namenode.rpc-address.ProdCluster.nn1", "NN1.example.com:8020",
			"dfs.namenode.rpc-address.ProdCluster.nn2", "nn2.example.com:8020",
			"dfs.namenode.rpc-address.ProdCluster.nn3", "nn3.example.com:9000",
		),
	})
	c, err := LoadConfDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"nn2.example.com:8020", "nn1.example.com:8020", "nn3.example.com:9000"}
	for _, auth := range []string{"prodcluster", ""} {
		s, err := parseSettings(auth, c, testEnv(nil))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.addresses, want) {
			t.Fatalf("authority %q: addresses %v, want %v", auth, s.addresses, want)
		}
	}
}

func testEnv(vars map[string]string) environ {
	return environ{getenv: func(k string) string { return vars[k] }, hostname: "Gozie1.Example.COM", uid: 1234}
}

func TestParseSettings(t *testing.T) {
	ha := fsys.MapConfig{
		"dfs.nameservices":                 "ns1,ns2",
		"dfs.ha.namenodes.ns1":             "a,b",
		"dfs.namenode.rpc-address.ns1.a":   "a.example.com:8020",
		"dfs.namenode.rpc-address.ns1.b":   "b.example.com:8020",
		"dfs.namenode.rpc-address.ns2":     "fed.example.com:8020",
		"dfs.ha.namenodes.ns3":             "x",
		"dfs.namenode.rpc-address.ns3.x":   "x.example.com:8020",
		"dfs.namenode.rpc-address":         "plain.example.com:9000",
		"dfs.client.use.datanode.hostname": "true",
		"dfs.data.transfer.protection":     "integrity",
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
		name  string
		auth  string
		conf  fsys.MapConfig
		env   map[string]string
		addrs []string
		check func(t *testing.T, s *settings)
		err   []string // substrings of the error
		creds bool     // the error matches fsys.ErrCredentials
	}{
		{name: "host and port", auth: "nn.example.com:9000", conf: fsys.MapConfig{}, addrs: []string{"nn.example.com:9000"}},
		{name: "host alone takes 8020", auth: "nn.example.com", conf: fsys.MapConfig{}, addrs: []string{"nn.example.com:8020"}},
		{name: "host alone takes the port of dfs.namenode.rpc-address", auth: "plain.example.com", conf: ha, addrs: []string{"plain.example.com:9000"}},
		{name: "HA nameservice in order", auth: "ns1", conf: ha, addrs: []string{"a.example.com:8020", "b.example.com:8020"}},
		{name: "federated nameservice without HA", auth: "ns2", conf: ha, addrs: []string{"fed.example.com:8020"}},
		{name: "nameservice known by dfs.ha.namenodes only", auth: "ns3", conf: ha, addrs: []string{"x.example.com:8020"}},
		{name: "empty authority takes fs.defaultFS", auth: "", conf: with(ha, "fs.defaultFS", "hdfs://ns1"), addrs: []string{"a.example.com:8020", "b.example.com:8020"}},
		{name: "empty authority, no defaultFS: dfs.namenode.rpc-address", auth: "", conf: ha, addrs: []string{"plain.example.com:9000"}},
		{name: "empty authority, nothing set", auth: "", conf: fsys.MapConfig{}, err: []string{"fs.defaultFS", "dfs.namenode.rpc-address"}},
		{name: "defaultFS not hdfs", auth: "", conf: fsys.MapConfig{"fs.defaultFS": "file:///"}, err: []string{"fs.defaultFS=file:///"}},
		{name: "HA namenode without address", auth: "ns1", conf: with(ha, "dfs.ha.namenodes.ns1", "a,b,c"), err: []string{"dfs.namenode.rpc-address.ns1.c"}},
		{name: "HA namenode address without port", auth: "ns1", conf: with(ha, "dfs.namenode.rpc-address.ns1.b", "b.example.com"), err: []string{"dfs.namenode.rpc-address.ns1.b=b.example.com", "host:port"}},
		{name: "nameservice with no namenodes", auth: "ns4", conf: with(ha, "dfs.nameservices", "ns4"), err: []string{"dfs.ha.namenodes.ns4"}},
		{
			name: "datanode keys and timeouts", auth: "nn:1",
			conf: with(ha, "dfs.client.socket-timeout", "5000", "ipc.client.rpc-timeout.ms", "0", "ipc.client.connect.timeout", "250"),
			check: func(t *testing.T, s *settings) {
				if s.datanode["dfs.client.use.datanode.hostname"] != "true" || s.datanode["dfs.data.transfer.protection"] != "integrity" {
					t.Errorf("datanode keys = %v", s.datanode)
				}
				if s.socketTimeout != 5*time.Second || s.rpcTimeout != 0 || s.connectTimeout != 250*time.Millisecond {
					t.Errorf("timeouts = %v %v %v", s.socketTimeout, s.rpcTimeout, s.connectTimeout)
				}
			},
		},
		{
			name: "default timeouts", auth: "nn:1", conf: fsys.MapConfig{},
			check: func(t *testing.T, s *settings) {
				if s.socketTimeout != time.Minute || s.rpcTimeout != 2*time.Minute || s.connectTimeout != 20*time.Second || s.kerberos {
					t.Errorf("settings = %+v", s)
				}
			},
		},
		{name: "bad timeout", auth: "nn:1", conf: fsys.MapConfig{"dfs.client.socket-timeout": "1m"}, err: []string{"dfs.client.socket-timeout=1m"}},
		{name: "unknown authentication", auth: "nn:1", conf: fsys.MapConfig{"hadoop.security.authentication": "token"}, err: []string{"hadoop.security.authentication=token"}},
		{name: "kerberos without NameNode principal", auth: "nn:1", conf: fsys.MapConfig{"hadoop.security.authentication": "kerberos"}, err: []string{"dfs.namenode.kerberos.principal"}, creds: true},
		{
			name: "kerberos with keytab: _HOST is the local host, the NameNode's _HOST stays", auth: "ns1",
			conf: with(ha, "hadoop.security.authentication", "Kerberos", "dfs.namenode.kerberos.principal", "nn/_HOST@EXAMPLE.COM",
				keyKeytab, "/etc/security/oozie.keytab", keyPrincipal, "oozie/_HOST@EXAMPLE.COM"),
			env: map[string]string{"KRB5_CONFIG": "/opt/krb5.conf:/etc/krb5.conf", "KRB5CCNAME": "/tmp/ignored"},
			check: func(t *testing.T, s *settings) {
				want := login{keytab: "/etc/security/oozie.keytab", principal: "oozie/gozie1.example.com@EXAMPLE.COM", krb5conf: "/opt/krb5.conf"}
				if !s.kerberos || s.spn != "nn/_HOST" || s.login != want {
					t.Errorf("kerberos = %v, spn %q, login %+v; want %+v", s.kerberos, s.spn, s.login, want)
				}
			},
		},
		{
			name: "kerberos with a principal without realm or _HOST", auth: "nn:1",
			conf: fsys.MapConfig{"hadoop.security.authentication": "kerberos", "dfs.namenode.kerberos.principal": "hdfs/nn.example.com", keyKeytab: "/k", keyPrincipal: "oozie"},
			check: func(t *testing.T, s *settings) {
				if s.spn != "hdfs/nn.example.com" || s.login.principal != "oozie" || s.login.krb5conf != "/etc/krb5.conf" {
					t.Errorf("spn %q login %+v", s.spn, s.login)
				}
			},
		},
		{
			name: "kerberos from the default ticket cache", auth: "nn:1",
			conf: fsys.MapConfig{"hadoop.security.authentication": "kerberos", "dfs.namenode.kerberos.principal": "nn/_HOST@R"},
			check: func(t *testing.T, s *settings) {
				if s.login != (login{ccache: "/tmp/krb5cc_1234", krb5conf: "/etc/krb5.conf"}) {
					t.Errorf("login %+v", s.login)
				}
			},
		},
		{
			name: "kerberos from KRB5CCNAME", auth: "nn:1",
			conf: fsys.MapConfig{"hadoop.security.authentication": "kerberos", "dfs.namenode.kerberos.principal": "nn/_HOST@R"},
			env:  map[string]string{"KRB5CCNAME": "FILE:/var/run/oozie.cc"},
			check: func(t *testing.T, s *settings) {
				if s.login.ccache != "/var/run/oozie.cc" {
					t.Errorf("login %+v", s.login)
				}
			},
		},
		{
			name: "kerberos from a keyring cache is refused", auth: "nn:1",
			conf: fsys.MapConfig{"hadoop.security.authentication": "kerberos", "dfs.namenode.kerberos.principal": "nn/_HOST@R"},
			env:  map[string]string{"KRB5CCNAME": "KEYRING:persistent:1234"},
			err:  []string{"KRB5CCNAME=KEYRING:persistent:1234", keyKeytab, keyPrincipal}, creds: true,
		},
		{
			name: "keytab without principal", auth: "nn:1",
			conf: fsys.MapConfig{"hadoop.security.authentication": "kerberos", "dfs.namenode.kerberos.principal": "nn/_HOST@R", keyKeytab: "/k"},
			err:  []string{keyPrincipal}, creds: true,
		},
		{
			name: "principal without keytab", auth: "nn:1",
			conf: fsys.MapConfig{"hadoop.security.authentication": "kerberos", "dfs.namenode.kerberos.principal": "nn/_HOST@R", keyPrincipal: "oozie@R"},
			err:  []string{keyKeytab}, creds: true,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := parseSettings(c.auth, c.conf, testEnv(c.env))
			if len(c.err) > 0 {
				if err == nil {
					t.Fatalf("no error, settings %+v", s)
				}
				for _, w := range c.err {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not name %q", err, w)
					}
				}
				if c.creds != errors.Is(err, fsys.ErrCredentials) {
					t.Errorf("errors.Is(%v, ErrCredentials) = %v", err, !c.creds)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.addrs != nil && !slices.Equal(s.addresses, c.addrs) {
				t.Errorf("addresses = %v, want %v", s.addresses, c.addrs)
			}
			if c.check != nil {
				c.check(t, s)
			}
		})
	}
}

func TestHostPrincipal(t *testing.T) {
	cases := []struct{ in, want string }{
		{"oozie/_HOST@EXAMPLE.COM", "oozie/gozie1.example.com@EXAMPLE.COM"},
		{"oozie/_HOST", "oozie/gozie1.example.com"},
		{"oozie/fixed.example.com@R", "oozie/fixed.example.com@R"},
		{"oozie@R", "oozie@R"},
		{"oozie/_HOSTX@R", "oozie/_HOSTX@R"},
	}
	for _, c := range cases {
		if got := hostPrincipal(c.in, "Gozie1.Example.COM"); got != c.want {
			t.Errorf("hostPrincipal(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
