package enginetest

import (
	"context"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// Settle waits until the engines on s have nothing due at now(): effects
// are committed before the work they describe and marked done with its
// outcome, so no pending effect whose time has come, three looks in a
// row, means idle. It fails the test after 30 s of wall time.
func Settle(t testing.TB, s store.Store, now func() time.Time) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for quiet := 0; quiet < 3; {
		due := 0
		var first *store.Effect
		at := now()
		err := s.View(context.Background(), func(tx store.Tx) error {
			effs, err := tx.PendingEffects(context.Background(), "", 0)
			for _, ef := range effs {
				if !ef.NotBefore.After(at) {
					if due++; first == nil {
						first = ef
					}
				}
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if due == 0 {
			quiet++
		} else {
			quiet = 0
		}
		if time.Now().After(deadline) {
			t.Fatalf("engines not idle after 30s: %d effects due, the first %s of %s %s (due %s, clock %s)",
				due, first.Kind, first.JobID, first.ActionID, first.NotBefore.Format(time.RFC3339), at.Format(time.RFC3339))
		}
		time.Sleep(time.Millisecond)
	}
}
