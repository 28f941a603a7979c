package s3_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/fsys/fsystest"
	"github.com/gozie/gozie/internal/fsys/s3"
	"github.com/gozie/gozie/internal/testservers"
)

// Every test here runs against a real S3 server: versitygw (the version
// .ci/tools.sh installs) with its POSIX backend.

var ctx = context.Background()

// namespace returns a namespace over conf, with extra keys set over it.
func namespace(t *testing.T, conf fsys.MapConfig, extra ...string) *fsys.Namespace {
	t.Helper()
	c := maps.Clone(conf)
	for i := 0; i+1 < len(extra); i += 2 {
		c[extra[i]] = extra[i+1]
	}
	ns, err := fsys.NewNamespace(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// The behaviour suite, in the s3a spelling and in the s3 spelling old
// paths use; s3n names the same objects.
func TestSuite(t *testing.T) {
	srv := testservers.StartS3(t)
	ns := namespace(t, srv.Conf)
	caps := fsystest.Caps{EmptyDirs: true}
	t.Run("s3a", func(t *testing.T) { fsystest.Run(t, ns, "s3a://"+srv.Bucket+"/suite", caps) })
	t.Run("s3", func(t *testing.T) { fsystest.Run(t, ns, "s3://"+srv.Bucket+"/suite-s3", caps) })
	t.Run("s3n", func(t *testing.T) {
		if err := ns.WriteFile(ctx, "s3n://"+srv.Bucket+"/spellings/f", []byte("one object")); err != nil {
			t.Fatal(err)
		}
		for _, scheme := range s3.Schemes {
			b, err := ns.ReadFileLimit(ctx, scheme+"://"+srv.Bucket+"/spellings/f", 0)
			if err != nil || string(b) != "one object" {
				t.Fatalf("%s: %q, %v", scheme, b, err)
			}
		}
		list, err := ns.List(ctx, "s3n://"+srv.Bucket+"/spellings")
		if err != nil || len(list) != 1 || list[0] != "s3n://"+srv.Bucket+"/spellings/f" {
			t.Fatalf("List in the s3n spelling = %v, %v", list, err)
		}
	})
}

// A done-flag is an empty object: a zero-length PUT, seen by Stat, List,
// Walk and touchz.
func TestEmptySuccessFlag(t *testing.T) {
	srv := testservers.StartS3(t)
	ns := namespace(t, srv.Conf)
	dir := "s3a://" + srv.Bucket + "/data/2024/01"
	flag := dir + "/_SUCCESS"
	before := s3.Requests()
	if err := ns.WriteFile(ctx, flag, nil); err != nil {
		t.Fatal(err)
	}
	if d := s3.Requests().Sub(before); d["PutObject"] != 1 || d.Total() != 1 {
		t.Fatalf("writing an empty flag took %v, want one PutObject", d)
	}
	if b, err := os.ReadFile(filepath.Join(srv.Dir, srv.Bucket, "data/2024/01/_SUCCESS")); err != nil || len(b) != 0 {
		t.Fatalf("the object on the server: %q, %v", b, err)
	}
	fi, err := ns.Stat(ctx, flag)
	if err != nil || fi.Dir || fi.Size() != 0 || fi.Path != flag {
		t.Fatalf("Stat(_SUCCESS) = %+v, %v", fi, err)
	}
	if list, err := ns.List(ctx, dir); err != nil || len(list) != 1 || list[0] != flag {
		t.Fatalf("List = %v, %v", list, err)
	}
	var walked []string
	err = walk(t, ns, "s3a://"+srv.Bucket+"/data", func(fi *fsys.FileInfo) error {
		walked = append(walked, fmt.Sprintf("%s %d", fi.Path, fi.Length))
		return nil
	})
	if err != nil || len(walked) != 1 || walked[0] != flag+" 0" {
		t.Fatalf("Walk = %v, %v", walked, err)
	}
	if err := ns.Touchz(ctx, flag); err != nil {
		t.Fatalf("touchz of an existing flag: %v", err)
	}
	if err := ns.Touchz(ctx, dir+"/_DONE"); err != nil {
		t.Fatalf("touchz of a new flag: %v", err)
	}
	if n, err := ns.FileSize(ctx, dir+"/_DONE"); err != nil || n != 0 {
		t.Fatalf("FileSize(_DONE) = %d, %v", n, err)
	}
}

// walk runs the backend's Walker on p.
func walk(t *testing.T, ns *fsys.Namespace, p string, fn func(*fsys.FileInfo) error) error {
	t.Helper()
	r, err := ns.Resolve(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	w, ok := r.FS.(fsys.Walker)
	if !ok {
		t.Fatal("the S3 backend is not a Walker")
	}
	return w.Walk(ctx, r.Path, fn)
}

// Walk lists 1,000 objects (and a directory marker it leaves out) page by
// page: with fs.s3a.paging.maximum=100 that is 11 listing requests, and
// DirSize costs the same.
func TestWalkPaginates(t *testing.T) {
	srv := testservers.StartS3(t)
	ns := namespace(t, srv.Conf, "fs.s3a.paging.maximum", "100")
	root := "s3a://" + srv.Bucket + "/walk"
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	var want int64
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < 1000; i += 16 {
				p := fmt.Sprintf("%s/d%02d/f%04d", root, i%10, i)
				if err := ns.WriteFile(ctx, p, bytes.Repeat([]byte("x"), i%7)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range 1000 {
		want += int64(i % 7)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := ns.MkdirAll(ctx, root+"/empty"); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var total int64
	before := s3.Requests()
	sawEmpty := false
	err := walk(t, ns, root, func(fi *fsys.FileInfo) error {
		if fi.Dir && fi.Path == root+"/empty" && !sawEmpty {
			sawEmpty = true // the marker of an empty directory
			return nil
		}
		if fi.Dir || !strings.HasPrefix(fi.Path, root+"/d") || seen[fi.Path] {
			return fmt.Errorf("unexpected entry %+v", fi)
		}
		seen[fi.Path] = true
		total += fi.Length
		return nil
	})
	d := s3.Requests().Sub(before)
	if err != nil || len(seen) != 1000 || total != want || !sawEmpty {
		t.Fatalf("Walk (%v) saw %d files of %d bytes, want 1000 of %d", err, len(seen), total, want)
	}
	if d["ListObjectsV2"] != 11 || d.Total() != 11 {
		t.Fatalf("Walk of 1,001 keys in pages of 100 took %v, want 11 ListObjectsV2", d)
	}
	before = s3.Requests()
	if n, err := ns.DirSize(ctx, root); err != nil || n != want {
		t.Fatalf("DirSize = %d, %v; want %d", n, err, want)
	}
	// DirSize: the namespace's Stat (a HEAD and a one-key listing), then
	// the flat listing.
	if d := s3.Requests().Sub(before); d["ListObjectsV2"] != 12 || d["HeadObject"] != 1 {
		t.Fatalf("DirSize took %v", d)
	}
	stop := errors.New("stop")
	n := 0
	before = s3.Requests()
	err = walk(t, ns, root, func(*fsys.FileInfo) error {
		if n++; n == 150 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || s3.Requests().Sub(before)["ListObjectsV2"] != 2 {
		t.Fatalf("a Walk stopped by its function = %v after %v", err, s3.Requests().Sub(before))
	}
	// Deleting the tree deletes a page at a time while listing on.
	before = s3.Requests()
	if err := ns.Delete(ctx, root); err != nil {
		t.Fatal(err)
	}
	if d := s3.Requests().Sub(before); d["ListObjectsV2"] != 11 || d["DeleteObjects"] != 11 || d["HeadObject"] != 1 {
		t.Fatalf("deleting 1,001 keys in pages of 100 took %v", d)
	}
	if list, err := ns.List(ctx, "s3a://"+srv.Bucket); err != nil || len(list) != 0 {
		t.Fatalf("after Delete the bucket holds %v, %v", list, err)
	}
}

// randomBytes returns n random bytes.
func randomBytes(t *testing.T, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// Content over fs.s3a.multipart.size is a multipart upload, spooled
// through fs.s3a.buffer.dir; objects over fs.s3a.multipart.threshold are
// renamed and touched with a multipart copy.
func TestMultipart(t *testing.T) {
	srv := testservers.StartS3(t)
	spool := t.TempDir()
	ns := namespace(t, srv.Conf, "fs.s3a.multipart.size", "5M", "fs.s3a.multipart.threshold", "5m", "fs.s3a.buffer.dir", spool)
	d := "s3a://" + srv.Bucket + "/mp"
	data := randomBytes(t, 11<<20+123)
	before := s3.Requests()
	if err := ns.WriteFile(ctx, d+"/big", data); err != nil {
		t.Fatal(err)
	}
	if c := s3.Requests().Sub(before); c["CreateMultipartUpload"] != 1 || c["UploadPart"] != 3 || c["CompleteMultipartUpload"] != 1 || c["PutObject"] != 0 {
		t.Fatalf("an 11 MiB upload in 5 MiB parts took %v", c)
	}
	if got, err := ns.ReadFileLimit(ctx, d+"/big", 0); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
	if left, _ := os.ReadDir(spool); len(left) != 0 {
		t.Fatalf("spool files left behind: %v", left)
	}
	before = s3.Requests()
	if err := ns.WriteFile(ctx, d+"/one-part", data[:5<<20]); err != nil {
		t.Fatal(err)
	}
	if c := s3.Requests().Sub(before); c["PutObject"] != 1 || c.Total() != 1 {
		t.Fatalf("a 5 MiB upload in 5 MiB parts took %v, want one PutObject", c)
	}
	before = s3.Requests()
	if _, err := ns.Rename(ctx, d+"/big", d+"/moved"); err != nil {
		t.Fatal(err)
	}
	if c := s3.Requests().Sub(before); c["UploadPartCopy"] != 3 || c["CopyObject"] != 0 {
		t.Fatalf("renaming 11 MiB over a 5 MiB threshold took %v", c)
	}
	before = s3.Requests()
	if err := ns.Touchz(ctx, d+"/moved"); err != nil {
		t.Fatal(err)
	}
	if c := s3.Requests().Sub(before); c["UploadPartCopy"] != 3 || c["GetObject"] != 0 {
		t.Fatalf("touchz of 11 MiB took %v", c)
	}
	if got, err := ns.ReadFileLimit(ctx, d+"/moved", 0); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("after rename and touchz: %d bytes, %v", len(got), err)
	}
	if ok, _ := ns.Exists(ctx, d+"/big"); ok {
		t.Fatal("the source of a rename is still there")
	}
}

// What an object store needs beyond the suite: odd names through server
// side copies, markers moved with their directory, parents kept when
// their last entry goes, and what the root and missing buckets do.
func TestDirectories(t *testing.T) {
	srv := testservers.StartS3(t)
	ns := namespace(t, srv.Conf)
	b := "s3a://" + srv.Bucket
	d := b + "/dirs"
	odd := d + "/a b+c=d%e&f?g#h'é.txt"
	write(t, ns, odd, "odd")
	if _, err := ns.Rename(ctx, odd, d+"/renamed odd+name"); err != nil {
		t.Fatalf("rename of an odd name: %v", err)
	}
	if got := read(t, ns, d+"/renamed odd+name"); got != "odd" {
		t.Fatalf("after rename: %q", got)
	}
	write(t, ns, d+"/src/f", "f")
	if err := ns.MkdirAll(ctx, d+"/src/empty"); err != nil {
		t.Fatal(err)
	}
	if _, err := ns.Rename(ctx, d+"/src", d+"/dst"); err != nil {
		t.Fatal(err)
	}
	if ok, err := ns.IsDir(ctx, d+"/dst/empty"); !ok || err != nil {
		t.Fatalf("an empty directory did not move with its parent: %v, %v", ok, err)
	}
	if ok, _ := ns.Exists(ctx, d+"/src"); ok {
		t.Fatal("the source directory is still there")
	}
	if _, err := ns.Rename(ctx, d+"/dst", d+"/dst/inside"); err == nil {
		t.Fatal("a directory moved into itself")
	}
	// A directory stays when its last entry is deleted or renamed away.
	write(t, ns, d+"/p/only", "x")
	write(t, ns, d+"/q/only", "x")
	if err := ns.Delete(ctx, d+"/p/only"); err != nil {
		t.Fatal(err)
	}
	if _, err := ns.Rename(ctx, d+"/q/only", d+"/q-only"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{d + "/p", d + "/q"} {
		if list, err := ns.List(ctx, p); err != nil || len(list) != 0 {
			t.Fatalf("List(%s) after its last entry went = %v, %v; want an empty directory", p, list, err)
		}
	}
	// A file is no directory: not under MkdirAll, not as a parent.
	write(t, ns, d+"/file", "x")
	if err := ns.MkdirAll(ctx, d+"/file/sub"); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("MkdirAll below a file = %v, want fs.ErrExist", err)
	}
	if _, err := ns.Rename(ctx, d+"/renamed odd+name", d+"/file/x"); err == nil {
		t.Fatal("rename below a file succeeded")
	}
	testRoot(t, ns, b)
}

// testRoot checks the bucket root and a bucket that does not exist.
func testRoot(t *testing.T, ns *fsys.Namespace, b string) {
	t.Helper()
	for _, root := range []string{b, b + "/"} {
		fi, err := ns.Stat(ctx, root)
		if err != nil || !fi.Dir {
			t.Fatalf("Stat(%s) = %+v, %v; want a directory", root, fi, err)
		}
	}
	if list, err := ns.List(ctx, b); err != nil || len(list) != 1 || list[0] != b+"/dirs" {
		t.Fatalf("List(root) = %v, %v", list, err)
	}
	if err := ns.Delete(ctx, b); err == nil {
		t.Fatal("the bucket root was deleted")
	}
	missing := "s3a://no-such-bucket"
	if _, err := ns.Stat(ctx, missing+"/x"); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "bucket [no-such-bucket] does not exist") {
		t.Fatalf("Stat in a missing bucket = %v", err)
	}
	if _, err := ns.Stat(ctx, missing); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Stat of a missing bucket = %v", err)
	}
	if err := ns.WriteFile(ctx, missing+"/x", nil); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("WriteFile in a missing bucket = %v", err)
	}
}

func write(t *testing.T, ns *fsys.Namespace, p, data string) {
	t.Helper()
	if err := ns.WriteFile(ctx, p, []byte(data)); err != nil {
		t.Fatalf("WriteFile(%s): %v", p, err)
	}
}

func read(t *testing.T, ns *fsys.Namespace, p string) string {
	t.Helper()
	b, err := ns.ReadFileLimit(ctx, p, 0)
	if err != nil {
		t.Fatalf("ReadFileLimit(%s): %v", p, err)
	}
	return string(b)
}
