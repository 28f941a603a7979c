package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/store"
)

// quarantineMessage is the action's error message.
var quarantineMessage = fmt.Sprintf("the server died %s while starting this action; it is not started again", countWord(QuarantineDeaths))

// countWord writes a count of deaths as a message says it.
func countWord(n int) string {
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
func (e *Engine) startJournal() {
	if e.opts.CrashJournal == "" {
		return
	}
	j, err := openJournal(e.opts.CrashJournal, e.logf)
	if err != nil {
		e.logf("gozie: effect journal: %v; effects that kill the server will be performed again at every start", err)
		return
	}
	e.journal = j
	suspects := j.Suspects()
	if len(suspects) == 0 {
		return
	}
	ids := make([]string, 0, len(suspects))
	for _, id := range sortedKeys(suspects) {
		ids = append(ids, fmt.Sprintf("%d (%s)", id, countWord(suspects[id])))
	}
	if len(ids) > 20 {
		ids = append(ids[:20], fmt.Sprintf("and %d more", len(ids)-20))
	}
	e.logf("gozie: the server died while performing effect(s) %s; they are performed one at a time now, and one in flight at %d deaths is quarantined",
		strings.Join(ids, ", "), QuarantineDeaths)
}

// performJournaled performs an effect between a begin and an end line of
// the crash journal. An effect that was in flight at a death (a suspect)
// is performed alone among suspects, so that a death while it runs is
// its own and not shared with another suspect: an innocent effect that
// happened to be in flight at the first death is cleared (it ends) before
// the culprit kills the server again. One in flight at QuarantineDeaths
// deaths is quarantined instead. The end is written whatever the outcome,
// a shutdown's abandon included: only a death leaves a begin alone.
func (e *Engine) performJournaled(ctx context.Context, ef *store.Effect) error {
	j := e.journal
	if j == nil || ef.ID == 0 {
		return e.performEffect(ctx, ef)
	}
	sc := &journalScope{id: ef.ID}
	if n := j.Deaths(ef.ID); n >= QuarantineDeaths {
		return e.quarantine(ctx, ef, n)
	} else if n > 0 {
		sc.suspect = true
		if !e.holdSuspect(ctx, sc) {
			return ctx.Err()
		}
		defer e.releaseSuspect(sc)
	}
	j.Begin(ef.ID)
	defer j.End(ef.ID)
	return e.performEffect(context.WithValue(ctx, journalScopeKey{}, sc), ef)
}

// journalScope is the journal's state of one effect being performed,
// which its performer finds in its context.
type journalScope struct {
	id      int64
	suspect bool // in flight at a death: performed alone among suspects
	holding bool // holds e.suspect
}

type journalScopeKey struct{}

// suspectWait bounds how long a suspect waits for the one being performed:
// a start that hangs (an executor waiting on a network without a timeout)
// must not hold up the others for good. The starts that killed the server
// in practice did so within seconds.
const suspectWait = time.Minute

// holdSuspect waits for the other suspects' turn to end, at most
// suspectWait; false if ctx ends first. After suspectWait the effect is
// performed beside the one that holds the turn.
func (e *Engine) holdSuspect(ctx context.Context, sc *journalScope) bool {
	timeout := make(chan struct{})
	stop := e.clock.AfterFunc(suspectWait, func() { close(timeout) })
	defer stop()
	select {
	case e.suspect <- struct{}{}:
		sc.holding = true
		return true
	case <-timeout:
		e.logf("gozie: effect %d: performed beside another effect the server died performing, which has run for %s", sc.id, suspectWait)
		return true
	case <-ctx.Done():
		return false
	}
}

func (e *Engine) releaseSuspect(sc *journalScope) {
	if sc.holding {
		sc.holding = false
		<-e.suspect
	}
}

// journalWait runs wait, a wait of the effect performed with ctx that
// cannot kill the process (for an action slot, which may take as long as
// running actions do), with the effect paused in the journal: a death
// meanwhile is not counted against it, and a suspect lets the other
// suspects be performed meanwhile. It returns wait's result.
func (e *Engine) journalWait(ctx context.Context, wait func() bool) bool {
	sc, _ := ctx.Value(journalScopeKey{}).(*journalScope)
	if sc == nil || e.journal == nil {
		return wait()
	}
	e.journal.Pause(sc.id)
	e.releaseSuspect(sc)
	ok := wait()
	if sc.suspect && !e.holdSuspect(ctx, sc) {
		ok = false
	}
	e.journal.Begin(sc.id)
	return ok
}

// quarantine marks an effect done instead of performing it, with a line in
// its job's log and in the server log; the coordinator engine handles its
// own kinds (Coordinators.QuarantineEffect). A start fails its action with
// CodeQuarantined: the action ends in ERROR, is not retried (neither as a
// start retry nor under retry-max) and takes its error transition, as an
// action that cannot be started does in Oozie; the workflow's own error
// handling (a notification, a clean-up) runs, which failing the whole job
// would skip. Once committed, the effect's count goes.
func (e *Engine) quarantine(ctx context.Context, ef *store.Effect, deaths int) error {
	var err error
	msg := fmt.Sprintf("the server died %s while performing [%s] for this job (effect %d); it is not performed again", countWord(deaths), ef.Kind, ef.ID)
	switch {
	case e.coordEffect(ef):
		err = e.coordinators().QuarantineEffect(ctx, ef, msg)
	case ef.Kind == store.EffectStart:
		err = e.quarantineStart(ctx, ef, deaths)
	default:
		err = e.store.Update(ctx, func(tx store.Tx) error {
			if err := tx.AppendLog(ctx, &store.LogEntry{JobID: ef.JobID, ActionID: ef.ActionID, Time: e.now(), Level: LevelError,
				Message: msg}); err != nil {
				return err
			}
			return tx.DoneEffect(ctx, ef.ID)
		})
	}
	if err != nil {
		return err
	}
	e.logf("gozie: effect %s %s quarantined: the server died %s while performing it; it is marked done, not performed again",
		ef.Kind, effectSubject(ef), countWord(deaths))
	e.journal.End(ef.ID)
	return nil
}

// quarantineStart fails the action a start effect would start, unless the
// start was superseded meanwhile (the action killed, retried, started).
func (e *Engine) quarantineStart(ctx context.Context, ef *store.Effect, deaths int) error {
	st, err := e.lockState(ctx, ef.JobID)
	if err != nil {
		return err
	}
	a := st.actions[nodeName(ef.ActionID)]
	if a != nil && a.Attempt == ef.Attempt && startable(a.Status) && !store.Terminal(st.job.Status) {
		st.note(e, a.ID, LevelError, "Action [%s]: the server died %s while starting it (effect %d); quarantined [%s], not started again",
			a.Name, countWord(deaths), ef.ID, CodeQuarantined)
		st.startFailed(e, a, action.Errorf(action.ErrorKindError, CodeQuarantined, "%s", quarantineMessage))
	}
	st.done = append(st.done, ef.ID)
	return e.commitUnlock(ctx, st)
}

// keepJournal drops the journal's counts of effects the store no longer
// has pending for this server.
func (e *Engine) keepJournal(pending []*store.Effect) {
	if e.journal == nil {
		return
	}
	ids := make(map[int64]bool, len(pending))
	for _, ef := range pending {
		ids[ef.ID] = true
	}
	e.journal.Keep(ids)
}

// userRetryable reports the codes retry-max applies to. A quarantined
// start never is, even with "ALL": a retry is a new start effect, which
// would kill the server twice more.
func (e *Engine) userRetryable(code string) bool {
	if code == CodeQuarantined {
		return false
	}
	return slices.ContainsFunc(e.opts.UserRetryErrorCodes, func(c string) bool { return c == code || c == "ALL" })
}
