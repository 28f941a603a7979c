package gcs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"syscall"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"

	"github.com/gozie/gozie/internal/fsys"
)

// The reasons behind the refusals that are the contract's own, not the
// store's.
var (
	errIsDir     = errors.New("is a directory")
	errNotDir    = errors.New("parent is not a directory")
	errIntoSelf  = errors.New("cannot move a directory into itself")
	errNoBucket  = errors.New("bucket does not exist")
	errRootWrite = errors.New("the root of a bucket cannot be written, renamed or deleted")
)

// mapErr turns what the client returned for operation op on path p into
// the contract's errors: a missing object or bucket fs.ErrNotExist, a
// failed precondition fs.ErrExist, 403 fs.ErrPermission, 401 and refused
// tokens fsys.ErrCredentials, and a store that does not answer (refused
// or broken connections, timeouts, 408, 429, 5xx) fsys.ErrUnavailable.
func (g *gcsFS) mapErr(op, p string, err error) error {
	if err == nil {
		return nil
	}
	var ce *credError
	var ue *fsys.UnavailableError
	var pe *fs.PathError
	switch {
	case errors.As(err, &ce), errors.As(err, &ue), errors.As(err, &pe):
		return err // already mapped
	case errors.Is(err, context.Canceled):
		return err // the caller gave up: not the store's failure
	case errors.Is(err, storage.ErrBucketNotExist):
		return &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("%w: %w", errNoBucket, fs.ErrNotExist)}
	case errors.Is(err, storage.ErrObjectNotExist):
		return &fs.PathError{Op: op, Path: p, Err: fs.ErrNotExist}
	}
	var ae *auth.Error
	if errors.As(err, &ae) && ae.Response != nil && ae.Response.StatusCode >= 400 && ae.Response.StatusCode < 500 &&
		ae.Response.StatusCode != http.StatusTooManyRequests && ae.Response.StatusCode != http.StatusRequestTimeout {
		return g.refused(err)
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		switch c := ge.Code; {
		case c == http.StatusUnauthorized:
			return g.refused(err)
		case c == http.StatusForbidden:
			return &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("%w: %w", fs.ErrPermission, err)}
		case c == http.StatusNotFound:
			return &fs.PathError{Op: op, Path: p, Err: fs.ErrNotExist}
		case c == http.StatusConflict || c == http.StatusPreconditionFailed:
			return &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("%w: %w", fs.ErrExist, err)}
		case c == http.StatusRequestTimeout || c == http.StatusTooManyRequests || c >= 500:
			return g.unavailable(err)
		}
		return &fs.PathError{Op: op, Path: p, Err: err}
	}
	if transient(err) {
		return g.unavailable(err)
	}
	return &fs.PathError{Op: op, Path: p, Err: err}
}

// transient reports failures of the network or of the store's answers:
// nothing came back, or not all of it did. An HTTP client error that is
// none of those (a token that could not be made from a bad key) is not.
func transient(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var oe *net.OpError
	var de *net.DNSError
	if errors.As(err, &oe) || errors.As(err, &de) {
		return true
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Timeout() || errors.Is(ue.Err, io.EOF) || storage.ShouldRetry(ue)
	}
	return storage.ShouldRetry(err)
}

func (g *gcsFS) unavailable(err error) error {
	return &fsys.UnavailableError{Store: g.store, Err: err}
}

// refused is credentials the store (or its token service) turned down.
func (g *gcsFS) refused(err error) error {
	what := fmt.Sprintf("the service-account key file [%s] (%s) was refused", g.set.keyFile, g.set.keyFileKey)
	if g.set.auth != authKeyFile {
		what = "Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's, or the metadata server's) were refused"
	}
	return &credError{
		msg: fmt.Sprintf("gs: %s: %s: check the account's access to the bucket, or set %s (or %s) to another key file",
			g.store, what, KeyKeyFile, KeyKeyFileOld),
		cause:   err,
		refused: true,
	}
}

// isPrecondition reports a failed precondition (412): the object a
// conditional write meant to create is there.
func isPrecondition(err error) bool {
	var ge *googleapi.Error
	return errors.As(err, &ge) && ge.Code == http.StatusPreconditionFailed
}
