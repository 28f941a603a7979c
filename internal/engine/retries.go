package engine

import (
	"context"
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// recordRetry remembers the run of a that just ended in a user retry,
// before the next run overwrites the record's times and external ids.
func (st *jobState) recordRetry(a *store.Action) {
	if st.extra.UserRetries == nil {
		st.extra.UserRetries = map[string][]RetryRecord{}
	}
	start := a.StartTime
	if t, ok := st.extra.RetryStarts[a.Name]; ok {
		start = t
	}
	st.extra.UserRetries[a.Name] = append(st.extra.UserRetries[a.Name], RetryRecord{
		Attempt: a.UserRetryCount, Run: a.Attempt,
		StartTime: start, EndTime: a.EndTime,
		ConsoleURL: a.ConsoleURL, ChildIDs: a.ExternalChildIDs,
	})
	st.jobDirty = true
}

// retryStarted notes when a user retry's run of a started.
func (st *jobState) retryStarted(e *Engine, a *store.Action) {
	if st.extra.RetryStarts == nil {
		st.extra.RetryStarts = map[string]time.Time{}
	}
	st.extra.RetryStarts[a.Name] = e.now()
	st.jobDirty = true
}

// ActionRetries lists the runs of a workflow action that ended in a user
// retry, oldest first (Oozie's show=retries). An action without retries
// has none; an unknown action is E0605.
func (e *Engine) ActionRetries(ctx context.Context, actionID string) ([]RetryRecord, error) {
	jobID, name, ok := vocab.SplitID(actionID)
	if !ok {
		return nil, errorf(CodeActionNotFound, "Action does not exist [%s]", actionID)
	}
	j, acts, err := e.Job(ctx, jobID)
	if err != nil {
		if ErrorCode(err) == CodeJobNotFound {
			return nil, errorf(CodeActionNotFound, "Action does not exist [%s]", actionID)
		}
		return nil, err
	}
	found := false
	for _, a := range acts {
		found = found || a.ID == actionID
	}
	if !found {
		return nil, errorf(CodeActionNotFound, "Action does not exist [%s]", actionID)
	}
	x, err := decodeExtra(j.State)
	if err != nil {
		return nil, err
	}
	return x.UserRetries[name], nil
}
