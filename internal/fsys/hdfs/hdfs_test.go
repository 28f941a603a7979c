package hdfs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/keytab"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/fsys/fsystest"
	"github.com/gozie/gozie/internal/fsys/hdfs"
	"github.com/gozie/gozie/internal/testservers"
)

// The behaviour suite against a real cluster: GOZIE_TEST_HDFS names a
// directory on it, HADOOP_CONF_DIR its client settings (see
// docs/storage.md). Skipped when unset: no NameNode runs in CI.
func TestHDFSSuite(t *testing.T) {
	root := testservers.HDFS(t)
	cfg, err := hdfs.LoadConfEnv()
	if err != nil {
		t.Fatal(err)
	}
	ns, err := fsys.NewNamespace(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	fsystest.RunCluster(t, ns, root)
}

// A NameNode that does not listen: every operation is ErrUnavailable,
// naming the store, for a single NameNode and for a nameservice whose
// NameNodes all refuse.
func TestClosedPortIsUnavailable(t *testing.T) {
	ctx := context.Background()
	p1, p2 := testservers.FreePort(t), testservers.FreePort(t)
	cfg := fsys.MapConfig{
		"dfs.nameservices":                  "down",
		"dfs.ha.namenodes.down":             "nn1,nn2",
		"dfs.namenode.rpc-address.down.nn1": fmt.Sprintf("127.0.0.1:%d", p1),
		"dfs.namenode.rpc-address.down.nn2": fmt.Sprintf("127.0.0.1:%d", p2),
		"ipc.client.connect.timeout":        "2000",
	}
	ns, err := fsys.NewNamespace(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, store := range []string{fmt.Sprintf("hdfs://127.0.0.1:%d", p1), "hdfs://down"} {
		p := store + "/data/x"
		ops := map[string]func() error{
			"stat":   func() error { _, err := ns.Stat(ctx, p); return err },
			"list":   func() error { _, err := ns.List(ctx, p); return err },
			"read":   func() error { _, err := ns.ReadFileLimit(ctx, p, 0); return err },
			"write":  func() error { return ns.WriteFile(ctx, p, []byte("x")) },
			"mkdir":  func() error { return ns.MkdirAll(ctx, p) },
			"delete": func() error { return ns.Delete(ctx, p) },
			"setrep": func() error { return ns.SetReplication(ctx, p, 2) },
			"size":   func() error { _, err := ns.DirSize(ctx, p); return err },
		}
		for name, op := range ops {
			err := op()
			var ue *fsys.UnavailableError
			if !errors.Is(err, fsys.ErrUnavailable) || !errors.As(err, &ue) || ue.Store != store {
				t.Errorf("%s %s = %v, want an UnavailableError of %s", name, store, err, store)
			} else if name == "stat" {
				t.Log(err)
			}
		}
	}
}

// writeKrb5Conf writes a krb5.conf whose KDC is a port nothing listens on.
func writeKrb5Conf(t *testing.T) string {
	t.Helper()
	port := testservers.FreePort(t)
	p := filepath.Join(t.TempDir(), "krb5.conf")
	conf := fmt.Sprintf(`[libdefaults]
  default_realm = EXAMPLE.COM
  udp_preference_limit = 1
  dns_lookup_kdc = false
[realms]
  EXAMPLE.COM = {
    kdc = 127.0.0.1:%d
  }
`, port)
	if err := os.WriteFile(p, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestKerberosLogin(t *testing.T) {
	ctx := context.Background()
	t.Setenv("KRB5_CONFIG", writeKrb5Conf(t))
	const secret = "s3cret-Passw0rd"
	kt := keytab.New()
	if err := kt.AddEntry("oozie/gozie.example.com", "EXAMPLE.COM", secret, time.Now(), 1, etypeID.AES256_CTS_HMAC_SHA1_96); err != nil {
		t.Fatal(err)
	}
	ktBytes, err := kt.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ktPath := filepath.Join(dir, "oozie.keytab")
	if err := os.WriteFile(ktPath, ktBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	badKt := filepath.Join(dir, "bad.keytab")
	if err := os.WriteFile(badKt, []byte("not a keytab"), 0o600); err != nil {
		t.Fatal(err)
	}
	nn := fmt.Sprintf("hdfs://127.0.0.1:%d", testservers.FreePort(t))
	krb := fsys.MapConfig{"hadoop.security.authentication": "kerberos", "dfs.namenode.kerberos.principal": "nn/_HOST@EXAMPLE.COM"}
	with := func(kv ...string) fsys.MapConfig {
		out := fsys.MapConfig{}
		for k, v := range krb {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	cases := []struct {
		name string
		conf fsys.MapConfig
		env  string // KRB5CCNAME
		is   error
		text []string
	}{
		{"no ticket cache", krb, "FILE:" + filepath.Join(dir, "no-cache"), fsys.ErrCredentials,
			[]string{"no-cache", "kinit", "oozie.service.HadoopAccessorService.keytab.file", "oozie.service.HadoopAccessorService.kerberos.principal"}},
		{"unreadable keytab", with("oozie.service.HadoopAccessorService.keytab.file", badKt, "oozie.service.HadoopAccessorService.kerberos.principal", "oozie/_HOST@EXAMPLE.COM"), "",
			fsys.ErrCredentials, []string{"bad.keytab", "oozie.service.HadoopAccessorService.keytab.file"}},
		{"KDC down", with("oozie.service.HadoopAccessorService.keytab.file", ktPath, "oozie.service.HadoopAccessorService.kerberos.principal", "oozie/gozie.example.com@EXAMPLE.COM"), "",
			fsys.ErrUnavailable, []string{"oozie/gozie.example.com@EXAMPLE.COM", "KDC"}},
		{"missing krb5.conf", with("oozie.service.HadoopAccessorService.keytab.file", ktPath, "oozie.service.HadoopAccessorService.kerberos.principal", "oozie@EXAMPLE.COM"), "",
			fsys.ErrCredentials, []string{"krb5.conf", "KRB5_CONFIG"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("KRB5CCNAME", c.env)
			if c.name == "missing krb5.conf" {
				t.Setenv("KRB5_CONFIG", filepath.Join(dir, "no-krb5.conf"))
			}
			ns, err := fsys.NewNamespace(c.conf, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = ns.Stat(ctx, nn+"/x")
			if !errors.Is(err, c.is) {
				t.Fatalf("Stat = %v, want %v", err, c.is)
			}
			t.Log(err)
			for _, w := range c.text {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not name %q", err, w)
				}
			}
			if strings.Contains(err.Error(), secret) || bytes.Contains([]byte(err.Error()), ktBytes[len(ktBytes)-32:]) {
				t.Fatalf("the error shows key material: %v", err)
			}
		})
	}
}

// Open does no I/O: a store whose NameNode does not exist opens, and a
// configuration error is reported on every operation, naming the key.
func TestOpenIsLazy(t *testing.T) {
	ctx := context.Background()
	ns, err := fsys.NewNamespace(fsys.MapConfig{"dfs.nameservices": "ns", "dfs.ha.namenodes.ns": "a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, err := ns.Stat(ctx, "hdfs://ns/x")
		if err == nil || !strings.Contains(err.Error(), "dfs.namenode.rpc-address.ns.a") {
			t.Fatalf("Stat = %v, want the missing key named", err)
		}
	}
}
