package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/gozie/gozie/internal/store"
)

// The log queries join the shared map at init so that this file and the
// coordinator's keep their SQL apart from sqlstore.go.
func init() {
	queries["appendLog"] = `INSERT INTO job_logs (job_id, action_id, time_ms, level, message)
		VALUES (?,?,?,?,?) RETURNING id`
	queries["appendLogExec"] = `INSERT INTO job_logs (job_id, action_id, time_ms, level, message) VALUES (?,?,?,?,?)`
	queries["jobLogs"] = `SELECT id, job_id, action_id, time_ms, level, message FROM job_logs
		WHERE job_id = ? AND id > ? ORDER BY id`
	queries["deleteAction"] = `DELETE FROM wf_actions WHERE id = ?`
}

func (t *tx) DeleteAction(ctx context.Context, id string) error {
	t.touch(id)
	return t.exec(ctx, "deleteAction", id)
}

func (t *tx) AppendLog(ctx context.Context, e *store.LogEntry) error {
	if t.readOnly {
		return errReadOnly
	}
	if e.Level != store.LevelAudit {
		// An audit line records a request about the job, not a change
		// of it: a server that refused a command because the job's
		// owner did not answer writes one to a job it does not own.
		t.touch(e.JobID)
	}
	if t.pipe != nil {
		t.pipe.returning(t.db.q["appendLog"], &e.ID, e.JobID, e.ActionID, e.Time.UnixMilli(), e.Level, e.Message)
		return nil
	}
	if t.db.Dialect.LastInsertID {
		id, err := t.insert(ctx, "appendLogExec", e.JobID, e.ActionID, e.Time.UnixMilli(), e.Level, e.Message)
		if err != nil {
			return store.Errorf("%s: append log: %w", t.db.Dialect.Name, err)
		}
		e.ID = id
		return nil
	}
	if err := t.queryRow(ctx, "appendLog", e.JobID, e.ActionID, e.Time.UnixMilli(), e.Level, e.Message).Scan(&e.ID); err != nil {
		return store.Errorf("%s: append log: %w", t.db.Dialect.Name, err)
	}
	return nil
}

func (t *tx) Logs(ctx context.Context, jobID string, afterID int64, limit int) ([]*store.LogEntry, error) {
	q := t.db.q["jobLogs"]
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := t.query(ctx, q, jobID, afterID)
	if err != nil {
		return nil, store.Errorf("%s: logs: %w", t.db.Dialect.Name, err)
	}
	defer rows.Close()
	var out []*store.LogEntry
	for rows.Next() {
		var e store.LogEntry
		var at sql.NullInt64
		if err := rows.Scan(&e.ID, &e.JobID, &e.ActionID, &at, &e.Level, &e.Message); err != nil {
			return nil, store.Errorf("%s: logs: %w", t.db.Dialect.Name, err)
		}
		e.Time = fromMS(at)
		out = append(out, &e)
	}
	return out, rows.Err()
}
