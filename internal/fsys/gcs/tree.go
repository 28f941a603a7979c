package gcs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"

	"github.com/gozie/gozie/internal/fsys"
)

// parallel bounds the single-object calls (copies, deletes) one
// operation has in flight.
const parallel = 8

// Delete removes object p and every object under "p/" (its marker
// included), a hundred per batch request. A missing p is not an error.
// When something was removed, the parent's marker is written, so that
// the parent directory outlives its last child as it would on HDFS.
func (g *gcsFS) Delete(ctx context.Context, p string) error {
	key, err := g.key("delete", p)
	if err != nil {
		return err
	}
	if key == "" {
		return &fs.PathError{Op: "delete", Path: p, Err: fmt.Errorf("%w: %w", errRootWrite, fs.ErrPermission)}
	}
	b, err := g.bucketFor("delete", p)
	if err != nil {
		return err
	}
	removed := 0
	batch := make([]string, 0, batchSize)
	flush := func() error {
		n, err := g.deleteObjects(ctx, b, batch)
		removed += n
		batch = batch[:0]
		return err
	}
	// Pages are fetched after the name last seen, so deleting what was
	// listed does not disturb the listing.
	it := g.objects(ctx, b, key+"/", "", g.set.listPage)
	for {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if errors.Is(err, storage.ErrBucketNotExist) {
			return nil // nothing there to delete, as for any missing path
		}
		if err != nil {
			return g.mapErr("delete", p, err)
		}
		if batch = append(batch, a.Name); len(batch) == batchSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	batch = append(batch, key)
	if err := flush(); err != nil {
		return err
	}
	if removed > 0 {
		return g.markParent(ctx, b, key)
	}
	return nil
}

// markParent writes the marker of key's parent directory (none for the
// bucket's root).
func (g *gcsFS) markParent(ctx context.Context, b *storage.BucketHandle, key string) error {
	i := strings.LastIndexByte(key, '/')
	if i < 0 {
		return nil
	}
	return g.mapErr("mkdir", g.pathOf(key[:i]), g.mark(ctx, b, key[:i]))
}

// deleteObjects deletes names (at most batchSize) by one batch request,
// then one call per object for those the batch did not settle, and
// returns how many were there. An object already gone is not an error.
func (g *gcsFS) deleteObjects(ctx context.Context, b *storage.BucketHandle, names []string) (int, error) {
	if len(names) == 0 {
		return 0, nil
	}
	var codes []int
	if len(names) > 1 {
		var err error
		codes, err = g.batchDelete(ctx, names)
		if err != nil {
			m := g.mapErr("delete", g.store, err)
			if errors.Is(m, fsys.ErrUnavailable) || errors.Is(m, fsys.ErrCredentials) || errors.Is(m, context.Canceled) {
				return 0, m
			}
			codes = nil // no batch endpoint here: one call per object
		}
	}
	removed := 0
	var rest []string
	for i, name := range names {
		code := 0
		if i < len(codes) {
			code = codes[i]
		}
		switch {
		case code >= 200 && code < 300:
			removed++
		case code == 404:
		default: // unanswered, or refused: a single call retries or says why
			rest = append(rest, name)
		}
	}
	var mu sync.Mutex
	err := forEach(ctx, rest, func(name string) error {
		err := b.Object(name).Delete(ctx)
		switch {
		case err == nil:
			mu.Lock()
			removed++
			mu.Unlock()
		case errors.Is(err, storage.ErrObjectNotExist):
		default:
			return g.mapErr("delete", g.pathOf(name), err)
		}
		return nil
	})
	return removed, err
}

// forEach calls fn for every name, parallel at a time, and returns the
// first error; after one, no more calls start.
func forEach(ctx context.Context, names []string, fn func(string) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	sem := make(chan struct{}, parallel)
	for _, name := range names {
		mu.Lock()
		stop := first != nil
		mu.Unlock()
		if stop || ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := fn(name); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

// Rename copies src (an object, or every object under "src/") to dst,
// then deletes the originals: not atomic, and a failure half-way leaves
// both (a retry finishes the job only once dst is cleaned up). dst must
// not exist and its parent must be a directory (the bucket's root always
// is).
func (g *gcsFS) Rename(ctx context.Context, src, dst string) error {
	sk, err := g.key("rename", src)
	if err != nil {
		return err
	}
	dk, err := g.key("rename", dst)
	if err != nil {
		return err
	}
	if sk == "" || dk == "" {
		return &fs.PathError{Op: "rename", Path: src, Err: fmt.Errorf("%w: %w", errRootWrite, fs.ErrPermission)}
	}
	if strings.HasPrefix(dk, sk+"/") {
		return &fs.PathError{Op: "rename", Path: dst, Err: fmt.Errorf("%w: %w", errIntoSelf, fs.ErrInvalid)}
	}
	b, err := g.bucketFor("rename", src)
	if err != nil {
		return err
	}
	sfi, err := g.Stat(ctx, src)
	if err != nil {
		return err
	}
	if err := g.renameTarget(ctx, dst, dk); err != nil {
		return err
	}
	names := []string{sk}
	if sfi.Dir {
		if names, err = g.names(ctx, b, sk+"/"); err != nil {
			return g.mapErr("rename", src, err)
		}
	}
	err = forEach(ctx, names, func(name string) error {
		to := dk + name[len(sk):]
		_, err := b.Object(to).CopierFrom(b.Object(name)).Run(ctx)
		if errors.Is(err, storage.ErrObjectNotExist) && sfi.Dir {
			return nil // deleted meanwhile: not part of the tree any more
		}
		return g.mapErr("rename", g.pathOf(name), err)
	})
	if err != nil {
		return err
	}
	for i := 0; i < len(names); i += batchSize {
		if _, err := g.deleteObjects(ctx, b, names[i:min(i+batchSize, len(names))]); err != nil {
			return err
		}
	}
	return g.markParent(ctx, b, sk)
}

// renameTarget checks that dst (object name dk) does not exist and that
// its parent is a directory.
func (g *gcsFS) renameTarget(ctx context.Context, dst, dk string) error {
	if _, err := g.Stat(ctx, dst); err == nil {
		return &fs.PathError{Op: "rename", Path: dst, Err: fs.ErrExist}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	i := strings.LastIndexByte(dk, '/')
	if i < 0 {
		return nil
	}
	pfi, err := g.Stat(ctx, g.pathOf(dk[:i]))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &fs.PathError{Op: "rename", Path: dst, Err: fmt.Errorf("parent directory missing: %w", fs.ErrNotExist)}
	case err != nil:
		return err
	case !pfi.Dir:
		return &fs.PathError{Op: "rename", Path: dst, Err: errNotDir}
	}
	return nil
}

// names lists every object name under prefix (a flat listing).
func (g *gcsFS) names(ctx context.Context, b *storage.BucketHandle, prefix string) ([]string, error) {
	var out []string
	it := g.objects(ctx, b, prefix, "", g.set.listPage)
	for {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, a.Name)
	}
}

// Walk calls fn for every object under directory p at every depth, by a
// flat listing (one request a page); markers are not files and are left
// out. A p with nothing under it walks nothing; a missing bucket is
// fs.ErrNotExist. An error of fn stops the walk and is returned.
func (g *gcsFS) Walk(ctx context.Context, p string, fn func(*fsys.FileInfo) error) error {
	key, err := g.key("walk", p)
	if err != nil {
		return err
	}
	b, err := g.bucketFor("walk", p)
	if err != nil {
		return err
	}
	prefix := ""
	if key != "" {
		prefix = key + "/"
	}
	it := g.objects(ctx, b, prefix, "", g.set.listPage)
	for {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return nil
		}
		if err != nil {
			return g.mapErr("walk", p, err)
		}
		if strings.HasSuffix(a.Name, "/") {
			// A directory marker: an empty directory exists.
			if err := fn(&fsys.FileInfo{Path: g.pathOf(strings.TrimSuffix(a.Name, "/")), Dir: true}); err != nil {
				return err
			}
			continue
		}
		if err := fn(g.fileInfo(g.pathOf(a.Name), a)); err != nil {
			return err
		}
	}
}

// DirSize sums the sizes of every object under directory p, by a flat
// listing.
func (g *gcsFS) DirSize(ctx context.Context, p string) (int64, error) {
	var total int64
	err := g.Walk(ctx, p, func(fi *fsys.FileInfo) error {
		total += fi.Length
		return nil
	})
	return total, err
}
