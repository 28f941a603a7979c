// Package osuser is the operating-system identity of a job's user when the
// server acts for that user (gozie.launch.as.user): the account's numeric
// ids, and Do, which runs file-system work with that account's permission
// checks inside the server, so that a server running as root never opens,
// creates, changes or deletes a path for a job that the job's user could
// not.
//
// The launcher gives a program the whole credential of the user (its uid,
// gid and groups) by starting it with them; work the server does itself —
// <prepare>, the fs action, staging <file> and <archive> entries, reading a
// key or an attachment the job names, reading what the program wrote —
// runs through Do instead, without a process per operation.
package osuser

import (
	"context"
	"errors"
)

// User is an operating-system account as the kernel sees it. The JSON keys
// are part of the launch supervisor's protocol (the launch spec's runAs).
type User struct {
	Name   string   `json:"user"`
	UID    uint32   `json:"uid"`
	GID    uint32   `json:"gid"`
	Groups []uint32 `json:"groups,omitempty"`
	Home   string   `json:"home,omitempty"`
}

// ErrUnsupported is returned by Do where the operating system offers no
// per-thread file-system identity.
var ErrUnsupported = errors.New("acting as another user is not supported on this operating system")

// Do runs fn with u's file-system permission checks: every path fn opens,
// creates, renames, changes or removes is checked against u's uid, gid
// and supplementary groups, and what fn creates belongs to u, as if u did
// it. A nil u runs fn as it is. A panic in fn is raised again in the
// caller.
//
// fn must do its work itself, on its own goroutine: a goroutine it starts,
// or a process it executes, does not carry the identity (a process started
// from the thread would even regain the server's full rights at exec).
func Do(u *User, fn func() error) error {
	if u == nil {
		return fn()
	}
	return u.do(fn)
}

type ctxKey struct{}

// NewContext returns a context carrying u: file reads that take a context
// (fsys.ReadFileLimit) are then done with u's permission checks.
func NewContext(ctx context.Context, u *User) context.Context {
	if u == nil {
		return ctx
	}
	return context.WithValue(ctx, ctxKey{}, u)
}

// FromContext returns the user NewContext put in ctx, or nil.
func FromContext(ctx context.Context) *User {
	if ctx == nil {
		return nil
	}
	u, _ := ctx.Value(ctxKey{}).(*User)
	return u
}
