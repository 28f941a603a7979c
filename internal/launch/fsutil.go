package launch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gozie/gozie/internal/action"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/workflow"
)

// Error codes of the fs action (spec: wf 3.2.4). The FS codes
// and their wording are Oozie's own, so users find them in Oozie's
// documentation and forums:
//
//	FS001 the name-node has no scheme (a plain absolute path without
//	      name-node is a local path in gozie; Oozie reports FS001 for it)
//	FS004 mkdir could not create the directory
//	FS005 delete could not delete the path
//	FS006 move: source path does not exist
//	FS007 move: target names another file system than the source
//	FS008 move: could not move (target exists, parent missing, ...)
//	FS009 chmod/chgrp: no path matches
//	FS010 chmod: invalid permissions mask
//	FS011 a path is relative
//	FS012 move: several sources but the target is not a directory
//	FS013 a glob matched more paths than oozie.action.fs.glob.max
//	FS014 permission denied (Oozie: AccessControlException)
//
// Oozie has no FS code for a few cases; gozie uses the code Oozie's
// executors give the underlying condition:
//
//	E0904 the path's scheme is not supported (hdfs:// in this build)
//	E0701 a missing attribute or a replication-factor that is not a
//	      number: the schema would reject both (xs:short), only EL made
//	      them slip through
//	JA008 a path vanished while the operation ran (FileNotFoundException)
//	JA009 other I/O failures (IOException); transient, as in Oozie, except
//	      touchz of a directory, which no retry can fix
//
// Two local departures: delete with skip-trash='false' deletes (a local
// file system has no trash), and chgrp changes the group only, where Oozie
// also makes the workflow user the owner (that needs root locally).
const (
	CodeFSMissingScheme   = "FS001"
	CodeFSMkdir           = "FS004"
	CodeFSDelete          = "FS005"
	CodeFSMoveNoSource    = "FS006"
	CodeFSMoveOtherFS     = "FS007"
	CodeFSMove            = "FS008"
	CodeFSNoMatch         = "FS009"
	CodeFSPermissions     = "FS010"
	CodeFSRelative        = "FS011"
	CodeFSMoveManySources = "FS012"
	CodeFSGlobMax         = "FS013"
	CodeFSAccess          = "FS014"
	CodeUnsupportedFS     = "E0904"
	CodeSchema            = "E0701"
	CodeFileNotFound      = "JA008"
	CodeIO                = "JA009"
)

// ResolveFSPath applies Oozie's path rules to attribute attr of a command:
// absolute, with a scheme or a name-node to supply one. gozie departs from
// Oozie in one way: without a name-node, an absolute path without scheme is
// a local path (Oozie says FS001), so that applications run on a laptop.
func ResolveFSPath(op string, el *workflow.Element, attr, nnPrefix string) (string, error) {
	raw, ok := el.LookupAttr(attr)
	raw = strings.TrimSpace(raw)
	if !ok || raw == "" {
		return "", action.Errorf(action.ErrorKindError, CodeSchema, "%s, attribute [%s] missing", op, attr)
	}
	p := raw
	if fsys.Scheme(raw) == "" {
		if !strings.HasPrefix(raw, "/") {
			return "", action.Errorf(action.ErrorKindError, CodeFSRelative, "Path [%s] cannot be relative", raw)
		}
		p = nnPrefix + raw
	}
	if _, err := fsys.Default().Resolve(context.Background(), p); err != nil {
		return "", action.Errorf(action.ErrorKindError, CodeUnsupportedFS, "%v", err)
	}
	return p, nil
}

// FsIOError classifies a file-system failure: a store that did not answer
// is a transient JA009, an unsupported scheme or operation E0904, refused
// credentials and permission denied FS014, otherwise code (with the optional message)
// when given, else JA008 for a missing path and a transient JA009.
func FsIOError(p string, err error, code string, msg ...any) error {
	text := err.Error()
	if len(msg) > 0 {
		text = fmt.Sprintf(msg[0].(string), msg[1:]...)
	}
	switch {
	case errors.Is(err, fsys.ErrUnavailable):
		// The store did not answer: Oozie's transient path, retried.
		return &action.ExecError{Kind: action.Transient, Code: CodeIO, Msg: err.Error(), Err: err}
	case errors.Is(err, fsys.ErrUnsupported), errors.Is(err, fsys.ErrNotSupported):
		return &action.ExecError{Kind: action.ErrorKindError, Code: CodeUnsupportedFS, Msg: err.Error(), Err: err}
	case errors.Is(err, fsys.ErrCredentials):
		return &action.ExecError{Kind: action.ErrorKindError, Code: CodeFSAccess, Msg: err.Error(), Err: err}
	case errors.Is(err, fs.ErrPermission):
		return &action.ExecError{Kind: action.ErrorKindError, Code: CodeFSAccess, Msg: fmt.Sprintf("Permission denied: [%s]: %v", p, err), Err: err}
	case code != "":
		return &action.ExecError{Kind: action.ErrorKindError, Code: code, Msg: text, Err: err}
	case errors.Is(err, fs.ErrNotExist):
		return &action.ExecError{Kind: action.ErrorKindError, Code: CodeFileNotFound, Msg: text, Err: err}
	}
	return &action.ExecError{Kind: action.Transient, Code: CodeIO, Msg: text, Err: err}
}

// WriteFileAtomic writes data to a temporary file beside path and renames it
// into place, so that readers never see a partial file, even after a crash.
//
// It does not fsync: the files it writes (launch spec, pid, exit status)
// must survive the server or the launcher being killed, which the page cache
// guarantees, and the store keeps the same promise (SQLite WAL with
// synchronous=NORMAL). Only a power loss can lose the last of them, and then
// the action is reported as a launcher that died (JA017) rather than run
// twice. Syncing cost 1-3 ms per shell step.
func WriteFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
