package webhdfs_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/service"
	"github.com/jcmturner/gokrb5/v8/spnego"

	"github.com/gozie/gozie/internal/fsys"
)

// kdc is a real MIT Kerberos KDC on loopback for one test (realm
// GOZIE.TEST), kept local to this file until the shared test KDC
// (testservers.StartKDC) is on this branch.
type kdc struct {
	dir, krb5conf string
}

func startKDC(t *testing.T) *kdc {
	t.Helper()
	t.Setenv("PATH", os.Getenv("PATH")+":/usr/sbin")
	for _, tool := range []string{"krb5kdc", "kdb5_util", "kadmin.local"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("MIT Kerberos tool %s not installed", tool)
		}
	}
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	k := &kdc{dir: dir, krb5conf: filepath.Join(dir, "krb5.conf")}
	os.WriteFile(k.krb5conf, fmt.Appendf(nil, "[libdefaults]\n default_realm = GOZIE.TEST\n dns_lookup_kdc = false\n rdns = false\n"+
		"[realms]\n GOZIE.TEST = {\n  kdc = 127.0.0.1:%d\n }\n", port), 0o600)
	os.WriteFile(filepath.Join(dir, "kdc.conf"), fmt.Appendf(nil, "[kdcdefaults]\n kdc_ports = %d\n kdc_tcp_ports = %d\n[realms]\n GOZIE.TEST = {\n"+
		"  database_name = %s/principal\n  key_stash_file = %s/stash\n  acl_file = %s/kadm5.acl\n  max_life = 1h\n }\n", port, port, dir, dir, dir), 0o600)
	t.Setenv("KRB5_CONFIG", k.krb5conf)
	t.Setenv("KRB5_KDC_PROFILE", filepath.Join(dir, "kdc.conf"))
	k.run(t, "kdb5_util", "create", "-s", "-r", "GOZIE.TEST", "-P", "master-password")
	cmd := exec.Command("krb5kdc", "-n", "-r", "GOZIE.TEST", "-P", filepath.Join(dir, "kdc.pid"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			return k
		}
		if time.Now().After(deadline) {
			t.Fatalf("KDC not listening: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (k *kdc) run(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// principal creates a principal with a random key and returns its keytab.
func (k *kdc) principal(t *testing.T, name string) string {
	t.Helper()
	kt := filepath.Join(k.dir, strings.ReplaceAll(name, "/", "_")+".keytab")
	k.run(t, "kadmin.local", "-r", "GOZIE.TEST", "-q", "addprinc -randkey "+name)
	k.run(t, "kadmin.local", "-r", "GOZIE.TEST", "-q", "ktadd -k "+kt+" "+name)
	return kt
}

// TestKerberosWebHDFS is issue 30's keytab access to a secured store: the
// backend logs in with the server's keytab (Oozie's keys), authenticates
// each NameNode request with SPNEGO (checked by gokrb5's service side with
// the NameNode's HTTP keytab) and acts for the job's user with doas, never
// user.name. A principal the keytab does not hold is a credentials error.
func TestKerberosWebHDFS(t *testing.T) {
	k := startKDC(t)
	serverKT := k.principal(t, "gozie/localhost@GOZIE.TEST")
	httpKT := k.principal(t, "HTTP/127.0.0.1@GOZIE.TEST")
	skt, err := keytab.Load(httpKT)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []url.Values
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Query())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"FileStatus":{"accessTime":0,"blockSize":134217728,"group":"g","length":3,"modificationTime":1700000000000,"owner":"alice","pathSuffix":"","permission":"644","replication":1,"type":"FILE"}}`)
	})
	ts := httptest.NewServer(spnego.SPNEGOKRB5Authenticate(inner, skt, service.Logger(log.New(logWriter{t}, "spnego: ", 0)), service.DecodePAC(false)))
	defer ts.Close()
	host := strings.TrimPrefix(ts.URL, "http://")
	cfg := fsys.MapConfig{
		"hadoop.security.authentication":                         "kerberos",
		"oozie.service.HadoopAccessorService.keytab.file":        serverKT,
		"oozie.service.HadoopAccessorService.kerberos.principal": "gozie/localhost@GOZIE.TEST",
	}
	ns, err := fsys.NewNamespace(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := fsys.WithUser(context.Background(), "alice")
	for range 2 { // the second request reuses the login
		fi, err := ns.Stat(ctx, "webhdfs://"+host+"/data/f")
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() != 3 {
			t.Errorf("size %d", fi.Size())
		}
	}
	mu.Lock()
	if len(seen) != 2 || seen[0].Get("doas") != "alice" || seen[0].Has("user.name") || seen[0].Get("op") != "GETFILESTATUS" {
		t.Errorf("requests %v; want GETFILESTATUS with doas=alice and no user.name", seen)
	}
	mu.Unlock()
	// Without SPNEGO (simple authentication) the endpoint refuses, and
	// the error says what to configure.
	plain, _ := fsys.NewNamespace(fsys.MapConfig{}, nil)
	if _, err := plain.Stat(ctx, "webhdfs://"+host+"/data/f"); !errors.Is(err, fsys.ErrCredentials) {
		t.Errorf("simple against SPNEGO: %v", err)
	}
	cfg["oozie.service.HadoopAccessorService.kerberos.principal"] = "other/localhost@GOZIE.TEST"
	wrong, err := fsys.NewNamespace(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wrong.Stat(ctx, "webhdfs://"+host+"/data/f"); !errors.Is(err, fsys.ErrCredentials) || !strings.Contains(err.Error(), "other/localhost") {
		t.Errorf("principal not in the keytab: %v", err)
	}
}

// logWriter sends the SPNEGO service's log lines to the test's log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
