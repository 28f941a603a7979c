package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/gozie/gozie/internal/fsys"
)

// Files of a work directory, as the server reads and writes them. With
// RunAsUser the directory belongs to the job's user, who may replace any
// name in it at any moment: by a symbolic link to a file of root's, a hard
// link, a FIFO (an open for reading or writing would wait for a peer for
// ever, and pin an operating-system thread meanwhile) or a device. So:
//
//   - the launcher's own files (spec, pid and status records, stdout,
//     stderr, the reserves, launcher.log) are opened without following a
//     link and without blocking, and used only when they are regular files
//     of the server's user with a single link (openOwn, readOwn,
//     OpenOutput); anything else under their name counts as absent;
//   - files a job names (a <file>, an <archive>, a git key, an attachment)
//     or its program wrote are opened with the job user's permission
//     checks (osuser.Do, or a context carrying the user), without
//     blocking, only when regular and below a size bound (openJobFile).
//
// Nothing reads such a file whole without a bound.

// maxRecordBytes bounds a read of the launcher's records (pid and status
// files): they hold a few kilobytes, the status at most its reserve.
const maxRecordBytes = 64 << 20

// errNotOwn is the reason a file under one of the launcher's names is not
// used: it is not a private regular file of the server's user.
var errNotOwn = errors.New("not a private regular file of the launcher")

// OpenOwn opens one of the launcher's own files, refusing what the job's
// user could have put under its name in a directory that user owns: a
// symbolic link, a hard link (more than one name), a FIFO or device (the
// open does not wait for a peer), a file of someone else. trunc empties
// it only once it is known to be ours.
func OpenOwn(path string, flag int, trunc bool) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !PrivateRegular(fi) {
		err = &os.PathError{Op: "open", Path: path, Err: errNotOwn}
	}
	if err == nil && trunc && fi.Size() > 0 {
		// Only a file with something in it: truncating a file to zero
		// makes ext4 (auto_da_alloc) start writing it back at its close,
		// 20-50 µs per close, for the empty files of every step.
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// PrivateRegular reports whether fi is a regular file of this process's
// user with a single name.
func PrivateRegular(fi fs.FileInfo) bool {
	if !fi.Mode().IsRegular() || !ownedBySelf(fi) {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || st.Nlink == 1
}

// createOwn returns path opened for writing (with the extra flags, such
// as O_APPEND) as a private regular file of the server's user, made anew
// (O_EXCL) when what is there is not one: a link or FIFO the job's user
// planted is removed, never written through.
func createOwn(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := OpenOwn(path, os.O_WRONLY|os.O_CREATE|flag, false)
	if err == nil {
		return f, nil
	}
	if errors.Is(err, fs.ErrNotExist) && !isLoop(err) {
		return nil, err // the directory is gone
	}
	if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		return nil, fmt.Errorf("replacing %s: %w", path, rerr)
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|flag, perm)
}

func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }

// OwnExists reports whether path is, right now, one of the launcher's
// files (a private regular file of the server's user).
func OwnExists(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && PrivateRegular(fi)
}

// readOwn reads a file the launcher wrote (at most maxRecordBytes).
// Anything else under its name — a link, a FIFO, a file of another user —
// counts as absent (fs.ErrNotExist): the launcher will replace it.
func readOwn(path string) ([]byte, error) {
	f, err := OpenOwn(path, os.O_RDONLY, false)
	if err != nil {
		if isLoop(err) || errors.Is(err, errNotOwn) || errors.Is(err, syscall.ENXIO) {
			return nil, fs.ErrNotExist
		}
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRecordBytes+1))
	if err == nil && len(b) > maxRecordBytes {
		err = fmt.Errorf("%s is larger than %d bytes", path, maxRecordBytes)
	}
	return b, err
}

// ReadOwnTail returns at most the last n bytes of one of the launcher's
// files (a step's stdout or stderr), and whether it cut the file.
func ReadOwnTail(path string, n int64) ([]byte, bool, error) {
	f, err := OpenOutput(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	return TailOf(f, n)
}

// TailOf returns at most the last n bytes of f, and whether it cut the
// file.
func TailOf(f *os.File, n int64) ([]byte, bool, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	off := max(0, fi.Size()-n)
	b, err := io.ReadAll(io.NewSectionReader(f, off, n))
	return b, off > 0, err
}

// OpenOutput opens a step's stdout, stderr or launcher log for the server
// to read or serve: only a regular file of the server's user with one
// name, opened without following a link and without waiting (a job's
// user owns the work directory with gozie.launch.as.user and may have
// replaced the file by a link to root's files or by a FIFO). A missing
// file is fs.ErrNotExist; a replaced one an error saying so.
func OpenOutput(path string) (*os.File, error) {
	f, err := OpenOwn(path, os.O_RDONLY, false)
	if err != nil && (isLoop(err) || errors.Is(err, syscall.ENXIO)) {
		err = &os.PathError{Op: "open", Path: path, Err: errNotOwn}
	}
	return f, err
}

// Size bounds of files a job names that the server reads or copies.
const (
	// MaxKeyBytes bounds a git <key-path>: private keys are a few KB.
	MaxKeyBytes = 1 << 20
	// MaxStagedCopy bounds a <file> the server copies into the work
	// directory (an <exec> without its execute bit): larger programs
	// must keep their execute bit, and are then linked, not copied.
	MaxStagedCopy = 1 << 30
	// maxArchiveFile bounds an <archive> file itself; what it unpacks to
	// is bounded by maxArchiveBytes.
	maxArchiveFile = 8 << 30
	// maxJobRecord bounds a file a program wrote for the server to read
	// (counters, outcomes, child ids).
	maxJobRecord = 16 << 20
)

// openJobFile opens a file a job names, or that its program wrote, for
// the server to read: a regular file (never waiting on a FIFO or device)
// of at most max bytes, refused with a *fsys.ReadError otherwise. Called
// inside osuser.Do, the lookup and the open are checked against the job
// user's permissions.
func openJobFile(path string, max int64) (*os.File, os.FileInfo, error) {
	return fsys.OpenRegular(context.Background(), path, max)
}

// readJobFile reads a file as openJobFile opens it.
func readJobFile(path string, max int64) ([]byte, error) {
	return fsys.ReadFileLimit(context.Background(), path, max)
}

// CopyJobFile copies the regular file src (at most max bytes) to a new
// file dst with mode perm, streaming: a large file costs no memory.
func CopyJobFile(src, dst string, max int64, perm os.FileMode) error {
	in, _, err := openJobFile(src, max)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, perm)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, io.LimitReader(in, max+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > max {
		err = &fsys.ReadError{Path: src, Size: n, Limit: max, Err: fsys.ErrTooLarge}
	}
	if err != nil {
		os.Remove(dst)
	}
	return err
}

// ReadJobRecord reads a file a step's program wrote for the server
// (counters, an outcome, child ids) in its work directory: never through
// a link, never waiting on a FIFO, only a regular file of at most
// maxJobRecord bytes. Results are read inside asUser (processExecutor.
// finished), so with RunAsUser the job user's permissions apply too.
func ReadJobRecord(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkRecord(path, fi); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxJobRecord+1))
	if err == nil && len(b) > maxJobRecord {
		err = &fsys.ReadError{Path: path, Size: int64(len(b)), Limit: maxJobRecord, Err: fsys.ErrTooLarge}
	}
	return b, err
}

func checkRecord(path string, fi os.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return &fsys.ReadError{Path: path, Mode: fi.Mode(), Err: fsys.ErrNotRegular}
	}
	if fi.Size() > maxJobRecord {
		return &fsys.ReadError{Path: path, Size: fi.Size(), Limit: maxJobRecord, Err: fsys.ErrTooLarge}
	}
	return nil
}
