package enginetest

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Recorder is an HTTP server that records the notifications it answers,
// in arrival order; answer decides each response (nil: 200).
type Recorder struct {
	// URL is the recorder's base URL.
	URL    string
	srv    *httptest.Server
	mu     sync.Mutex
	got    []string // request URIs answered with a 2xx
	tries  []string // every request URI
	answer func(uri string, n int) int
}

// NewRecorder starts a recorder, closed when the test ends.
func NewRecorder(t testing.TB, answer func(uri string, n int) int) *Recorder {
	r := &Recorder{answer: answer}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		uri := req.RequestURI // the whole URL when the recorder is a proxy
		r.mu.Lock()
		n := len(r.tries)
		r.tries = append(r.tries, uri)
		answer := r.answer
		r.mu.Unlock()
		code := http.StatusOK
		if answer != nil {
			code = answer(uri, n)
		}
		if code/100 == 2 {
			r.mu.Lock()
			r.got = append(r.got, uri)
			r.mu.Unlock()
		}
		w.WriteHeader(code)
	}))
	r.URL = r.srv.URL
	t.Cleanup(r.srv.Close)
	return r
}

// Delivered returns the URIs answered with a 2xx, in order.
func (r *Recorder) Delivered() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.got...)
}

// Attempts returns every URI requested, in order.
func (r *Recorder) Attempts() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.tries...)
}
