package effect

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// CountWord writes a count of deaths as a message says it.
func CountWord(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

// startJournal opens the crash journal (Options.CrashJournal) and says in
// the server log which effects were in flight at a death. A journal that
// cannot be opened is logged and left out: it is a safety net, and
// refusing to start over it would stop every job.
func (r *Runtime) startJournal() {
	if r.opts.CrashJournal == "" {
		return
	}
	j, err := openJournal(r.opts.CrashJournal, r.Logf)
	if err != nil {
		r.Logf("gozie: effect journal: %v; effects that kill the server will be performed again at every start", err)
		return
	}
	r.journal = j
	suspects := j.Suspects()
	if len(suspects) == 0 {
		return
	}
	ids := make([]string, 0, len(suspects))
	for _, id := range sortedKeys(suspects) {
		ids = append(ids, fmt.Sprintf("%d (%s)", id, CountWord(suspects[id])))
	}
	if len(ids) > 20 {
		ids = append(ids[:20], fmt.Sprintf("and %d more", len(ids)-20))
	}
	r.Logf("gozie: the server died while performing effect(s) %s; they are performed one at a time now, and one in flight at %d deaths is quarantined",
		strings.Join(ids, ", "), QuarantineDeaths)
}

// Journaled reports whether the crash journal is open.
func (r *Runtime) Journaled() bool { return r.journal != nil }

// Suspects returns the effects in flight at a death that have not ended
// since, with their counts of deaths; nil without a journal.
func (r *Runtime) Suspects() map[int64]int {
	if r.journal == nil {
		return nil
	}
	return r.journal.Suspects()
}

// performJournaled performs an effect between a begin and an end line of
// the crash journal. An effect that was in flight at a death (a suspect)
// is performed alone among suspects, so that a death while it runs is
// its own and not shared with another suspect: an innocent effect that
// happened to be in flight at the first death is cleared (it ends) before
// the culprit kills the server again. One in flight at QuarantineDeaths
// deaths is quarantined instead. The end is written whatever the outcome,
// a shutdown's abandon included: only a death leaves a begin alone.
func (r *Runtime) performJournaled(ctx context.Context, ef *store.Effect) error {
	j := r.journal
	if j == nil || ef.ID == 0 {
		return r.performEffect(ctx, ef)
	}
	sc := &journalScope{id: ef.ID}
	if n := j.Deaths(ef.ID); n >= QuarantineDeaths {
		return r.quarantine(ctx, ef, n)
	} else if n > 0 {
		sc.suspect = true
		if !r.holdSuspect(ctx, sc) {
			return ctx.Err()
		}
		defer r.releaseSuspect(sc)
	}
	j.Begin(ef.ID)
	defer j.End(ef.ID)
	return r.performEffect(context.WithValue(ctx, journalScopeKey{}, sc), ef)
}

// journalScope is the journal's state of one effect being performed,
// which its performer finds in its context.
type journalScope struct {
	id      int64
	suspect bool // in flight at a death: performed alone among suspects
	holding bool // holds r.suspect
}

type journalScopeKey struct{}

// SuspectWait bounds how long a suspect waits for the one being performed:
// a start that hangs (an executor waiting on a network without a timeout)
// must not hold up the others for good. The starts that killed the server
// in practice did so within seconds.
const SuspectWait = time.Minute

// holdSuspect waits for the other suspects' turn to end, at most
// SuspectWait; false if ctx ends first. After SuspectWait the effect is
// performed beside the one that holds the turn.
func (r *Runtime) holdSuspect(ctx context.Context, sc *journalScope) bool {
	timeout := make(chan struct{})
	stop := r.clock.AfterFunc(SuspectWait, func() { close(timeout) })
	defer stop()
	select {
	case r.suspect <- struct{}{}:
		sc.holding = true
		return true
	case <-timeout:
		r.Logf("gozie: effect %d: performed beside another effect the server died performing, which has run for %s", sc.id, SuspectWait)
		return true
	case <-ctx.Done():
		return false
	}
}

func (r *Runtime) releaseSuspect(sc *journalScope) {
	if sc.holding {
		sc.holding = false
		<-r.suspect
	}
}

// JournalWait runs wait, a wait of the effect performed with ctx that
// cannot kill the process (for an action slot, which may take as long as
// running actions do), with the effect paused in the journal: a death
// meanwhile is not counted against it, and a suspect lets the other
// suspects be performed meanwhile. It returns wait's result.
func (r *Runtime) JournalWait(ctx context.Context, wait func() bool) bool {
	sc, _ := ctx.Value(journalScopeKey{}).(*journalScope)
	if sc == nil || r.journal == nil {
		return wait()
	}
	r.journal.Pause(sc.id)
	r.releaseSuspect(sc)
	ok := wait()
	if sc.suspect && !r.holdSuspect(ctx, sc) {
		ok = false
	}
	r.journal.Begin(sc.id)
	return ok
}

// quarantine marks an effect done instead of performing it, with a line in
// its job's log and in the server log: the handler of its kind says how
// (Quarantiner), else the effect is only marked done with an ERROR line in
// its job's log. Once committed, the effect's count goes.
func (r *Runtime) quarantine(ctx context.Context, ef *store.Effect, deaths int) error {
	msg := fmt.Sprintf("the server died %s while performing [%s] for this job (effect %d); it is not performed again", CountWord(deaths), ef.Kind, ef.ID)
	var err error
	if q, ok := r.handler(ef).(Quarantiner); ok {
		err = q.Quarantine(ctx, ef, deaths, msg)
	} else {
		err = r.store.Update(ctx, func(tx store.Tx) error {
			if err := tx.AppendLog(ctx, &store.LogEntry{JobID: ef.JobID, ActionID: ef.ActionID,
				Time: r.clock.Now().Truncate(time.Millisecond), Level: "ERROR", Message: msg}); err != nil {
				return err
			}
			return tx.DoneEffect(ctx, ef.ID)
		})
	}
	if err != nil {
		return err
	}
	r.Logf("gozie: effect %s %s quarantined: the server died %s while performing it; it is marked done, not performed again",
		ef.Kind, effectSubject(ef), CountWord(deaths))
	r.journal.End(ef.ID)
	return nil
}

// keepJournal drops the journal's counts of effects the store no longer
// has pending for this server.
func (r *Runtime) keepJournal(pending []*store.Effect) {
	if r.journal == nil {
		return
	}
	ids := make(map[int64]bool, len(pending))
	for _, ef := range pending {
		ids[ef.ID] = true
	}
	r.journal.Keep(ids)
}
