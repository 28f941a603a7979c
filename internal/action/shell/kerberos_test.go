package shell

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"
	"github.com/gozie/gozie/internal/testservers"
)

// testKDC is the shared test KDC (testservers.StartKDC) with the
// server's principal and its keytab.
type testKDC struct {
	keytab, principal string
}

// startKDC starts a KDC, points KRB5_CONFIG at its realm for the steps,
// and makes the server's principal and keytab; it skips the test when the
// MIT tools are not installed (fails it under CI=true).
func startKDC(t *testing.T) *testKDC {
	t.Helper()
	kdc := testservers.StartKDC(t)
	if _, err := exec.LookPath("klist"); err != nil {
		t.Skip("klist not installed (apt-get install -y krb5-user)")
	}
	t.Setenv("KRB5_CONFIG", kdc.Krb5Conf())
	k := &testKDC{principal: kdc.Qualify("gozie/localhost")}
	kdc.AddPrincipal(k.principal, "")
	k.keytab = kdc.Keytab(k.principal)
	return k
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
