package azure

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/gozie/gozie/internal/fsys"
)

// Stat describes p: the container's root and every prefix with blobs
// below it are directories, a blob is a file (or a directory when it is
// a hadoop-azure folder blob). It costs one request for a file, two for
// a directory.
func (f *azureFS) Stat(ctx context.Context, p string) (*fsys.FileInfo, error) {
	k, err := f.key("stat", p)
	if err != nil {
		return nil, err
	}
	if k == "" {
		return &fsys.FileInfo{Path: f.path(""), Dir: true}, nil
	}
	props, err := f.cc.NewBlobClient(k).GetProperties(ctx, nil)
	switch {
	case err == nil && isFolder(props.Metadata):
		return &fsys.FileInfo{Path: f.path(k), Dir: true, Modified: deref(props.LastModified)}, nil
	case err == nil:
		return f.fileInfo(k, deref(props.ContentLength), deref(props.LastModified)), nil
	case !isNotFound(err):
		return nil, f.fail(ctx, "stat", p, err)
	}
	fi, err := f.dirInfo(ctx, k)
	if err != nil {
		return nil, f.fail(ctx, "stat", p, err)
	}
	if fi == nil {
		return nil, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
	}
	return fi, nil
}

// dirInfo describes prefix k as a directory when one blob lies below
// "k/" (its marker, or any other), and returns nil when none does.
func (f *azureFS) dirInfo(ctx context.Context, k string) (*fsys.FileInfo, error) {
	pager := f.cc.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: to.Ptr(k + "/"), MaxResults: to.Ptr[int32](1)})
	for pager.More() { // one page, unless the service answers an empty one with a marker
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		if items := page.Segment.BlobItems; len(items) > 0 {
			fi := &fsys.FileInfo{Path: f.path(k), Dir: true}
			if deref(items[0].Name) == k+"/" && items[0].Properties != nil {
				fi.Modified = deref(items[0].Properties.LastModified) // the marker's time
			}
			return fi, nil
		}
	}
	return nil, nil
}

// fileInfo describes a file blob.
func (f *azureFS) fileInfo(k string, size int64, mod time.Time) *fsys.FileInfo {
	return &fsys.FileInfo{Path: f.path(k), Length: size, Modified: mod, BlockSize: f.s.blockSize}
}

// List returns the entries directly below directory p with a delimiter
// listing, one request per page: the blobs as files, the common prefixes
// as directories, never a directory's own marker. A file lists as
// itself.
func (f *azureFS) List(ctx context.Context, p string) ([]*fsys.FileInfo, error) {
	k, err := f.key("list", p)
	if err != nil {
		return nil, err
	}
	prefix := ""
	if k != "" {
		prefix = k + "/"
	}
	var out []*fsys.FileInfo
	dirs := map[string]bool{}
	addDir := func(name string, mod time.Time) {
		if name != "" && !dirs[name] {
			dirs[name] = true
			out = append(out, &fsys.FileInfo{Path: f.path(prefix + name), Dir: true, Modified: mod})
		}
	}
	sawMarker := false
	pager := f.cc.NewListBlobsHierarchyPager("/", &container.ListBlobsHierarchyOptions{
		Prefix:     &prefix,
		MaxResults: &f.s.listMax,
		Include:    container.ListBlobsInclude{Metadata: true},
	})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, f.fail(ctx, "list", p, err)
		}
		for _, bp := range page.Segment.BlobPrefixes {
			addDir(strings.TrimSuffix(strings.TrimPrefix(deref(bp.Name), prefix), "/"), time.Time{})
		}
		for _, it := range page.Segment.BlobItems {
			name := strings.TrimPrefix(deref(it.Name), prefix)
			var size int64
			var mod time.Time
			if it.Properties != nil {
				size, mod = deref(it.Properties.ContentLength), deref(it.Properties.LastModified)
			}
			switch {
			case name == "":
				sawMarker = true
			case isFolder(it.Metadata):
				addDir(name, mod)
			default:
				out = append(out, f.fileInfo(prefix+name, size, mod))
			}
		}
	}
	if len(out) > 0 || sawMarker || k == "" {
		return out, nil
	}
	// Nothing below: p is a file, an empty directory without a marker
	// (a hadoop-azure folder blob), or missing.
	fi, err := f.Stat(ctx, p)
	if err != nil {
		return nil, err
	}
	if fi.Dir {
		return nil, nil
	}
	return []*fsys.FileInfo{fi}, nil
}

// Open opens file p for reading. The reader resumes a download the
// connection dropped (from where it stopped, on the same version of the
// blob) and maps read errors as the other calls do.
func (f *azureFS) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	k, err := f.key("open", p)
	if err != nil {
		return nil, err
	}
	if k == "" {
		return nil, &fs.PathError{Op: "open", Path: p, Err: errors.New("is a directory")}
	}
	resp, err := f.cc.NewBlobClient(k).DownloadStream(ctx, nil)
	if err != nil {
		if isNotFound(err) {
			if fi, serr := f.dirInfo(ctx, k); serr == nil && fi != nil {
				return nil, &fs.PathError{Op: "open", Path: p, Err: errors.New("is a directory")}
			}
		}
		return nil, f.fail(ctx, "open", p, err)
	}
	if isFolder(resp.Metadata) {
		resp.Body.Close()
		return nil, &fs.PathError{Op: "open", Path: p, Err: errors.New("is a directory")}
	}
	return &reader{f: f, ctx: ctx, p: p, rc: resp.NewRetryReader(ctx, &blob.RetryReaderOptions{MaxRetries: 3})}, nil
}

// reader maps the errors of a download's body.
type reader struct {
	f   *azureFS
	ctx context.Context
	p   string
	rc  io.ReadCloser
}

func (r *reader) Read(b []byte) (int, error) {
	n, err := r.rc.Read(b)
	if err != nil && err != io.EOF {
		err = r.f.fail(r.ctx, "read", r.p, err)
	}
	return n, err
}

func (r *reader) Close() error { return r.rc.Close() }

// Create writes file p as one block blob: small content in one request,
// larger content as blocks committed at the end, so that readers see the
// old blob or the new one, never a part. Parent directories need no
// markers (their prefix exists once the blob does). A directory at p is
// refused with fs.ErrExist.
func (f *azureFS) Create(ctx context.Context, p string, r io.Reader) error {
	k, err := f.key("create", p)
	if err != nil {
		return err
	}
	if k == "" {
		return &fs.PathError{Op: "create", Path: p, Err: fs.ErrExist}
	}
	if fi, err := f.dirInfo(ctx, k); err != nil {
		return f.fail(ctx, "create", p, err)
	} else if fi != nil {
		return &fs.PathError{Op: "create", Path: p, Err: errIsDir}
	}
	_, err = f.cc.NewBlockBlobClient(k).UploadStream(ctx, r, &blockblob.UploadStreamOptions{
		BlockSize:   f.s.writeSize,
		Concurrency: 4,
	})
	return f.fail(ctx, "create", p, err)
}

// errIsDir is fs.ErrExist with the reason.
var errIsDir = &existError{"is a directory"}

// existError is an fs.ErrExist with a reason.
type existError struct{ msg string }

func (e *existError) Error() string { return e.msg }
func (e *existError) Unwrap() error { return fs.ErrExist }

// MkdirAll writes the marker blob "p/" (zero length), which makes p and,
// since prefixes are directories, its parents exist. A file blob at p is
// refused with fs.ErrExist; parents are not checked for files (that
// would cost a request per level).
func (f *azureFS) MkdirAll(ctx context.Context, p string) error {
	k, err := f.key("mkdir", p)
	if err != nil {
		return err
	}
	if k == "" {
		return nil // the container's root always exists
	}
	props, err := f.cc.NewBlobClient(k).GetProperties(ctx, nil)
	switch {
	case err == nil && isFolder(props.Metadata):
		return nil
	case err == nil:
		return &fs.PathError{Op: "mkdir", Path: p, Err: &existError{"a file exists there"}}
	case !isNotFound(err):
		return f.fail(ctx, "mkdir", p, err)
	}
	_, err = f.cc.NewBlockBlobClient(k+"/").Upload(ctx, streaming.NopCloser(strings.NewReader("")), nil)
	return f.fail(ctx, "mkdir", p, err)
}

// Touch sets the modification time of existing file p to now by
// writing its metadata back unchanged (any write to a blob updates its
// Last-Modified): two requests, no data read or written.
func (f *azureFS) Touch(ctx context.Context, p string) error {
	k, err := f.key("touchz", p)
	if err != nil {
		return err
	}
	bc := f.cc.NewBlobClient(k)
	props, err := bc.GetProperties(ctx, nil)
	if err != nil {
		return f.fail(ctx, "touchz", p, err)
	}
	// On the version read only, so that metadata set in between is kept.
	cond := &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: props.ETag}}
	_, err = bc.SetMetadata(ctx, props.Metadata, &blob.SetMetadataOptions{AccessConditions: cond})
	return f.fail(ctx, "touchz", p, err)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
