package s3

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	s3api "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// Writing: Create uploads what it reads one part at a time, each part
// spooled to memory (up to memPart bytes) and then to a temporary file
// in fs.s3a.buffer.dir, so that the SDK can sign and resend it and an
// upload of any length holds at most one part. Content that fits in one
// part (fs.s3a.multipart.size) is one PUT; larger content is a multipart
// upload, completed in one request at the end. Either way readers see the
// old object or the new one, never a part.

// memPart is how much of a part stays in memory: done-flags, workflow
// definitions and properties never touch the disk.
const memPart = 1 << 20

// maxParts is S3's limit of parts in one multipart upload.
const maxParts = 10000

// copyWorkers is how many objects a directory rename copies at once.
const copyWorkers = 8

// Create writes file p with everything r gives (see the comment above).
// It does not look for a directory of the same name first, as S3A does
// not with its create performance option: on S3 both can then exist.
func (s *store) Create(ctx context.Context, p string, r io.Reader) error {
	key, err := s.key("create", p)
	if err != nil {
		return err
	}
	if key == "" {
		return &fs.PathError{Op: "create", Path: p, Err: errors.New("is a directory")}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	sp := &spool{dir: s.cfg.bufferDir}
	defer sp.close()
	if err := sp.fill(br, s.cfg.partSize); err != nil {
		return &fs.PathError{Op: "create", Path: p, Err: err}
	}
	more, err := hasMore(br)
	if err != nil {
		return &fs.PathError{Op: "create", Path: p, Err: err}
	}
	if !more {
		_, err := s.client.PutObject(ctx, &s3api.PutObjectInput{Bucket: &s.cfg.bucket, Key: aws.String(key),
			Body: sp.reader(), ContentLength: aws.Int64(sp.n)})
		return s.fail("create", p, err)
	}
	return s.multipartUpload(ctx, p, key, br, sp)
}

// hasMore reports whether r has another byte to give.
func hasMore(r *bufio.Reader) (bool, error) {
	_, err := r.Peek(1)
	if err == io.EOF {
		return false, nil
	}
	return err == nil, err
}

// multipartUpload uploads the part in sp and the rest of r, a part at a
// time, and completes the upload; on failure it aborts it, so that no
// parts are left to pay for.
func (s *store) multipartUpload(ctx context.Context, p, key string, r *bufio.Reader, sp *spool) (err error) {
	up, err := s.client.CreateMultipartUpload(ctx, &s3api.CreateMultipartUploadInput{Bucket: &s.cfg.bucket, Key: aws.String(key)})
	if err != nil {
		return s.fail("create", p, err)
	}
	defer s.abortOnError(ctx, key, up.UploadId, &err)
	var parts []types.CompletedPart
	for n := int32(1); ; n++ {
		if n > maxParts {
			return &fs.PathError{Op: "create", Path: p, Err: fmt.Errorf("more than %d parts of %d bytes: raise fs.s3a.multipart.size", maxParts, s.cfg.partSize)}
		}
		out, err := s.client.UploadPart(ctx, &s3api.UploadPartInput{Bucket: &s.cfg.bucket, Key: aws.String(key),
			UploadId: up.UploadId, PartNumber: aws.Int32(n), Body: sp.reader(), ContentLength: aws.Int64(sp.n)})
		if err != nil {
			return s.fail("create", p, err)
		}
		parts = append(parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(n)})
		more, err := hasMore(r)
		if err != nil {
			return &fs.PathError{Op: "create", Path: p, Err: err}
		}
		if !more {
			break
		}
		if err := sp.fill(r, s.cfg.partSize); err != nil {
			return &fs.PathError{Op: "create", Path: p, Err: err}
		}
	}
	_, err = s.client.CompleteMultipartUpload(ctx, &s3api.CompleteMultipartUploadInput{Bucket: &s.cfg.bucket, Key: aws.String(key),
		UploadId: up.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
	return s.fail("create", p, err)
}

// abortOnError aborts upload id when *err is set, even when ctx is done.
func (s *store) abortOnError(ctx context.Context, key string, id *string, err *error) {
	if *err == nil {
		return
	}
	_, _ = s.client.AbortMultipartUpload(context.WithoutCancel(ctx), &s3api.AbortMultipartUploadInput{
		Bucket: &s.cfg.bucket, Key: aws.String(key), UploadId: id})
}

// spool holds one part of an upload: in memory up to memPart bytes, in a
// temporary file beyond.
type spool struct {
	dir  string
	mem  bytes.Buffer
	file *os.File
	n    int64
	// inFile says the part is in the file (the whole part, memory's
	// share included).
	inFile bool
}

// fill replaces the part with the next limit bytes of r (fewer at its
// end).
func (sp *spool) fill(r io.Reader, limit int64) error {
	sp.mem.Reset()
	sp.n, sp.inFile = 0, false
	lr := io.LimitReader(r, limit)
	n, err := io.CopyN(&sp.mem, lr, memPart)
	sp.n = n
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return err
	}
	if sp.file == nil {
		if sp.file, err = os.CreateTemp(sp.dir, "gozie-s3-part-*"); err != nil {
			return fmt.Errorf("spooling an upload (fs.s3a.buffer.dir): %w", err)
		}
	} else if err := sp.file.Truncate(0); err != nil {
		return err
	}
	if _, err := sp.file.WriteAt(sp.mem.Bytes(), 0); err != nil {
		return err
	}
	if _, err := sp.file.Seek(int64(sp.mem.Len()), io.SeekStart); err != nil {
		return err
	}
	rest, err := io.Copy(sp.file, lr)
	sp.n += rest
	sp.inFile = true
	return err
}

// reader returns the part, seekable so that the SDK can sign and retry.
func (sp *spool) reader() io.ReadSeeker {
	if sp.inFile {
		return io.NewSectionReader(sp.file, 0, sp.n)
	}
	return bytes.NewReader(sp.mem.Bytes())
}

// close removes the temporary file.
func (sp *spool) close() {
	if sp.file != nil {
		sp.file.Close()
		os.Remove(sp.file.Name())
	}
}

// Rename moves src to dst by copying then deleting: not atomic. A file
// is one copy (server side) and one delete; a directory is a flat
// listing, a copy of every object below it (copyWorkers at once), then
// batch deletes of the sources, so that a failure midway leaves src whole
// and part of dst. dst must not exist and its parent must be a directory
// (the bucket root always is).
func (s *store) Rename(ctx context.Context, src, dst string) error {
	ks, err := s.key("rename", src)
	if err != nil {
		return err
	}
	kd, err := s.key("rename", dst)
	if err != nil {
		return err
	}
	if ks == "" || kd == "" {
		return &fs.PathError{Op: "rename", Path: src, Err: errors.New("cannot rename the root of a bucket")}
	}
	from, err := s.stat(ctx, "rename", src, ks)
	if err != nil {
		return err
	}
	if from == nil {
		return &fs.PathError{Op: "rename", Path: src, Err: fs.ErrNotExist}
	}
	if from.Dir && (kd == ks || strings.HasPrefix(kd, ks+"/")) {
		return &fs.PathError{Op: "rename", Path: dst, Err: errors.New("cannot move a directory into itself")}
	}
	if err := s.checkTarget(ctx, dst, kd); err != nil {
		return err
	}
	if !from.Dir {
		if err := s.copyObject(ctx, "rename", src, ks, kd, from.Length); err != nil {
			return err
		}
		if _, err := s.client.DeleteObject(ctx, &s3api.DeleteObjectInput{Bucket: &s.cfg.bucket, Key: aws.String(ks)}); err != nil {
			return s.fail("rename", src, err)
		}
	} else if err := s.renameTree(ctx, src, ks, kd); err != nil {
		return err
	}
	if parentKey(ks) == parentKey(kd) { // dst keeps the directory
		return nil
	}
	return s.keepParent(ctx, "rename", src, ks)
}

// checkTarget refuses a rename onto an existing path or into a missing
// directory.
func (s *store) checkTarget(ctx context.Context, dst, kd string) error {
	to, err := s.stat(ctx, "rename", dst, kd)
	if err != nil {
		return err
	}
	if to != nil {
		return &fs.PathError{Op: "rename", Path: dst, Err: fs.ErrExist}
	}
	parent := parentKey(kd)
	if parent == "" {
		return nil
	}
	pi, err := s.stat(ctx, "rename", s.uri(parent), parent)
	if err != nil {
		return err
	}
	if pi == nil {
		return &fs.PathError{Op: "rename", Path: dst, Err: &storeError{kind: fs.ErrNotExist,
			msg: fmt.Sprintf("parent directory %s does not exist", s.uri(parent)), err: fs.ErrNotExist}}
	}
	if !pi.Dir {
		return &fs.PathError{Op: "rename", Path: dst, Err: fmt.Errorf("parent %s is a file", s.uri(parent))}
	}
	return nil
}

// renameTree copies every object below ks to the same place below kd,
// then deletes the sources.
func (s *store) renameTree(ctx context.Context, src, ks, kd string) error {
	type obj struct {
		key  string
		size int64
	}
	var objs []obj
	err := s.pages(ctx, "rename", src, ks+"/", "", func(page *s3api.ListObjectsV2Output) error {
		for _, o := range page.Contents {
			objs = append(objs, obj{aws.ToString(o.Key), aws.ToInt64(o.Size)})
		}
		return nil
	})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
		slots = make(chan struct{}, copyWorkers)
	)
	for _, o := range objs {
		slots <- struct{}{}
		if ctx.Err() != nil { // a copy failed: start no more
			<-slots
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			to := kd + o.key[len(ks):]
			var err error
			if strings.HasSuffix(o.key, "/") { // a marker: nothing to copy
				err = s.putMarker(ctx, "rename", src, strings.TrimSuffix(to, "/"))
			} else {
				err = s.copyObject(ctx, "rename", src, o.key, to, o.size)
			}
			if err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	_, err = s.deleteTree(ctx, "rename", src, ks)
	return err
}

// copyObject copies key from to key to on the store's side: one
// CopyObject up to fs.s3a.multipart.threshold (and S3's 5 GiB), a
// multipart copy of fs.s3a.multipart.size parts beyond. Copying a key
// onto itself refreshes its time.
func (s *store) copyObject(ctx context.Context, op, p, from, to string, size int64) error {
	source := aws.String(copySource(s.cfg.bucket, from))
	if size <= min(s.cfg.copyThreshold, maxSingleCopy) {
		in := &s3api.CopyObjectInput{Bucket: &s.cfg.bucket, Key: aws.String(to), CopySource: source}
		if from == to {
			in.MetadataDirective = types.MetadataDirectiveReplace
		}
		_, err := s.client.CopyObject(ctx, in)
		return s.fail(op, p, err)
	}
	return s.multipartCopy(ctx, op, p, source, to, size)
}

// multipartCopy copies size bytes of source to key to, part by part.
func (s *store) multipartCopy(ctx context.Context, op, p string, source *string, to string, size int64) (err error) {
	part := max(s.cfg.partSize, (size+maxParts-1)/maxParts)
	up, err := s.client.CreateMultipartUpload(ctx, &s3api.CreateMultipartUploadInput{Bucket: &s.cfg.bucket, Key: aws.String(to)})
	if err != nil {
		return s.fail(op, p, err)
	}
	defer s.abortOnError(ctx, to, up.UploadId, &err)
	var parts []types.CompletedPart
	for n, off := int32(1), int64(0); off < size; n, off = n+1, off+part {
		end := min(off+part, size) - 1
		out, err := s.client.UploadPartCopy(ctx, &s3api.UploadPartCopyInput{Bucket: &s.cfg.bucket, Key: aws.String(to),
			UploadId: up.UploadId, PartNumber: aws.Int32(n), CopySource: source,
			CopySourceRange: aws.String(fmt.Sprintf("bytes=%d-%d", off, end))})
		if err != nil {
			return s.fail(op, p, err)
		}
		var etag *string
		if out.CopyPartResult != nil {
			etag = out.CopyPartResult.ETag
		}
		parts = append(parts, types.CompletedPart{ETag: etag, PartNumber: aws.Int32(n)})
	}
	_, err = s.client.CompleteMultipartUpload(ctx, &s3api.CompleteMultipartUploadInput{Bucket: &s.cfg.bucket, Key: aws.String(to),
		UploadId: up.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
	return s.fail(op, p, err)
}

// copySource is the x-amz-copy-source of key: bucket/key, URL-encoded
// but for the slashes (the SDK sends it as given).
func copySource(bucket, key string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.WriteString(bucket)
	b.WriteByte('/')
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '_', c == '.', c == '~', c == '/':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}
