package fsys

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// FileSystem is the contract every store's backend keeps. The namespace
// (Namespace) hands it paths already resolved through the mount table and
// in the backend's own form: an absolute local path for the local backend,
// a full URI (scheme://authority/path, clean, no trailing slash but for
// the root) for every other one. A backend is used from many goroutines at
// once.
//
// Errors: a missing path is an error matching fs.ErrNotExist, an existing
// one where none may be fs.ErrExist, a refusal fs.ErrPermission, all
// wrapped in *fs.PathError naming the path; a store that does not answer
// (timeout, connection refused, 5xx, throttling) matches ErrUnavailable,
// which callers treat as transient. Anything else is a permanent failure.
//
// Object stores have no directories: there, a directory is a prefix with
// at least one object below it or a zero-length marker object named
// "prefix/", Stat of a prefix reports a directory, MkdirAll writes the
// marker, and Rename copies then deletes (not atomic). docs/storage.md says
// what each backend does.
type FileSystem interface {
	// Stat describes p.
	Stat(ctx context.Context, p string) (*FileInfo, error)
	// List returns the entries directly inside directory p, in any order;
	// fs.ErrNotExist when p does not exist. Listing a file returns the
	// file itself, as Hadoop's listStatus does.
	List(ctx context.Context, p string) ([]*FileInfo, error)
	// Open opens regular file p for reading.
	Open(ctx context.Context, p string) (io.ReadCloser, error)
	// Create writes regular file p with everything r gives, replacing a
	// file already there and creating missing parent directories. Readers
	// see the old content or the new, never a part (HDFS and WebHDFS
	// write "p._COPYING_" and rename it over p, as Hadoop's -put does).
	Create(ctx context.Context, p string, r io.Reader) error
	// MkdirAll creates directory p and its missing parents; an existing
	// directory is not an error, an existing file is (fs.ErrExist).
	MkdirAll(ctx context.Context, p string) error
	// Delete removes p and everything below it. A missing p is not an
	// error, so that replays stay harmless.
	Delete(ctx context.Context, p string) error
	// Rename moves src to dst, which must not exist and whose parent
	// directory must. Hadoop's rule "into an existing directory" is the
	// namespace's business, not the backend's.
	Rename(ctx context.Context, src, dst string) error
}

// Optional operations. A backend implements those its store has; the
// namespace answers the others (see each one).
type (
	// Chmoder sets permission bits. Without it chmod fails with
	// ErrNotSupported.
	Chmoder interface {
		Chmod(ctx context.Context, p string, mode fs.FileMode) error
	}
	// Chgrper sets the group. Without it chgrp fails with ErrNotSupported.
	Chgrper interface {
		Chgrp(ctx context.Context, p, group string) error
	}
	// Replicator sets the replication factor. Without it setrep is a
	// documented no-op, as Hadoop's local and object-store connectors
	// make it.
	Replicator interface {
		SetReplication(ctx context.Context, p string, n int16) error
	}
	// Toucher sets the modification time of an existing file to now.
	// Without it touchz of an existing file rewrites it with its own
	// content, which an object store does to change the time.
	Toucher interface {
		Touch(ctx context.Context, p string) error
	}
	// Summarizer returns the bytes below directory p at every depth (a
	// content summary) in fewer requests than a walk. Without it the
	// namespace walks List.
	Summarizer interface {
		DirSize(ctx context.Context, p string) (int64, error)
	}
	// Walker lists every file below prefix p at every depth in one
	// sweep, the way object stores list a prefix without a delimiter,
	// and the directories it meets (an object store's markers, HDFS's
	// directories) as entries with Dir set, so that an empty directory
	// is seen. The input check uses it to answer many done-flags with
	// one listing; DirSize sums the files' lengths.
	Walker interface {
		Walk(ctx context.Context, p string, fn func(*FileInfo) error) error
	}
)

// FileInfo describes one path of a store. It implements fs.FileInfo so
// that local callers keep their habits.
type FileInfo struct {
	// Path is the path in the form of the call that produced it (after
	// the namespace maps it back through the mount table).
	Path        string
	Length      int64
	Dir         bool
	Modified    time.Time
	Perm        fs.FileMode // permission bits, 0 where the store has none
	BlockSize   int64       // 0 where the store has no blocks
	Replication int         // 0 where the store does not replicate
	Owner       string
	Group       string
}

// Name is the last element of Path.
func (fi *FileInfo) Name() string { return path.Base(strings.TrimSuffix(pathPart(fi.Path), "/")) }

// Size is the length in bytes.
func (fi *FileInfo) Size() int64 { return fi.Length }

// Mode is Perm, with fs.ModeDir for a directory.
func (fi *FileInfo) Mode() fs.FileMode {
	if fi.Dir {
		return fi.Perm | fs.ModeDir
	}
	return fi.Perm
}

// ModTime is the modification time.
func (fi *FileInfo) ModTime() time.Time { return fi.Modified }

// IsDir reports whether the path is a directory (a prefix, in an object
// store).
func (fi *FileInfo) IsDir() bool { return fi.Dir }

// Sys returns nil.
func (fi *FileInfo) Sys() any { return nil }

// pathPart returns the path of a URI or plain path.
func pathPart(p string) string {
	if Scheme(p) == "" {
		return p
	}
	rest := p[len(Scheme(p))+1:]
	if strings.HasPrefix(rest, "//") {
		rest = rest[2:]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			return rest[i:]
		}
		return "/"
	}
	return rest
}

// Errors every backend and the namespace use.
var (
	// ErrUnavailable marks a store that did not answer or asked to be
	// asked later: the input check tries again next cycle, the fs action
	// goes through the transient path.
	ErrUnavailable = errors.New("store unavailable")
	// ErrNotSupported is an operation the store does not have (chmod on
	// an object store).
	ErrNotSupported = errors.New("operation not supported by this store")
	// ErrCredentials marks missing or refused credentials; the message
	// names the configuration keys to set.
	ErrCredentials = errors.New("missing or refused credentials")
)

// UnavailableError wraps a store's failure so that errors.Is(err,
// ErrUnavailable) holds and the cause stays readable.
type UnavailableError struct {
	Store string // scheme://authority
	Err   error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("store [%s] did not answer: %v", e.Store, e.Err)
}

// Unwrap returns the cause.
func (e *UnavailableError) Unwrap() []error { return []error{ErrUnavailable, e.Err} }

// Config looks up a configuration key (Hadoop's names: fs.defaultFS,
// fs.s3a.endpoint, dfs.nameservices, ...).
type Config interface {
	Get(key string) (string, bool)
}

// MapConfig is a Config held in a map.
type MapConfig map[string]string

// Get returns the value of key.
func (m MapConfig) Get(key string) (string, bool) {
	v, ok := m[key]
	return v, ok
}

// Backend registers one store kind with the namespace, the way database
// drivers register with database/sql: its package's init calls Register,
// and importing the package (internal/fsys/all imports them all) makes
// its schemes reachable.
type Backend struct {
	// Name is what documentation and errors call the store ("S3").
	Name string
	// Schemes are the URI schemes it serves, lower case.
	Schemes []string
	// ConfPrefixes are the configuration key prefixes it reads: a job
	// whose configuration sets one of them gets a backend of its own.
	ConfPrefixes []string
	// Open returns a file system for the store that uri (scheme and
	// authority only) names, configured from c. It must not do I/O that
	// can block for long: connections are made on first use. An error
	// here (missing credentials: ErrCredentials) is reported on every
	// operation on that store.
	Open func(ctx context.Context, uri *url.URL, c Config) (FileSystem, error)
}

var (
	regMu    sync.RWMutex
	backends = map[string]*Backend{}
	// regGen counts registrations, so that what depends on the set of
	// backends (Namespace.Settings) can tell it changed.
	regGen uint64
)

// Register makes b serve its schemes. Registering a scheme twice panics:
// it is a programming error found at start.
func Register(b Backend) {
	regMu.Lock()
	defer regMu.Unlock()
	for _, s := range b.Schemes {
		if _, dup := backends[s]; dup {
			panic("fsys: scheme registered twice: " + s)
		}
		backends[s] = &b
	}
	regGen++
}

// backendFor returns the backend serving scheme, or nil.
func backendFor(scheme string) *Backend {
	regMu.RLock()
	defer regMu.RUnlock()
	return backends[scheme]
}

// Schemes returns every scheme served (file included), sorted.
func Schemes() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	out := []string{"file"}
	for s := range backends {
		out = append(out, s)
	}
	sort.Strings(out)
	return slices.Compact(out)
}
