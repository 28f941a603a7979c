package engine

import "github.com/gozie/gozie/internal/effect"

// Clock is the effect runtime's source of time (effect.Clock). Tests
// inject a fake one to drive retry intervals without sleeping.
type Clock = effect.Clock

// SystemClock is the wall clock.
var SystemClock = effect.SystemClock

// Defaults of the effect retries and the sweep (package effect's).
const (
	DefaultStoreRetryInterval = effect.DefaultStoreRetryInterval
	DefaultStoreRetryMax      = effect.DefaultStoreRetryMax
	DefaultSweepInterval      = effect.DefaultSweepInterval
)
