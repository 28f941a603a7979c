package effect

import "time"

// Clock is the runtime's source of time, and through it the engines'. Tests inject a fake one to drive
// retry intervals without sleeping.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed. The
	// returned function cancels the call if it has not happened yet.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// SystemClock is the wall clock.
var SystemClock Clock = realClock{}
