package storetest

import (
	"context"
	"errors"
	"sync"

	"github.com/gozie/gozie/internal/store"
)

// ErrCommitFailed is the failure Gated gives the Update it is told to fail
// (a plain error: not an outage, unlike Faulty's ErrInjected).
var ErrCommitFailed = errors.New("injected commit failure")

// Gated is a store whose first Update after Arm waits until the test calls
// Open, which counts the Updates since Arm and can fail one of them: how
// group-commit tests hold one commit while others queue behind it.
type Gated struct {
	store.Store
	mu      sync.Mutex
	armed   bool
	gate    chan struct{}
	updates int
	failNth int // the nth Update since Arm fails; 0: none
}

// Arm starts counting Updates and closes the gate on the next one;
// failNth > 0 makes the nth Update from now fail with ErrCommitFailed.
func (s *Gated) Arm(failNth int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.armed, s.gate, s.updates, s.failNth = true, make(chan struct{}), 0, failNth
}

// Open lets the held Update through.
func (s *Gated) Open() {
	s.mu.Lock()
	gate := s.gate
	s.mu.Unlock()
	close(gate)
}

// Count returns the Updates since Arm.
func (s *Gated) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.updates
}

// Update holds, fails or passes on the transaction as armed.
func (s *Gated) Update(ctx context.Context, fn func(store.Tx) error) error {
	s.mu.Lock()
	var gate chan struct{}
	fail := false
	if s.armed {
		s.updates++
		if s.updates == 1 {
			gate = s.gate
		}
		fail = s.updates == s.failNth
	}
	s.mu.Unlock()
	if gate != nil {
		<-gate
	}
	if fail {
		return ErrCommitFailed
	}
	return s.Store.Update(ctx, fn)
}
