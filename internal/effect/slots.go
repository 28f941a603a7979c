package effect

import (
	"context"
	"sync"

	"github.com/gozie/gozie/internal/vocab"
)

// Slots bound the actions one server runs at a time
// (Options.MaxRunningActions, gozie.actions.max.concurrent): a start takes
// a slot before the executor's Start, and the slot is given back when the
// action stops occupying its external system (it ends, fails to start, or
// its job goes to another server). Starts beyond the bound wait, their
// actions still PREP in the store; several servers sharing a store thus
// each run a bounded share. Sub-workflows take no slot: their children do,
// and a parent holding one while its children wait could deadlock.
type Slots struct {
	max  int // 0: unbounded
	mu   sync.Mutex
	cond *sync.Cond
	held map[string]bool // action id -> holds a slot
}

// NewSlots returns max slots; 0 is unbounded.
func NewSlots(max int) *Slots {
	s := &Slots{max: max, held: map[string]bool{}}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// Acquire waits for a slot for action id, or until ctx ends (false).
// An action that holds one already (a start performed again) keeps it.
func (s *Slots) Acquire(ctx context.Context, id string) bool {
	if s.max <= 0 {
		return true
	}
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for !s.held[id] && len(s.held) >= s.max {
		if ctx.Err() != nil {
			return false
		}
		s.cond.Wait()
	}
	s.held[id] = true
	return true
}

// TryAcquire takes a slot for action id if one is free, without waiting.
func (s *Slots) TryAcquire(id string) bool {
	if s.max <= 0 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.held[id] && len(s.held) >= s.max {
		return false
	}
	s.held[id] = true
	return true
}

// Adopt counts an action found running (after a restart or a take-over)
// without waiting: it runs already, so the bound may be exceeded until
// such actions end.
func (s *Slots) Adopt(id string) {
	if s.max <= 0 {
		return
	}
	s.mu.Lock()
	s.held[id] = true
	s.mu.Unlock()
}

// Release gives back action id's slot, if it holds one.
func (s *Slots) Release(id string) {
	if s.max <= 0 {
		return
	}
	s.mu.Lock()
	if s.held[id] {
		delete(s.held, id)
		s.cond.Signal()
	}
	s.mu.Unlock()
}

// ReleaseJob gives back the slots of a job's actions (the job went to
// another server).
func (s *Slots) ReleaseJob(jobID string) {
	if s.max <= 0 {
		return
	}
	s.mu.Lock()
	for id := range s.held {
		if vocab.JobOf(id) == jobID {
			delete(s.held, id)
			s.cond.Signal()
		}
	}
	s.mu.Unlock()
}

// Clear gives back every slot (the server owns no job any more).
func (s *Slots) Clear() {
	s.mu.Lock()
	clear(s.held)
	s.cond.Broadcast()
	s.mu.Unlock()
}

// Busy counts the slots in use.
func (s *Slots) Busy() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.held)
}
