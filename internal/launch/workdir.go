package launch

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WorkDir is the work directory of one attempt of an action:
// DATA/actions/<action id>.<attempt>, e.g.
// actions/0000001-261126205235434-oozie-root-W@s1.0. One directory per
// attempt, not one per action with one per attempt inside: on ext4 each
// new directory is an inode to allocate, a measurable part of a short
// step (docs/benchmarks.md). Node names hold no dot, and the attempt is
// the part after the last one, so names never collide.
//
// Attempts started by earlier versions live in DATA/actions/<id>/<attempt>;
// that directory is returned when it exists, so that a step begun before
// an upgrade is found again, never started a second time.
func WorkDir(dataDir, actionID string, attempt int) string {
	n := strconv.Itoa(attempt)
	dir := filepath.Join(dataDir, "actions", actionID+"."+n)
	if _, err := os.Lstat(dir); err != nil {
		legacy := filepath.Join(dataDir, "actions", actionID, n)
		if fi, err := os.Lstat(legacy); err == nil && fi.IsDir() {
			return legacy
		}
	}
	return dir
}

// RunDir is the work directory of an attempt as the engine recorded it.
// An attempt another server of a cluster started in its own data
// directory, and that this server re-attached to there, keeps that
// directory as its external id; such an id is the directory. Anything
// else (no external id yet, a Hadoop job id, a sub-workflow's job id, a
// path not laid out as an attempt of this action) gives WorkDir under
// dataDir: only a directory named for this very attempt is trusted.
func RunDir(dataDir, actionID string, attempt int, externalID string) string {
	if isAttemptDir(externalID, actionID, attempt) {
		return filepath.Clean(externalID)
	}
	return WorkDir(dataDir, actionID, attempt)
}

// isAttemptDir reports whether dir is an absolute path of WorkDir's
// layout for the attempt: .../actions/<id>.<attempt>, or the earlier
// .../actions/<id>/<attempt>.
func isAttemptDir(dir, actionID string, attempt int) bool {
	if dir == "" || !filepath.IsAbs(dir) || actionID == "" {
		return false
	}
	dir = filepath.Clean(dir)
	n := strconv.Itoa(attempt)
	parent := filepath.Dir(dir)
	if filepath.Base(dir) == actionID+"."+n && filepath.Base(parent) == "actions" {
		return true
	}
	return filepath.Base(dir) == n && filepath.Base(parent) == actionID && filepath.Base(filepath.Dir(parent)) == "actions"
}

// sameAction reports whether a and b are both absolute work directories
// (WorkDir's layout, or the earlier one) of attempts of the same action.
func sameAction(a, b string) bool {
	idA, okA := attemptDirAction(a)
	idB, okB := attemptDirAction(b)
	return okA && okB && idA == idB
}

// attemptDirAction returns the action id of an absolute path laid out as
// an attempt's work directory: .../actions/<id>.<attempt> or
// .../actions/<id>/<attempt>.
func attemptDirAction(dir string) (string, bool) {
	if !filepath.IsAbs(dir) {
		return "", false
	}
	base, parent := filepath.Base(dir), filepath.Dir(dir)
	if filepath.Base(parent) == "actions" {
		if i := strings.LastIndexByte(base, '.'); i > 0 && isDigits(base[i+1:]) {
			return base[:i], true
		}
		return "", false
	}
	if isDigits(base) && filepath.Base(filepath.Dir(parent)) == "actions" {
		return filepath.Base(parent), true
	}
	return "", false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// DataIDFile holds a data directory's identity (DataDirID).
const DataIDFile = "data.id"

// DataDirID returns the identity of a data directory, made (random) the
// first time. Servers of a cluster record it with every step they are
// about to start, so that a server taking the step over can tell the
// directory named in the record from another one at the same path on its
// own host (one server per host, each with /var/lib/gozie, is the usual
// layout): it is the same directory when the file there holds the same
// identity (SameDataDir).
func DataDirID(dataDir string) (string, error) {
	path := filepath.Join(dataDir, DataIDFile)
	if id, err := readDataID(path); err == nil {
		return id, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dataDir, "."+DataIDFile+".tmp*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(hex.EncodeToString(b[:]) + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	// link(2) rather than rename: a file somebody made meanwhile wins,
	// so the directory never changes identity once it has one.
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	return readDataID(path)
}

func readDataID(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 256))
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(b))
	if id == "" || len(id) > 128 {
		return "", fmt.Errorf("%s: not a data directory identity", path)
	}
	return id, nil
}

// SameDataDir reports whether dataDir, as this host sees it, is the data
// directory whose identity is id: the same directory on the same host, or
// one shared between hosts. A path that does not exist here, or holds
// another directory, is not.
func SameDataDir(dataDir, id string) bool {
	if dataDir == "" || id == "" || !filepath.IsAbs(dataDir) {
		return false
	}
	got, err := readDataID(filepath.Join(dataDir, DataIDFile))
	return err == nil && got == id
}
