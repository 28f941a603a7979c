// Package enginetest holds test helpers shared by the tests of the
// workflow engine (package engine) and the coordinator engine (package
// coordengine): a clock moved by hand and a shell executor whose work
// outlives the process that started it.
package enginetest

import (
	"sync"
	"time"
)

// FakeClock is an engine.Clock tests move by hand, so retry intervals pass without
// sleeping.
type FakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at      time.Time
	f       func()
	stopped bool
	fired   bool // Advance took it to fire
}

// NewFakeClock returns a fake clock showing now.
func NewFakeClock(now time.Time) *FakeClock {
	return &FakeClock{now: now}
}

func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *FakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		// As time.Timer.Stop: false once the timer fired (Advance took
		// it) or was stopped, so that true means f will not run.
		was := !t.stopped && !t.fired
		t.stopped = true
		return was
	}
}

// Advance moves the clock and fires the timers that came due.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	var rest []*fakeTimer
	for _, t := range c.timers {
		if !t.stopped && !t.at.After(c.now) {
			t.fired = true
			due = append(due, t)
		} else if !t.stopped {
			rest = append(rest, t)
		}
	}
	c.timers = rest
	c.mu.Unlock()
	for _, t := range due {
		t.f()
	}
}

// Pending reports how many timers wait.
func (c *FakeClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// PendingIn reports whether a timer waits to fire d from now: a test
// that means one particular delayed effect (a retry interval) waits for
// it rather than for any timer, such as a store retry's backoff.
func (c *FakeClock) PendingIn(d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.timers {
		if t.at.Equal(c.now.Add(d)) {
			return true
		}
	}
	return false
}

// Set moves the clock to t without firing timers: a test sets the time
// it starts at.
func (c *FakeClock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}
