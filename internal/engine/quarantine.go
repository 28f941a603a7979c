package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/store"
)

// Names of the crash journal (package effect), forwarded for the faces.
const (
	CrashJournalFile = effect.CrashJournalFile
	QuarantineDeaths = effect.QuarantineDeaths
)

// quarantineMessage is the action's error message.
var quarantineMessage = fmt.Sprintf("the server died %s while starting this action; it is not started again", effect.CountWord(QuarantineDeaths))

// Quarantine is a start effect's quarantine (effect.Quarantiner): it fails
// the action the effect would start with CodeQuarantined, unless the start
// was superseded meanwhile (the action killed, retried, started). The
// action ends in ERROR, is not retried (neither as a start retry nor
// under retry-max) and takes its error transition, as an action that
// cannot be started does in Oozie; the workflow's own error handling (a
// notification, a clean-up) runs, which failing the whole job would skip.
func (h startHandler) Quarantine(ctx context.Context, ef *store.Effect, deaths int, _ string) error {
	e := h.e
	st, err := e.lockState(ctx, ef.JobID)
	if err != nil {
		return err
	}
	a := st.actions[nodeName(ef.ActionID)]
	if a != nil && a.Attempt == ef.Attempt && startable(a.Status) && !store.Terminal(st.job.Status) {
		st.note(e, a.ID, LevelError, "Action [%s]: the server died %s while starting it (effect %d); quarantined [%s], not started again",
			a.Name, effect.CountWord(deaths), ef.ID, CodeQuarantined)
		st.startFailed(e, a, action.Errorf(action.ErrorKindError, CodeQuarantined, "%s", quarantineMessage))
	}
	st.done = append(st.done, ef.ID)
	return e.commitUnlock(ctx, st)
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
