package azure

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

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/gozie/gozie/internal/fsys"
)

// storeError is the service's answer to a failed request, reduced to its
// status and error code: the SDK's own message carries the response body
// and headers, which have no place in a job's error.
type storeError struct {
	status int
	code   string
	hint   string // what to check, for credential failures
	kinds  []error
}

func (e *storeError) Error() string {
	msg := fmt.Sprintf("Azure Blob Storage answered HTTP %d", e.status)
	if e.code != "" {
		msg += " " + e.code
	}
	if e.hint != "" {
		msg += " (" + e.hint + ")"
	}
	return msg
}

// Unwrap returns the fs and fsys errors the answer means.
func (e *storeError) Unwrap() []error { return e.kinds }

// transportError is a request that got no answer, without the request's
// URL (which carries a SAS token when one is configured).
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// fail turns an SDK error of operation op on path p into the contract's
// errors: *fs.PathError wrapping fs.ErrNotExist, fs.ErrExist or
// fs.ErrPermission (with fsys.ErrCredentials when the credentials were
// refused), and fsys.ErrUnavailable for a store that did not answer,
// asked to be called later, or failed on its side.
func (f *azureFS) fail(ctx context.Context, op, p string, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return &fs.PathError{Op: op, Path: p, Err: ctx.Err()}
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return f.answered(op, p, re.StatusCode, re.ErrorCode)
	}
	if isTransport(err) {
		return &fs.PathError{Op: op, Path: p, Err: &fsys.UnavailableError{Store: f.s.store, Err: stripURL(err)}}
	}
	return &fs.PathError{Op: op, Path: p, Err: stripURL(err)}
}

// answered maps a status and error code.
func (f *azureFS) answered(op, p string, status int, code string) error {
	e := &storeError{status: status, code: code}
	switch {
	case status == http.StatusNotFound:
		e.kinds = []error{fs.ErrNotExist}
	case status == http.StatusConflict && (code == "BlobAlreadyExists" || code == "ContainerAlreadyExists"):
		e.kinds = []error{fs.ErrExist}
	case status == http.StatusUnauthorized:
		e.kinds = []error{fs.ErrPermission, fsys.ErrCredentials}
		e.hint = "check " + f.s.credKeys
	case status == http.StatusForbidden:
		e.kinds = []error{fs.ErrPermission}
		switch code {
		case "AuthenticationFailed", "AuthorizationFailure", "InvalidAuthenticationInfo",
			"NoAuthenticationInformation", "AuthorizationPermissionMismatch":
			// The key or token was refused, or does not allow this.
			e.kinds = append(e.kinds, fsys.ErrCredentials)
			e.hint = "check " + f.s.credKeys
		}
	case status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500:
		return &fs.PathError{Op: op, Path: p, Err: &fsys.UnavailableError{Store: f.s.store, Err: e}}
	}
	return &fs.PathError{Op: op, Path: p, Err: e}
}

// isTransport reports whether err is a request that got no answer: a
// connection refused or reset, a timeout, a body cut short.
func isTransport(err error) bool {
	var ne net.Error
	var ue *url.Error
	return errors.As(err, &ne) || errors.As(err, &ue) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, context.DeadlineExceeded)
}

// stripURL removes the request URL from a *url.Error (it carries a SAS
// token when one is configured) and keeps the rest.
func stripURL(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	return &transportError{err: fmt.Errorf("%s: %w", ue.Op, ue.Err)}
}
