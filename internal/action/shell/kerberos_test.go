package shell

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"
)

// testKDC is a real MIT Kerberos KDC on loopback for one test: realm
// GOZIE.TEST, a service principal and its keytab. It stays local to this
// file until the shared test KDC (testservers.StartKDC) is on this branch.
type testKDC struct {
	krb5conf, keytab, principal string
}

// startKDC starts krb5kdc in a temporary directory and points KRB5_CONFIG
// at its realm; it skips the test when the MIT tools are not installed.
func startKDC(t *testing.T) *testKDC {
	t.Helper()
	for _, tool := range []string{"krb5kdc", "kdb5_util", "kadmin.local", "kinit", "klist"} {
		if _, err := exec.LookPath(tool); err != nil {
			if _, err := os.Stat("/usr/sbin/" + tool); err != nil {
				t.Skipf("MIT Kerberos tool %s not installed", tool)
			}
		}
	}
	t.Setenv("PATH", os.Getenv("PATH")+":/usr/sbin")
	dir := t.TempDir()
	port := freePort(t)
	k := &testKDC{krb5conf: filepath.Join(dir, "krb5.conf"), keytab: filepath.Join(dir, "server.keytab"), principal: "gozie/localhost@GOZIE.TEST"}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("krb5.conf", fmt.Sprintf("[libdefaults]\n default_realm = GOZIE.TEST\n dns_lookup_kdc = false\n dns_lookup_realm = false\n rdns = false\n"+
		"[realms]\n GOZIE.TEST = {\n  kdc = 127.0.0.1:%d\n }\n", port))
	write("kdc.conf", fmt.Sprintf("[kdcdefaults]\n kdc_ports = %d\n kdc_tcp_ports = %d\n[realms]\n GOZIE.TEST = {\n"+
		"  database_name = %s\n  key_stash_file = %s\n  acl_file = %s\n  max_life = 1h\n }\n",
		port, port, filepath.Join(dir, "principal"), filepath.Join(dir, "stash"), filepath.Join(dir, "kadm5.acl")))
	t.Setenv("KRB5_CONFIG", k.krb5conf)
	t.Setenv("KRB5_KDC_PROFILE", filepath.Join(dir, "kdc.conf"))
	run := func(args ...string) {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("kdb5_util", "create", "-s", "-r", "GOZIE.TEST", "-P", "master-password")
	run("kadmin.local", "-r", "GOZIE.TEST", "-q", "addprinc -randkey "+k.principal)
	run("kadmin.local", "-r", "GOZIE.TEST", "-q", "ktadd -k "+k.keytab+" "+k.principal)
	kdc := exec.Command("krb5kdc", "-n", "-r", "GOZIE.TEST", "-P", filepath.Join(dir, "kdc.pid"))
	kdc.Stdout, kdc.Stderr = os.Stderr, os.Stderr
	if err := kdc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kdc.Process.Kill(); kdc.Wait() })
	// Ready when it answers on its TCP port.
	deadline := time.Now().Add(10 * time.Second)
	for {
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

// freePort is a loopback port free for both TCP and UDP when asked.
func freePort(t *testing.T) int {
	t.Helper()
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		u, err := net.ListenPacket("udp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			u.Close()
			return port
		}
	}
	t.Fatal("no free port")
	return 0
}

// TestShellKerberosTicket is issue 30: with gozie.launch.kerberos=keytab
// the server's keytab is kinit'd into a cache of the step's own, which
// klist inside the step sees through KRB5CCNAME, with HADOOP_PROXY_USER
// naming the job's user; with =cache the configured cache is handed as
// it is.
func TestShellKerberosTicket(t *testing.T) {
	k := startKDC(t)
	shared := filepath.Join(t.TempDir(), "shared-cc")
	if out, err := exec.Command("kinit", "-k", "-t", k.keytab, "-c", "FILE:"+shared, k.principal).CombinedOutput(); err != nil {
		t.Fatalf("kinit: %v\n%s", err, out)
	}
	body := `<exec>sh</exec><argument>-c</argument><argument>` +
		`echo principal=$(klist | sed -n 's/^Default principal: //p'); echo cc=$KRB5CCNAME; echo proxy=$HADOOP_PROXY_USER` +
		`</argument><capture-output/>`
	for _, mode := range launchtest.Modes {
		for _, tt := range []struct{ kind, cache string }{{"keytab", ""}, {"cache", shared}} {
			t.Run(mode.Name+"/"+tt.kind, func(t *testing.T) {
				opts := mode.Opts(t)
				opts.Site = map[string]string{
					launch.LaunchKerberos:                                    tt.kind,
					launch.LaunchKerberosCache:                               tt.cache,
					"oozie.service.HadoopAccessorService.keytab.file":        k.keytab,
					"oozie.service.HadoopAccessorService.kerberos.principal": k.principal,
				}
				if err := launch.CheckKerberos(opts); err != nil {
					t.Fatal(err)
				}
				a, notified := launchtest.ShellAction(t, t.TempDir(), body)
				a.User = "alice"
				res := launchtest.RunToEnd(t, NewShell(opts), a, notified)
				if res.Status != action.OK {
					t.Fatalf("result %+v", res)
				}
				wantCC := "FILE:" + filepath.Join(a.WorkDir, launch.StepCacheFile)
				if tt.cache != "" {
					wantCC = "FILE:" + tt.cache
				}
				if res.Data["principal"] != k.principal || res.Data["cc"] != wantCC || res.Data["proxy"] != "alice" {
					t.Errorf("step saw %v; want principal %s, cache %s, proxy alice", res.Data, k.principal, wantCC)
				}
			})
		}
	}
}

// TestShellKerberosBadPrincipal: a principal the keytab does not hold
// fails the start with JA020 and kinit's words; nothing runs.
func TestShellKerberosBadPrincipal(t *testing.T) {
	k := startKDC(t)
	opts := launchtest.Launcher(t)
	opts.Site = map[string]string{
		launch.LaunchKerberos:                                    "keytab",
		"oozie.service.HadoopAccessorService.keytab.file":        k.keytab,
		"oozie.service.HadoopAccessorService.kerberos.principal": "nobody/localhost@GOZIE.TEST",
	}
	a, _ := launchtest.ShellAction(t, t.TempDir(), `<exec>true</exec>`)
	a.User = "alice"
	_, err := NewShell(opts).Start(context.Background(), a)
	var ee *action.ExecError
	if !errors.As(err, &ee) || ee.Code != launch.CodeCredentials || ee.Kind != action.NonTransient || !strings.Contains(ee.Msg, "nobody/localhost@GOZIE.TEST") {
		t.Fatalf("Start = %v, want a non-transient JA020 naming the principal", err)
	}
}

// TestCheckKerberos refuses what cannot work: a keytab hand-off without
// a keytab, any hand-off of the server's ticket to steps that run as
// their job's user, an unknown mode.
func TestCheckKerberos(t *testing.T) {
	tests := []struct {
		site  map[string]string
		runAs bool
		err   string
	}{
		{map[string]string{}, true, ""},
		{map[string]string{launch.LaunchKerberos: "none"}, false, ""},
		{map[string]string{launch.LaunchKerberos: "cache"}, false, ""},
		{map[string]string{launch.LaunchKerberos: "keytab"}, false, "needs oozie.service.HadoopAccessorService.keytab.file"},
		{map[string]string{launch.LaunchKerberos: "cache"}, true, "gozie.launch.as.user=true"},
		{map[string]string{launch.LaunchKerberos: "tgt"}, false, "want none, keytab or cache"},
	}
	for _, tt := range tests {
		err := launch.CheckKerberos(launch.Options{Site: tt.site, RunAsUser: tt.runAs})
		if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%v run-as %v: %v, want %q", tt.site, tt.runAs, err, tt.err)
		}
	}
}
