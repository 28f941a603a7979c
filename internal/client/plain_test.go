package client

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"syscall"
	"testing"
)

// TestPlainError is issue 14 point 9: Go's context and network errors are
// worded for people.
func TestPlainError(t *testing.T) {
	wrap := func(err error) error { return &url.Error{Op: "Get", URL: "http://h/oozie", Err: err} }
	tests := []struct {
		err  error
		want string
	}{
		{wrap(context.Canceled), "interrupted"},
		{wrap(context.DeadlineExceeded), "did not answer in time"},
		{wrap(fmt.Errorf("dial: %w", syscall.ECONNREFUSED)), "connection refused"},
		{errors.New("tls: bad certificate"), "tls: bad certificate"},
	}
	for _, tt := range tests {
		got := PlainError(tt.err)
		if !strings.Contains(got, tt.want) || strings.Contains(got, "context ") {
			t.Errorf("PlainError(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
