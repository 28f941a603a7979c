package fsys

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gozie/gozie/internal/osuser"
)

// Default size bounds of ReadFileLimit's callers. They live here so that the
// server, the engine and the command line agree on them.
const (
	// DefaultMaxDefinition bounds workflow.xml, coordinator.xml and dataset
	// include files: 100,000 bytes, Oozie's default
	// (oozie.service.WorkflowAppService.WorkflowDefinitionMaxLength), so
	// an application Oozie accepted is accepted here. It is the same figure
	// as workflow.DefaultMaxDefinitionLength, which the parser applies.
	DefaultMaxDefinition int64 = 100_000
	// DefaultMaxConfFile bounds configuration files read for a job
	// (config-default.xml, <job-xml>, job.properties): 10 MiB. Copies of
	// hive-site.xml with descriptions run to a few hundred kilobytes; this
	// leaves a wide margin while keeping one file far from memory trouble.
	DefaultMaxConfFile int64 = 10 << 20
)

// ErrTooLarge is matched (errors.Is) by a *ReadError for a file over the
// limit; ErrNotRegular by one for a FIFO, device, socket or directory;
// ErrNotPrivate by one ReadPrivateFile refused because other users may
// read or change it.
var (
	ErrTooLarge   = errors.New("file too large")
	ErrNotRegular = errors.New("not a regular file")
	ErrNotPrivate = errors.New("file not private")
)

// ReadError reports why ReadFileLimit refused a file, naming it.
type ReadError struct {
	Path  string
	Size  int64 // bytes found (at least Limit+1 when too large), or 0
	Limit int64
	Err   error // ErrTooLarge, ErrNotRegular, ErrNotPrivate
	Mode  os.FileMode
	// Owner and User are, for ErrNotPrivate, the uid owning the file and
	// the uid of this process.
	Owner, User int
}

func (e *ReadError) Error() string {
	if errors.Is(e.Err, ErrTooLarge) {
		return fmt.Sprintf("file [%s] is larger than the limit of %d bytes", e.Path, e.Limit)
	}
	if errors.Is(e.Err, ErrNotPrivate) {
		if e.Mode.Perm()&0o077 != 0 {
			return fmt.Sprintf("[%s] has mode %#o, which lets other users read or change it; chmod 600 %s", e.Path, e.Mode.Perm(), e.Path)
		}
		return fmt.Sprintf("[%s] belongs to uid %d, who may change it, not to this process's user (uid %d) or root; chown %d %s", e.Path, e.Owner, e.User, e.User, e.Path)
	}
	kind := "not a regular file"
	switch {
	case e.Mode.IsDir():
		kind = "a directory, not a file"
	case e.Mode&os.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO), not a regular file"
	case e.Mode&os.ModeDevice != 0:
		kind = "a device, not a regular file"
	case e.Mode&os.ModeSocket != 0:
		kind = "a socket, not a regular file"
	}
	return fmt.Sprintf("[%s] is %s", e.Path, kind)
}

// Unwrap returns ErrTooLarge, ErrNotRegular or ErrNotPrivate.
func (e *ReadError) Unwrap() error { return e.Err }

// readChunk is how much ReadFileLimit reads between checks of the context.
const readChunk = 64 << 10

// OpenRegular opens the regular file p (a plain path or file:// URI) for
// reading, refusing before reading anything a path that is not a regular
// file (a FIFO would block forever, /dev/zero never ends) or whose size is
// over max bytes (max <= 0: no limit), with a *ReadError. The file is
// opened without blocking and checked again once open, so replacing it by
// a FIFO between the two steps does not hang the caller.
//
// When ctx carries a user (osuser.NewContext: the server acts for a job's
// user), the file is looked up and opened with that user's permission
// checks; what is read afterwards comes through the open descriptor.
func OpenRegular(ctx context.Context, p string, max int64) (*os.File, os.FileInfo, error) {
	local, err := Local(p)
	if err != nil {
		return nil, nil, err
	}
	return openRegularLocal(ctx, p, local, max)
}

// openRegularLocal is OpenRegular of the local path local, named p in
// errors.
func openRegularLocal(ctx context.Context, p, local string, max int64) (*os.File, os.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var f *os.File
	err := osuser.Do(osuser.FromContext(ctx), func() error {
		fi, err := os.Stat(local)
		if err != nil {
			return err
		}
		if err := checkRegular(p, fi, max); err != nil {
			return err
		}
		f, err = openNoBlock(local)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkRegular(p, fi, max)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

func checkRegular(p string, fi os.FileInfo, max int64) error {
	if !fi.Mode().IsRegular() {
		return &ReadError{Path: p, Mode: fi.Mode(), Err: ErrNotRegular}
	}
	if max > 0 && fi.Size() > max {
		return &ReadError{Path: p, Size: fi.Size(), Limit: max, Err: ErrTooLarge}
	}
	return nil
}

// readLocalLimit reads the local regular file local (named p in errors)
// whole, as OpenRegular opens it (with the user of ctx, when it carries
// one), stopping with ctx.Err() when ctx is done. A file growing while it
// is read is still cut at max.
func readLocalLimit(ctx context.Context, p, local string, max int64) ([]byte, error) {
	f, fi, err := openRegularLocal(ctx, p, local, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := fi.Size()
	buf := make([]byte, 0, size+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		want := min(cap(buf)-len(buf), readChunk)
		n, err := f.Read(buf[len(buf) : len(buf)+want])
		buf = buf[:len(buf)+n]
		if max > 0 && int64(len(buf)) > max {
			return nil, &ReadError{Path: p, Size: int64(len(buf)), Limit: max, Err: ErrTooLarge}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
