//go:build unix

package fsys

import (
	"context"
	"io"
	"os"
	"syscall"
)

// ReadPrivateFile reads a local file (plain path or file:// URI) that
// holds a secret (a key, a password): like ReadFileLimit, a regular file
// of at most max bytes, and
// also one no other user may read or change — no group or other
// permission bits, owned by this process's user or root. The checks are
// made on the opened descriptor, so the file read is the file checked.
func ReadPrivateFile(ctx context.Context, p string, max int64) ([]byte, error) {
	local, err := Local(p)
	if err != nil {
		return nil, err
	}
	f, err := openNoBlock(local)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &ReadError{Path: p, Mode: fi.Mode(), Err: ErrNotRegular}
	}
	euid := os.Geteuid()
	owner := euid
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		owner = int(st.Uid)
	}
	if fi.Mode().Perm()&0o077 != 0 || owner != euid && owner != 0 {
		return nil, &ReadError{Path: p, Mode: fi.Mode(), Err: ErrNotPrivate, Owner: owner, User: euid}
	}
	if max > 0 && fi.Size() > max {
		return nil, &ReadError{Path: p, Size: fi.Size(), Limit: max, Err: ErrTooLarge}
	}
	// Secrets are small: one bounded read, no context checks between
	// chunks. A file growing meanwhile is still cut at max.
	r := io.Reader(f)
	if max > 0 {
		r = io.LimitReader(f, max+1)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if max > 0 && int64(len(b)) > max {
		return nil, &ReadError{Path: p, Size: int64(len(b)), Limit: max, Err: ErrTooLarge}
	}
	return b, nil
}
