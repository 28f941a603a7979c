package webhdfs_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/service"
	"github.com/jcmturner/gokrb5/v8/spnego"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/testservers"
)

// kdc is the shared test KDC with KRB5_CONFIG pointing at its realm.
type kdc struct{ *testservers.KDC }

func startKDC(t *testing.T) *kdc {
	t.Helper()
	k := testservers.StartKDC(t)
	t.Setenv("KRB5_CONFIG", k.Krb5Conf())
	return &kdc{k}
}

// principal creates a principal with a random key and returns its keytab.
func (k *kdc) principal(t *testing.T, name string) string {
	t.Helper()
	k.AddPrincipal(name, "")
	return k.Keytab(name)
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
