package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/jobs"
)

// TestIdleConnectionFlood: a flood of connections that never send a request,
// and idle keep-alive connections, more than the connection cap, must not
// stop a new client from being served. The timeouts are set to a minute so
// that only the listener's eviction of idle connections, not a timeout, can
// let the client in before the test's own 15 s safety bound.
func TestIdleConnectionFlood(t *testing.T) {
	const maxConns, flood = 8, 100
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err == nil && rl.Cur < 3*flood+200 {
		// Each connection costs a descriptor on both ends.
		t.Skipf("ulimit -n is %d, the flood needs about %d", rl.Cur, 3*flood+200)
	}
	e := newEnv(t)
	srv, err := New(Options{Engine: jobs.New(e.eng, e.coords, nil), Coordinators: e.coords, Auth: AuthOptions{Secret: []byte("s"), AnonymousReads: true}, Logf: t.Logf,
		HTTP: HTTPLimits{MaxConns: maxConns, ReadHeaderTimeout: time.Minute, IdleTimeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l, "", "") }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
	})
	url := "http://" + l.Addr().String() + "/oozie/versions"

	get := func(c *http.Client) error {
		res, err := c.Get(url)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		_, err = io.Copy(io.Discard, res.Body)
		if res.StatusCode != http.StatusOK {
			t.Errorf("status %d", res.StatusCode)
		}
		return err
	}
	// Idle keep-alive connections: each client keeps its connection open
	// after one request.
	for range maxConns / 2 {
		c := &http.Client{Transport: &http.Transport{}, Timeout: 15 * time.Second}
		if err := get(c); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.CloseIdleConnections)
	}
	// Connections that never send a byte, many more than the cap.
	for range flood {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
	}
	start := time.Now()
	client := &http.Client{Transport: &http.Transport{}, Timeout: 15 * time.Second}
	defer client.CloseIdleConnections()
	if err := get(client); err != nil {
		t.Fatalf("new client not served behind %d idle connections (cap %d): %v", flood, maxConns, err)
	}
	t.Logf("served after %v", time.Since(start))
	srv.mu.Lock()
	ll := srv.listener
	srv.mu.Unlock()
	ll.mu.Lock()
	defer ll.mu.Unlock()
	if ll.open > maxConns+1 || ll.evicted == 0 {
		t.Errorf("open %d (cap %d), evicted %d", ll.open, maxConns, ll.evicted)
	}
}

// TestLimitListenerWaitsWhenAllBusy: when every connection is serving a
// request, none is closed; the next one waits for a place.
func TestLimitListenerWaitsWhenAllBusy(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ll := newLimitListener(inner, 1)
	defer ll.Close()
	c1, err := net.Dial("tcp", inner.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	a1, err := ll.Accept()
	if err != nil {
		t.Fatal(err)
	}
	ll.connState(a1, http.StateActive)
	c2, err := net.Dial("tcp", inner.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	got := make(chan net.Conn, 1)
	go func() {
		a2, err := ll.Accept()
		if err != nil {
			t.Error(err)
		}
		got <- a2
	}()
	// Whether the goroutine has reached Accept's wait yet or not, it must
	// not have returned: the only place is busy.
	select {
	case <-got:
		t.Fatal("second connection accepted while the only place is busy")
	default:
	}
	if _, err := a1.Write([]byte("x")); err != nil {
		t.Fatalf("busy connection closed: %v", err)
	}
	ll.connState(a1, http.StateIdle)
	a2 := <-got
	defer a2.Close()
	ll.mu.Lock()
	evicted, open := ll.evicted, ll.open
	ll.mu.Unlock()
	if evicted != 1 || open != 1 { // a1 was closed to make room for a2
		t.Errorf("evicted %d, open %d", evicted, open)
	}
}
