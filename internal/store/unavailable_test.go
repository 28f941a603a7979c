package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
)

func TestUnavailable(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &net.AddrError{Err: "x"}}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"not found", ErrNotFound, false},
		{"plain", errors.New("syntax error"), false},
		{"canceled", context.Canceled, false},
		{"deadline", fmt.Errorf("begin: %w", context.DeadlineExceeded), true},
		{"refused", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), true},
		{"reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"net error", refused, true},
		{"unexpected EOF", fmt.Errorf("receive: %w", io.ErrUnexpectedEOF), true},
		{"bad conn", driver.ErrBadConn, true},
		{"marked", &UnavailableError{Err: errors.New("x")}, true},
	} {
		if got := Unavailable(tc.err); got != tc.want {
			t.Errorf("%s: Unavailable(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
	if !errors.Is(&UnavailableError{Err: io.EOF}, ErrUnavailable) || !errors.Is(&UnavailableError{Err: io.EOF}, io.EOF) {
		t.Error("UnavailableError must be ErrUnavailable and wrap its cause")
	}
}
