package webhdfs_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

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
