package fsys

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// LocalBlockSize is the block size reported for local files: 32 MiB, the
// default of Hadoop's local file system (fs.local.block.size), so that
// fs:blockSize gives the number an Oozie user running locally would see.
const LocalBlockSize int64 = 32 * 1024 * 1024

// localFS is the backend of plain paths and file: URIs. Its operations run
// on the calling goroutine, so a caller inside osuser.Do acts with that
// user's permission checks.
type localFS struct{}

func localInfo(p string, fi fs.FileInfo) *FileInfo {
	out := &FileInfo{Path: p, Length: fi.Size(), Dir: fi.IsDir(), Modified: fi.ModTime(), Perm: fi.Mode().Perm() | fi.Mode()&(fs.ModeSticky|fs.ModeSetuid|fs.ModeSetgid)}
	if fi.Mode().IsRegular() {
		out.BlockSize, out.Replication = LocalBlockSize, 1
	}
	out.Owner, out.Group = ownerOf(fi)
	return out
}

func (localFS) Stat(_ context.Context, p string) (*FileInfo, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	return localInfo(p, fi), nil
}

func (localFS) List(_ context.Context, p string) ([]*FileInfo, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []*FileInfo{localInfo(p, fi)}, nil
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	out := make([]*FileInfo, 0, len(entries))
	for _, e := range entries {
		q := filepath.Join(p, e.Name())
		fi, err := os.Stat(q)
		if err != nil {
			fi, err = e.Info() // a dangling link: list it as itself
			if err != nil {
				continue // removed meanwhile
			}
		}
		out = append(out, localInfo(q, fi))
	}
	return out, nil
}

func (localFS) Open(_ context.Context, p string) (io.ReadCloser, error) {
	f, err := openNoBlock(p)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &ReadError{Path: p, Mode: fi.Mode(), Err: ErrNotRegular}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Create writes a temporary file beside p and renames it into place, so
// readers never see a part.
func (localFS) Create(_ context.Context, p string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp*")
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func (localFS) MkdirAll(_ context.Context, p string) error { return os.MkdirAll(p, 0o777) }

func (localFS) Delete(_ context.Context, p string) error { return os.RemoveAll(p) }

func (localFS) Rename(_ context.Context, src, dst string) error {
	if _, err := os.Lstat(src); err != nil {
		return err
	}
	if _, err := os.Lstat(dst); err == nil {
		return &fs.PathError{Op: "rename", Path: dst, Err: fs.ErrExist}
	}
	if pi, err := os.Stat(filepath.Dir(dst)); err != nil || !pi.IsDir() {
		return &fs.PathError{Op: "rename", Path: dst, Err: errParentMissing}
	}
	return os.Rename(src, dst)
}

func (localFS) Chmod(_ context.Context, p string, mode fs.FileMode) error { return os.Chmod(p, mode) }

// Chgrp sets the group of p, not following a final symbolic link.
func (localFS) Chgrp(_ context.Context, p, group string) error {
	gid, err := LookupGroup(group)
	if err != nil {
		return err
	}
	return os.Lchown(p, -1, gid)
}

// SetReplication accepts the call and does nothing, as Hadoop's local
// file system does.
func (localFS) SetReplication(context.Context, string, int16) error { return nil }

func (localFS) Touch(_ context.Context, p string) error {
	now := time.Now()
	return os.Chtimes(p, now, now)
}

// DirSize sums the regular files below p at every depth, not following
// symbolic links.
func (localFS) DirSize(_ context.Context, p string) (int64, error) {
	var total int64
	err := filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			total += info.Size()
		}
		return nil
	})
	return total, err
}

// errParentMissing is the cause of a rename whose target's parent is not
// a directory.
var errParentMissing = fmt.Errorf("parent directory does not exist: %w", fs.ErrNotExist)
