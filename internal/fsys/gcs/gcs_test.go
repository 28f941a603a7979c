package gcs_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"cloud.google.com/go/auth/credentials"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/fsys/fsystest"
	_ "github.com/gozie/gozie/internal/fsys/gcs"
	"github.com/gozie/gozie/internal/testservers"
)

// newNS returns a namespace configured by conf.
func newNS(t *testing.T, conf fsys.MapConfig) *fsys.Namespace {
	t.Helper()
	ns, err := fsys.NewNamespace(conf, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// The backend passes the behaviour suite against fake-gcs-server.
func TestSuite(t *testing.T) {
	srv := testservers.StartGCS(t)
	fsystest.Run(t, newNS(t, srv.Conf), "gs://"+srv.Bucket+"/suite", fsystest.Caps{EmptyDirs: true})
}

// with returns conf with more keys.
func with(conf fsys.MapConfig, kv ...string) fsys.MapConfig {
	out := fsys.MapConfig{}
	for k, v := range conf {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// A done-flag is an empty object; writing it makes no marker, reading
// it, walking to it and stating it work.
func TestEmptySuccessFlag(t *testing.T) {
	srv := testservers.StartGCS(t)
	ns := newNS(t, srv.Conf)
	ctx := context.Background()
	dir := "gs://" + srv.Bucket + "/data/2024/01/01"
	if err := ns.Touchz(ctx, dir+"/_SUCCESS"); err != nil {
		t.Fatal(err)
	}
	fi, err := ns.Stat(ctx, dir+"/_SUCCESS")
	if err != nil || fi.Dir || fi.Size() != 0 || fi.Path != dir+"/_SUCCESS" {
		t.Fatalf("Stat(_SUCCESS) = %+v, %v", fi, err)
	}
	if b, err := ns.ReadFileLimit(ctx, dir+"/_SUCCESS", 10); err != nil || len(b) != 0 {
		t.Fatalf("ReadFileLimit(_SUCCESS) = %q, %v", b, err)
	}
	if ok, err := ns.IsDir(ctx, dir); err != nil || !ok {
		t.Fatalf("IsDir(dir of the flag) = %v, %v", ok, err)
	}
	var walked []string
	walker := resolveWalker(t, ns, "gs://"+srv.Bucket+"/data")
	if err := walker.Walk(ctx, "gs://"+srv.Bucket+"/data", func(fi *fsys.FileInfo) error {
		walked = append(walked, fmt.Sprintf("%s %d", fi.Path, fi.Length))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{dir + "/_SUCCESS 0"}; !slices.Equal(walked, want) {
		t.Fatalf("Walk = %q, want %q (no markers)", walked, want)
	}
	// Touching it again keeps it empty and moves its time forward (or
	// leaves it, within the clock's resolution).
	if err := ns.Touchz(ctx, dir+"/_SUCCESS"); err != nil {
		t.Fatal(err)
	}
	if fi2, err := ns.Stat(ctx, dir+"/_SUCCESS"); err != nil || fi2.Size() != 0 || fi2.ModTime().Before(fi.ModTime()) {
		t.Fatalf("after a second touchz: %+v, %v (was %v)", fi2, err, fi.ModTime())
	}
}

// resolveWalker returns the backend of p as a Walker.
func resolveWalker(t *testing.T, ns *fsys.Namespace, p string) interface {
	fsys.Walker
	fsys.Summarizer
} {
	t.Helper()
	r, err := ns.Resolve(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	w, ok := r.FS.(interface {
		fsys.Walker
		fsys.Summarizer
	})
	if !ok {
		t.Fatalf("%T is no Walker and Summarizer", r.FS)
	}
	return w
}

// Listings span pages: with 7 names a page, a walk over 130 objects (and
// markers, left out), a listing of 12 entries, a directory size and a
// delete of more than one batch all see everything.
func TestPagedListings(t *testing.T) {
	srv := testservers.StartGCS(t)
	ns := newNS(t, with(srv.Conf, "fs.gs.list.max.items.per.call", "7"))
	ctx := context.Background()
	root := "gs://" + srv.Bucket + "/paged"
	var want []string
	var total int64
	for i := range 130 {
		p := fmt.Sprintf("%s/d%d/f%03d", root, i%10, i)
		if i%13 == 0 {
			p = fmt.Sprintf("%s/f%03d", root, i)
		}
		want = append(want, p)
		total += int64(i)
	}
	err := forAll(want, func(p string) error { return ns.WriteFile(ctx, p, bytes.Repeat([]byte("x"), parseIndex(p))) })
	if err != nil {
		t.Fatal(err)
	}
	if err := ns.MkdirAll(ctx, root+"/empty/dir"); err != nil {
		t.Fatal(err)
	}
	w := resolveWalker(t, ns, root)
	var got, dirs []string
	if err := w.Walk(ctx, root, func(fi *fsys.FileInfo) error {
		if fi.Dir {
			dirs = append(dirs, fi.Path)
			return nil
		}
		got = append(got, fi.Path)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dirs, []string{root + "/empty/dir"}) {
		t.Errorf("Walk gave directories %q, want the empty directory's marker alone", dirs)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("Walk found %d objects, want %d", len(got), len(want))
	}
	stop := errors.New("enough")
	n := 0
	if err := w.Walk(ctx, root, func(*fsys.FileInfo) error { n++; return stop }); err != stop || n != 1 {
		t.Fatalf("Walk stopped by its callback = %v after %d calls", err, n)
	}
	if size, err := ns.DirSize(ctx, root); err != nil || size != total {
		t.Fatalf("DirSize = %d, %v; want %d", size, err, total)
	}
	list, err := ns.List(ctx, root)
	if err != nil || len(list) != 21 { // d0..d9, empty, ten top files
		t.Fatalf("List = %d entries, %v; want 21: %v", len(list), err, list)
	}
	if err := ns.Delete(ctx, root); err != nil {
		t.Fatal(err)
	}
	n = 0
	if err := w.Walk(ctx, "gs://"+srv.Bucket, func(*fsys.FileInfo) error { n++; return nil }); err != nil || n != 0 {
		t.Fatalf("after Delete the bucket has %d objects, %v", n, err)
	}
	if ok, err := ns.Exists(ctx, root+"/empty/dir"); err != nil || ok {
		t.Fatalf("Exists(a marker after Delete) = %v, %v", ok, err)
	}
}

// parseIndex returns the number at the end of a test object's name.
func parseIndex(p string) int {
	n, _ := strconv.Atoi(p[strings.LastIndexByte(p, 'f')+1:])
	return n
}

// forAll runs fn on every item, eight at a time.
func forAll(items []string, fn func(string) error) error {
	errs := make(chan error, len(items))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for _, it := range items {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			errs <- fn(it)
			<-sem
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// A bucket that does not exist is fs.ErrNotExist, said so, for every
// operation but Delete, which has nothing to do.
func TestMissingBucket(t *testing.T) {
	srv := testservers.StartGCS(t)
	ns := newNS(t, srv.Conf)
	ctx := context.Background()
	for _, p := range []string{"gs://no-such-bucket", "gs://no-such-bucket/", "gs://no-such-bucket/a/b"} {
		_, err := ns.Stat(ctx, p)
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "bucket does not exist") {
			t.Errorf("Stat(%s) = %v, want fs.ErrNotExist naming the bucket", p, err)
		}
		if _, err := ns.List(ctx, p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("List(%s) = %v, want fs.ErrNotExist", p, err)
		}
		if err := ns.MkdirAll(ctx, p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("MkdirAll(%s) = %v, want fs.ErrNotExist", p, err)
		}
	}
	p := "gs://no-such-bucket/f"
	if err := ns.WriteFile(ctx, p, []byte("x")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("WriteFile = %v, want fs.ErrNotExist", err)
	}
	if _, err := ns.ReadFileLimit(ctx, p, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFileLimit = %v, want fs.ErrNotExist", err)
	}
	if _, err := ns.Open(ctx, p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open = %v, want fs.ErrNotExist", err)
	}
	if ok, err := ns.Exists(ctx, p); ok || err != nil {
		t.Errorf("Exists = %v, %v", ok, err)
	}
	if err := ns.Delete(ctx, p); err != nil {
		t.Errorf("Delete = %v, want nil", err)
	}
	if err := resolveWalker(t, ns, p).Walk(ctx, "gs://no-such-bucket/d", func(*fsys.FileInfo) error { return nil }); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Walk = %v, want fs.ErrNotExist", err)
	}
	// A second bucket of the same server is another store.
	srv.CreateBucket(t, "other")
	if err := ns.WriteFile(ctx, "gs://other/x", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if ok, _ := ns.Exists(ctx, "gs://"+srv.Bucket+"/x"); ok {
		t.Fatal("an object of one bucket is seen in another")
	}
}

// A server that stopped answering is fsys.ErrUnavailable, naming the
// store, for every operation, after the configured retries.
func TestStoppedServer(t *testing.T) {
	srv := testservers.StartGCS(t)
	ns := newNS(t, with(srv.Conf, "fs.gs.http.max.retry", "1"))
	ctx := context.Background()
	base := "gs://" + srv.Bucket
	if err := ns.WriteFile(ctx, base+"/d/f", []byte("data")); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	ops := map[string]func() error{
		"stat":   func() error { _, err := ns.Stat(ctx, base+"/d/f"); return err },
		"exists": func() error { _, err := ns.Exists(ctx, base+"/d/f"); return err },
		"list":   func() error { _, err := ns.List(ctx, base+"/d"); return err },
		"read":   func() error { _, err := ns.ReadFileLimit(ctx, base+"/d/f", 0); return err },
		"write":  func() error { return ns.WriteFile(ctx, base+"/d/g", []byte("x")) },
		"mkdir":  func() error { return ns.MkdirAll(ctx, base+"/e") },
		"delete": func() error { return ns.Delete(ctx, base+"/d") },
		"rename": func() error { _, err := ns.Rename(ctx, base+"/d/f", base+"/d/h"); return err },
		"size":   func() error { _, err := ns.DirSize(ctx, base+"/d"); return err },
		"walk": func() error {
			return resolveWalker(t, ns, base).Walk(ctx, base+"/d", func(*fsys.FileInfo) error { return nil })
		},
	}
	for name, op := range ops {
		err := op()
		if !errors.Is(err, fsys.ErrUnavailable) || errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), base) {
			t.Errorf("%s on a stopped server = %v, want fsys.ErrUnavailable naming %s", name, err, base)
		}
	}
}

// The emulator variable of Google's libraries is honoured: with
// STORAGE_EMULATOR_HOST set and no key at all, the backend talks to the
// emulator without credentials.
func TestEmulatorVariable(t *testing.T) {
	srv := testservers.StartGCS(t)
	t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimSuffix(strings.TrimPrefix(srv.Endpoint, "http://"), "/"))
	ns := newNS(t, nil)
	ctx := context.Background()
	p := "gs://" + srv.Bucket + "/via-env"
	if err := ns.WriteFile(ctx, p, []byte("env")); err != nil {
		t.Fatal(err)
	}
	if b, err := ns.ReadFileLimit(ctx, p, 0); err != nil || string(b) != "env" {
		t.Fatalf("read back %q, %v", b, err)
	}
	if err := ns.Delete(ctx, "gs://"+srv.Bucket+"/via-env"); err != nil {
		t.Fatal(err)
	}
}

// A job's settings (fsys.WithConf) reach the backend: a namespace with
// none finds no credentials, the same call with the job's keys works.
func TestJobSettings(t *testing.T) {
	srv := testservers.StartGCS(t)
	noCredentials(t)
	ns := newNS(t, fsys.MapConfig{"fs.gs.block.size": "64m"})
	ctx := context.Background()
	p := "gs://" + srv.Bucket + "/job/f"
	job := fsys.WithConf(ctx, with(srv.Conf, "fs.gs.block.size", "1m"))
	if err := ns.WriteFile(job, p, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if n, err := ns.BlockSize(job, p); err != nil || n != 1<<20 {
		t.Fatalf("BlockSize with the job's fs.gs.block.size=1m = %d, %v", n, err)
	}
	if n, err := newNS(t, srv.Conf).BlockSize(ctx, p); err != nil || n != 32<<20 {
		t.Fatalf("BlockSize by default = %d, %v; want 32 MiB", n, err)
	}
	if _, err := ns.Stat(ctx, p); !errors.Is(err, fsys.ErrCredentials) {
		t.Fatalf("Stat without the job's settings = %v, want ErrCredentials", err)
	}
}

// noCredentials hides every source of Application Default Credentials
// but the metadata server, and skips where that one answers (on Google
// Cloud).
func noCredentials(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "")
	t.Setenv("CLOUDSDK_CONFIG", dir)
	t.Setenv("HOME", dir)
	t.Setenv("APPDATA", dir)
	t.Setenv("STORAGE_EMULATOR_HOST", "")
	if credentials.OnGCE() {
		t.Skip("on Google Cloud the metadata server gives Application Default Credentials")
	}
}

// Credentials: what is missing or refused matches fsys.ErrCredentials and
// names the keys to set; no message quotes a key file.
func TestCredentials(t *testing.T) {
	srv := testservers.StartGCS(t)
	noCredentials(t)
	ctx := context.Background()
	dir := t.TempDir()
	pemKey := newPrivateKey(t)
	secretLine := strings.Split(pemKey, "\n")[2] // a line of the key's body
	keyFile := func(name string, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	serviceAccount := func(tokenURI string) string {
		b, _ := json.Marshal(map[string]string{
			"type": "service_account", "project_id": "gozie-test", "private_key_id": "k1",
			"private_key": pemKey, "client_email": "gozie@gozie-test.iam.gserviceaccount.com",
			"client_id": "1", "token_uri": tokenURI,
		})
		return string(b)
	}
	// The emulator has no token service: its answer to the token request
	// is a refusal (4xx), as Google's is to a revoked key.
	refusedKey := keyFile("refused.json", serviceAccount(srv.Endpoint+"token"))
	downKey := keyFile("down.json", serviceAccount(fmt.Sprintf("http://127.0.0.1:%d/token", testservers.FreePort(t))))
	root := fsys.MapConfig{"fs.gs.storage.root.url": srv.Endpoint, "fs.gs.http.max.retry": "0"}
	cases := []struct {
		name    string
		conf    fsys.MapConfig
		env     string // GOOGLE_APPLICATION_CREDENTIALS
		names   []string
		refused bool // also fs.ErrPermission
		down    bool // fsys.ErrUnavailable instead
	}{
		{name: "none found", conf: root,
			names: []string{"google.cloud.auth.service.account.json.keyfile", "fs.gs.auth.service.account.json.keyfile", "GOOGLE_APPLICATION_CREDENTIALS", "UNAUTHENTICATED"}},
		{name: "key file type without a file", conf: with(root, "fs.gs.auth.type", "SERVICE_ACCOUNT_JSON_KEYFILE"),
			names: []string{"fs.gs.auth.type", "google.cloud.auth.service.account.json.keyfile"}},
		{name: "key file missing", conf: with(root, "google.cloud.auth.service.account.json.keyfile", dir+"/nope.json"),
			names: []string{"google.cloud.auth.service.account.json.keyfile", dir + "/nope.json"}},
		{name: "key file not JSON", conf: with(root, "fs.gs.auth.service.account.json.keyfile", keyFile("bad.json", "SECRET-"+secretLine)),
			names: []string{"fs.gs.auth.service.account.json.keyfile", "not JSON"}},
		{name: "key file of another type", conf: with(root, "fs.gs.auth.service.account.json.keyfile",
			keyFile("user.json", `{"type":"authorized_user","client_id":"c","client_secret":"SECRET-`+secretLine+`","refresh_token":"SECRET-r"}`)),
			names: []string{"authorized_user", "service_account"}},
		{name: "key refused", conf: with(root, "google.cloud.auth.service.account.json.keyfile", refusedKey),
			names: []string{"google.cloud.auth.service.account.json.keyfile", "refused"}, refused: true},
		{name: "key refused, found by ADC", conf: root, env: refusedKey,
			names: []string{"GOOGLE_APPLICATION_CREDENTIALS", "refused"}, refused: true},
		{name: "token service down", conf: with(root, "google.cloud.auth.service.account.json.keyfile", downKey),
			names: []string{"gs://" + srv.Bucket}, down: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", c.env)
			_, err := newNS(t, c.conf).Stat(ctx, "gs://"+srv.Bucket+"/x")
			t.Log(err)
			if c.down {
				if !errors.Is(err, fsys.ErrUnavailable) {
					t.Fatalf("Stat = %v, want ErrUnavailable", err)
				}
			} else if !errors.Is(err, fsys.ErrCredentials) || errors.Is(err, fs.ErrPermission) != c.refused {
				t.Fatalf("Stat = %v, want ErrCredentials (and fs.ErrPermission: %v)", err, c.refused)
			}
			for _, n := range c.names {
				if !strings.Contains(err.Error(), n) {
					t.Errorf("error %q does not name %q", err, n)
				}
			}
			if strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), secretLine) {
				t.Errorf("error quotes a secret: %q", err)
			}
		})
	}
}

// newPrivateKey returns a fresh RSA private key in PEM (PKCS#8), as a
// service-account key file holds it.
func newPrivateKey(t *testing.T) string {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// The contract's refusals on this store, against the real server.
func TestRefusals(t *testing.T) {
	srv := testservers.StartGCS(t)
	ns := newNS(t, srv.Conf)
	ctx := context.Background()
	d := "gs://" + srv.Bucket + "/refusals"
	if err := ns.WriteFile(ctx, d+"/dir/f", []byte("f")); err != nil {
		t.Fatal(err)
	}
	if err := ns.WriteFile(ctx, d+"/file", []byte("x")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"create over a directory", ns.WriteFile(ctx, d+"/dir", []byte("x")), fs.ErrExist},
		{"mkdir over a file", ns.MkdirAll(ctx, d+"/file"), fs.ErrExist},
		{"mkdir below a file", ns.MkdirAll(ctx, d+"/file/sub"), fs.ErrExist},
		{"rename into itself", func() error { _, err := ns.Rename(ctx, d+"/dir", d+"/dir/sub/x"); return err }(), fs.ErrInvalid},
		{"rename below a file", func() error { _, err := ns.Rename(ctx, d+"/dir/f", d+"/file/g"); return err }(), nil},
		{"delete the bucket's root", ns.Delete(ctx, "gs://"+srv.Bucket+"/"), fs.ErrPermission},
		{"write the bucket's root", ns.WriteFile(ctx, "gs://"+srv.Bucket, nil), nil},
		{"read a directory", func() error { _, err := ns.Open(ctx, d+"/dir"); return err }(), nil},
		{"chmod", ns.Chmod(ctx, d+"/file", 0o600), fsys.ErrNotSupported},
		{"chgrp", ns.Chgrp(ctx, d+"/file", "g"), fsys.ErrNotSupported},
	}
	for _, c := range cases {
		if c.err == nil || c.want != nil && !errors.Is(c.err, c.want) {
			t.Errorf("%s = %v, want an error matching %v", c.name, c.err, c.want)
		}
	}
	if err := ns.SetReplication(ctx, d+"/file", 3); err != nil {
		t.Errorf("setrep = %v, want a no-op", err)
	}
	if err := ns.SetReplication(ctx, d+"/nope", 3); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("setrep of a missing file = %v, want fs.ErrNotExist", err)
	}
	if ok, _ := ns.Exists(ctx, d+"/dir/f"); !ok {
		t.Error("a refused rename moved its source")
	}
}

// Requester pays adds the billed project to every call, batch deletes
// included; the emulator accepts it.
func TestRequesterPays(t *testing.T) {
	srv := testservers.StartGCS(t)
	ns := newNS(t, with(srv.Conf, "fs.gs.requester.pays.mode", "ENABLED"))
	ctx := context.Background()
	d := "gs://" + srv.Bucket + "/rp"
	for _, f := range []string{"a", "b", "sub/c"} {
		if err := ns.WriteFile(ctx, d+"/"+f, []byte(f)); err != nil {
			t.Fatal(err)
		}
	}
	if l, err := ns.List(ctx, d); err != nil || len(l) != 3 {
		t.Fatalf("List = %v, %v", l, err)
	}
	if _, err := ns.Rename(ctx, d+"/sub", d+"/moved"); err != nil {
		t.Fatal(err)
	}
	if err := ns.Delete(ctx, d); err != nil {
		t.Fatal(err)
	}
	if ok, err := ns.Exists(ctx, d+"/a"); ok || err != nil {
		t.Fatalf("Exists after Delete = %v, %v", ok, err)
	}
}
