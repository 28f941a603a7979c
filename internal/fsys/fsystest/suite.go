// Package fsystest is the behaviour suite every file-system backend
// passes: the contract of fsys.FileSystem, exercised through a Namespace
// the way gozie's callers use it. A backend's test starts its real store
// (a server process, or the one an environment variable names) and calls
// Run with a fresh root directory on it.
package fsystest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/fsys"
)

// Caps says which optional behaviours the store has.
type Caps struct {
	// Perms: chmod changes the permission bits Stat reports.
	Perms bool
	// Groups: chgrp to Group works.
	Groups bool
	Group  string
	// EmptyDirs: an empty directory made by MkdirAll is listed by its
	// parent (true of every backend here: object stores write a marker).
	EmptyDirs bool
}

// Run exercises ns under root, a directory that does not exist yet (or is
// empty) on the store under test. Every subtest works in a directory of
// its own below root.
func Run(t *testing.T, ns *fsys.Namespace, root string, caps Caps) {
	t.Helper()
	h := &harness{ctx: context.Background(), ns: ns, root: root, caps: caps}
	t.Run("missing", func(t *testing.T) { h.testMissing(t) })
	t.Run("write read stat", func(t *testing.T) { h.testWriteReadStat(t) })
	t.Run("read limits", func(t *testing.T) { h.testReadLimits(t) })
	t.Run("mkdir", func(t *testing.T) { h.testMkdir(t) })
	t.Run("list", func(t *testing.T) { h.testList(t) })
	t.Run("glob", func(t *testing.T) { h.testGlob(t) })
	t.Run("delete", func(t *testing.T) { h.testDelete(t) })
	t.Run("rename", func(t *testing.T) { h.testRename(t) })
	t.Run("touchz", func(t *testing.T) { h.testTouchz(t) })
	t.Run("sizes", func(t *testing.T) { h.testSizes(t) })
	t.Run("copy", func(t *testing.T) { h.testCopy(t) })
	t.Run("permissions", func(t *testing.T) { h.testPermissions(t) })
	t.Run("concurrent", func(t *testing.T) { h.testConcurrent(t) })
}

// harness is one run of the suite: the namespace under test, the root
// below which each subtest makes a directory of its own, and helpers.
type harness struct {
	ctx  context.Context
	ns   *fsys.Namespace
	root string
	caps Caps
}

// dir returns the subtest's own directory under the root, emptied.
func (h *harness) dir(t *testing.T) string {
	d := strings.TrimSuffix(h.root, "/") + "/" + strings.ReplaceAll(t.Name()[strings.LastIndexByte(t.Name(), '/')+1:], " ", "_")
	if err := h.ns.Delete(h.ctx, d); err != nil {
		t.Fatalf("cleaning %s: %v", d, err)
	}
	return d
}

// write writes p, failing the test on error.
func (h *harness) write(t *testing.T, p, data string) {
	t.Helper()
	if err := h.ns.WriteFile(h.ctx, p, []byte(data)); err != nil {
		t.Fatalf("WriteFile(%s): %v", p, err)
	}
}

// read reads p whole, failing the test on error.
func (h *harness) read(t *testing.T, p string) string {
	t.Helper()
	b, err := h.ns.ReadFileLimit(h.ctx, p, 0)
	if err != nil {
		t.Fatalf("ReadFileLimit(%s): %v", p, err)
	}
	return string(b)
}

// exists reports whether p exists, failing the test on error.
func (h *harness) exists(t *testing.T, p string) bool {
	t.Helper()
	ok, err := h.ns.Exists(h.ctx, p)
	if err != nil {
		t.Fatalf("Exists(%s): %v", p, err)
	}
	return ok
}

func (h *harness) testMissing(t *testing.T) {
	ctx, ns := h.ctx, h.ns
	d := h.dir(t)
	_, err := ns.Stat(ctx, d+"/nope")
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) {
		t.Fatalf("Stat(missing) = %v, want a *fs.PathError matching fs.ErrNotExist", err)
	}
	if h.exists(t, d+"/nope") {
		t.Fatal("Exists(missing) = true")
	}
	if _, err := ns.ReadFileLimit(ctx, d+"/nope", 0); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadFileLimit(missing) = %v, want fs.ErrNotExist", err)
	}
	if _, err := ns.List(ctx, d+"/nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("List(missing) = %v, want fs.ErrNotExist", err)
	}
	if err := ns.Delete(ctx, d+"/nope"); err != nil {
		t.Fatalf("Delete(missing) = %v, want nil", err)
	}
}

func (h *harness) testWriteReadStat(t *testing.T) {
	ctx, ns := h.ctx, h.ns
	d := h.dir(t)
	before := time.Now().Add(-5 * time.Minute)
	cases := []struct{ name, data string }{
		{"plain.txt", "hello"},
		{"_SUCCESS", ""}, // a done-flag is an empty file
		{"name with spaces=and+signs.txt", "odd names"},
		{"deep/er/than/one.txt", "parents are made"},
		{"big.bin", strings.Repeat("0123456789abcdef", 1<<16)}, // 1 MiB
	}
	for _, c := range cases {
		p := d + "/" + c.name
		h.write(t, p, c.data)
		if got := h.read(t, p); got != c.data {
			t.Fatalf("%s: read %d bytes, want %d", c.name, len(got), len(c.data))
		}
		fi, err := ns.Stat(ctx, p)
		if err != nil {
			t.Fatalf("Stat(%s): %v", p, err)
		}
		if fi.Dir || fi.Size() != int64(len(c.data)) || fi.Name() != filepath.Base(c.name) {
			t.Fatalf("Stat(%s) = dir %v size %d name %q", p, fi.Dir, fi.Size(), fi.Name())
		}
		if fi.Path != p {
			t.Fatalf("Stat(%s).Path = %s", p, fi.Path)
		}
		if fi.ModTime().Before(before) || fi.ModTime().After(time.Now().Add(5*time.Minute)) {
			t.Fatalf("Stat(%s).ModTime = %v, not about now", p, fi.ModTime())
		}
		if n, err := ns.FileSize(ctx, p); err != nil || n != int64(len(c.data)) {
			t.Fatalf("FileSize(%s) = %d, %v", p, n, err)
		}
		if n, err := ns.BlockSize(ctx, p); err != nil || n <= 0 {
			t.Fatalf("BlockSize(%s) = %d, %v", p, n, err)
		}
	}
	// Parents of a nested file are directories.
	if ok, err := ns.IsDir(ctx, d+"/deep/er"); err != nil || !ok {
		t.Fatalf("IsDir(parent of a nested file) = %v, %v", ok, err)
	}
	h.write(t, d+"/plain.txt", "replaced")
	if got := h.read(t, d+"/plain.txt"); got != "replaced" {
		t.Fatalf("after overwrite: %q", got)
	}
}

func (h *harness) testReadLimits(t *testing.T) {
	ctx, ns := h.ctx, h.ns
	d := h.dir(t)
	h.write(t, d+"/f", "0123456789")
	if _, err := ns.ReadFileLimit(ctx, d+"/f", 9); !errors.Is(err, fsys.ErrTooLarge) {
		t.Fatalf("ReadFileLimit over the limit = %v, want ErrTooLarge", err)
	}
	if b, err := ns.ReadFileLimit(ctx, d+"/f", 10); err != nil || string(b) != "0123456789" {
		t.Fatalf("ReadFileLimit at the limit = %q, %v", b, err)
	}
	if _, err := ns.ReadFileLimit(ctx, d, 0); !errors.Is(err, fsys.ErrNotRegular) {
		t.Fatalf("ReadFileLimit(directory) = %v, want ErrNotRegular", err)
	}
	rc, err := ns.Open(ctx, d+"/f")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(b) != "0123456789" {
		t.Fatalf("Open+ReadAll = %q, %v", b, err)
	}
}

func (h *harness) testMkdir(t *testing.T) {
	ctx, ns, caps := h.ctx, h.ns, h.caps
	d := h.dir(t)
	for i := 0; i < 2; i++ { // twice: an existing directory is fine
		if err := ns.MkdirAll(ctx, d+"/a/b/c"); err != nil {
			t.Fatalf("MkdirAll #%d: %v", i, err)
		}
	}
	for _, p := range []string{d + "/a", d + "/a/b", d + "/a/b/c"} {
		fi, err := ns.Stat(ctx, p)
		if err != nil || !fi.IsDir() || !fi.Mode().IsDir() {
			t.Fatalf("Stat(%s) = %v, %v; want a directory", p, fi, err)
		}
	}
	if caps.EmptyDirs {
		list, err := ns.List(ctx, d+"/a/b")
		if err != nil || !slices.Equal(list, []string{d + "/a/b/c"}) {
			t.Fatalf("List(parent of an empty dir) = %v, %v", list, err)
		}
	}
	h.write(t, d+"/file", "x")
	if err := ns.MkdirAll(ctx, d+"/file"); err == nil {
		t.Fatal("MkdirAll over a file succeeded")
	}
	if _, err := ns.FileSize(ctx, d+"/a"); err == nil {
		t.Fatal("FileSize(directory) succeeded")
	}
}

func (h *harness) testList(t *testing.T) {
	ctx, ns := h.ctx, h.ns
	d := h.dir(t)
	h.write(t, d+"/b.txt", "b")
	h.write(t, d+"/a.txt", "a")
	h.write(t, d+"/sub/c.txt", "c")
	list, err := ns.ListInfo(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fi := range list {
		got = append(got, fmt.Sprintf("%s dir=%v", fi.Path, fi.Dir))
	}
	want := []string{d + "/a.txt dir=false", d + "/b.txt dir=false", d + "/sub dir=true"}
	if !slices.Equal(got, want) {
		t.Fatalf("ListInfo = %q, want %q", got, want)
	}
	if l, err := ns.List(ctx, d+"/a.txt"); err != nil || !slices.Equal(l, []string{d + "/a.txt"}) {
		t.Fatalf("List(file) = %v, %v; want the file itself", l, err)
	}
	// A prefix that only shares leading characters is not a child.
	h.write(t, d+"-sibling/x", "x")
	defer ns.Delete(ctx, d+"-sibling")
	if l, _ := ns.List(ctx, d); len(l) != 3 {
		t.Fatalf("List sees a sibling's files: %v", l)
	}
}

func (h *harness) testGlob(t *testing.T) {
	ctx, ns := h.ctx, h.ns
	d := h.dir(t)
	for _, f := range []string{"2024/01/a.txt", "2024/01/b.txt", "2024/02/a.txt", "2024/02/c.log", "2025/01/a.txt"} {
		h.write(t, d+"/"+f, f)
	}
	cases := []struct {
		pattern string
		want    []string
	}{
		{"2024/01/*", []string{"2024/01/a.txt", "2024/01/b.txt"}},
		{"*/01/a.txt", []string{"2024/01/a.txt", "2025/01/a.txt"}},
		{"2024/*/a.txt", []string{"2024/01/a.txt", "2024/02/a.txt"}},
		{"2024/0?/[ab].txt", []string{"2024/01/a.txt", "2024/01/b.txt", "2024/02/a.txt"}},
		{"2024/02/{a.txt,c.log}", []string{"2024/02/a.txt", "2024/02/c.log"}},
		{"{2024/02,2025/01}/a.txt", []string{"2024/02/a.txt", "2025/01/a.txt"}},
		{"2024/02/[^a]*", []string{"2024/02/c.log"}},
		{"2024/01/a.txt", []string{"2024/01/a.txt"}},
		{"2024/01/zz*", nil},
		{"2026/*/a.txt", nil},
		{"2024/01/missing.txt", nil},
	}
	for _, c := range cases {
		got, err := ns.Glob(ctx, d+"/"+c.pattern)
		if err != nil {
			t.Fatalf("Glob(%s): %v", c.pattern, err)
		}
		var want []string
		for _, w := range c.want {
			want = append(want, d+"/"+w)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Glob(%s) = %q, want %q", c.pattern, got, want)
		}
	}
	if _, err := ns.Glob(ctx, d+"/{a,b"); err == nil {
		t.Fatal("Glob of an unclosed group succeeded")
	}
}

func (h *harness) testDelete(t *testing.T) {
	ctx, ns := h.ctx, h.ns
	d := h.dir(t)
	h.write(t, d+"/keep", "k")
	h.write(t, d+"/tree/x/y", "y")
	h.write(t, d+"/tree/z", "z")
	h.write(t, d+"/treeish", "not below tree")
	if err := ns.Delete(ctx, d+"/tree"); err != nil {
		t.Fatal(err)
	}
	if h.exists(t, d+"/tree") || h.exists(t, d+"/tree/x/y") {
		t.Fatal("tree still there after Delete")
	}
	if !h.exists(t, d+"/keep") || !h.exists(t, d+"/treeish") {
		t.Fatal("Delete removed a sibling")
	}
	if err := ns.Delete(ctx, d+"/keep"); err != nil || h.exists(t, d+"/keep") {
		t.Fatalf("Delete(file) = %v", err)
	}
}

func (h *harness) testRename(t *testing.T) {
	ctx, ns := h.ctx, h.ns
	d := h.dir(t)
	h.write(t, d+"/src", "data")
	got, err := ns.Rename(ctx, d+"/src", d+"/dst")
	if err != nil || got != d+"/dst" {
		t.Fatalf("Rename to a new name = %s, %v", got, err)
	}
	if h.exists(t, d+"/src") || h.read(t, d+"/dst") != "data" {
		t.Fatal("Rename left the source or lost the data")
	}
	if err := ns.MkdirAll(ctx, d+"/into"); err != nil {
		t.Fatal(err)
	}
	got, err = ns.Rename(ctx, d+"/dst", d+"/into")
	if err != nil || got != d+"/into/dst" || h.read(t, d+"/into/dst") != "data" {
		t.Fatalf("Rename into a directory = %s, %v", got, err)
	}
	h.write(t, d+"/other", "o")
	if _, err := ns.Rename(ctx, d+"/other", d+"/into/dst"); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Rename onto a file = %v, want fs.ErrExist", err)
	}
	if _, err := ns.Rename(ctx, d+"/nope", d+"/x"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Rename of a missing source = %v, want fs.ErrNotExist", err)
	}
	if _, err := ns.Rename(ctx, d+"/other", d+"/no/parent"); err == nil {
		t.Fatal("Rename to a missing parent succeeded")
	}
	h.write(t, d+"/tree/a", "a")
	h.write(t, d+"/tree/sub/b", "b")
	if _, err := ns.Rename(ctx, d+"/tree", d+"/moved"); err != nil {
		t.Fatal(err)
	}
	if h.exists(t, d+"/tree") || h.read(t, d+"/moved/sub/b") != "b" || h.read(t, d+"/moved/a") != "a" {
		t.Fatal("a directory rename lost or left files")
	}
}

func (h *harness) testTouchz(t *testing.T) {
	ctx, ns := h.ctx, h.ns
	d := h.dir(t)
	if err := ns.MkdirAll(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := ns.Touchz(ctx, d+"/flag"); err != nil {
		t.Fatal(err)
	}
	if n, err := ns.FileSize(ctx, d+"/flag"); err != nil || n != 0 {
		t.Fatalf("after touchz: size %d, %v", n, err)
	}
	h.write(t, d+"/kept", "content")
	if err := ns.Touchz(ctx, d+"/kept"); err != nil {
		t.Fatal(err)
	}
	if h.read(t, d+"/kept") != "content" {
		t.Fatal("touchz of an existing file changed its content")
	}
	if err := ns.Touchz(ctx, d); err == nil {
		t.Fatal("touchz of a directory succeeded")
	}
}

func (h *harness) testSizes(t *testing.T) {
	ctx, ns := h.ctx, h.ns
	d := h.dir(t)
	h.write(t, d+"/a", "12345")
	h.write(t, d+"/s/b", "123")
	h.write(t, d+"/s/t/c", "1")
	if n, err := ns.DirSize(ctx, d); err != nil || n != 9 {
		t.Fatalf("DirSize = %d, %v; want 9", n, err)
	}
	if _, err := ns.DirSize(ctx, d+"/a"); err == nil {
		t.Fatal("DirSize(file) succeeded")
	}
}

func (h *harness) testCopy(t *testing.T) {
	ctx, ns := h.ctx, h.ns
	d := h.dir(t)
	h.write(t, d+"/src/a", "a")
	h.write(t, d+"/src/sub/b", "bb")
	if err := ns.Copy(ctx, d+"/src", d+"/dst"); err != nil {
		t.Fatal(err)
	}
	if h.read(t, d+"/dst/a") != "a" || h.read(t, d+"/dst/sub/b") != "bb" || h.read(t, d+"/src/a") != "a" {
		t.Fatal("Copy lost data")
	}
	local := filepath.Join(t.TempDir(), "here")
	if err := ns.CopyToLocal(ctx, d+"/src", local); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(local, "sub", "b")); err != nil || string(b) != "bb" {
		t.Fatalf("CopyToLocal: %q, %v", b, err)
	}
}

func (h *harness) testPermissions(t *testing.T) {
	ctx, ns, caps := h.ctx, h.ns, h.caps
	d := h.dir(t)
	h.write(t, d+"/f", "x")
	err := ns.Chmod(ctx, d+"/f", 0o640)
	if !caps.Perms {
		if !errors.Is(err, fsys.ErrNotSupported) {
			t.Fatalf("Chmod on a store without permissions = %v, want ErrNotSupported", err)
		}
	} else {
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := ns.Stat(ctx, d+"/f"); err != nil || fi.Mode().Perm() != 0o640 {
			t.Fatalf("after chmod 640: %v, %v", fi.Mode(), err)
		}
	}
	err = ns.Chgrp(ctx, d+"/f", caps.Group)
	if caps.Groups && err != nil {
		t.Fatalf("Chgrp: %v", err)
	}
	if !caps.Groups && caps.Group == "" && !errors.Is(err, fsys.ErrNotSupported) && err == nil {
		t.Fatal("Chgrp on a store without groups succeeded")
	}
	if err := ns.SetReplication(ctx, d+"/f", 2); err != nil {
		t.Fatalf("SetReplication: %v", err)
	}
}

func (h *harness) testConcurrent(t *testing.T) {
	ctx, ns := h.ctx, h.ns
	d := h.dir(t)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := fmt.Sprintf("%s/f%02d", d, i)
			data := bytes.Repeat([]byte{byte('a' + i)}, 1000+i)
			if err := ns.WriteFile(ctx, p, data); err != nil {
				errs <- err
				return
			}
			got, err := ns.ReadFileLimit(ctx, p, 0)
			if err == nil && !bytes.Equal(got, data) {
				err = fmt.Errorf("%s: read back %d bytes, want %d", p, len(got), len(data))
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if l, err := ns.List(ctx, d); err != nil || len(l) != 16 {
		t.Fatalf("List after concurrent writes: %d entries, %v", len(l), err)
	}
}
