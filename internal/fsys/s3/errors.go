package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"

	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/gozie/gozie/internal/fsys"
)

// credError is a missing or refused credential. It matches
// fsys.ErrCredentials; a refused one matches fs.ErrPermission too, since
// the store said no. Its message names the keys to set and never holds a
// secret.
type credError struct {
	store   string
	msg     string
	refused bool
	cause   error // the SDK's or the store's words; hold no secret
}

func (e *credError) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.store, e.msg, e.cause)
	}
	return e.store + ": " + e.msg
}

// Unwrap makes errors.Is(err, fsys.ErrCredentials) hold, and
// errors.Is(err, fs.ErrPermission) for a refusal.
func (e *credError) Unwrap() []error {
	out := []error{fsys.ErrCredentials}
	if e.refused {
		out = append(out, fs.ErrPermission)
	}
	if e.cause != nil {
		out = append(out, e.cause)
	}
	return out
}

// chainError marks a failure of the AWS default credentials chain, so
// that it can be told from the store's own refusals.
type chainError struct{ err error }

func (e *chainError) Error() string { return e.err.Error() }
func (e *chainError) Unwrap() error { return e.err }

// storeError is a refusal of the store sorted into one of fs's kinds
// (fs.ErrNotExist, fs.ErrExist, fs.ErrPermission) with the store's words.
type storeError struct {
	kind error
	msg  string
	err  error
}

func (e *storeError) Error() string   { return e.msg }
func (e *storeError) Unwrap() []error { return []error{e.kind, e.err} }

// Error codes of S3 and of the S3 servers gozie meets, by meaning.
var (
	notFoundCodes = codes("NoSuchKey", "NotFound", "NoSuchBucket")
	// The credentials themselves were refused: the keys are wrong,
	// unknown or expired. versitygw answers an unknown access key with
	// a 404 XAdminUserNotFound where S3 says 403 InvalidAccessKeyId.
	credCodes = codes("InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken", "InvalidToken",
		"TokenRefreshRequired", "InvalidSecurity", "InvalidClientTokenId", "UnrecognizedClientException",
		"XAdminUserNotFound")
	deniedCodes = codes("AccessDenied", "AllAccessDisabled", "AccountProblem", "Forbidden",
		"InvalidObjectState", "MethodNotAllowed")
	// versitygw's POSIX backend refuses a file over a directory and the
	// reverse, which plain S3 allows.
	existCodes = codes("ExistingObjectIsDirectory", "ObjectParentIsFile", "DirectoryObjectContainsData",
		"BucketAlreadyExists", "BucketAlreadyOwnedByYou")
	// The store is busy, failing or slow: try again later.
	busyCodes = codes("SlowDown", "ServiceUnavailable", "InternalError", "RequestTimeout",
		"Throttling", "ThrottlingException", "RequestLimitExceeded", "TooManyRequests",
		"RequestThrottled", "BandwidthLimitExceeded", "EC2ThrottledException", "OperationAborted")
	// The request went to the wrong region.
	regionCodes = codes("PermanentRedirect", "AuthorizationHeaderMalformed",
		"IllegalLocationConstraintException", "Redirect", "TemporaryRedirect")
)

func codes(c ...string) map[string]bool {
	m := make(map[string]bool, len(c))
	for _, s := range c {
		m[s] = true
	}
	return m
}

// status returns the HTTP status of a store's answer, 0 without one.
func status(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// fail turns an SDK error from operation op on path p into the errors of
// fsys's contract: *fs.PathError matching fs.ErrNotExist, fs.ErrExist,
// fs.ErrPermission, fsys.ErrCredentials or fsys.ErrUnavailable, or naming
// the store's answer.
func (s *store) fail(op, p string, err error) error {
	if err == nil {
		return nil
	}
	var ce *credError
	if errors.As(err, &ce) {
		return &fs.PathError{Op: op, Path: p, Err: ce}
	}
	var chain *chainError
	if errors.As(err, &chain) {
		return &fs.PathError{Op: op, Path: p, Err: s.missingCredentials(chain.err)}
	}
	if errors.Is(err, context.Canceled) {
		return &fs.PathError{Op: op, Path: p, Err: err}
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return &fs.PathError{Op: op, Path: p, Err: s.classify(ae.ErrorCode(), status(err), err)}
	}
	if transient(err) {
		return &fs.PathError{Op: op, Path: p, Err: &fsys.UnavailableError{Store: s.cfg.store, Err: err}}
	}
	return &fs.PathError{Op: op, Path: p, Err: err}
}

// classify sorts a store's error answer by its code and HTTP status.
func (s *store) classify(code string, st int, err error) error {
	switch {
	case credCodes[code]:
		return s.refusedCredentials(code, err)
	case notFoundCodes[code] || st == 404:
		if code == "NoSuchBucket" {
			return &storeError{kind: fs.ErrNotExist, msg: fmt.Sprintf("bucket [%s] does not exist", s.cfg.bucket), err: err}
		}
		return fs.ErrNotExist
	case deniedCodes[code] || st == 403:
		return &storeError{kind: fs.ErrPermission, msg: "access denied: " + err.Error(), err: err}
	case existCodes[code] || st == 409:
		return &storeError{kind: fs.ErrExist, msg: err.Error(), err: err}
	case busyCodes[code] || st >= 500 || st == 429:
		return &fsys.UnavailableError{Store: s.cfg.store, Err: err}
	case regionCodes[code] || st == 301 || st == 307:
		return fmt.Errorf("%w (the bucket is in another region or behind another endpoint: check fs.s3a.endpoint and fs.s3a.endpoint.region)", err)
	}
	return err
}

// transient reports a failure to reach the store or to hear it out:
// connection refused or reset, timeouts, attempts or retry quota used up.
func transient(err error) bool {
	var send *smithyhttp.RequestSendError
	var ne net.Error
	var quota *ratelimit.QuotaExceededError
	var attempts *retry.MaxAttemptsError
	return errors.As(err, &send) || errors.As(err, &ne) || errors.As(err, &quota) ||
		errors.As(err, &attempts) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// missingCredentials says where credentials can come from when the AWS
// default chain found none.
func (s *store) missingCredentials(cause error) error {
	b := s.cfg.bucket
	return &credError{store: s.cfg.store, cause: cause, msg: fmt.Sprintf(
		"no AWS credentials: set fs.s3a.access.key and fs.s3a.secret.key (or fs.s3a.bucket.%s.access.key and fs.s3a.bucket.%s.secret.key for this bucket), "+
			"or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), or AWS_PROFILE, or run where an instance or container role applies", b, b)}
}

// refusedCredentials names the keys whose credentials the store refused.
func (s *store) refusedCredentials(code string, err error) error {
	var msg string
	if s.cfg.accessKeyName != "" {
		msg = fmt.Sprintf("the store refused the credentials (%s): check %s and %s", code, s.cfg.accessKeyName, s.cfg.secretKeyName)
		if s.cfg.sessionToken != "" {
			msg += " and fs.s3a.session.token"
		}
	} else {
		msg = fmt.Sprintf("the store refused the credentials of the AWS default chain (%s): check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_PROFILE, or set fs.s3a.access.key and fs.s3a.secret.key", code)
	}
	var ae smithy.APIError
	var cause error
	if errors.As(err, &ae) && ae.ErrorMessage() != "" {
		cause = errors.New(ae.ErrorMessage())
	}
	return &credError{store: s.cfg.store, msg: msg, refused: true, cause: cause}
}
