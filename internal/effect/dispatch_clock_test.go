package effect

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// jumpClock reads t0 the first time and t0+jump after: the clock moves on
// between Dispatch reading it and arming the timer, as a test's clock
// that another goroutine advances does. Its timers never fire by
// themselves.
type jumpClock struct {
	mu    sync.Mutex
	t0    time.Time
	jump  time.Duration
	reads int
}

func (c *jumpClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	if c.reads == 1 {
		return c.t0
	}
	return c.t0.Add(c.jump)
}

func (c *jumpClock) AfterFunc(time.Duration, func()) func() bool { return func() bool { return true } }

type recordHandler struct{ done chan int64 }

func (h recordHandler) Perform(_ context.Context, ef *store.Effect) error {
	h.done <- ef.ID
	return nil
}

func (recordHandler) Quarantine(context.Context, *store.Effect, int, string) error { return nil }

// TestDispatchDueAfterTheClockMoved: an effect due 10 minutes after the
// clock's first reading is performed at once when the clock has moved an
// hour on by the time its timer is armed, rather than an hour late.
func TestDispatchDueAfterTheClockMoved(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	rt, err := New(Options{Store: st, Clock: &jumpClock{t0: t0, jump: time.Hour}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	h := recordHandler{done: make(chan int64, 1)}
	rt.Register("test-due", h)
	ef := &store.Effect{ID: 7, JobID: "j", Kind: "test-due", NotBefore: t0.Add(10 * time.Minute)}
	rt.Dispatch([]*store.Effect{ef})
	select {
	case id := <-h.done:
		if id != 7 {
			t.Fatalf("performed %d", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("an effect due by the time its timer was armed was not performed")
	}
	rt.Close()
}
