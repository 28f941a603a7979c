package s3

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	s3api "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/gozie/gozie/internal/fsys"
)

// The operations of fsys.FileSystem and the optional ones an object store
// has: Walker, Summarizer, Toucher. Chmod, Chgrp and SetReplication are
// left out on purpose: S3 has no permission bits, groups or replication
// factor (the namespace then answers ErrNotSupported, or does nothing for
// setrep, as Hadoop's S3A does).
var (
	_ fsys.FileSystem = (*store)(nil)
	_ fsys.Walker     = (*store)(nil)
	_ fsys.Summarizer = (*store)(nil)
	_ fsys.Toucher    = (*store)(nil)
)

// fileInfo describes the file at key.
func (s *store) fileInfo(key string, size int64, mod *time.Time) *fsys.FileInfo {
	fi := &fsys.FileInfo{Path: s.uri(key), Length: size, BlockSize: s.cfg.blockSize}
	if mod != nil {
		fi.Modified = *mod
	}
	return fi
}

// dirInfo describes the directory at key.
func (s *store) dirInfo(key string) *fsys.FileInfo {
	return &fsys.FileInfo{Path: s.uri(key), Dir: true}
}

// head returns the size and time of the object at key, nil when there is
// none. A HEAD's answer has no body, so a refusal (400, 403) comes
// without the code that says why: it is asked again as a listing, whose
// answer tells wrong credentials from denied access or a wrong region.
func (s *store) head(ctx context.Context, op, p, key string) (*fsys.FileInfo, error) {
	out, err := s.client.HeadObject(ctx, &s3api.HeadObjectInput{Bucket: &s.cfg.bucket, Key: aws.String(key)})
	if err == nil {
		return s.fileInfo(key, aws.ToInt64(out.ContentLength), out.LastModified), nil
	}
	err = s.fail(op, p, err)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if st := status(err); (st == 400 || st == 403) && !errors.Is(err, fsys.ErrCredentials) {
		if _, lerr := s.client.ListObjectsV2(ctx, &s3api.ListObjectsV2Input{Bucket: &s.cfg.bucket, Prefix: aws.String(key), MaxKeys: aws.Int32(1)}); lerr != nil {
			return nil, s.fail(op, p, lerr)
		}
	}
	return nil, err
}

// isDir reports whether an object sits below key (a marker "key/" or
// anything under it).
func (s *store) isDir(ctx context.Context, op, p, key string) (bool, error) {
	out, err := s.client.ListObjectsV2(ctx, &s3api.ListObjectsV2Input{Bucket: &s.cfg.bucket, Prefix: aws.String(key + "/"), MaxKeys: aws.Int32(1)})
	if err != nil {
		return false, s.fail(op, p, err)
	}
	return len(out.Contents) > 0 || len(out.CommonPrefixes) > 0, nil
}

// stat describes key (not the root): a HEAD for a file, then a one-key
// listing for a directory. The error is nil with a nil info when nothing
// is there.
func (s *store) stat(ctx context.Context, op, p, key string) (*fsys.FileInfo, error) {
	fi, err := s.head(ctx, op, p, key)
	if err != nil || fi != nil {
		return fi, err
	}
	dir, err := s.isDir(ctx, op, p, key)
	if err != nil || !dir {
		return nil, err
	}
	return s.dirInfo(key), nil
}

// Stat describes p. The bucket root is a directory when the bucket
// exists.
func (s *store) Stat(ctx context.Context, p string) (*fsys.FileInfo, error) {
	key, err := s.key("stat", p)
	if err != nil {
		return nil, err
	}
	if key == "" {
		if _, err := s.client.HeadBucket(ctx, &s3api.HeadBucketInput{Bucket: &s.cfg.bucket}); err != nil {
			return nil, s.fail("stat", p, err)
		}
		fi := s.dirInfo("")
		fi.Path = p
		return fi, nil
	}
	fi, err := s.stat(ctx, "stat", p, key)
	if err != nil {
		return nil, err
	}
	if fi == nil {
		return nil, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
	}
	return fi, nil
}

// pages runs fn on every page of the listing of prefix, with delimiter
// ("" for a flat listing of every depth), one request a page of
// fs.s3a.paging.maximum keys at most.
func (s *store) pages(ctx context.Context, op, p, prefix, delimiter string, fn func(*s3api.ListObjectsV2Output) error) error {
	in := &s3api.ListObjectsV2Input{Bucket: &s.cfg.bucket, Prefix: aws.String(prefix), MaxKeys: aws.Int32(s.cfg.pageSize)}
	if delimiter != "" {
		in.Delimiter = aws.String(delimiter)
	}
	pager := s3api.NewListObjectsV2Paginator(s.client, in)
	for pager.HasMorePages() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return s.fail(op, p, err)
		}
		if err := fn(page); err != nil {
			return err
		}
	}
	return nil
}

// dirPrefix is the prefix of the keys below key.
func dirPrefix(key string) string {
	if key == "" {
		return ""
	}
	return key + "/"
}

// List returns the files and directories directly inside p, from a
// delimiter listing; for a file, the file itself.
func (s *store) List(ctx context.Context, p string) ([]*fsys.FileInfo, error) {
	key, err := s.key("list", p)
	if err != nil {
		return nil, err
	}
	prefix := dirPrefix(key)
	var out []*fsys.FileInfo
	found := false
	err = s.pages(ctx, "list", p, prefix, "/", func(page *s3api.ListObjectsV2Output) error {
		for _, o := range page.Contents {
			found = true
			k := aws.ToString(o.Key)
			if k == prefix { // the directory's own marker
				continue
			}
			out = append(out, s.fileInfo(k, aws.ToInt64(o.Size), o.LastModified))
		}
		for _, cp := range page.CommonPrefixes {
			found = true
			k := strings.TrimSuffix(aws.ToString(cp.Prefix), "/")
			if k == "" || k+"/" == prefix { // "dir//x" has an empty name: not a path
				continue
			}
			out = append(out, s.dirInfo(k))
		}
		return nil
	})
	if err != nil || found || key == "" {
		return out, err
	}
	fi, err := s.head(ctx, "list", p, key)
	if err != nil {
		return nil, err
	}
	if fi == nil {
		return nil, &fs.PathError{Op: "list", Path: p, Err: fs.ErrNotExist}
	}
	return []*fsys.FileInfo{fi}, nil
}

// Open opens file p for reading: one GET, streamed.
func (s *store) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	key, err := s.key("open", p)
	if err != nil {
		return nil, err
	}
	if key == "" {
		return nil, &fs.PathError{Op: "open", Path: p, Err: errors.New("is a directory")}
	}
	out, err := s.client.GetObject(ctx, &s3api.GetObjectInput{Bucket: &s.cfg.bucket, Key: aws.String(key)})
	if err != nil {
		return nil, s.fail("open", p, err)
	}
	return &body{ReadCloser: out.Body, s: s, p: p}, nil
}

// body is an object being read: a connection lost midway is the store
// not answering, as for every other request.
type body struct {
	io.ReadCloser
	s *store
	p string
}

func (b *body) Read(buf []byte) (int, error) {
	n, err := b.ReadCloser.Read(buf)
	if err != nil && err != io.EOF && !errors.Is(err, context.Canceled) {
		err = &fs.PathError{Op: "read", Path: b.p, Err: &fsys.UnavailableError{Store: b.s.cfg.store, Err: err}}
	}
	return n, err
}

// MkdirAll writes the marker object "p/". A file at p or at one of its
// parents is an error (fs.ErrExist): each parent costs a HEAD, since S3
// itself would accept a file and a directory of one name.
func (s *store) MkdirAll(ctx context.Context, p string) error {
	key, err := s.key("mkdir", p)
	if err != nil || key == "" {
		return err
	}
	for k := key; k != ""; k = parentKey(k) {
		fi, err := s.head(ctx, "mkdir", p, k)
		if err != nil {
			return err
		}
		if fi != nil {
			return &fs.PathError{Op: "mkdir", Path: s.uri(k), Err: fs.ErrExist}
		}
	}
	return s.putMarker(ctx, "mkdir", p, key)
}

// putMarker writes the zero-length marker of directory key.
func (s *store) putMarker(ctx context.Context, op, p, key string) error {
	_, err := s.client.PutObject(ctx, &s3api.PutObjectInput{Bucket: &s.cfg.bucket, Key: aws.String(key + "/"),
		Body: strings.NewReader(""), ContentLength: aws.Int64(0)})
	return s.fail(op, p, err)
}

// keepParent writes the marker of key's parent directory, which removing
// key may have left without objects (and so gone, on an object store),
// as S3A does: a directory stays when what was in it goes.
func (s *store) keepParent(ctx context.Context, op, p, key string) error {
	if parent := parentKey(key); parent != "" {
		return s.putMarker(ctx, op, p, parent)
	}
	return nil
}

// Delete removes p: every object below "p/" (a flat listing, deleted a
// page at a time in batches of up to 1,000 keys), the directory markers
// among them deepest first, and the object p itself. A missing p is not
// an error. The bucket root cannot be deleted.
func (s *store) Delete(ctx context.Context, p string) error {
	key, err := s.key("delete", p)
	if err != nil {
		return err
	}
	if key == "" {
		return &fs.PathError{Op: "delete", Path: p, Err: errors.New("refusing to delete the root of a bucket")}
	}
	file, err := s.head(ctx, "delete", p, key)
	if err != nil {
		return err
	}
	n, err := s.deleteTree(ctx, "delete", p, key)
	if err != nil {
		return err
	}
	if file != nil {
		if _, err := s.client.DeleteObject(ctx, &s3api.DeleteObjectInput{Bucket: &s.cfg.bucket, Key: aws.String(key)}); err != nil {
			return s.fail("delete", p, err)
		}
	}
	if file == nil && n == 0 {
		return nil
	}
	return s.keepParent(ctx, "delete", p, key)
}

// deleteTree deletes every object below "key/" and returns how many.
// Files go first, markers last and deepest first, for the stores that
// keep real directories (versitygw's POSIX backend refuses to remove a
// directory that still has something in it).
func (s *store) deleteTree(ctx context.Context, op, p, key string) (int, error) {
	var markers []string
	n := 0
	err := s.pages(ctx, op, p, dirPrefix(key), "", func(page *s3api.ListObjectsV2Output) error {
		var files []string
		for _, o := range page.Contents {
			k := aws.ToString(o.Key)
			if strings.HasSuffix(k, "/") {
				markers = append(markers, k)
			} else {
				files = append(files, k)
			}
		}
		n += len(page.Contents)
		return s.deleteKeys(ctx, op, p, files)
	})
	if err != nil {
		return n, err
	}
	sort.Sort(sort.Reverse(sort.StringSlice(markers)))
	return n, s.deleteKeys(ctx, op, p, markers)
}

// deleteKeys deletes keys in batches of 1,000, in their order.
func (s *store) deleteKeys(ctx context.Context, op, p string, keys []string) error {
	for len(keys) > 0 {
		batch := keys[:min(len(keys), 1000)]
		keys = keys[len(batch):]
		ids := make([]types.ObjectIdentifier, len(batch))
		for i, k := range batch {
			ids[i] = types.ObjectIdentifier{Key: aws.String(k)}
		}
		out, err := s.client.DeleteObjects(ctx, &s3api.DeleteObjectsInput{Bucket: &s.cfg.bucket,
			Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)}})
		if err != nil {
			return s.fail(op, p, err)
		}
		for _, e := range out.Errors {
			if aws.ToString(e.Code) == "NoSuchKey" {
				continue
			}
			return &fs.PathError{Op: op, Path: s.uri(aws.ToString(e.Key)),
				Err: s.classify(aws.ToString(e.Code), 0, errors.New(aws.ToString(e.Code)+": "+aws.ToString(e.Message)))}
		}
	}
	return nil
}

// Walk calls fn on every file below p, at every depth, from a flat
// listing (one request a page); directory markers are left out. A
// missing p has nothing below it.
func (s *store) Walk(ctx context.Context, p string, fn func(*fsys.FileInfo) error) error {
	key, err := s.key("walk", p)
	if err != nil {
		return err
	}
	return s.pages(ctx, "walk", p, dirPrefix(key), "", func(page *s3api.ListObjectsV2Output) error {
		for _, o := range page.Contents {
			k := aws.ToString(o.Key)
			fi := s.fileInfo(k, aws.ToInt64(o.Size), o.LastModified)
			if strings.HasSuffix(k, "/") {
				// A directory marker: an empty directory exists (an
				// instance whose done-flag is the directory itself).
				fi = s.dirInfo(strings.TrimSuffix(k, "/"))
			}
			if err := fn(fi); err != nil {
				return err
			}
		}
		return nil
	})
}

// DirSize sums the sizes of the objects below p from a flat listing.
func (s *store) DirSize(ctx context.Context, p string) (int64, error) {
	var total int64
	err := s.Walk(ctx, p, func(fi *fsys.FileInfo) error {
		total += fi.Length
		return nil
	})
	return total, err
}

// Touch sets the time of existing file p to now by copying the object
// onto itself (no data goes through gozie): a HEAD and a copy.
func (s *store) Touch(ctx context.Context, p string) error {
	key, err := s.key("touchz", p)
	if err != nil {
		return err
	}
	fi, err := s.head(ctx, "touchz", p, key)
	if err != nil {
		return err
	}
	if fi == nil {
		return &fs.PathError{Op: "touchz", Path: p, Err: fs.ErrNotExist}
	}
	return s.copyObject(ctx, "touchz", p, key, key, fi.Length)
}
