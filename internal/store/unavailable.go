package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"syscall"
)

// ErrUnavailable marks a store error that says nothing about the data but
// only that the database could not be reached or answer in time: the
// connection was refused or reset, the server is restarting, SQLite stayed
// busy. The same operation may succeed later, so the engine retries work
// that failed this way and the REST API answers 503 instead of 500.
// Test with errors.Is(err, ErrUnavailable) or Unavailable(err).
var ErrUnavailable = NewSentinel("store: database unavailable")

// UnavailableError wraps a driver error classified as ErrUnavailable,
// keeping the original for the message and for errors.As.
type UnavailableError struct{ Err error }

func (e *UnavailableError) Error() string { return e.Err.Error() }

// Unwrap returns the driver error.
func (e *UnavailableError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrUnavailable) and errors.Is(err, ErrStore) hold.
func (e *UnavailableError) Is(target error) bool {
	return target == ErrUnavailable || target == ErrStore
}

// Unavailable reports whether err means the database was unreachable or
// too slow, judged from the error alone: ErrUnavailable itself, network
// errors (refused, reset, timeouts), an unexpected end of a connection's
// stream, database/sql's bad-connection errors and an expired deadline.
// Driver-specific cases (PostgreSQL's connection-exception SQLSTATEs,
// SQLite's busy codes) are added by each store's dialect. A cancelled
// context is not unavailability: the caller gave up.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return true
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ETIMEDOUT) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}
