package azure

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/gozie/gozie/internal/fsys"
)

const (
	// batchMax is the most sub-requests one Blob Batch request takes.
	batchMax = 256
	// parallel bounds the requests one Rename or unbatched Delete runs
	// at once.
	parallel = 8
)

// pages lists every blob whose name starts with prefix, without a
// delimiter (a flat listing: every depth, one request per page), and
// hands fn each page.
func (f *azureFS) pages(ctx context.Context, prefix string, fn func([]*container.BlobItem) error) error {
	pager := f.cc.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{
		Prefix:     &prefix,
		MaxResults: &f.s.listMax,
		Include:    container.ListBlobsInclude{Metadata: true},
	})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return err
		}
		if err := fn(page.Segment.BlobItems); err != nil {
			return err
		}
	}
	return nil
}

// prefixOf is the listing prefix of the directory with blob name k.
func prefixOf(k string) string {
	if k == "" {
		return ""
	}
	return k + "/"
}

// Walk calls fn with every file below directory p, at every depth, from
// a flat listing (one request per page of fs.azure.list.max.results
// blobs); directory markers and folder blobs come as directories (an
// empty directory exists). Nothing below p (a missing p) is no call and
// no error.
func (f *azureFS) Walk(ctx context.Context, p string, fn func(*fsys.FileInfo) error) error {
	k, err := f.key("walk", p)
	if err != nil {
		return err
	}
	var stop error // fn's own error, returned as it is
	err = f.pages(ctx, prefixOf(k), func(items []*container.BlobItem) error {
		for _, it := range items {
			name := deref(it.Name)
			if strings.HasSuffix(name, "/") || isFolder(it.Metadata) {
				if stop = fn(&fsys.FileInfo{Path: f.path(strings.TrimSuffix(name, "/")), Dir: true}); stop != nil {
					return stop
				}
				continue
			}
			if it.Properties == nil {
				continue
			}
			if stop = fn(f.fileInfo(name, deref(it.Properties.ContentLength), deref(it.Properties.LastModified))); stop != nil {
				return stop
			}
		}
		return nil
	})
	if stop != nil {
		return stop
	}
	return f.fail(ctx, "walk", p, err)
}

// DirSize sums the lengths of every blob below directory p, from a flat
// listing.
func (f *azureFS) DirSize(ctx context.Context, p string) (int64, error) {
	k, err := f.key("dirsize", p)
	if err != nil {
		return 0, err
	}
	var total int64
	err = f.pages(ctx, prefixOf(k), func(items []*container.BlobItem) error {
		for _, it := range items {
			if it.Properties != nil {
				total += deref(it.Properties.ContentLength)
			}
		}
		return nil
	})
	if err != nil {
		return 0, f.fail(ctx, "dirsize", p, err)
	}
	return total, nil
}

// Delete removes p: every blob below "p/" (markers included), with Blob
// Batch requests of up to 256 deletes, then the blob p itself. A missing
// p is no error. The container's root is refused: deleting a whole
// container's content is not a workflow's business.
func (f *azureFS) Delete(ctx context.Context, p string) error {
	k, err := f.key("delete", p)
	if err != nil {
		return err
	}
	if k == "" {
		return &fs.PathError{Op: "delete", Path: p, Err: fmt.Errorf("refusing to delete the root of a container: %w", fs.ErrPermission)}
	}
	err = f.pages(ctx, k+"/", func(items []*container.BlobItem) error {
		names := make([]string, 0, len(items))
		for _, it := range items {
			names = append(names, deref(it.Name))
		}
		return f.deleteBlobs(ctx, names)
	})
	if err == nil {
		err = f.deleteBlob(ctx, k)
	}
	if isNotFound(err) {
		return nil // the container is missing, and p with it
	}
	return f.fail(ctx, "delete", p, err)
}

// deleteBlobs deletes names, in batches while the account takes them
// (accounts with a hierarchical namespace do not), else one by one.
func (f *azureFS) deleteBlobs(ctx context.Context, names []string) error {
	for len(names) > 0 {
		n := min(len(names), batchMax)
		chunk := names[:n]
		names = names[n:]
		if len(chunk) > 1 && !f.noBatch.Load() {
			err := f.deleteBatch(ctx, chunk)
			if err == nil || !batchRefused(err) {
				return err
			}
			f.noBatch.Store(true)
		}
		if err := f.each(ctx, chunk, f.deleteBlob); err != nil {
			return err
		}
	}
	return nil
}

// deleteBatch deletes names (at most batchMax) in one Blob Batch request;
// a blob already gone is no error.
func (f *azureFS) deleteBatch(ctx context.Context, names []string) error {
	bb, err := f.cc.NewBatchBuilder()
	if err != nil {
		return err
	}
	opts := &container.BatchDeleteOptions{DeleteOptions: blob.DeleteOptions{DeleteSnapshots: to.Ptr(blob.DeleteSnapshotsOptionTypeInclude)}}
	for _, n := range names {
		if err := bb.Delete(n, opts); err != nil {
			return err
		}
	}
	resp, err := f.cc.SubmitBatch(ctx, bb, nil)
	if err != nil {
		return err
	}
	for _, r := range resp.Responses {
		if r.Error != nil && !isNotFound(r.Error) {
			return r.Error
		}
	}
	return nil
}

// batchRefused reports whether a batch failed as a whole for a reason
// one-by-one deletes may not have (the feature is missing): not a
// transport failure, a refusal of the credentials, or a server error.
func batchRefused(err error) bool {
	if isTransport(err) {
		return false
	}
	var code int
	if re := responseError(err); re != nil {
		code = re.StatusCode
	}
	return code != 401 && code != 403 && code < 500
}

// deleteBlob deletes blob k with its snapshots; a missing blob is no
// error.
func (f *azureFS) deleteBlob(ctx context.Context, k string) error {
	_, err := f.cc.NewBlobClient(k).Delete(ctx, &blob.DeleteOptions{DeleteSnapshots: to.Ptr(blob.DeleteSnapshotsOptionTypeInclude)})
	if isNotFound(err) {
		return nil
	}
	return err
}

// each runs fn on every name, parallel requests at once, and returns the
// first error.
func (f *azureFS) each(ctx context.Context, names []string, fn func(context.Context, string) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
		sem   = make(chan struct{}, parallel)
	)
	for _, n := range names {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := fn(ctx, n); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return first
}

// Rename moves src to dst by copying every blob (server-side copies, in
// parallel) and then deleting the source: it is not atomic, and a
// failure part way leaves both trees partly there (running it again
// finishes it only after the copied part of dst is removed, since dst
// must not exist). dst must not exist and its parent must be a
// directory (the container's root always is).
func (f *azureFS) Rename(ctx context.Context, src, dst string) error {
	ks, err := f.key("rename", src)
	if err != nil {
		return err
	}
	kd, err := f.key("rename", dst)
	if err != nil {
		return err
	}
	if ks == "" || kd == "" {
		return &fs.PathError{Op: "rename", Path: src, Err: fmt.Errorf("a container's root cannot be renamed or replaced: %w", fs.ErrPermission)}
	}
	if kd == ks || strings.HasPrefix(kd, ks+"/") {
		return &fs.PathError{Op: "rename", Path: dst, Err: fmt.Errorf("cannot move %s below itself: %w", src, fs.ErrInvalid)}
	}
	fi, err := f.Stat(ctx, src)
	if err != nil {
		return err
	}
	if err := f.checkTarget(ctx, dst, kd); err != nil {
		return err
	}
	if !fi.Dir {
		if err := f.copyBlob(ctx, ks, kd); err != nil {
			return f.fail(ctx, "rename", src, err)
		}
		return f.fail(ctx, "rename", src, f.deleteBlob(ctx, ks))
	}
	err = f.pages(ctx, ks+"/", func(items []*container.BlobItem) error {
		names := make([]string, 0, len(items))
		for _, it := range items {
			names = append(names, deref(it.Name))
		}
		return f.each(ctx, names, func(ctx context.Context, n string) error {
			return f.copyBlob(ctx, n, kd+"/"+strings.TrimPrefix(n, ks+"/"))
		})
	})
	if err == nil {
		err = f.copyFolderBlob(ctx, ks, kd)
	}
	if err != nil {
		return f.fail(ctx, "rename", src, err)
	}
	return f.Delete(ctx, src)
}

// checkTarget checks that dst does not exist and that its parent is a
// directory.
func (f *azureFS) checkTarget(ctx context.Context, dst, kd string) error {
	if _, err := f.Stat(ctx, dst); err == nil {
		return &fs.PathError{Op: "rename", Path: dst, Err: fs.ErrExist}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	parent := path.Dir(kd)
	if parent == "." {
		return nil // the container's root
	}
	pfi, err := f.Stat(ctx, f.path(parent))
	if errors.Is(err, fs.ErrNotExist) {
		return &fs.PathError{Op: "rename", Path: dst, Err: fmt.Errorf("parent directory does not exist: %w", fs.ErrNotExist)}
	}
	if err != nil {
		return err
	}
	if !pfi.Dir {
		return &fs.PathError{Op: "rename", Path: dst, Err: fmt.Errorf("parent %s is a file: %w", f.path(parent), fs.ErrInvalid)}
	}
	return nil
}

// copyFolderBlob copies blob ks to kd when it is a hadoop-azure folder
// blob (an empty directory may be nothing else).
func (f *azureFS) copyFolderBlob(ctx context.Context, ks, kd string) error {
	props, err := f.cc.NewBlobClient(ks).GetProperties(ctx, nil)
	if isNotFound(err) {
		return nil
	}
	if err != nil || !isFolder(props.Metadata) {
		return err
	}
	return f.copyBlob(ctx, ks, kd)
}

// copyBlob copies blob ks to kd on the server (metadata included) and
// waits for the copy to finish: within an account the service usually
// completes it at once, and is polled otherwise.
func (f *azureFS) copyBlob(ctx context.Context, ks, kd string) error {
	dc := f.cc.NewBlobClient(kd)
	resp, err := dc.StartCopyFromURL(ctx, f.cc.NewBlobClient(ks).URL(), nil)
	if err != nil {
		return err
	}
	status := deref(resp.CopyStatus)
	wait := 50 * time.Millisecond
	for status == blob.CopyStatusTypePending {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, 2*time.Second)
		props, err := dc.GetProperties(ctx, nil)
		if err != nil {
			return err
		}
		status = deref(props.CopyStatus)
	}
	if status != blob.CopyStatusTypeSuccess && status != "" {
		return fmt.Errorf("copy of %s to %s ended %s", f.path(ks), f.path(kd), status)
	}
	return nil
}
