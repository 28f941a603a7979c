package server

import (
	"net/http"
	"strings"
	"testing"
)

// TestDoAsRefused is issue 26 point 11: a request that asks to act for
// another user is refused with E1400 and says why, instead of running as
// the authenticated user; doAs naming the caller itself passes.
func TestDoAsRefused(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name, query string
		status      int
	}{
		{"another user", "user.name=joe&doAs=bob", http.StatusUnauthorized},
		{"anonymous for another", "doAs=bob", http.StatusUnauthorized},
		{"the caller itself", "user.name=joe&doAs=joe", http.StatusOK},
		{"no doAs", "user.name=joe", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("GET", "/oozie/v2/jobs?"+tt.query, "", "")
			if r.status != tt.status {
				t.Fatalf("status %d %s, want %d", r.status, r.header.Get("oozie-error-message"), tt.status)
			}
			if tt.status == http.StatusOK {
				return
			}
			msg := r.header.Get("oozie-error-message")
			if r.header.Get("oozie-error-code") != "E1400" || !strings.Contains(msg, "no proxy users") || !strings.Contains(msg, "[bob]") {
				t.Errorf("refusal %s %q", r.header.Get("oozie-error-code"), msg)
			}
		})
	}
	// Writes are refused the same way, before they change anything.
	r := e.do("PUT", "/oozie/v2/jobs?user.name=joe&doAs=bob&action=kill&filter=user%3Djoe", "", "")
	if r.status != http.StatusUnauthorized || r.header.Get("oozie-error-code") != "E1400" {
		t.Errorf("bulk kill as bob: %d %s", r.status, r.header.Get("oozie-error-code"))
	}
}
