package effect

import (
	"testing"
	"time"
)

// TestEffectRetryBackoff checks the retry schedule: 1s doubled per
// failure, at most 30s, and log lines at most once a minute per effect.
func TestEffectRetryBackoff(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want time.Duration
	}{{1, time.Second}, {2, 2 * time.Second}, {3, 4 * time.Second}, {5, 16 * time.Second}, {6, 30 * time.Second}, {100, 30 * time.Second}} {
		if got := backoff(DefaultStoreRetryInterval, DefaultStoreRetryMax, tc.n); got != tc.want {
			t.Errorf("backoff(%d) = %s, want %s", tc.n, got, tc.want)
		}
	}
}
