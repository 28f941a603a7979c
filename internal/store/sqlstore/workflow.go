package sqlstore

// The workflow side of the schema: jobs, actions, effects and sequences
// (rows, queries and the Tx methods over them).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// ms converts a time to the stored form: Unix milliseconds, NULL for zero.
func ms(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

func fromMS(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.UnixMilli(v.Int64).UTC()
}

const jobColumns = `id, app_name, app_path, user_name, group_name, acl, parent_id, external_id, status, run,
	conf, definition, state, error_code, error_message, created_ms, start_ms, end_ms, last_mod_ms`

// briefJobColumns is jobColumns with empty text in place of the large
// columns, for store.JobFilter.Brief; scanJob reads both alike.
const briefJobColumns = `id, app_name, app_path, user_name, group_name, acl, parent_id, external_id, status, run,
	'', '', '', error_code, error_message, created_ms, start_ms, end_ms, last_mod_ms`

const actionColumns = `id, job_id, name, type, seq, status, conf, cred, retries, user_retry_count, user_retry_max,
	user_retry_interval, attempt, transition, data, stats, external_child_ids, external_id, external_status,
	tracker_uri, console_url, error_code, error_message, start_ms, end_ms, last_mod_ms`

const effectColumns = `id, job_id, action_id, kind, attempt, payload, not_before_ms, created_ms`

// queries holds every statement by name, written with '?' placeholders.
var queries = map[string]string{
	"getJob": `SELECT ` + jobColumns + ` FROM wf_jobs WHERE id = ?`,
	// A new job belongs to the registered instance (the last value);
	// replacing a job keeps its owner.
	"putJob": `INSERT INTO wf_jobs (` + jobColumns + `, owner) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT (id) DO UPDATE SET app_name = excluded.app_name, app_path = excluded.app_path,
		user_name = excluded.user_name, group_name = excluded.group_name, acl = excluded.acl,
		parent_id = excluded.parent_id, external_id = excluded.external_id, status = excluded.status,
		run = excluded.run, conf = excluded.conf, definition = excluded.definition, state = excluded.state,
		error_code = excluded.error_code, error_message = excluded.error_message,
		created_ms = excluded.created_ms, start_ms = excluded.start_ms, end_ms = excluded.end_ms,
		last_mod_ms = excluded.last_mod_ms`,
	"getAction":  `SELECT ` + actionColumns + ` FROM wf_actions WHERE id = ?`,
	"jobActions": `SELECT ` + actionColumns + ` FROM wf_actions WHERE job_id = ? ORDER BY seq, id`,
	"putAction": `INSERT INTO wf_actions (` + actionColumns + `) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT (id) DO UPDATE SET job_id = excluded.job_id, name = excluded.name, type = excluded.type,
		seq = excluded.seq, status = excluded.status, conf = excluded.conf, cred = excluded.cred,
		retries = excluded.retries, user_retry_count = excluded.user_retry_count,
		user_retry_max = excluded.user_retry_max, user_retry_interval = excluded.user_retry_interval,
		attempt = excluded.attempt, transition = excluded.transition, data = excluded.data,
		stats = excluded.stats, external_child_ids = excluded.external_child_ids,
		external_id = excluded.external_id, external_status = excluded.external_status,
		tracker_uri = excluded.tracker_uri, console_url = excluded.console_url,
		error_code = excluded.error_code, error_message = excluded.error_message,
		start_ms = excluded.start_ms, end_ms = excluded.end_ms, last_mod_ms = excluded.last_mod_ms`,
	"addEffect": `INSERT INTO wf_effects (job_id, action_id, kind, attempt, payload, not_before_ms, created_ms)
		VALUES (?,?,?,?,?,?,?) RETURNING id`,
	// A performed effect is deleted rather than flagged: one or two
	// effects per action would otherwise pile up for ever.
	"doneEffect": `DELETE FROM wf_effects WHERE id = ? RETURNING job_id`,
	// The same without results, for Dialect.LastInsertID.
	"addEffectExec": `INSERT INTO wf_effects (job_id, action_id, kind, attempt, payload, not_before_ms, created_ms)
		VALUES (?,?,?,?,?,?,?)`,
	"doneEffectExec": `DELETE FROM wf_effects WHERE id = ?`,
	"pendingAll":     `SELECT ` + effectColumns + ` FROM wf_effects WHERE done_ms IS NULL ORDER BY id`,
	// With a registered instance the engine's scans see its own jobs only.
	// Each pending effect probes its job by primary key: the pending
	// effects are few, the jobs an instance owns may be a million
	// finished ones (`job_id IN (SELECT id ... WHERE owner ...)` hashed
	// them all: 4.9 s for 300,000 jobs, 0.5 ms this way; issue 31).
	"pendingOwned": `SELECT ` + effectColumns + ` FROM wf_effects e WHERE done_ms IS NULL
		AND (EXISTS (SELECT 1 FROM wf_jobs j WHERE j.id = e.job_id AND j.owner` + ownedBy + `)
			OR EXISTS (SELECT 1 FROM coord_jobs j WHERE j.id = e.job_id AND j.owner` + ownedBy + `)
			OR EXISTS (SELECT 1 FROM bundle_jobs j WHERE j.id = e.job_id AND j.owner` + ownedBy + `))
		ORDER BY id`,
	"pendingJob": `SELECT ` + effectColumns + ` FROM wf_effects WHERE done_ms IS NULL AND job_id = ? ORDER BY id`,
	"nextSeq": `INSERT INTO sequences (name, value) VALUES (?, 1)
		ON CONFLICT (name) DO UPDATE SET value = sequences.value + 1 RETURNING value`,
	// An action's Seq only orders the actions of its job, so the next one
	// is the job's largest plus one: an index lookup (wf_actions_job) and
	// no row shared by all jobs. Writers of one job are serialized by the
	// engine's per-job lock.
	"nextActionSeq": `SELECT COALESCE(MAX(seq), 0) + 1 FROM wf_actions WHERE job_id = ?`,
}

// seqQuery names the query of a database-kept counter in DB.q.
func seqQuery(name string) string { return "seq:" + name }

func scanJob(row interface{ Scan(...any) error }) (*store.Job, error) {
	var j store.Job
	var created, start, end, mod sql.NullInt64
	err := row.Scan(&j.ID, &j.AppName, &j.AppPath, &j.User, &j.Group, &j.ACL, &j.ParentID, &j.ExternalID,
		&j.Status, &j.Run, &j.Conf, &j.Definition, &j.State, &j.ErrorCode, &j.ErrorMessage,
		&created, &start, &end, &mod)
	if err != nil {
		return nil, err
	}
	j.CreatedTime, j.StartTime, j.EndTime, j.LastModTime = fromMS(created), fromMS(start), fromMS(end), fromMS(mod)
	return &j, nil
}

func scanAction(row interface{ Scan(...any) error }) (*store.Action, error) {
	var a store.Action
	var start, end, mod sql.NullInt64
	err := row.Scan(&a.ID, &a.JobID, &a.Name, &a.Type, &a.Seq, &a.Status, &a.Conf, &a.Cred, &a.Retries,
		&a.UserRetryCount, &a.UserRetryMax, &a.UserRetryInterval, &a.Attempt, &a.Transition, &a.Data, &a.Stats,
		&a.ExternalChildIDs, &a.ExternalID, &a.ExternalStatus, &a.TrackerURI, &a.ConsoleURL, &a.ErrorCode,
		&a.ErrorMessage, &start, &end, &mod)
	if err != nil {
		return nil, err
	}
	a.StartTime, a.EndTime, a.LastModTime = fromMS(start), fromMS(end), fromMS(mod)
	return &a, nil
}

func scanEffect(row interface{ Scan(...any) error }) (*store.Effect, error) {
	var e store.Effect
	var notBefore, created sql.NullInt64
	if err := row.Scan(&e.ID, &e.JobID, &e.ActionID, &e.Kind, &e.Attempt, &e.Payload, &notBefore, &created); err != nil {
		return nil, err
	}
	e.NotBefore, e.CreatedTime = fromMS(notBefore), fromMS(created)
	return &e, nil
}

func (t *tx) Job(ctx context.Context, id string) (*store.Job, error) {
	j, err := scanJob(t.queryRow(ctx, "getJob", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, store.Errorf("%s: job %s: %w", t.db.Dialect.Name, id, err)
	}
	return j, nil
}

func (t *tx) PutJob(ctx context.Context, j *store.Job) error {
	t.touch(j.ID)
	t.db.wroteJob()
	return t.exec(ctx, "putJob", j.ID, j.AppName, j.AppPath, j.User, j.Group, j.ACL, j.ParentID, j.ExternalID,
		j.Status, j.Run, j.Conf, j.Definition, j.State, j.ErrorCode, j.ErrorMessage,
		ms(j.CreatedTime), ms(j.StartTime), ms(j.EndTime), ms(j.LastModTime), t.owner)
}

// likeEscaper quotes LIKE's wildcards so that free text matches itself.
var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)

// LikeContains is the LIKE pattern (with ESCAPE '\') of the strings
// that contain s.
func LikeContains(s string) string { return "%" + likeEscaper.Replace(s) + "%" }

// jobWhere renders a JobFilter as a WHERE clause ("" when it selects
// everything) with its arguments.
func jobWhere(f store.JobFilter) (string, []any) {
	var where []string
	var args []any
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		where = append(where, col+" IN ("+strings.TrimSuffix(strings.Repeat("?,", len(vals)), ",")+")")
		for _, v := range vals {
			args = append(args, v)
		}
	}
	in("status", f.Statuses)
	in("app_name", f.Names)
	in("user_name", f.Users)
	in("group_name", f.Groups)
	in("id", f.IDs)
	for _, c := range []struct{ col, val string }{{"parent_id", f.ParentID}, {"app_name", f.AppName}, {"user_name", f.User}, {"external_id", f.ExternalID}} {
		if c.val != "" {
			where = append(where, c.col+" = ?")
			args = append(args, c.val)
		}
	}
	if f.ParentPrefix != "" {
		where = append(where, `parent_id LIKE ? ESCAPE '\'`)
		args = append(args, likeEscaper.Replace(f.ParentPrefix)+"%")
	}
	if f.Text != "" {
		// A substring match: no index helps, but it only scans the rows
		// the other conditions left, once per page.
		pat := "%" + likeEscaper.Replace(strings.ToLower(f.Text)) + "%"
		var or []string
		for _, col := range []string{"id", "app_name", "app_path", "user_name"} {
			or = append(or, "LOWER("+col+`) LIKE ? ESCAPE '\'`)
			args = append(args, pat)
		}
		where = append(where, "("+strings.Join(or, " OR ")+")")
	}
	if !f.CreatedAfter.IsZero() {
		where = append(where, "created_ms >= ?")
		args = append(args, f.CreatedAfter.UnixMilli())
	}
	if !f.CreatedBefore.IsZero() {
		where = append(where, "created_ms <= ?")
		args = append(args, f.CreatedBefore.UnixMilli())
	}
	if len(where) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(where, " AND "), args
}

func (t *tx) Jobs(ctx context.Context, f store.JobFilter) ([]*store.Job, error) {
	cols := jobColumns
	if f.Brief {
		cols = briefJobColumns
	}
	if jobs, ok, err := t.recentText(ctx, cols, f); ok || err != nil {
		return jobs, err
	}
	q, args := listQuery("wf_jobs", cols, f, t.db.wfWhere)
	q = t.rebind(q)
	rows, err := t.query(ctx, q, args...)
	return listRows(t, "jobs", rows, err, func(r rowScanner) (*store.Job, error) { return scanJob(r) })
}

// listOrder is the order of every job list: newest first.
const listOrder = " ORDER BY created_ms DESC, id DESC"

// listQuery is the SELECT of one page of a job list of table, and its
// arguments. A page of several statuses is the union of one page per
// status: each is one range of the (status, created, id) index read in
// list order, and the union holds the page, so the database sorts at
// most statuses × (offset + limit) rows instead of every matching job
// (SQLite sorted the 100,000 FAILED or KILLED jobs of a million in 0.3 s;
// docs/benchmarks-plans.md).
// render is the filter's WHERE (jobWhere, or DB.wfWhere for workflow
// jobs).
func listQuery(table, cols string, f store.JobFilter, render func(store.JobFilter) (string, []any)) (string, []any) {
	statuses := slices.Compact(slices.Sorted(slices.Values(f.Statuses)))
	if f.Limit <= 0 || len(statuses) < 2 {
		where, args := render(f)
		return `SELECT ` + cols + ` FROM ` + table + where + listOrder + page(f.Limit, f.Offset), args
	}
	var parts []string
	var args []any
	for i, s := range statuses {
		one := f
		one.Statuses = []string{s}
		where, a := render(one)
		parts = append(parts, fmt.Sprintf(`SELECT * FROM (SELECT %s FROM %s%s%s LIMIT %d) s%d`,
			cols, table, where, listOrder, max(f.Offset, 0)+f.Limit, i))
		args = append(args, a...)
	}
	return `SELECT * FROM (` + strings.Join(parts, " UNION ALL ") + `) u` + listOrder + page(f.Limit, f.Offset), args
}

func (t *tx) CountJobs(ctx context.Context, f store.JobFilter) (int, error) {
	if countable(f) {
		return t.countFromCounts(ctx, f)
	}
	where, args := t.db.wfWhere(f)
	q := `SELECT COUNT(*) FROM wf_jobs` + where
	if from, fromArgs := t.db.textFrom(f); from != "" {
		// Driven by the text index, which yields its candidates one by
		// one: a capped count of a common substring stops early.
		where, args = jobWhere(f)
		q = fmt.Sprintf(`SELECT COUNT(*) FROM (SELECT 1 FROM %s%s LIMIT %d) n`, from, where, f.CountCap+1)
		args = append(fromArgs, args...)
	} else if f.CountCap > 0 {
		// Enough to say "more than CountCap": a common substring of the
		// console's search would otherwise count most of the jobs.
		q = fmt.Sprintf(`SELECT COUNT(*) FROM (SELECT 1 FROM wf_jobs%s LIMIT %d) c`, where, f.CountCap+1)
	}
	q = t.rebind(q)
	var n int
	if err := t.queryRowText(ctx, q, args...).Scan(&n); err != nil {
		return 0, store.Errorf("%s: count jobs: %w", t.db.Dialect.Name, err)
	}
	return n, nil
}

func (t *tx) Action(ctx context.Context, id string) (*store.Action, error) {
	a, err := scanAction(t.queryRow(ctx, "getAction", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, store.Errorf("%s: action %s: %w", t.db.Dialect.Name, id, err)
	}
	return a, nil
}

func (t *tx) queryActions(ctx context.Context, q string, args ...any) ([]*store.Action, error) {
	rows, err := t.query(ctx, q, args...)
	return listRows(t, "actions", rows, err, func(r rowScanner) (*store.Action, error) { return scanAction(r) })
}

func (t *tx) Actions(ctx context.Context, jobID string) ([]*store.Action, error) {
	return t.queryActions(ctx, t.db.q["jobActions"], jobID)
}

func (t *tx) ActionsByStatus(ctx context.Context, statuses ...string) ([]*store.Action, error) {
	if len(statuses) == 0 {
		return nil, nil
	}
	q := `SELECT ` + actionColumns + ` FROM wf_actions WHERE status IN (` +
		strings.TrimSuffix(strings.Repeat("?,", len(statuses)), ",") + `)`
	args := make([]any, len(statuses))
	for i, s := range statuses {
		args[i] = s
	}
	if t.owner != "" {
		q += ` AND job_id IN (SELECT id FROM wf_jobs WHERE owner` + ownedBy + `)`
		args = append(args, ownedArgs(t.owner, 1)...)
	}
	q += ` ORDER BY job_id, seq, id`
	q = t.rebind(q)
	return t.queryActions(ctx, q, args...)
}

func (t *tx) PutAction(ctx context.Context, a *store.Action) error {
	if t.readOnly {
		return errReadOnly
	}
	t.touch(a.JobID)
	if a.Seq == 0 {
		// A record put again keeps its Seq (the engine carries it over);
		// only a new one is numbered.
		if err := t.queryRow(ctx, "nextActionSeq", a.JobID).Scan(&a.Seq); err != nil {
			return store.Errorf("%s: action seq %s: %w", t.db.Dialect.Name, a.JobID, err)
		}
	}
	return t.exec(ctx, "putAction", a.ID, a.JobID, a.Name, a.Type, a.Seq, a.Status, a.Conf, a.Cred, a.Retries,
		a.UserRetryCount, a.UserRetryMax, a.UserRetryInterval, a.Attempt, a.Transition, a.Data, a.Stats,
		a.ExternalChildIDs, a.ExternalID, a.ExternalStatus, a.TrackerURI, a.ConsoleURL, a.ErrorCode,
		a.ErrorMessage, ms(a.StartTime), ms(a.EndTime), ms(a.LastModTime))
}

func (t *tx) AddEffect(ctx context.Context, e *store.Effect) error {
	if t.readOnly {
		return errReadOnly
	}
	t.touch(e.JobID)
	if e.CreatedTime.IsZero() {
		e.CreatedTime = time.Now()
	}
	if t.pipe != nil {
		// Sent at once, with the writes queued before it, for the id.
		t.pipe.returning(t.db.q["addEffect"], &e.ID, e.JobID, e.ActionID, e.Kind, e.Attempt, e.Payload,
			ms(e.NotBefore), ms(e.CreatedTime))
		if err := t.flush(ctx); err != nil {
			return fmt.Errorf("add effect: %w", err)
		}
		return nil
	}
	var err error
	if t.db.Dialect.LastInsertID {
		e.ID, err = t.insert(ctx, "addEffectExec", e.JobID, e.ActionID, e.Kind, e.Attempt, e.Payload,
			ms(e.NotBefore), ms(e.CreatedTime))
	} else {
		err = t.queryRow(ctx, "addEffect", e.JobID, e.ActionID, e.Kind, e.Attempt, e.Payload,
			ms(e.NotBefore), ms(e.CreatedTime)).Scan(&e.ID)
	}
	if err != nil {
		return store.Errorf("%s: add effect: %w", t.db.Dialect.Name, err)
	}
	return nil
}

func (t *tx) QueueEffect(ctx context.Context, e *store.Effect) error {
	if t.pipe == nil || t.readOnly {
		return t.AddEffect(ctx, e)
	}
	t.touch(e.JobID)
	if e.CreatedTime.IsZero() {
		e.CreatedTime = time.Now()
	}
	t.pipe.returning(t.db.q["addEffect"], &e.ID, e.JobID, e.ActionID, e.Kind, e.Attempt, e.Payload,
		ms(e.NotBefore), ms(e.CreatedTime))
	return nil
}

func (t *tx) DoneEffect(ctx context.Context, id int64) error {
	if t.readOnly {
		return errReadOnly
	}
	if t.pipe != nil {
		t.pipe.done = append(t.pipe.done, id)
		return nil
	}
	if t.owner == "" && t.db.Dialect.LastInsertID {
		// Unfenced: the job of the effect is of no interest.
		return t.exec(ctx, "doneEffectExec", id)
	}
	// The deleted row names its job, whose ownership the commit checks:
	// a server that lost a job must not settle the new owner's effects.
	var job string
	err := t.queryRow(ctx, "doneEffect", id).Scan(&job)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return store.Errorf("%s: doneEffect: %w", t.db.Dialect.Name, err)
	}
	t.touch(job)
	return nil
}

func (t *tx) PendingEffects(ctx context.Context, jobID string, limit int) ([]*store.Effect, error) {
	q, args := t.db.q["pendingAll"], []any{}
	if t.owner != "" {
		q, args = t.db.q["pendingOwned"], ownedArgs(t.owner, 3)
	}
	if jobID != "" {
		q, args = t.db.q["pendingJob"], []any{jobID}
	}
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := t.query(ctx, q, args...)
	return listRows(t, "pending effects", rows, err, func(r rowScanner) (*store.Effect, error) { return scanEffect(r) })
}

func (t *tx) NextSequence(ctx context.Context, name string) (int64, error) {
	if t.readOnly {
		return 0, errReadOnly
	}
	var v int64
	var row rowScanner
	if _, ok := t.db.Dialect.Sequences[name]; ok {
		if p := t.pipe; p != nil && !p.began {
			// A database sequence does not roll back, so a pipelined
			// transaction that has sent nothing yet asks outside its
			// transaction block: BEGIN can then travel with its writes.
			row = t.q.QueryRowContext(ctx, t.db.q[seqQuery(name)])
		} else {
			row = t.queryRow(ctx, seqQuery(name))
		}
	} else {
		row = t.queryRow(ctx, "nextSeq", name)
	}
	if err := row.Scan(&v); err != nil {
		return 0, store.Errorf("%s: sequence %s: %w", t.db.Dialect.Name, name, err)
	}
	return v, nil
}
