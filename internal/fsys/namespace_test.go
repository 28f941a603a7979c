package fsys

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// dirFS is a backend for the namespace's own tests: it serves URIs of a
// test scheme from a local directory (the local backend under a URI), and
// records the settings and users it was opened and called with. It tests
// the namespace, not a store.
type dirFS struct {
	localFS
	root, store string
	conf        Config
}

func (d *dirFS) local(p string) string { return d.root + strings.TrimPrefix(p, d.store) }

func (d *dirFS) uri(l string) string { return d.store + strings.TrimPrefix(l, d.root) }

func (d *dirFS) Stat(ctx context.Context, p string) (*FileInfo, error) {
	fi, err := d.localFS.Stat(ctx, d.local(p))
	if fi != nil {
		fi.Path = d.uri(fi.Path)
	}
	return fi, err
}

func (d *dirFS) List(ctx context.Context, p string) ([]*FileInfo, error) {
	l, err := d.localFS.List(ctx, d.local(p))
	for _, fi := range l {
		fi.Path = d.uri(fi.Path)
	}
	return l, err
}

func (d *dirFS) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	return d.localFS.Open(ctx, d.local(p))
}

func (d *dirFS) Create(ctx context.Context, p string, r io.Reader) error {
	return d.localFS.Create(ctx, d.local(p), r)
}

func (d *dirFS) MkdirAll(ctx context.Context, p string) error {
	return d.localFS.MkdirAll(ctx, d.local(p))
}

func (d *dirFS) Delete(ctx context.Context, p string) error { return d.localFS.Delete(ctx, d.local(p)) }

func (d *dirFS) Rename(ctx context.Context, src, dst string) error {
	return d.localFS.Rename(ctx, d.local(src), d.local(dst))
}

var (
	dirRoots   sync.Map // authority -> local root, set by tests
	dirOpened  []Config
	dirOpenedM sync.Mutex
)

func init() {
	Register(Backend{Name: "test dir", Schemes: []string{"dirtest"}, ConfPrefixes: []string{"fs.dirtest."},
		Open: func(_ context.Context, u *url.URL, c Config) (FileSystem, error) {
			root, ok := dirRoots.Load(u.Host)
			if !ok {
				return nil, errors.New("no root for " + u.Host)
			}
			dirOpenedM.Lock()
			dirOpened = append(dirOpened, c)
			dirOpenedM.Unlock()
			return &dirFS{root: root.(string), store: "dirtest://" + u.Host, conf: c}, nil
		}})
}

func TestMountResolution(t *testing.T) {
	local := t.TempDir()
	dirRoots.Store("bucket", t.TempDir())
	ns, err := NewNamespace(nil, []Mount{
		{From: "hdfs://LocalHost:8020/user/me", To: local},
		{From: "hdfs://localhost:8020/user/me/lake", To: "dirtest://bucket/lake"},
		{From: "/old/root", To: "file://" + local + "/moved"},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cases := []struct {
		in        string
		wantLocal string // "" when not local
		wantPath  string // the backend path for store paths
	}{
		{"hdfs://localhost:8020/user/me", local, ""},
		{"hdfs://localhost:8020/user/me/", local, ""},
		{"hdfs://localhost:8020/user/me/in/a.txt", local + "/in/a.txt", ""},
		{"HDFS://LOCALHOST:8020/user/me/x", local + "/x", ""},                       // scheme and authority in any case
		{"hdfs://localhost:8020/user/me/lake/t/1", "", "dirtest://bucket/lake/t/1"}, // the longer prefix wins
		{"hdfs://localhost:8020/user/me/lakeside", local + "/lakeside", ""},         // whole segments only
		{"/old/root/f", local + "/moved/f", ""},
		{"file:///old/root/f", local + "/moved/f", ""},
		{"/old/rootless", "/old/rootless", ""},
	}
	for _, c := range cases {
		r, err := ns.Resolve(ctx, c.in)
		if err != nil {
			t.Fatalf("Resolve(%s): %v", c.in, err)
		}
		l, isLocal := r.Local()
		switch {
		case c.wantLocal != "" && (!isLocal || l != c.wantLocal):
			t.Errorf("Resolve(%s) = %s local %v, want local %s", c.in, l, isLocal, c.wantLocal)
		case c.wantLocal == "" && (isLocal || r.Path != c.wantPath):
			t.Errorf("Resolve(%s) = %s local %v, want %s", c.in, r.Path, isLocal, c.wantPath)
		}
	}
	// Unmounted hdfs:// is still unknown here (no HDFS backend linked into
	// this package's tests), and the error names the mount key.
	_, err = ns.Resolve(ctx, "hdfs://other:8020/x")
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), MountKeyPrefix) || !strings.Contains(err.Error(), "dirtest") {
		t.Errorf("unmounted hdfs: %v", err)
	}
}

// Results come back in the caller's form, through the mount.
func TestMountedResultsKeepTheirForm(t *testing.T) {
	local := t.TempDir()
	dirRoots.Store("b2", t.TempDir())
	ns, err := NewNamespace(nil, []Mount{
		{From: "hdfs://nn:8020/data", To: local},
		{From: "hdfs://nn:8020/lake", To: "dirtest://b2/x"},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, root := range []string{"hdfs://nn:8020/data", "hdfs://nn:8020/lake"} {
		for _, f := range []string{"2024/01/a", "2024/02/a"} {
			if err := ns.WriteFile(ctx, root+"/"+f, []byte("x")); err != nil {
				t.Fatal(err)
			}
		}
		got, err := ns.Glob(ctx, root+"/2024/*/a")
		if err != nil || !slices.Equal(got, []string{root + "/2024/01/a", root + "/2024/02/a"}) {
			t.Errorf("Glob under %s = %v, %v", root, got, err)
		}
		list, err := ns.List(ctx, root+"/2024")
		if err != nil || !slices.Equal(list, []string{root + "/2024/01", root + "/2024/02"}) {
			t.Errorf("List under %s = %v, %v", root, list, err)
		}
		if err := ns.MkdirAll(ctx, root+"/2024/03"); err != nil {
			t.Fatal(err)
		}
		moved, err := ns.Rename(ctx, root+"/2024/01/a", root+"/2024/03")
		if err != nil || moved != root+"/2024/03/a" {
			t.Errorf("Rename into a directory under %s = %v, %v; want the mounted form", root, moved, err)
		}
	}
}

func TestMountsFromConfigAndSettings(t *testing.T) {
	keys := map[string]string{
		"gozie.fs.mount.hdfs://nn/a":    " /tmp/a ",
		"gozie.fs.mount.<uri-prefix>":   "", // the documentation placeholder
		"gozie.fs.mount.":               "/x",
		"fs.dirtest.endpoint":           "http://e",
		"gozie.http.port":               "11000",
		"fs.dirtest.secret.thing":       "s",
		"unrelated.fs.dirtest.lookhere": "no",
	}
	mounts := MountsFromConfig(keys)
	if !slices.Equal(mounts, []Mount{{From: "hdfs://nn/a", To: "/tmp/a"}}) {
		t.Fatalf("MountsFromConfig = %v", mounts)
	}
	ns, err := NewNamespace(MapConfig(keys), mounts)
	if err != nil {
		t.Fatal(err)
	}
	got := ns.Settings()
	want := map[string]string{"gozie.fs.mount.hdfs://nn/a": "/tmp/a", "fs.dirtest.endpoint": "http://e", "fs.dirtest.secret.thing": "s"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("Settings()[%s] = %q, want %q", k, got[k], v)
		}
	}
	if _, ok := got["gozie.http.port"]; ok {
		t.Error("Settings() carries a key of no store")
	}
	// Kept between calls, and made anew once a backend is registered.
	if again := ns.Settings(); !maps.Equal(again, got) {
		t.Errorf("second Settings() = %v, want %v", again, got)
	}
	keys["fs.settingstest.key"] = "v"
	if _, ok := ns.Settings()["fs.settingstest.key"]; ok {
		t.Error("Settings() carries a key of a backend not registered")
	}
	Register(Backend{Name: "settings test", Schemes: []string{"settingstest"}, ConfPrefixes: []string{"fs.settingstest."}})
	if v := ns.Settings()["fs.settingstest.key"]; v != "v" {
		t.Errorf("Settings() after a registration: fs.settingstest.key = %q, want v", v)
	}
	for _, bad := range []Mount{{From: "relative/x", To: "/a"}, {From: "hdfs://nn/a", To: "relative"}, {From: "hdfs:/nn", To: "/a"}, {From: "", To: "/a"}} {
		if _, err := NewNamespace(nil, []Mount{bad}); err == nil {
			t.Errorf("NewNamespace(%v) accepted", bad)
		}
	}
}

// A job that sets a store's keys gets a backend of its own; jobs that do
// not share the server's.
func TestJobSettingsPickTheirBackend(t *testing.T) {
	dirRoots.Store("jobs", t.TempDir())
	ns, err := NewNamespace(MapConfig{"fs.dirtest.endpoint": "server"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dirOpenedM.Lock()
	dirOpened = nil
	dirOpenedM.Unlock()
	bg := context.Background()
	r1, _ := ns.Resolve(bg, "dirtest://jobs/a")
	r2, _ := ns.Resolve(WithConf(bg, MapConfig{"mapreduce.job.queuename": "q"}), "dirtest://jobs/b")
	r3, _ := ns.Resolve(WithConf(bg, MapConfig{"fs.dirtest.endpoint": "job"}), "dirtest://jobs/c")
	r4, _ := ns.Resolve(WithConf(bg, MapConfig{"fs.dirtest.endpoint": "job"}), "dirtest://jobs/d")
	if r1.FS != r2.FS {
		t.Error("a job without store keys got a backend of its own")
	}
	if r3.FS == r1.FS || r3.FS != r4.FS {
		t.Error("jobs with the same store keys must share one backend, apart from the server's")
	}
	dirOpenedM.Lock()
	defer dirOpenedM.Unlock()
	if len(dirOpened) != 2 {
		t.Fatalf("opened %d backends, want 2", len(dirOpened))
	}
	if v, _ := dirOpened[1].Get("fs.dirtest.endpoint"); v != "job" {
		t.Errorf("the job's backend sees endpoint %q", v)
	}
	if v, _ := dirOpened[0].Get("fs.dirtest.endpoint"); v != "server" {
		t.Errorf("the server's backend sees endpoint %q", v)
	}
	if u := UserFrom(WithUser(bg, "alice")); u != "alice" {
		t.Errorf("UserFrom = %q", u)
	}
}

// Object-store semantics the namespace adds: errors keep their kinds
// through it, and operations a store lacks say so.
func TestNamespaceErrors(t *testing.T) {
	dirRoots.Store("errs", t.TempDir())
	ns, _ := NewNamespace(nil, nil)
	ctx := context.Background()
	if _, err := ns.Stat(ctx, "dirtest://errs/missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(missing) = %v", err)
	}
	ue := &UnavailableError{Store: "s3a://b", Err: errors.New("connection refused")}
	if !errors.Is(ue, ErrUnavailable) || !strings.Contains(ue.Error(), "connection refused") {
		t.Errorf("UnavailableError: %v", ue)
	}
	if _, err := ns.Rename(ctx, "dirtest://errs/a", "/tmp/b"); err == nil {
		t.Error("a rename across stores succeeded")
	}
}
