package fsystest

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
)

// RunCluster runs the behaviour suite on a Hadoop file system (HDFS, or
// HDFS through WebHDFS) under root, in a directory of its own removed at
// the end, with permissions and groups (chgrp to the group the directory
// already has, which its owner may), then what such a store adds: Walk
// with directories, setrep, touchz's time, no temporary file left by
// Create, block size and owner.
func RunCluster(t *testing.T, ns *fsys.Namespace, root string) {
	ctx := context.Background()
	base := fmt.Sprintf("%s/gozie-%d", strings.TrimSuffix(root, "/"), time.Now().UnixNano())
	t.Cleanup(func() { ns.Delete(ctx, base) })
	if err := ns.MkdirAll(ctx, base); err != nil {
		t.Fatal(err)
	}
	fi, err := ns.Stat(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	Run(t, ns, base+"/suite", Caps{Perms: true, Groups: true, Group: fi.Group, EmptyDirs: true})
	t.Run("extras", func(t *testing.T) { clusterExtras(t, ns, base+"/extras") })
}

func clusterExtras(t *testing.T, ns *fsys.Namespace, d string) {
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
	want := "a false,empty true,s true,s/b false,s/t true,s/t/c false"
	if got := strings.Join(sortedCopy(seen), ","); err != nil || got != want {
		t.Fatalf("Walk = %s, %v; want %s", got, err, want)
	}
	if err := r.FS.(fsys.Walker).Walk(ctx, r.Path+"/missing", func(*fsys.FileInfo) error { return errors.New("called") }); err != nil {
		t.Fatalf("Walk(missing) = %v", err)
	}
	if err := ns.SetReplication(ctx, d+"/a", 2); err != nil {
		t.Fatal(err)
	}
	if fi, err := ns.Stat(ctx, d+"/a"); err != nil || fi.Replication != 2 {
		t.Fatalf("after setrep 2: replication %d, %v", fi.Replication, err)
	}
	if err := ns.SetReplication(ctx, d+"/s", 2); err != nil {
		t.Fatalf("setrep of a directory: %v", err)
	}
	if err := ns.SetReplication(ctx, d+"/missing", 2); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("setrep of a missing file = %v", err)
	}
	old := time.Now().Add(-time.Hour)
	before, _ := ns.Stat(ctx, d+"/a")
	if err := ns.Touchz(ctx, d+"/a"); err != nil {
		t.Fatal(err)
	}
	if after, err := ns.Stat(ctx, d+"/a"); err != nil || after.ModTime().Before(before.ModTime()) || after.ModTime().Before(old) {
		t.Fatalf("touchz: %v then %v, %v", before.ModTime(), after.ModTime(), err)
	}
	if l, err := ns.List(ctx, d); err != nil || len(l) != 3 {
		t.Fatalf("List shows %v, %v (a ._COPYING_ file left?)", l, err)
	}
	if fi, _ := ns.Stat(ctx, d+"/a"); fi.BlockSize <= 0 || fi.Owner == "" {
		t.Fatalf("Stat(file) = %+v", fi)
	}
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
