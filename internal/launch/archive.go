package launch

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gozie/gozie/internal/action"
)

// maxArchiveBytes bounds what one <archive> may unpack to, so that a
// compression bomb cannot fill the server's disk.
const maxArchiveBytes = 8 << 30

// UnpackArchive makes an <archive> entry available in the working
// directory: unpacked into a directory named by the link name (the
// "#name" fragment or the archive's file name), as Hadoop's distributed
// cache does. .zip/.jar, .tar, .tar.gz/.tgz are unpacked; other files are
// linked as they are.
func UnpackArchive(ctx context.Context, dir, appDir, entry string) error {
	src, name, err := SourceOf(ctx, appDir, entry)
	if err != nil {
		return err
	}
	if src, err = Localize(ctx, dir, src); err != nil {
		return err
	}
	dst := filepath.Join(dir, name)
	if err := os.RemoveAll(dst); err != nil {
		return action.Errorf(action.Transient, CodeIO, "%v", err)
	}
	lower := strings.ToLower(src)
	kind := ""
	switch {
	case strings.HasSuffix(lower, ".zip") || strings.HasSuffix(lower, ".jar"):
		kind = "zip"
	case strings.HasSuffix(lower, ".tar.gz") || strings.HasSuffix(lower, ".tgz"):
		kind = "tgz"
	case strings.HasSuffix(lower, ".tar"):
		kind = "tar"
	default:
		if err := os.Symlink(src, dst); err != nil {
			return action.Errorf(action.Transient, CodeIO, "linking archive [%s]: %v", entry, err)
		}
		return nil
	}
	// Opened once, without blocking and only when it is a regular file
	// of bounded size (a FIFO would hang the start, and the shutdown
	// waiting for it); with RunAsUser, with the job user's rights.
	f, fi, err := openJobFile(src, maxArchiveFile)
	if err != nil {
		return StagingError("unpacking archive", entry, err)
	}
	defer f.Close()
	switch kind {
	case "zip":
		err = unzip(f, fi.Size(), dst)
	default:
		err = untar(f, dst, kind == "tgz")
	}
	if err != nil {
		return action.Errorf(action.ErrorKindError, CodeIO, "unpacking archive [%s]: %v", entry, err)
	}
	return nil
}

// safeJoin refuses entry names that would land outside root.
func safeJoin(root, name string) (string, error) {
	p := filepath.Join(root, name)
	if p != root && !strings.HasPrefix(p, root+string(filepath.Separator)) {
		return "", fmt.Errorf("entry [%s] points outside the archive directory", name)
	}
	return p, nil
}

func writeEntry(p string, r io.Reader, mode os.FileMode, budget *int64) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode.Perm()|0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, io.LimitReader(r, *budget+1))
	*budget -= n
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && *budget < 0 {
		err = errors.New("archive unpacks to more than the allowed size")
	}
	return err
}

func unzip(src io.ReaderAt, size int64, dst string) error {
	zr, err := zip.NewReader(src, size)
	if err != nil {
		return err
	}
	budget := int64(maxArchiveBytes)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, f := range zr.File {
		p, err := safeJoin(dst, f.Name)
		if err != nil {
			return err
		}
		if f.FileInfo().IsDir() {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			continue
		}
		if !f.Mode().IsRegular() {
			continue // links in archives are skipped: they could escape dst
		}
		rc, err := f.Open()
		if err != nil {
			return err
		}
		err = writeEntry(p, rc, f.Mode(), &budget)
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func untar(f io.Reader, dst string, gz bool) error {
	r := f
	if gz {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return err
		}
		defer zr.Close()
		r = zr
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	budget := int64(maxArchiveBytes)
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		p, err := safeJoin(dst, h.Name)
		if err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := writeEntry(p, tr, os.FileMode(h.Mode), &budget); err != nil {
				return err
			}
		}
	}
}
