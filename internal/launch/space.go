package launch

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/gozie/gozie/internal/action"
)

// A full disk must not lose the outcome of a program that ran, nor fail an
// action whose program never ran. The executor therefore allocates, before
// it starts the launcher, every file the launcher will need (stdout,
// stderr, the pid file and room for the status file): a disk that is full
// at that point fails Start with a transient error (START_RETRY) and
// nothing has run. Once the program has run, the launcher writes its
// status into the space reserved for it; should that fail (a status larger
// than the reserve, a reserve removed), it keeps retrying while the disk is
// full, staying alive — and so visibly running — until the outcome is
// recorded.
const (
	// StatusReserveFile holds the room for status.json; the launcher
	// writes the status into it in place and renames it.
	StatusReserveFile = ".status.reserve"
	// PidReserveFile is renamed by the launcher that claims the run, so
	// that claiming needs no new disk block. It also holds the room for
	// the second line of the pid file, written once the program runs (its
	// pid, and its process group when supervised: what Kill needs), so
	// that a full disk cannot keep the group unknown (pidfile.go).
	PidReserveFile = ".pid.reserve"
	pidReserveSize = 4096
)

// CodeDiskFull is the error code of an action step that could not write
// because the disk (or the user's quota) is full: JA009, Oozie's code for
// an I/O error of a launcher action, which is transient.
const CodeDiskFull = CodeIO

// IsNoSpace reports whether err says the file system is full or a disk
// quota is exhausted.
func IsNoSpace(err error) bool {
	return err != nil && (errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT))
}

// noSpaceError is the transient error of a step that found the disk full:
// the engine retries it (START_RETRY, END_RETRY) at its retry interval.
func noSpaceError(what string, err error) *action.ExecError {
	e := action.Errorf(action.Transient, CodeDiskFull, "disk full: %s: %v", what, err)
	e.Err = err
	return e
}

// diskFullCheck is the transient error of a Check that found no outcome
// on a full disk; it wraps ENOSPC so that the engine knows the action's
// end, not its run, is what waits (END_RETRY).
func diskFullCheck(format string, args ...any) *action.ExecError {
	e := action.Errorf(action.Transient, CodeDiskFull, format, args...)
	e.Err = syscall.ENOSPC
	return e
}

// statusReserveSize is the room kept for status.json: the captured output
// (each byte at most six in JSON, \u00XX) and the rest of the status.
func statusReserveSize(maxOutput int) int {
	if maxOutput <= 0 {
		maxOutput = DefaultMaxOutput
	}
	return 16<<10 + 6*maxOutput
}

// ReserveLauncherFiles creates what the launcher writes in dir, so that a
// full disk shows here, before anything ran, and not after. Every file
// made here is a new inode, which is most of a short step's cost on
// ext4 (docs/benchmarks.md): a supervised step makes no launcher.log.
func ReserveLauncherFiles(dir string, maxOutput int, supervised bool) error {
	names := []string{StdoutFile, StderrFile}
	if !supervised {
		// The per-step launcher's own output goes there; the supervisor
		// has a log of its own, and notes for a step's log (writeLauncherNotes,
		// a fall-back to the launcher) create it when there are any.
		names = append(names, LauncherLog)
	}
	for _, name := range names {
		// Never through a link the job's user planted, should the
		// directory be the user's already (a start tried again).
		f, err := createOwn(filepath.Join(dir, name), 0, 0o644)
		if err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	if err := ensureZeros(filepath.Join(dir, PidReserveFile), pidReserveSize); err != nil {
		return err
	}
	return ensureZeros(filepath.Join(dir, StatusReserveFile), statusReserveSize(maxOutput))
}

// ensureZeros makes path a reserve of n bytes unless it is one already
// (made ahead by PrepareDir): a private regular file of that size.
func ensureZeros(path string, n int) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(n) && ownedBySelf(fi) {
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Nlink == 1 {
			return nil
		}
	}
	return writeZeros(path, n)
}

// writeZeros writes a file of n zero bytes: written, not truncated to size,
// so that the blocks are really allocated.
func writeZeros(path string, n int) error {
	f, err := createOwn(path, 0, 0o600)
	if err == nil {
		// A new file is empty already; truncating it would make ext4
		// (auto_da_alloc) write it back at its close, the dearest
		// part of making a reserve.
		var fi os.FileInfo
		if fi, err = f.Stat(); err == nil && fi.Size() > 0 {
			err = f.Truncate(0)
		}
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		return err
	}
	// No fsync: file systems charge the blocks of a write to the free
	// space when it is made (tmpfs allocates, ext4 and XFS reserve for
	// delayed allocation), which is all a reserve needs.
	if _, err := writeZeroBytes(f, n); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

// zeroBlock is what writeZeros writes from: read only, shared, so that a
// step's reserves (some 30 KB) are not garbage to collect.
var zeroBlock [32 << 10]byte

// writeZeroBytes writes n zero bytes to w.
func writeZeroBytes(w io.Writer, n int) (int, error) {
	written := 0
	for written < n {
		m, err := w.Write(zeroBlock[:min(n-written, len(zeroBlock))])
		written += m
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// overwriteReserve replaces the content of the reserve file at from with
// data, within the blocks it already holds, and renames it to to. It
// returns an error (and leaves to alone) when the reserve is missing or too
// small.
//
// The reserve must be a regular file of this user with one link: in a work
// directory that belongs to the job's user (RunAs), a link planted under
// the reserve's name must not make root write elsewhere.
func overwriteReserve(from, to string, data []byte) error {
	f, err := OpenOwn(from, os.O_WRONLY, false)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && fi.Size() < int64(len(data)) {
		err = fmt.Errorf("reserve %s holds %d bytes, %d needed", from, fi.Size(), len(data))
	}
	if err == nil {
		_, err = f.WriteAt(data, 0)
	}
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(from, to)
}

// WriteStatus records the launcher's status in dir: in the reserved room
// when there is one, else as a new file. A variable so that tests can make
// it fail as a full disk does.
var WriteStatus = func(dir string, data []byte) error {
	if err := overwriteReserve(filepath.Join(dir, StatusReserveFile), filepath.Join(dir, StatusFile), data); err == nil {
		return nil
	}
	return WriteFileAtomic(filepath.Join(dir, StatusFile), data)
}

// StatusRetryWait is how long the launcher waits before its next attempt
// to record its status on a full disk: 1s doubling up to a minute. A
// variable so that tests wait milliseconds.
var StatusRetryWait = func(attempt int) time.Duration {
	return min(time.Second<<min(attempt, 6), time.Minute)
}

// RecordStatus writes the status, retrying for as long as the disk is full:
// the program has run, its outcome exists only in this process, and a
// launcher that is alive is what tells the executor to wait. Other errors
// are returned at once.
func RecordStatus(dir string, data []byte, sleep func(time.Duration), log io.Writer) error {
	for attempt := 0; ; attempt++ {
		err := WriteStatus(dir, data)
		if err == nil || !IsNoSpace(err) {
			return err
		}
		if attempt == 0 {
			// The log may be on the same full disk; it is a courtesy.
			fmt.Fprintf(log, "gozie launch: cannot record status (%v); retrying until space is freed\n", err)
		}
		sleep(StatusRetryWait(attempt))
	}
}

// DiskFull reports whether the file system holding dir is full (or out of
// inodes), to explain failures that do not say so themselves.
func DiskFull(dir string) bool { return DiskFullCheck(dir) }

// DiskFullCheck reports whether the file system holding dir has no room left
// for unprivileged writes: no free blocks or no free inodes. A variable so
// that tests can simulate it.
var DiskFullCheck = func(dir string) bool {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		return false
	}
	// A few blocks left are as good as none: the next status or spec
	// write would not fit.
	return uint64(fs.Bavail)*uint64(fs.Bsize) < 64<<10 || (fs.Files > 0 && fs.Ffree == 0)
}
