package azure_test

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/fsys/azure"
	"github.com/gozie/gozie/internal/fsys/fsystest"
	"github.com/gozie/gozie/internal/testservers"
)

// caps: an object store has no permission bits and no groups; MkdirAll
// writes a marker, so empty directories are listed.
var caps = fsystest.Caps{EmptyDirs: true}

// with returns a copy of c with the pairs k, v, ... set.
func with(c fsys.MapConfig, kv ...string) fsys.MapConfig {
	out := maps.Clone(c)
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func namespace(t *testing.T, c fsys.Config) *fsys.Namespace {
	t.Helper()
	ns, err := fsys.NewNamespace(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// blobNames lists the names of every blob under prefix, straight from
// the store.
func blobNames(t *testing.T, a *testservers.Azurite, prefix string) []string {
	t.Helper()
	cc, err := a.ContainerClient(a.Container)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	pager := cc.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: &prefix})
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Segment.BlobItems {
			out = append(out, *it.Name)
		}
	}
	return out
}

// The backend passes the behaviour suite on Azurite in each spelling:
// abfs:// with the account key under the dfs host, wasb:// with the key
// under the blob host and two-entry listing pages (so that every listing
// of the suite spans pages), abfss:// with a container SAS token and no
// key, and abfs:// configured through a job's settings only.
func TestSuite(t *testing.T) {
	a := testservers.StartAzurite(t)
	t.Run("abfs", func(t *testing.T) {
		fsystest.Run(t, namespace(t, a.Conf), a.ABFS("/suite"), caps)
	})
	t.Run("wasb-small-pages", func(t *testing.T) {
		c := fsys.MapConfig{
			"fs.azure.account.key." + a.Account + ".blob.core.windows.net": a.Key,
			"gozie.fs.azure.endpoint." + a.Account:                         a.Endpoint,
			azure.KeyListMax:                                               "2",
		}
		fsystest.Run(t, namespace(t, c), a.WASB("/suite-wasb"), caps)
	})
	t.Run("abfss-sas", func(t *testing.T) {
		token, err := a.ContainerSAS(a.Container)
		if err != nil {
			t.Fatal(err)
		}
		c := fsys.MapConfig{
			"fs.azure.sas." + a.Container + "." + a.Account + ".blob.core.windows.net": "?" + token,
			"gozie.fs.azure.endpoint." + a.Account:                                     a.Endpoint,
		}
		root := "abfss://" + a.Container + "@" + a.Account + ".dfs.core.windows.net/suite-sas"
		fsystest.Run(t, namespace(t, c), root, caps)
	})
	t.Run("job-settings", func(t *testing.T) {
		ns := namespace(t, nil)
		ctx := fsys.WithConf(context.Background(), a.Conf)
		p := a.ABFS("/job/flag")
		if err := ns.Touchz(ctx, p); err != nil {
			t.Fatal(err)
		}
		if ok, err := ns.Exists(ctx, p); err != nil || !ok {
			t.Fatalf("Exists with the job's settings = %v, %v", ok, err)
		}
		if _, err := ns.Stat(context.Background(), p); !errors.Is(err, fsys.ErrCredentials) {
			t.Fatalf("Stat without settings = %v, want ErrCredentials", err)
		}
	})
	// The store holds the names the suite wrote, unescaped.
	names := blobNames(t, a, "suite/write_read_stat/")
	for _, want := range []string{"suite/write_read_stat/deep/er/than/one.txt", "suite/write_read_stat/name with spaces=and+signs.txt", "suite/write_read_stat/_SUCCESS"} {
		if !slices.Contains(names, want) {
			t.Errorf("blob %q not in the store: %q", want, names)
		}
	}
}

// An empty done-flag is an empty blob: touchz and an empty write both
// make one, Stat, List and Walk report length 0.
func TestEmptySuccessFlag(t *testing.T) {
	a := testservers.StartAzurite(t)
	ns := namespace(t, a.Conf)
	ctx := context.Background()
	dir := a.ABFS("/out/2024-01-01")
	if err := ns.Touchz(ctx, dir+"/_SUCCESS"); err != nil {
		t.Fatal(err)
	}
	if err := ns.WriteFile(ctx, dir+"/part-0000", nil); err != nil {
		t.Fatal(err)
	}
	cc, err := a.ContainerClient(a.Container)
	if err != nil {
		t.Fatal(err)
	}
	props, err := cc.NewBlobClient("out/2024-01-01/_SUCCESS").GetProperties(ctx, nil)
	if err != nil || *props.ContentLength != 0 {
		t.Fatalf("the _SUCCESS blob: %v, %v", props.ContentLength, err)
	}
	list, err := ns.ListInfo(ctx, dir)
	if err != nil || len(list) != 2 || list[0].Path != dir+"/_SUCCESS" || list[0].Length != 0 || list[0].Dir {
		t.Fatalf("ListInfo = %v, %v", list, err)
	}
	if ok, err := ns.Exists(ctx, dir+"/_SUCCESS"); err != nil || !ok {
		t.Fatalf("Exists(_SUCCESS) = %v, %v", ok, err)
	}
	walked := walk(t, ns, a.ABFS("/out"))
	if !slices.Equal(walked, []string{dir + "/_SUCCESS 0", dir + "/part-0000 0"}) {
		t.Fatalf("Walk = %q", walked)
	}
}

// walk runs the backend's Walker below p and returns "path length" for
// every file.
func walk(t *testing.T, ns *fsys.Namespace, p string) []string {
	t.Helper()
	r, err := ns.Resolve(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	w, ok := r.FS.(fsys.Walker)
	if !ok {
		t.Fatal("the azure backend is not a Walker")
	}
	var out []string
	err = w.Walk(context.Background(), r.Path, func(fi *fsys.FileInfo) error {
		if fi.Dir { // a marker or folder blob: an (empty) directory
			out = append(out, fi.Path+"/")
			return nil
		}
		out = append(out, fi.Path+" "+strconv.FormatInt(fi.Length, 10))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// Walk, DirSize and Delete go through every page of a flat listing: with
// two entries a page (fs.azure.list.max.results=2), seven files, a
// marker and a sibling prefix take four pages or more.
func TestWalkPages(t *testing.T) {
	a := testservers.StartAzurite(t)
	ctx := context.Background()
	cc, err := a.ContainerClient(a.Container)
	if err != nil {
		t.Fatal(err)
	}
	c := with(a.Conf, azure.KeyListMax, "2")
	ns := namespace(t, c)
	root := a.ABFS("/in")
	files := []string{"a", "b/c", "b/d/e", "f", "g/h", "g/i", "j"}
	var want []string
	for i, f := range files {
		data := strings.Repeat("x", i+1)
		if err := ns.WriteFile(ctx, root+"/"+f, []byte(data)); err != nil {
			t.Fatal(err)
		}
		want = append(want, root+"/"+f+" "+strconv.FormatInt(int64(i+1), 10))
	}
	want = append(want, root+"/empty/") // its marker: an empty directory
	if err := ns.MkdirAll(ctx, root+"/empty"); err != nil {
		t.Fatal(err)
	}
	if err := ns.WriteFile(ctx, root+"-sibling/x", []byte("not below")); err != nil {
		t.Fatal(err)
	}
	// The store does cut listings into pages of two.
	pager := cc.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: to.Ptr("in/"), MaxResults: to.Ptr[int32](2)})
	if page, err := pager.NextPage(ctx); err != nil || len(page.Segment.BlobItems) != 2 || !pager.More() {
		t.Fatalf("Azurite did not paginate: %v", err)
	}
	slices.Sort(want)
	if got := walk(t, ns, root); !slices.Equal(got, want) {
		t.Fatalf("Walk = %q\nwant %q", got, want)
	}
	if n, err := ns.DirSize(ctx, root); err != nil || n != 28 {
		t.Fatalf("DirSize = %d, %v; want 28", n, err)
	}
	stop := errors.New("enough")
	r, _ := ns.Resolve(ctx, root)
	calls := 0
	err = r.FS.(fsys.Walker).Walk(ctx, r.Path, func(*fsys.FileInfo) error { calls++; return stop })
	if err != stop || calls != 1 {
		t.Fatalf("Walk stopped by fn = %v after %d calls", err, calls)
	}
	if got := walk(t, ns, a.ABFS("/nothing-here")); len(got) != 0 {
		t.Fatalf("Walk of a missing prefix = %q", got)
	}
	if err := ns.Delete(ctx, root); err != nil {
		t.Fatal(err)
	}
	if left := blobNames(t, a, "in"); !slices.Equal(left, []string{"in-sibling/x"}) {
		t.Fatalf("after Delete: %q", left)
	}
	if azure.BatchDisabled(r.FS) {
		t.Fatal("Blob Batch was refused: the deletes went one by one")
	}
}

// Deletes go one by one when Blob Batch is refused (accounts with a
// hierarchical namespace refuse it); the one-by-one path is forced here.
func TestDeleteWithoutBatch(t *testing.T) {
	a := testservers.StartAzurite(t)
	ctx := context.Background()
	ns := namespace(t, with(a.Conf, azure.KeyListMax, "3"))
	r, err := ns.Resolve(ctx, a.ABFS("/t"))
	if err != nil {
		t.Fatal(err)
	}
	azure.DisableBatch(r.FS)
	for _, f := range []string{"a", "b/c", "b/d", "e", "f/g/h"} {
		if err := ns.WriteFile(ctx, a.ABFS("/t/"+f), []byte(f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := ns.Delete(ctx, a.ABFS("/t")); err != nil {
		t.Fatal(err)
	}
	if left := blobNames(t, a, "t"); len(left) != 0 {
		t.Fatalf("after Delete: %q", left)
	}
}

// Directories hadoop-azure wrote (a zero-length blob with metadata
// hdi_isfolder=true, no trailing slash) are directories here too.
func TestHadoopFolderBlobs(t *testing.T) {
	a := testservers.StartAzurite(t)
	ctx := context.Background()
	cc, err := a.ContainerClient(a.Container)
	if err != nil {
		t.Fatal(err)
	}
	folder := &blockblob.UploadOptions{Metadata: map[string]*string{"hdi_isfolder": to.Ptr("true")}}
	for _, k := range []string{"hd", "hd/empty", "hd/full"} {
		if _, err := cc.NewBlockBlobClient(k).Upload(ctx, streaming.NopCloser(strings.NewReader("")), folder); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cc.NewBlockBlobClient("hd/full/f").Upload(ctx, streaming.NopCloser(strings.NewReader("data")), nil); err != nil {
		t.Fatal(err)
	}
	ns := namespace(t, a.Conf)
	for _, p := range []string{"/hd", "/hd/empty", "/hd/full"} {
		if ok, err := ns.IsDir(ctx, a.ABFS(p)); err != nil || !ok {
			t.Fatalf("IsDir(%s) = %v, %v", p, ok, err)
		}
	}
	list, err := ns.ListInfo(ctx, a.ABFS("/hd"))
	if err != nil || len(list) != 2 || !list[0].Dir || !list[1].Dir {
		t.Fatalf("ListInfo(hd) = %v, %v; want two directories", list, err)
	}
	if l, err := ns.List(ctx, a.ABFS("/hd/empty")); err != nil || len(l) != 0 {
		t.Fatalf("List(empty folder blob) = %v, %v", l, err)
	}
	if got := walk(t, ns, a.ABFS("/hd")); !slices.Equal(got, []string{a.ABFS("/hd/empty") + "/", a.ABFS("/hd/full") + "/", a.ABFS("/hd/full/f") + " 4"}) {
		t.Fatalf("Walk = %q", got)
	}
	if _, err := ns.ReadFileLimit(ctx, a.ABFS("/hd/empty"), 0); !errors.Is(err, fsys.ErrNotRegular) {
		t.Fatalf("reading a folder blob = %v", err)
	}
	if err := ns.MkdirAll(ctx, a.ABFS("/hd/empty")); err != nil {
		t.Fatalf("MkdirAll over a folder blob: %v", err)
	}
	if _, err := ns.Rename(ctx, a.ABFS("/hd/empty"), a.ABFS("/hd/moved")); err != nil {
		t.Fatal(err)
	}
	if ok, err := ns.IsDir(ctx, a.ABFS("/hd/moved")); err != nil || !ok {
		t.Fatalf("the renamed empty folder: %v, %v", ok, err)
	}
	if err := ns.Delete(ctx, a.ABFS("/hd")); err != nil {
		t.Fatal(err)
	}
	if left := blobNames(t, a, "hd"); len(left) != 0 {
		t.Fatalf("after Delete: %q", left)
	}
}

// Backend details the suite does not look at: block size, a missing
// container, renames the store refuses, the root.
func TestBackendDetails(t *testing.T) {
	a := testservers.StartAzurite(t)
	ctx := context.Background()
	ns := namespace(t, with(a.Conf, azure.KeyBlockSize, "134217728"))
	p := a.WASB("/d/f")
	if err := ns.WriteFile(ctx, p, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if n, err := ns.BlockSize(ctx, p); err != nil || n != 128<<20 {
		t.Fatalf("BlockSize with %s set = %d, %v", azure.KeyBlockSize, n, err)
	}
	if n, err := namespace(t, a.Conf).BlockSize(ctx, p); err != nil || n != 32<<20 {
		t.Fatalf("BlockSize by default = %d, %v", n, err)
	}
	// touchz of an existing file writes its metadata back: a new version
	// (ETag), the same content and metadata, no earlier time.
	cc, err := a.ContainerClient(a.Container)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cc.NewBlobClient("d/f").SetMetadata(ctx, map[string]*string{"owner": to.Ptr("etl")}, nil); err != nil {
		t.Fatal(err)
	}
	before, err := cc.NewBlobClient("d/f").GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ns.Touchz(ctx, p); err != nil {
		t.Fatal(err)
	}
	after, err := cc.NewBlobClient("d/f").GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *after.ETag == *before.ETag || after.LastModified.Before(*before.LastModified) || *after.ContentLength != 1 ||
		after.Metadata["Owner"] == nil && after.Metadata["owner"] == nil {
		t.Fatalf("touchz: ETag %s -> %s, modified %v -> %v, length %d, metadata %v",
			*before.ETag, *after.ETag, before.LastModified, after.LastModified, *after.ContentLength, after.Metadata)
	}
	// abfs and wasb spellings name the same blobs.
	if b, err := ns.ReadFileLimit(ctx, a.ABFS("/d/f"), 0); err != nil || string(b) != "x" {
		t.Fatalf("reading a wasb:// write through abfs:// = %q, %v", b, err)
	}
	if fi, err := ns.Stat(ctx, a.ABFS("")); err != nil || !fi.Dir || fi.Path != a.ABFS("") {
		t.Fatalf("Stat(container root) = %+v, %v", fi, err)
	}
	if err := ns.Delete(ctx, a.ABFS("/")); !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("Delete(container root) = %v, want fs.ErrPermission", err)
	}
	if err := ns.WriteFile(ctx, a.ABFS("/d"), []byte("over a directory")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Create over a directory = %v, want fs.ErrExist", err)
	}
	if _, err := ns.Rename(ctx, a.ABFS("/d"), a.ABFS("/d/sub")); err == nil {
		t.Fatal("Rename of a directory below itself succeeded")
	}
	if _, err := ns.Rename(ctx, a.ABFS("/d/f"), a.ABFS("/d/f/g")); err == nil {
		t.Fatal("Rename below a file succeeded")
	}
	missing := "abfs://nosuchcontainer@" + a.Account + ".dfs.core.windows.net/x"
	if _, err := ns.Stat(ctx, missing); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Stat in a missing container = %v, want fs.ErrNotExist", err)
	}
	if err := ns.Delete(ctx, missing); err != nil {
		t.Fatalf("Delete in a missing container = %v, want nil", err)
	}
	if err := ns.WriteFile(ctx, missing, []byte("x")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Create in a missing container = %v, want fs.ErrNotExist", err)
	}
	for _, s := range azure.Schemes {
		if !slices.Contains(fsys.Schemes(), s) {
			t.Errorf("scheme %s is not registered", s)
		}
	}
}
