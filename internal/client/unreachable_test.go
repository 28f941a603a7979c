package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestRetryWait is issue 26 point 13: a refused connection to this
// machine is retried for at most two seconds in all; a remote server gets
// the Java client's schedule, which rides out a restart elsewhere.
func TestRetryWait(t *testing.T) {
	tests := []struct {
		host  string
		waits []time.Duration
	}{
		{"oozie.example.com", []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}},
		{"10.1.2.3", []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}},
		{"localhost", []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}},
		{"LOCALHOST", []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}},
		{"127.0.0.1", []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}},
		{"127.1.2.3", []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}},
		{"::1", []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			var got []time.Duration
			var total time.Duration
			for n := 0; ; n++ {
				w, again := retryWait(tt.host, n, 4)
				if !again {
					break
				}
				got = append(got, w)
				total += w
			}
			if len(got) != len(tt.waits) {
				t.Fatalf("waits %v, want %v", got, tt.waits)
			}
			for i := range got {
				if got[i] != tt.waits[i] {
					t.Fatalf("waits %v, want %v", got, tt.waits)
				}
			}
			if isLoopback(tt.host) && total > 2*time.Second {
				t.Errorf("waits add up to %v on a loopback address; want at most 2s", total)
			}
		})
	}
	if _, again := retryWait("localhost", 0, 0); again {
		t.Error("no retries asked for, yet one was given")
	}
}

// TestUnreachableInPlainWords is issue 26 point 13: a server that is not
// running on a loopback address is reported at once and without Go's
// "dial tcp" text, in the retry lines as in the final error.
func TestUnreachableInPlainWords(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL + "/oozie"
	srv.Close()
	var waited time.Duration
	var log strings.Builder
	c := New(base, Options{Retries: 4, RetryLog: &log, Sleep: func(d time.Duration) { waited += d }})
	_, err := c.Versions(context.Background())
	var ce *CallError
	if !errors.As(err, &ce) || ce.Code != "IO_ERROR" {
		t.Fatalf("error %v, want IO_ERROR", err)
	}
	all := log.String() + err.Error()
	for _, bad := range []string{"dial tcp", "connect:"} {
		if strings.Contains(all, bad) {
			t.Errorf("output says %q:\n%s", bad, all)
		}
	}
	if !strings.Contains(err.Error(), "connection refused (is the server running") {
		t.Errorf("error %q does not say the server may not be running", err)
	}
	if waited > 2*time.Second {
		t.Errorf("waited %v in all before reporting; want at most 2s", waited)
	}
	if !strings.Contains(log.String(), "Trying after 0.25 sec. Retry count = 1") {
		t.Errorf("retry lines:\n%s", log.String())
	}
}

// TestPlainErrorWords: the transport errors people meet are worded
// without the socket call's text.
func TestPlainErrorWords(t *testing.T) {
	dns := &url.Error{Op: "Get", URL: "http://nosuch.invalid:11000/oozie/versions",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "nosuch.invalid", IsNotFound: true}}}
	if got := PlainError(dns); got != "unknown host [nosuch.invalid] (is the host name in the URL right?)" {
		t.Errorf("DNS: %q", got)
	}
	other := &url.Error{Op: "Get", URL: "http://x/", Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("something odd")}}
	if got := PlainError(other); got != "something odd" {
		t.Errorf("other: %q", got)
	}
}

// TestNotOozieSuggestion is issue 26 point 13: a URL whose path is not
// Oozie's gets a suggestion that replaces a misspelt /oozie instead of
// appending another one.
func TestNotOozieSuggestion(t *testing.T) {
	tests := []struct{ base, want string }{
		{"http://h:11000", "http://h:11000/oozie"},
		{"http://h:11000/", "http://h:11000/oozie"},
		{"http://h:11000/ozie", "http://h:11000/oozie"},
		{"http://h:11000/Oozie/", "http://h:11000/oozie"},
		{"http://h:11000/oozi", "http://h:11000/oozie"},
		{"http://h:11000/gateway/ozie", "http://h:11000/gateway/oozie"},
		{"http://h:11000/gateway", "http://h:11000/gateway/oozie"},
		{"http://h:11000/v2", "http://h:11000/v2/oozie"},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			msg := New(tt.base, Options{}).notOozie().Message
			if !strings.HasSuffix(msg, "e.g. "+tt.want) {
				t.Errorf("message %q, want the suggestion %q", msg, tt.want)
			}
		})
	}
}
