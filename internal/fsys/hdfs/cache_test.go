package hdfs

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// conn stands for a client in the cache's own test: the cache keeps any
// io.Closer, and what is checked here is its bookkeeping.
type conn struct {
	user   string
	mu     sync.Mutex
	closed int
}

func (c *conn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed++
	return nil
}

func (c *conn) closes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

type opener struct {
	mu      sync.Mutex
	made    map[string][]*conn
	fail    map[string]error
	expires time.Time
	gate    chan struct{} // when set, opening waits for it
}

func (o *opener) open(user string) (*conn, time.Time, error) {
	if o.gate != nil {
		<-o.gate
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.fail[user]; err != nil {
		return nil, time.Time{}, err
	}
	c := &conn{user: user}
	if o.made == nil {
		o.made = map[string][]*conn{}
	}
	o.made[user] = append(o.made[user], c)
	return c, o.expires, nil
}

func (o *opener) count(user string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.made[user])
}

func TestClientCachePerUser(t *testing.T) {
	ctx := context.Background()
	o := &opener{}
	cc := newClientCache(3, o.open)
	get := func(user string) *conn {
		t.Helper()
		c, release, err := cc.acquire(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		release()
		return c
	}
	a1, a2, b := get("alice"), get("alice"), get("bob")
	if a1 != a2 || a1.user != "alice" || b.user != "bob" || a1 == b {
		t.Fatalf("alice got %p and %p, bob %p: want one client per user", a1, a2, b)
	}
	if o.count("alice") != 1 || cc.len() != 2 {
		t.Fatalf("made %d clients for alice, %d kept", o.count("alice"), cc.len())
	}

	// Past max, the least recently used idle client is closed.
	get("carol")
	get("alice") // alice is now more recent than bob
	get("dave")
	if cc.len() != 3 || b.closes() != 1 || a1.closes() != 0 {
		t.Fatalf("after a fourth user: %d kept, bob closed %d times, alice %d", cc.len(), b.closes(), a1.closes())
	}
	if b2 := get("bob"); b2 == b || o.count("bob") != 2 {
		t.Fatal("an evicted user's client was not made anew")
	}
}

func TestClientCacheKeepsClientsInUse(t *testing.T) {
	ctx := context.Background()
	o := &opener{}
	cc := newClientCache(1, o.open)
	a, releaseA, err := cc.acquire(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	b, releaseB, err := cc.acquire(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if a.closes() != 0 || b.closes() != 0 {
		t.Fatal("a client in use was closed")
	}
	releaseA() // now alice is idle and the cache is over its bound
	if a.closes() != 1 || b.closes() != 0 || cc.len() != 1 {
		t.Fatalf("alice closed %d, bob %d, kept %d", a.closes(), b.closes(), cc.len())
	}
	releaseB()
}

func TestClientCacheFailureIsNotKept(t *testing.T) {
	ctx := context.Background()
	refused := errors.New("connection refused")
	o := &opener{fail: map[string]error{"alice": refused}}
	cc := newClientCache(4, o.open)
	for i := 0; i < 2; i++ {
		if _, _, err := cc.acquire(ctx, "alice"); !errors.Is(err, refused) {
			t.Fatalf("try %d: %v", i, err)
		}
	}
	if cc.len() != 0 {
		t.Fatal("a failed client was kept")
	}
	o.mu.Lock()
	o.fail = nil
	o.mu.Unlock()
	if _, release, err := cc.acquire(ctx, "alice"); err != nil {
		t.Fatalf("after the store came back: %v", err)
	} else {
		release()
	}
}

func TestClientCacheExpiry(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	o := &opener{expires: now.Add(time.Hour)}
	cc := newClientCache(4, o.open)
	cc.now = func() time.Time { return now }
	c1, release, _ := cc.acquire(ctx, "")
	release()
	now = now.Add(59 * time.Minute)
	if c, release, _ := cc.acquire(ctx, ""); c != c1 {
		t.Fatal("a client was replaced before its credentials expired")
	} else {
		release()
	}
	now = now.Add(2 * time.Minute)
	c2, release, _ := cc.acquire(ctx, "")
	release()
	if c2 == c1 || c1.closes() != 1 {
		t.Fatalf("after expiry: same client %v, old one closed %d times", c2 == c1, c1.closes())
	}
}

// Concurrent first uses of one user make one client; the others wait for
// it, or give up with their context.
func TestClientCacheConcurrentFirstUse(t *testing.T) {
	o := &opener{gate: make(chan struct{})}
	cc := newClientCache(4, o.open)
	var wg sync.WaitGroup
	got := make(chan *conn, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, release, err := cc.acquire(context.Background(), "alice")
			if err != nil {
				t.Error(err)
				return
			}
			got <- c
			release()
		}()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for cc.len() == 0 { // until the first caller is opening
		runtime.Gosched()
	}
	if _, _, err := cc.acquire(ctx, "alice"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait = %v", err)
	}
	close(o.gate)
	wg.Wait()
	close(got)
	first := <-got
	for c := range got {
		if c != first {
			t.Fatal("concurrent first uses made two clients")
		}
	}
	if n := o.count("alice"); n != 1 {
		t.Fatal(fmt.Sprint("made ", n, " clients"))
	}
}

// A client idle for the cache's idle time is closed and made anew on the
// next use; one in use is not.
func TestClientCacheIdle(t *testing.T) {
	ctx := context.Background()
	o := &opener{}
	cc := newClientCache(4, o.open)
	cc.idle = time.Millisecond
	c1, release, err := cc.acquire(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	held, releaseHeld, _ := cc.acquire(ctx, "bob")
	release()
	for c1.closes() == 0 { // until the idle timer fired
		runtime.Gosched()
	}
	if held.closes() != 0 {
		t.Fatal("a client in use was closed as idle")
	}
	c2, release, _ := cc.acquire(ctx, "alice")
	release()
	releaseHeld()
	if c2 == c1 || o.count("alice") != 2 {
		t.Fatal("an idle-closed client was handed out again")
	}
}
