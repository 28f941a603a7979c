// Package fsys is gozie's file-system layer: the operations the fs action,
// the <prepare> blocks and the fs:* EL functions need, addressed by the path
// strings users write in workflow.xml.
//
// A path is either a URI with a scheme or a plain path:
//
//   - file:///abs/path, file:/abs/path and file://localhost/abs/path name
//     local files;
//   - plain paths (absolute or relative) are local too, which is what lets
//     gozie run Oozie applications on a laptop;
//   - hdfs:// (and any other scheme) is recognised but reported as
//     unsupported with an *UnsupportedError: gozie has no HDFS client yet,
//     and pretending to succeed would corrupt a workflow's logic.
//
// Results that name paths (List, Glob) keep the form of the input, so a
// file:// pattern yields file:// matches that can be handed back to any
// function here. File URIs are not percent-decoded: Hadoop's Path keeps such
// characters literally as well.
package fsys

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// LocalBlockSize is the block size reported for local files: 32 MiB, the
// default of Hadoop's local file system (fs.local.block.size), so that
// fs:blockSize gives the number an Oozie user running locally would see.
const LocalBlockSize int64 = 32 * 1024 * 1024

// ErrUnsupported is matched (errors.Is) by every *UnsupportedError.
var ErrUnsupported = errors.New("file system not supported")

// UnsupportedError reports a path whose scheme gozie recognises but cannot
// reach (hdfs://, s3a://, ...).
type UnsupportedError struct {
	Scheme string
	Path   string
}

func (e *UnsupportedError) Error() string {
	if e.Scheme == "hdfs" {
		return fmt.Sprintf("Scheme [%s] not supported in uri [%s]: this gozie build has no HDFS client; use file:// or plain local paths", e.Scheme, e.Path)
	}
	return fmt.Sprintf("Scheme [%s] not supported in uri [%s]", e.Scheme, e.Path)
}

// Is makes errors.Is(err, ErrUnsupported) true.
func (e *UnsupportedError) Is(target error) bool { return target == ErrUnsupported }

// Scheme returns the URI scheme of p in lower case, or "" for a plain path.
func Scheme(p string) string {
	i := strings.IndexByte(p, ':')
	if i <= 0 {
		return ""
	}
	for j := 0; j < i; j++ {
		c := p[j]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if letter || j > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			continue
		}
		return ""
	}
	return strings.ToLower(p[:i])
}

// Authority returns the authority of a URI (host:port of hdfs://host:port/x),
// "" when p has none.
func Authority(p string) string {
	s := Scheme(p)
	if s == "" {
		return ""
	}
	rest := p[len(s)+1:]
	if !strings.HasPrefix(rest, "//") {
		return ""
	}
	rest = rest[2:]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[:i]
	}
	return rest
}

// split separates p into the prefix to keep on results ("file://", "file:"
// or "") and the local path.
func split(p string) (prefix, local string, err error) {
	switch Scheme(p) {
	case "":
		if p == "" {
			return "", "", fmt.Errorf("empty path")
		}
		return "", p, nil
	case "file":
		rest := p[len("file:"):]
		if !strings.HasPrefix(rest, "//") {
			return p[:len("file:")], rest, nil
		}
		auth := Authority(p)
		if auth != "" && auth != "localhost" {
			return "", "", fmt.Errorf("file URI [%s] names host [%s]: only local files are reachable", p, auth)
		}
		local = rest[2+len(auth):]
		if local == "" {
			local = "/"
		}
		return p[:len("file://")+len(auth)], local, nil
	default:
		return "", "", &UnsupportedError{Scheme: Scheme(p), Path: p}
	}
}

// Local returns the local file-system path p names.
func Local(p string) (string, error) {
	_, l, err := split(p)
	return l, err
}

// Stat returns the file information of p, following symbolic links.
func Stat(p string) (fs.FileInfo, error) {
	l, err := Local(p)
	if err != nil {
		return nil, err
	}
	return os.Stat(l)
}

// Exists reports whether p exists. A missing path is not an error.
func Exists(p string) (bool, error) {
	_, err := Stat(p)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, err
}

// IsDir reports whether p exists and is a directory.
func IsDir(p string) (bool, error) {
	fi, err := Stat(p)
	if err == nil {
		return fi.IsDir(), nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, err
}

// List returns the entries of directory p, sorted, in p's form; for a file
// it returns p itself, as Hadoop's listStatus does.
func List(p string) ([]string, error) {
	prefix, l, err := split(p)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(l)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []string{p}, nil
	}
	entries, err := os.ReadDir(l)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = prefix + filepath.Join(l, e.Name())
	}
	return out, nil
}

// MkdirAll creates directory p and any missing parents; an existing
// directory is not an error, an existing file is.
func MkdirAll(p string) error {
	l, err := Local(p)
	if err != nil {
		return err
	}
	return os.MkdirAll(l, 0o777)
}

// Delete removes p and, for a directory, everything below it. Deleting a
// missing path is not an error, so that replays stay harmless.
func Delete(p string) error {
	l, err := Local(p)
	if err != nil {
		return err
	}
	return os.RemoveAll(l)
}

// Rename moves src to dst with Hadoop's rename rules: when dst is an
// existing directory, src moves into it under its own name; otherwise dst
// must not exist and its parent must be a directory. It returns the path
// src ended up at.
func Rename(src, dst string) (string, error) {
	ls, err := Local(src)
	if err != nil {
		return "", err
	}
	prefix, ld, err := split(dst)
	if err != nil {
		return "", err
	}
	if _, err := os.Lstat(ls); err != nil {
		return "", err
	}
	if fi, err := os.Stat(ld); err == nil {
		if !fi.IsDir() {
			return "", &fs.PathError{Op: "rename", Path: dst, Err: fs.ErrExist}
		}
		ld = filepath.Join(ld, filepath.Base(ls))
		if _, err := os.Lstat(ld); err == nil {
			return "", &fs.PathError{Op: "rename", Path: prefix + ld, Err: fs.ErrExist}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	} else if pi, err := os.Stat(filepath.Dir(ld)); err != nil || !pi.IsDir() {
		return "", &fs.PathError{Op: "rename", Path: dst, Err: fmt.Errorf("parent directory does not exist: %w", fs.ErrNotExist)}
	}
	if err := os.Rename(ls, ld); err != nil {
		return "", err
	}
	return prefix + ld, nil
}

// Touchz creates an empty file at p, or, when a file is already there,
// updates its modification time (spec: wf 3.2.4); a directory is an error.
func Touchz(p string) error {
	l, err := Local(p)
	if err != nil {
		return err
	}
	fi, err := os.Stat(l)
	switch {
	case err == nil && fi.IsDir():
		return &fs.PathError{Op: "touchz", Path: p, Err: errors.New("is a directory")}
	case err == nil:
		now := time.Now()
		return os.Chtimes(l, now, now)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	f, err := os.OpenFile(l, os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		return err
	}
	return f.Close()
}

// Chgrp sets the group of p (not following a final symbolic link). group
// is a group name or a numeric id.
func Chgrp(p, group string) error {
	l, err := Local(p)
	if err != nil {
		return err
	}
	gid, err := LookupGroup(group)
	if err != nil {
		return err
	}
	return os.Lchown(l, -1, gid)
}

// LookupGroup returns the numeric id of a group name or id.
func LookupGroup(group string) (int, error) {
	if group == "" {
		return 0, errors.New("empty group name")
	}
	if gid, err := strconv.Atoi(group); err == nil && gid >= 0 {
		return gid, nil
	}
	g, err := user.LookupGroup(group)
	if err != nil {
		return 0, fmt.Errorf("unknown group [%s]", group)
	}
	return strconv.Atoi(g.Gid)
}

// FileSize returns the length of regular file p.
func FileSize(p string) (int64, error) {
	fi, err := Stat(p)
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() {
		return 0, &fs.PathError{Op: "filesize", Path: p, Err: errors.New("not a file")}
	}
	return fi.Size(), nil
}

// BlockSize returns the block size of regular file p: LocalBlockSize for
// local files.
func BlockSize(p string) (int64, error) {
	if _, err := FileSize(p); err != nil {
		return 0, err
	}
	return LocalBlockSize, nil
}

// DirSize returns the total length of the regular files below directory p,
// at every depth. Oozie's fs:dirSize sums recursively too, although the
// specification's text says it does not; gozie follows what Oozie does so
// that decisions built on it keep their outcome. Symbolic links are not
// followed.
func DirSize(p string) (int64, error) {
	l, err := Local(p)
	if err != nil {
		return 0, err
	}
	fi, err := os.Stat(l)
	if err != nil {
		return 0, err
	}
	if !fi.IsDir() {
		return 0, &fs.PathError{Op: "dirsize", Path: p, Err: errors.New("not a directory")}
	}
	var total int64
	err = filepath.WalkDir(l, func(_ string, d fs.DirEntry, err error) error {
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
