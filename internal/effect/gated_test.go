package effect

import (
	"context"
	"errors"
	"sync"

	"github.com/gozie/gozie/internal/store"
)

// gatedStore holds the first Update after arm until the test opens the
// gate, counts the Updates since, and can fail one of them.
type gatedStore struct {
	store.Store
	mu      sync.Mutex
	armed   bool
	gate    chan struct{}
	updates int
	failNth int // the nth Update since arm fails; 0: none
}

var errInjected = errors.New("injected commit failure")

func (s *gatedStore) arm(failNth int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.armed, s.gate, s.updates, s.failNth = true, make(chan struct{}), 0, failNth
}

func (s *gatedStore) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.updates
}

func (s *gatedStore) Update(ctx context.Context, fn func(store.Tx) error) error {
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
		return errInjected
	}
	return s.Store.Update(ctx, fn)
}
