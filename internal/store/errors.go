package store

import (
	"errors"
	"fmt"
)

// The store's failures are told apart by type, never by their text:
//
//   - every error a store package returns matches errors.Is(err, ErrStore),
//     so that the server answers it as Oozie's SQL error (E0603) and keeps
//     its text (hosts, users, schemas) in the server log;
//   - ErrNotFound: no such job or action;
//   - ErrNotOwner: a commit for a job another server owns (fencing);
//   - ErrUnavailable: the database could not be reached (Unavailable);
//   - ErrDiskFull: the database could not write for want of space
//     (IsDiskFull).
//
// The store has no duplicate or conflict error: its writes are upserts.

// ErrStore is matched (errors.Is) by every error of the store packages.
var ErrStore = errors.New("store failure")

// ErrDiskFull is matched (errors.Is) by a store failure whose cause is a
// full disk or quota (see IsDiskFull).
var ErrDiskFull = &sentinel{"store: disk full"}

// sentinel is a store error of its own, which is also ErrStore.
type sentinel struct{ msg string }

func (e *sentinel) Error() string { return e.msg }

// Is makes errors.Is(err, ErrStore) hold.
func (e *sentinel) Is(target error) bool { return target == ErrStore }

// NewSentinel returns a distinct store error with the text msg that
// matches ErrStore, for the store packages' own sentinels.
func NewSentinel(msg string) error { return &sentinel{msg} }

// Failure is an error of a store package: the message the package wrote
// (it names the database kind and the operation) around the driver's
// error, which errors.Is/As still see.
type Failure struct{ Err error }

func (e *Failure) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *Failure) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrStore) hold, and errors.Is(err, ErrDiskFull)
// when the cause is a full disk.
func (e *Failure) Is(target error) bool {
	return target == ErrStore || target == ErrDiskFull && IsDiskFull(e.Err)
}

// Errorf formats a store failure as fmt.Errorf does (%w wraps) and marks it
// as one (ErrStore).
func Errorf(format string, args ...any) error {
	return &Failure{Err: fmt.Errorf(format, args...)}
}

// IsStore reports whether err is, or wraps, a failure of the store, or a
// database/sql error the drivers return as they are.
func IsStore(err error) bool { return errors.Is(err, ErrStore) }
