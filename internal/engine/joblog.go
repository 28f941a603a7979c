package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// Log levels of job log lines.
const (
	LevelInfo  = "INFO"
	LevelWarn  = "WARN"
	LevelError = "ERROR"
	// LevelAudit marks the audit lines of user requests (show=auditlog);
	// show=log leaves them out. The store writes them unfenced.
	LevelAudit = store.LevelAudit
)

// jobLog derives a job's log lines from its state changes. Rather than
// asking every transition to describe itself, commit compares what it is
// about to write with what was last logged, so a new transition is logged
// without anyone remembering to; the lines go into the same transaction as
// the change, so the log never reports what did not happen.
type jobLog struct {
	jobStatus string
	actions   map[string]string // node name -> status and attempt last logged
	pending   []*store.LogEntry // lines written outside the diff (rerun, ...)
}

func newJobLog(j *store.Job, acts []*store.Action) jobLog {
	l := jobLog{jobStatus: j.Status, actions: map[string]string{}}
	for _, a := range acts {
		l.actions[a.Name] = logKey(a)
	}
	return l
}

func logKey(a *store.Action) string { return fmt.Sprintf("%s/%d", a.Status, a.Attempt) }

// note queues a line written with the next commit.
func (st *jobState) note(e *Engine, actionID, level, format string, args ...any) {
	st.log.pending = append(st.log.pending, &store.LogEntry{
		JobID: st.job.ID, ActionID: actionID, Time: e.now(), Level: level, Message: fmt.Sprintf(format, args...),
	})
}

// takeLogs returns the lines describing the changes about to be committed:
// the queued ones, then one per changed action, then the job's status.
// A job that starts running says so before the nodes it starts, and one
// that ends says so after the nodes that ended it, so the log reads in the
// order things happened. dir names an action's work directory, whose
// stderr tail a failed action's line carries; nil leaves it out.
func (st *jobState) takeLogs(now time.Time, dirty []*store.Action, dir func(*store.Action) string) []*store.LogEntry {
	if st.log.actions == nil {
		st.log.actions = map[string]string{}
	}
	out := st.log.pending
	st.log.pending = nil
	var jobLine *store.LogEntry
	if st.job.Status != st.log.jobStatus {
		level, msg := LevelInfo, fmt.Sprintf("Workflow job status changed from [%s] to [%s]", st.log.jobStatus, st.job.Status)
		switch st.job.Status {
		case store.JobFailed:
			level = LevelError
		case store.JobKilled:
			level = LevelWarn
		}
		if st.job.ErrorCode != "" && store.Terminal(st.job.Status) {
			msg += fmt.Sprintf(", error code [%s], message [%s]", st.job.ErrorCode, st.job.ErrorMessage)
		}
		st.log.jobStatus = st.job.Status
		jobLine = &store.LogEntry{JobID: st.job.ID, Time: now, Level: level, Message: msg}
		if st.job.Status == store.JobRunning {
			out = append(out, jobLine)
			jobLine = nil
		}
	}
	for _, a := range dirty {
		key := logKey(a)
		if st.log.actions[a.Name] == key {
			continue
		}
		st.log.actions[a.Name] = key
		level, msg := actionLogLine(a)
		if dir != nil && actionFailed(a) {
			msg += stderrNote(dir(a))
		}
		out = append(out, &store.LogEntry{JobID: st.job.ID, ActionID: a.ID, Time: now, Level: level, Message: msg})
	}
	if jobLine != nil {
		out = append(out, jobLine)
	}
	return out
}

// actionFailed reports an action status that ends or stalls an attempt in
// error, whose output is worth showing.
func actionFailed(a *store.Action) bool {
	switch a.Status {
	case store.ActionError, store.ActionFailed, store.ActionStartManual, store.ActionEndManual,
		store.ActionStartRetry, store.ActionEndRetry, store.ActionUserRetry:
		return true
	}
	return false
}

// StderrTailLines is how many last lines of a failed action's stderr its
// log line and `gozie run` show.
const StderrTailLines = 10

// stderrNote is the part of a failed action's log line that points at its
// output: the last lines of its stderr and where the full stdout and
// stderr are. An action that wrote no stderr file (fs, email, control
// nodes) gets nothing.
func stderrNote(dir string) string {
	p := filepath.Join(dir, "stderr")
	tail, err := TailFile(p, StderrTailLines)
	if err != nil {
		return ""
	}
	note := fmt.Sprintf("; stderr in [%s], stdout in [%s]", p, filepath.Join(dir, "stdout"))
	if tail == "" {
		return note + ", stderr is empty"
	}
	return note + fmt.Sprintf(", last lines of stderr:\n%s", indent(tail, "    "))
}

// TailFile returns the last n lines of a file, reading at most its last
// 64 KiB so that a huge output costs no more than a small one.
//
// The file is an action's output in a work directory its job's user may
// own: it is opened as launch.OpenOutput opens it (no link followed, no
// wait on a FIFO, only the launcher's own regular file).
func TailFile(path string, n int) (string, error) {
	f, err := launch.OpenOutput(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	const most = 64 << 10
	buf, cut, err := launch.TailOf(f, most)
	if err != nil {
		return "", err
	}
	text := strings.TrimRight(string(buf), "\n")
	if text == "" {
		return "", nil
	}
	lines := strings.Split(text, "\n")
	if cut && len(lines) > 1 {
		lines = lines[1:] // the first line read is probably cut
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n"), nil
}

func indent(text, prefix string) string {
	return prefix + strings.ReplaceAll(text, "\n", "\n"+prefix)
}

// actionLogLine describes an action record's new status.
func actionLogLine(a *store.Action) (level, msg string) {
	control := strings.HasPrefix(a.Type, ":") || a.Type == TypeDecision
	errPart := ""
	if a.ErrorCode != "" || a.ErrorMessage != "" {
		errPart = fmt.Sprintf(", error code [%s], message [%s]", a.ErrorCode, a.ErrorMessage)
	}
	switch a.Status {
	case store.ActionPrep:
		if a.Attempt > 0 {
			return LevelInfo, fmt.Sprintf("Start action [%s] type [%s], attempt [%d]", a.Name, a.Type, a.Attempt)
		}
		return LevelInfo, fmt.Sprintf("Start action [%s] type [%s]", a.Name, a.Type)
	case store.ActionRunning:
		return LevelInfo, fmt.Sprintf("Action [%s] running, external id [%s]", a.Name, a.ExternalID)
	case store.ActionOK:
		if control {
			return LevelInfo, fmt.Sprintf("Node [%s] type [%s] done, transition [%s]", a.Name, a.Type, a.Transition)
		}
		return LevelInfo, fmt.Sprintf("Action [%s] ended with status [OK], external status [%s], transition [%s]", a.Name, a.ExternalStatus, a.Transition)
	case store.ActionError:
		return LevelWarn, fmt.Sprintf("Action [%s] ended with status [ERROR], external status [%s], transition [%s]%s", a.Name, a.ExternalStatus, a.Transition, errPart)
	case store.ActionStartRetry, store.ActionUserRetry, store.ActionEndRetry:
		return LevelWarn, fmt.Sprintf("Action [%s] status [%s], retry %d of %d%s", a.Name, a.Status, a.UserRetryCount+a.Retries, max(a.UserRetryMax, a.Retries), errPart)
	case store.ActionStartManual, store.ActionEndManual, store.ActionFailed:
		return LevelError, fmt.Sprintf("Action [%s] status [%s]%s", a.Name, a.Status, errPart)
	case store.ActionKilled:
		return LevelWarn, fmt.Sprintf("Action [%s] status [KILLED]%s", a.Name, errPart)
	}
	return LevelInfo, fmt.Sprintf("Action [%s] status [%s]%s", a.Name, a.Status, errPart)
}

// submitLog is the first line of a job's log.
func submitLog(j *store.Job) *store.LogEntry {
	return &store.LogEntry{JobID: j.ID, Time: j.CreatedTime, Level: LevelInfo,
		Message: fmt.Sprintf("Workflow job submitted, app [%s], app path [%s], user [%s]", j.AppName, j.AppPath, j.User)}
}

// Logs returns a job's log lines, oldest first. It answers for any job id
// the store has lines for (workflow or coordinator); an id with neither a
// workflow job nor lines is E0604.
func (e *Engine) Logs(ctx context.Context, jobID string) ([]*store.LogEntry, error) {
	var out []*store.LogEntry
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		if out, err = tx.Logs(ctx, jobID, 0, 0); err != nil || len(out) > 0 {
			return err
		}
		if vocab.IsWorkflowJob(jobID) {
			_, err = tx.Job(ctx, jobID)
		}
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, errorf(CodeJobNotFound, "Job does not exist [%s]", jobID)
	}
	return out, err
}

// Audit records a user request about a job (who asked for what, and how it
// ended) in the job's log as an audit line.
func (e *Engine) Audit(ctx context.Context, jobID, message string) error {
	return e.store.Update(ctx, func(tx store.Tx) error {
		return tx.AppendLog(ctx, &store.LogEntry{JobID: jobID, Time: e.now(), Level: LevelAudit, Message: message})
	})
}

// Note appends a line to a job's log (level LevelInfo or "WARN"), for what
// the server decided about a request that the job's user should read
// there, such as a user.name it replaced.
func (e *Engine) Note(ctx context.Context, jobID, level, message string) error {
	return e.store.Update(ctx, func(tx store.Tx) error {
		return tx.AppendLog(ctx, &store.LogEntry{JobID: jobID, Time: e.now(), Level: level, Message: message})
	})
}

// LogTimeLayout is the timestamp of Oozie's log lines (log4j's
// yyyy-MM-dd HH:mm:ss,SSS).
const LogTimeLayout = "2006-01-02 15:04:05,000"

// FormatLogLine renders a log entry as Oozie writes its log lines:
// timestamp, level, the logging class, then the job context in brackets and
// the message.
func FormatLogLine(user, group, app string, l *store.LogEntry) string {
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	if l.Level == LevelAudit {
		// Oozie's audit log lines: the logger, then the request's fields.
		return fmt.Sprintf("%s  INFO oozieaudit - %s", l.Time.UTC().Format(LogTimeLayout), l.Message)
	}
	return fmt.Sprintf("%s %5s gozie - USER[%s] GROUP[%s] TOKEN[] APP[%s] JOB[%s] ACTION[%s] %s",
		l.Time.UTC().Format(LogTimeLayout), l.Level, dash(user), dash(group), dash(app), l.JobID, dash(l.ActionID), l.Message)
}

// Transition is one committed change of a workflow job, as OnTransition
// receives it: copies of the job and of the actions whose status changed,
// and the job log lines the change wrote.
type Transition struct {
	Job     store.Job
	Actions []store.Action
	Logs    []store.LogEntry
}

func transitionOf(ch *change) Transition {
	t := Transition{Job: ch.jobAt}
	logged := map[string]bool{}
	for _, l := range ch.logs {
		t.Logs = append(t.Logs, *l)
		logged[l.ActionID] = true
	}
	for _, a := range ch.dirty {
		if logged[a.ID] {
			t.Actions = append(t.Actions, *a)
		}
	}
	return t
}
