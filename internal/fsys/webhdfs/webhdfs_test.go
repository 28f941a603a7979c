package webhdfs_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/fsys/fsystest"
	"github.com/gozie/gozie/internal/fsys/hdfs"
	_ "github.com/gozie/gozie/internal/fsys/webhdfs"
	"github.com/gozie/gozie/internal/testservers"
)

// The behaviour suite through a real WebHDFS endpoint: GOZIE_TEST_WEBHDFS
// names a directory on it, HADOOP_CONF_DIR the client settings (see
// docs/storage.md). Skipped when unset: no NameNode runs in CI.
func TestWebHDFSSuite(t *testing.T) {
	root := testservers.WebHDFS(t)
	ctx := context.Background()
	cfg, err := hdfs.LoadConfEnv()
	if err != nil {
		t.Fatal(err)
	}
	ns, err := fsys.NewNamespace(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf("%s/gozie-%d", strings.TrimSuffix(root, "/"), time.Now().UnixNano())
	t.Cleanup(func() { ns.Delete(ctx, base) })
	if err := ns.MkdirAll(ctx, base); err != nil {
		t.Fatal(err)
	}
	fi, err := ns.Stat(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	fsystest.Run(t, ns, base+"/suite", fsystest.Caps{Perms: true, Groups: true, Group: fi.Group, EmptyDirs: true})
	t.Run("extras", func(t *testing.T) { extras(t, ns, base+"/extras") })
}

// extras checks what the suite does not: Walk, setrep, touchz's time, no
// temporary file left by Create.
func extras(t *testing.T, ns *fsys.Namespace, d string) {
	ctx := context.Background()
	for _, f := range []string{"a", "s/b", "s/t/c"} {
		if err := ns.WriteFile(ctx, d+"/"+f, []byte(f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := ns.MkdirAll(ctx, d+"/empty"); err != nil {
		t.Fatal(err)
	}
	r, err := ns.Resolve(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	err = r.FS.(fsys.Walker).Walk(ctx, r.Path, func(fi *fsys.FileInfo) error {
		seen = append(seen, fmt.Sprintf("%s %v", strings.TrimPrefix(fi.Path, d+"/"), fi.Dir))
		return nil
	})
	slices.Sort(seen)
	want := "a false,empty true,s true,s/b false,s/t true,s/t/c false"
	if got := strings.Join(seen, ","); err != nil || got != want {
		t.Fatalf("Walk = %s, %v; want %s", got, err, want)
	}
	if err := ns.SetReplication(ctx, d+"/a", 2); err != nil {
		t.Fatal(err)
	}
	if fi, err := ns.Stat(ctx, d+"/a"); err != nil || fi.Replication != 2 {
		t.Fatalf("after setrep 2: %+v, %v", fi, err)
	}
	if err := ns.SetReplication(ctx, d+"/s", 2); err != nil {
		t.Fatalf("setrep of a directory: %v", err)
	}
	if err := ns.SetReplication(ctx, d+"/missing", 2); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("setrep of a missing file = %v", err)
	}
	before, _ := ns.Stat(ctx, d+"/a")
	if err := ns.Touchz(ctx, d+"/a"); err != nil {
		t.Fatal(err)
	}
	if after, err := ns.Stat(ctx, d+"/a"); err != nil || after.ModTime().Before(before.ModTime()) {
		t.Fatalf("touchz: %v then %v, %v", before.ModTime(), after.ModTime(), err)
	}
	if l, err := ns.List(ctx, d); err != nil || len(l) != 3 {
		t.Fatalf("List shows %v, %v (a ._COPYING_ file left?)", l, err)
	}
}

// A NameNode that does not listen, alone or as every NameNode of a
// nameservice: every operation is ErrUnavailable naming the store.
func TestClosedPortIsUnavailable(t *testing.T) {
	ctx := context.Background()
	p1, p2 := testservers.FreePort(t), testservers.FreePort(t)
	cfg := fsys.MapConfig{
		"dfs.nameservices":                    "down",
		"dfs.ha.namenodes.down":               "nn1,nn2",
		"dfs.namenode.http-address.down.nn1":  fmt.Sprintf("127.0.0.1:%d", p1),
		"dfs.namenode.http-address.down.nn2":  fmt.Sprintf("127.0.0.1:%d", p2),
		"dfs.namenode.https-address.down.nn1": fmt.Sprintf("127.0.0.1:%d", p1),
		"dfs.namenode.https-address.down.nn2": fmt.Sprintf("127.0.0.1:%d", p2),
		"dfs.webhdfs.socket.connect-timeout":  "2s",
	}
	ns, err := fsys.NewNamespace(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, store := range []string{fmt.Sprintf("webhdfs://127.0.0.1:%d", p1), fmt.Sprintf("swebhdfs://127.0.0.1:%d", p2), "webhdfs://down", "swebhdfs://down"} {
		p := store + "/data/x"
		ops := map[string]func() error{
			"stat":   func() error { _, err := ns.Stat(ctx, p); return err },
			"list":   func() error { _, err := ns.List(ctx, p); return err },
			"open":   func() error { _, err := ns.Open(ctx, p); return err },
			"write":  func() error { return ns.WriteFile(ctx, p, []byte("x")) },
			"mkdir":  func() error { return ns.MkdirAll(ctx, p) },
			"delete": func() error { return ns.Delete(ctx, p) },
			"chmod":  func() error { return ns.Chmod(ctx, p, 0o600) },
			"chgrp":  func() error { return ns.Chgrp(ctx, p, "g") },
			"setrep": func() error { return ns.SetReplication(ctx, p, 2) },
			"touchz": func() error { return ns.Touchz(ctx, p) },
			"size":   func() error { _, err := ns.DirSize(ctx, p); return err },
			"rename": func() error { _, err := ns.Rename(ctx, p, p+"2"); return err },
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

// Open does no I/O; a configuration error is reported on every operation.
func TestOpenIsLazy(t *testing.T) {
	ns, err := fsys.NewNamespace(fsys.MapConfig{"dfs.nameservices": "ns", "dfs.ha.namenodes.ns": "a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, err := ns.Stat(context.Background(), "webhdfs://ns/x")
		if err == nil || !strings.Contains(err.Error(), "dfs.namenode.http-address.ns.a") {
			t.Fatalf("Stat = %v, want the missing key named", err)
		}
	}
}
