package gcs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"

	"github.com/gozie/gozie/internal/fsys"
)

// The backend's operations: fsys.FileSystem, and the optional Toucher,
// Walker and Summarizer. Chmoder, Chgrper and Replicator are left out on
// purpose: Cloud Storage has no such attributes, and the namespace
// answers them (ErrNotSupported, and a no-op for setrep).
var (
	_ fsys.FileSystem = (*gcsFS)(nil)
	_ fsys.Toucher    = (*gcsFS)(nil)
	_ fsys.Walker     = (*gcsFS)(nil)
	_ fsys.Summarizer = (*gcsFS)(nil)
)

// listAttrs are the object fields listings ask for: no more is used.
var listAttrs = []string{"Name", "Size", "Updated"}

// key returns the object name that path p (gs://bucket/name) stands for,
// "" for the bucket's root.
func (g *gcsFS) key(op, p string) (string, error) {
	rest, ok := strings.CutPrefix(p, g.store)
	if !ok || rest != "" && rest[0] != '/' {
		return "", &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("not in %s", g.store)}
	}
	return strings.TrimSuffix(strings.TrimPrefix(rest, "/"), "/"), nil
}

// pathOf is the path of object name key.
func (g *gcsFS) pathOf(key string) string { return g.store + "/" + key }

// bucketFor returns the handle of the bucket for one call, with the
// requester-pays project when one is configured.
func (g *gcsFS) bucketFor(op, p string) (*storage.BucketHandle, error) {
	cl, _, err := g.client()
	if err != nil {
		return nil, g.mapErr(op, p, err)
	}
	b := cl.Bucket(g.bucket)
	if g.set.userProject != "" {
		b = b.UserProject(g.set.userProject)
	}
	return b, nil
}

// fileInfo describes an object.
func (g *gcsFS) fileInfo(p string, a *storage.ObjectAttrs) *fsys.FileInfo {
	return &fsys.FileInfo{Path: p, Length: a.Size, Modified: a.Updated, BlockSize: g.set.blockSize}
}

// objects returns an iterator over the objects under prefix, by pages of
// the configured size: with delim "/", one level (the sub-prefixes come
// as attributes with only Prefix set); with delim "", every depth.
func (g *gcsFS) objects(ctx context.Context, b *storage.BucketHandle, prefix, delim string, page int) *storage.ObjectIterator {
	q := &storage.Query{Prefix: prefix, Delimiter: delim, Projection: storage.ProjectionNoACL}
	_ = q.SetAttrSelection(listAttrs) // names from the library's own table
	it := b.Objects(ctx, q)
	it.PageInfo().MaxSize = page
	return it
}

// probe reports whether anything is stored under prefix (one request),
// and returns the marker object when it is the first thing there. A
// missing bucket is storage.ErrBucketNotExist.
func (g *gcsFS) probe(ctx context.Context, b *storage.BucketHandle, prefix string) (marker *storage.ObjectAttrs, found bool, err error) {
	a, err := g.objects(ctx, b, prefix, "", 1).Next()
	if errors.Is(err, iterator.Done) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if a.Name == prefix {
		return a, true, nil
	}
	return nil, true, nil
}

// Stat describes p: an object is a file; a prefix with objects below it
// or a marker is a directory; the bucket's root is a directory when the
// bucket exists.
func (g *gcsFS) Stat(ctx context.Context, p string) (*fsys.FileInfo, error) {
	key, err := g.key("stat", p)
	if err != nil {
		return nil, err
	}
	b, err := g.bucketFor("stat", p)
	if err != nil {
		return nil, err
	}
	if key != "" {
		a, err := b.Object(key).Attrs(ctx)
		if err == nil {
			return g.fileInfo(p, a), nil
		}
		if !errors.Is(err, storage.ErrObjectNotExist) {
			return nil, g.mapErr("stat", p, err)
		}
		key += "/"
	}
	marker, found, err := g.probe(ctx, b, key)
	if err != nil {
		return nil, g.mapErr("stat", p, err)
	}
	if !found && key != "" {
		return nil, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
	}
	fi := &fsys.FileInfo{Path: p, Dir: true}
	if marker != nil {
		fi.Modified = marker.Updated
	}
	return fi, nil
}

// List returns the objects and sub-prefixes directly under p, by one
// delimiter listing (one request a page); the marker of p is not an
// entry. A file lists as itself.
func (g *gcsFS) List(ctx context.Context, p string) ([]*fsys.FileInfo, error) {
	key, err := g.key("list", p)
	if err != nil {
		return nil, err
	}
	b, err := g.bucketFor("list", p)
	if err != nil {
		return nil, err
	}
	prefix := ""
	if key != "" {
		prefix = key + "/"
	}
	var out []*fsys.FileInfo
	seen := false
	it := g.objects(ctx, b, prefix, "/", g.set.listPage)
	for {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			return nil, g.mapErr("list", p, err)
		}
		seen = true
		if a.Prefix != "" {
			// "a//b" makes an empty name: no path can reach it.
			if name := strings.TrimSuffix(a.Prefix[len(prefix):], "/"); name != "" {
				out = append(out, &fsys.FileInfo{Path: g.pathOf(prefix + name), Dir: true})
			}
			continue
		}
		if a.Name != prefix {
			out = append(out, g.fileInfo(g.pathOf(a.Name), a))
		}
	}
	if seen || key == "" {
		return out, nil
	}
	a, err := b.Object(key).Attrs(ctx)
	if err != nil {
		return nil, g.mapErr("list", p, err)
	}
	return []*fsys.FileInfo{g.fileInfo(p, a)}, nil
}

// Open reads object p.
func (g *gcsFS) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	key, err := g.key("open", p)
	if err != nil {
		return nil, err
	}
	if key == "" {
		return nil, &fs.PathError{Op: "open", Path: p, Err: errIsDir}
	}
	b, err := g.bucketFor("open", p)
	if err != nil {
		return nil, err
	}
	r, err := b.Object(key).NewReader(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		if _, found, perr := g.probe(ctx, b, key+"/"); perr == nil && found {
			return nil, &fs.PathError{Op: "open", Path: p, Err: errIsDir}
		}
	}
	if err != nil {
		return nil, g.mapErr("open", p, err)
	}
	return &reader{r: r, g: g, p: p}, nil
}

// reader maps the errors of a download cut short.
type reader struct {
	r *storage.Reader
	g *gcsFS
	p string
}

func (r *reader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	if err != nil && err != io.EOF {
		err = r.g.mapErr("read", r.p, err)
	}
	return n, err
}

func (r *reader) Close() error { return r.r.Close() }

// Create uploads object p with everything rd gives: one object, which
// readers see whole or not at all. Parent markers are not written: the
// object itself makes its parents exist. A directory at p is refused.
func (g *gcsFS) Create(ctx context.Context, p string, rd io.Reader) error {
	key, err := g.key("create", p)
	if err != nil {
		return err
	}
	if key == "" {
		return &fs.PathError{Op: "create", Path: p, Err: errRootWrite}
	}
	b, err := g.bucketFor("create", p)
	if err != nil {
		return err
	}
	if _, found, err := g.probe(ctx, b, key+"/"); err != nil {
		return g.mapErr("create", p, err)
	} else if found {
		return &fs.PathError{Op: "create", Path: p, Err: fmt.Errorf("%w: %w", errIsDir, fs.ErrExist)}
	}
	return g.upload(ctx, b.Object(key), p, rd)
}

// upload writes one object from rd; cancelling the context is what
// aborts an upload, so a failed read cancels it before Close.
func (g *gcsFS) upload(ctx context.Context, o *storage.ObjectHandle, p string, rd io.Reader) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := o.NewWriter(ctx)
	w.ContentType = "application/octet-stream"
	src := &sourceReader{r: rd}
	if _, err := io.Copy(w, src); err != nil {
		cancel()
		w.Close()
		if src.err != nil {
			return fmt.Errorf("gs: create %s: reading the content: %w", p, src.err)
		}
		return g.mapErr("create", p, err)
	}
	if err := w.Close(); err != nil {
		return g.mapErr("create", p, err)
	}
	return nil
}

// sourceReader remembers a failure of the content's reader, to tell it
// from the store's.
type sourceReader struct {
	r   io.Reader
	err error
}

func (s *sourceReader) Read(b []byte) (int, error) {
	n, err := s.r.Read(b)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

// Touch sets the modification time of object p to now without rewriting
// its content: a metadata update is a new metageneration, whose time is
// the object's "updated".
func (g *gcsFS) Touch(ctx context.Context, p string) error {
	key, err := g.key("touch", p)
	if err != nil {
		return err
	}
	b, err := g.bucketFor("touch", p)
	if err != nil {
		return err
	}
	_, err = b.Object(key).Update(ctx, storage.ObjectAttrsToUpdate{
		Metadata: map[string]string{"gozie-touched": time.Now().UTC().Format(time.RFC3339Nano)},
	})
	return g.mapErr("touch", p, err)
}

// MkdirAll writes the marker object "p/" unless it is there. A file at p
// or at one of its parents refuses (fs.ErrExist); that check costs one
// metadata request per level.
func (g *gcsFS) MkdirAll(ctx context.Context, p string) error {
	key, err := g.key("mkdir", p)
	if err != nil {
		return err
	}
	b, err := g.bucketFor("mkdir", p)
	if err != nil {
		return err
	}
	if key == "" {
		_, _, err := g.probe(ctx, b, "")
		return g.mapErr("mkdir", p, err)
	}
	for k := key; k != ""; {
		_, err := b.Object(k).Attrs(ctx)
		if err == nil {
			return &fs.PathError{Op: "mkdir", Path: g.pathOf(k), Err: fmt.Errorf("a file is there: %w", fs.ErrExist)}
		}
		if !errors.Is(err, storage.ErrObjectNotExist) {
			return g.mapErr("mkdir", p, err)
		}
		k = k[:max(strings.LastIndexByte(k, '/'), 0)]
	}
	return g.mapErr("mkdir", p, g.mark(ctx, b, key))
}

// mark writes the marker of directory key unless one is there already.
func (g *gcsFS) mark(ctx context.Context, b *storage.BucketHandle, key string) error {
	w := b.Object(key + "/").If(storage.Conditions{DoesNotExist: true}).NewWriter(ctx)
	w.ContentType = "application/x-directory"
	if err := w.Close(); err != nil && !isPrecondition(err) { // 412: already there
		return err
	}
	return nil
}
