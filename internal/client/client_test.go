package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/conf"
)

func TestTimeJSON(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{`"Thu, 01 Jan 2009 00:00:00 GMT"`, time.Date(2009, 1, 1, 0, 0, 0, 0, time.UTC)},
		{`"Sat, 31 Dec 2011 23:59:59 GMT"`, time.Date(2011, 12, 31, 23, 59, 59, 0, time.UTC)},
		{`null`, time.Time{}},
		// The Java client understands only GMT dates; others read as null.
		{`"Thu, 01 Jan 2009 00:00:00 PST"`, time.Time{}},
		{`"2009-01-01T00:00Z"`, time.Time{}},
		{`1230768000000`, time.Time{}},
	}
	for _, tc := range tests {
		var got Time
		if err := json.Unmarshal([]byte(tc.in), &got); err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if !got.Equal(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.in, got.Time, tc.want)
		}
		if tc.want.IsZero() {
			continue
		}
		out, _ := json.Marshal(got)
		if string(out) != tc.in {
			t.Errorf("round trip %s -> %s", tc.in, out)
		}
	}
}

func TestKindOf(t *testing.T) {
	tests := []struct {
		id   string
		want Kind
	}{
		{"0000001-250127091857123-oozie-oozi-W", KindWorkflow},
		{"0000003-250127091857123-oozie-oozi-W@mr-node", KindWorkflowAction},
		{"0000003-250127091857123-oozie-oozi-W@:start:", KindWorkflowAction},
		{"0000010-250127091857123-oozie-oozi-C", KindCoord},
		{"0000010-250127091857123-oozie-oozi-C@1", KindCoordAction},
		{"0000011-250127091857123-oozie-oozi-B", KindBundle},
		{"something-else", KindCoord}, // the server's default branch
	}
	for _, tc := range tests {
		if got := KindOf(tc.id); got != tc.want {
			t.Errorf("KindOf(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
}

func TestVersionNegotiation(t *testing.T) {
	tests := []struct {
		versions string
		wantPath string
		wantErr  string
	}{
		{"[0,1,2]", "/oozie/v2/admin/status", ""},
		{"[0,1]", "/oozie/v1/admin/status", ""},
		{"[]", "", "UNSUPPORTED_VERSION"},
		{`["2"]`, "", "UNSUPPORTED_VERSION"},
	}
	for _, tc := range tests {
		var path string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/oozie/versions" {
				fmt.Fprint(w, tc.versions)
				return
			}
			path = r.URL.Path
			fmt.Fprint(w, `{"systemMode":"NORMAL"}`)
		}))
		c := New(srv.URL+"/oozie", Options{})
		mode, _, err := c.Status(context.Background())
		srv.Close()
		if tc.wantErr != "" {
			var e *CallError
			if !errors.As(err, &e) || e.Code != tc.wantErr {
				t.Errorf("%s: err %v, want %s", tc.versions, err, tc.wantErr)
			}
			continue
		}
		if err != nil || mode != "NORMAL" || path != tc.wantPath {
			t.Errorf("%s: mode %q path %q err %v", tc.versions, mode, path, err)
		}
	}
}

// TestHandshake: the SIMPLE handshake probes with OPTIONS ?user.name=, sends
// the cookie it got on later requests, and authenticates again once when
// the server rejects an expired cookie.
func TestHandshake(t *testing.T) {
	var options, gen atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodOptions:
			options.Add(1)
			if r.URL.Query().Get("user.name") != "joe" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			n := gen.Add(1)
			w.Header().Add("Set-Cookie", fmt.Sprintf(`hadoop.auth="u=joe&t=simple&g=%d"; Path=/`, n))
		case r.URL.Path == "/oozie/versions":
			fmt.Fprint(w, "[0,1,2]")
		default:
			// Only the second token is accepted: the first has "expired".
			if r.Header.Get("Cookie") != `hadoop.auth="u=joe&t=simple&g=2"` {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			fmt.Fprint(w, `{"systemMode":"NORMAL"}`)
		}
	}))
	defer srv.Close()
	c := New(srv.URL+"/oozie", Options{User: "joe"})
	if _, _, err := c.Status(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := options.Load(); got != 2 {
		t.Errorf("%d OPTIONS probes, want 2 (first, then once after the 401)", got)
	}
}

// TestErrors: the oozie-error headers become Code and Message; without
// them the status line does, as the Java client reports.
func TestErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/oozie/versions":
			fmt.Fprint(w, "[0,1,2]")
		case strings.HasSuffix(r.URL.Path, "-W"):
			w.Header().Set("oozie-error-code", "E0604")
			w.Header().Set("oozie-error-message", "E0604: Job does not exist [x-W]")
			w.WriteHeader(http.StatusBadRequest)
		default:
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	c := New(srv.URL+"/oozie", Options{})
	ctx := context.Background()
	_, _, err := c.WorkflowInfo(ctx, "x-W", InfoOptions{})
	if err == nil || err.Error() != "E0604 : E0604: Job does not exist [x-W]" || !IsNotFound(err) {
		t.Errorf("err = %v", err)
	}
	_, _, err = c.CoordInfo(ctx, "x-C", InfoOptions{})
	var e *CallError
	if !errors.As(err, &e) || e.Status != 500 || err.Error() != "HTTP error code: 500 : Internal Server Error" {
		t.Errorf("err = %v", err)
	}
}

// TestSubmitBody: the configuration goes as Hadoop XML with the Java
// client's content type, user= names the submitter, and both 201 and 200
// are accepted.
func TestSubmitBody(t *testing.T) {
	var ctype, body, query string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/oozie/versions" {
			fmt.Fprint(w, "[0,1,2]")
			return
		}
		ctype, query = r.Header.Get("Content-Type"), r.URL.RawQuery
		b := make([]byte, r.ContentLength)
		r.Body.Read(b)
		body = string(b)
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"id":"0000001-x-W"}`)
	}))
	defer srv.Close()
	c := New(srv.URL+"/oozie/", Options{User: "ann", Auth: "basic", Password: "p"})
	cf := conf.New()
	cf.Set("user.name", "ann")
	cf.Set("oozie.wf.application.path", "file:///a")
	id, raw, err := c.Submit(context.Background(), cf, true)
	if err != nil || id != "0000001-x-W" || string(raw) != `{"id":"0000001-x-W"}` {
		t.Fatalf("id %q raw %s err %v", id, raw, err)
	}
	if ctype != "application/xml;charset=UTF-8" || query != "action=start&user=ann" {
		t.Errorf("content type %q query %q", ctype, query)
	}
	if !strings.Contains(body, "<name>oozie.wf.application.path</name>") || !strings.Contains(body, "<configuration>") {
		t.Errorf("body %s", body)
	}
}

// TestRetryRefused: a refused connection is tried again with the Java
// client's back-off (a quarter of it on a loopback address, retryWait),
// and a request body is sent whole on the retry.
func TestRetryRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // refused until the server comes up on the second wait
	var body string
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/oozie/versions" {
			fmt.Fprint(w, "[0,1,2]")
			return
		}
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"id":"1-W"}`)
	})}
	t.Cleanup(func() { srv.Close() })
	var waits []time.Duration
	sleep := func(d time.Duration) {
		waits = append(waits, d)
		if len(waits) == 2 {
			l, err := net.Listen("tcp", addr)
			if err != nil {
				t.Skipf("port %s taken meanwhile: %v", addr, err)
			}
			go srv.Serve(l)
		}
	}
	c := New("http://"+addr+"/oozie", Options{Retries: 4, Sleep: sleep})
	cf := conf.New()
	cf.Set("a", "b")
	id, _, err := c.Submit(context.Background(), cf, false)
	if err != nil || id != "1-W" {
		t.Fatalf("id %q err %v", id, err)
	}
	if fmt.Sprint(waits) != "[250ms 500ms]" || !strings.Contains(body, "<name>a</name>") {
		t.Errorf("waits %v body %q", waits, body)
	}
}
