package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/gozie/gozie/internal/store"
)

const coordJobColumns = `id, app_name, app_path, user_name, group_name, acl, external_id, parent_id, status,
	conf, definition, frequency, time_unit, time_zone, concurrency, throttle, timeout, execution, console_url,
	start_ms, end_ms, pause_ms, last_action_number, last_action_ms, next_mat_ms, done_materialization,
	error_code, error_message, state, created_ms, last_mod_ms, suspended_ms`

// briefCoordJobColumns is coordJobColumns with empty text in place of
// conf, definition and state, for store.JobFilter.Brief.
const briefCoordJobColumns = `id, app_name, app_path, user_name, group_name, acl, external_id, parent_id, status,
	'', '', frequency, time_unit, time_zone, concurrency, throttle, timeout, execution, console_url,
	start_ms, end_ms, pause_ms, last_action_number, last_action_ms, next_mat_ms, done_materialization,
	error_code, error_message, '', created_ms, last_mod_ms, suspended_ms`

const coordActionColumns = `id, job_id, number, status, nominal_ms, created_ms, last_mod_ms, external_id,
	external_status, missing_dependencies, created_conf, run_conf, action_xml, plan, error_code,
	error_message, tracker_uri, console_url`

// The coordinator statements join the shared query table at package
// initialization, so New prepares them like the workflow ones.
func init() {
	for name, text := range coordQueries {
		queries[name] = text
	}
}

var coordQueries = map[string]string{
	"getCoordJob": `SELECT ` + coordJobColumns + ` FROM coord_jobs WHERE id = ?`,
	// As putJob: a new coordinator job belongs to the registered instance.
	"putCoordJob": `INSERT INTO coord_jobs (` + coordJobColumns + `, owner) VALUES (` + placeholders(33) + `)
		ON CONFLICT (id) DO UPDATE SET ` + excludedSet(coordJobColumns),
	"getCoordAction": `SELECT ` + coordActionColumns + ` FROM coord_actions WHERE id = ?`,
	"putCoordAction": `INSERT INTO coord_actions (` + coordActionColumns + `) VALUES (` + placeholders(18) + `)
		ON CONFLICT (id) DO UPDATE SET ` + excludedSet(coordActionColumns),
	"deleteCoordAction": `DELETE FROM coord_actions WHERE id = ?`,
	"countCoordActions": `SELECT status, COUNT(*) FROM coord_actions WHERE job_id = ? GROUP BY status`,
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// excludedSet renders "col = excluded.col, ..." for every column but id.
func excludedSet(columns string) string {
	var sets []string
	for _, c := range strings.Split(columns, ",") {
		c = strings.TrimSpace(c)
		if c == "id" {
			continue
		}
		sets = append(sets, c+" = excluded."+c)
	}
	return strings.Join(sets, ", ")
}

func scanCoordJob(row interface{ Scan(...any) error }) (*store.CoordJob, error) {
	var j store.CoordJob
	var start, end, pause, lastAction, nextMat, created, mod, suspended sql.NullInt64
	var done int
	err := row.Scan(&j.ID, &j.AppName, &j.AppPath, &j.User, &j.Group, &j.ACL, &j.ExternalID, &j.ParentID, &j.Status,
		&j.Conf, &j.Definition, &j.Frequency, &j.TimeUnit, &j.TimeZone, &j.Concurrency, &j.Throttle, &j.Timeout,
		&j.Execution, &j.ConsoleURL, &start, &end, &pause, &j.LastActionNumber, &lastAction, &nextMat, &done,
		&j.ErrorCode, &j.ErrorMessage, &j.State, &created, &mod, &suspended)
	if err != nil {
		return nil, err
	}
	j.StartTime, j.EndTime, j.PauseTime = fromMS(start), fromMS(end), fromMS(pause)
	j.LastActionTime, j.NextMaterializedTime = fromMS(lastAction), fromMS(nextMat)
	j.CreatedTime, j.LastModTime, j.SuspendedTime = fromMS(created), fromMS(mod), fromMS(suspended)
	j.DoneMaterialization = done != 0
	return &j, nil
}

func scanCoordAction(row interface{ Scan(...any) error }) (*store.CoordAction, error) {
	var a store.CoordAction
	var nominal, created, mod sql.NullInt64
	err := row.Scan(&a.ID, &a.JobID, &a.Number, &a.Status, &nominal, &created, &mod, &a.ExternalID,
		&a.ExternalStatus, &a.MissingDependencies, &a.CreatedConf, &a.RunConf, &a.ActionXML, &a.Plan,
		&a.ErrorCode, &a.ErrorMessage, &a.TrackerURI, &a.ConsoleURL)
	if err != nil {
		return nil, err
	}
	a.NominalTime, a.CreatedTime, a.LastModTime = fromMS(nominal), fromMS(created), fromMS(mod)
	return &a, nil
}

func (t *tx) CoordJob(ctx context.Context, id string) (*store.CoordJob, error) {
	j, err := scanCoordJob(t.queryRow(ctx, "getCoordJob", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, store.Errorf("%s: coordinator job %s: %w", t.db.Dialect.Name, id, err)
	}
	return j, nil
}

func (t *tx) PutCoordJob(ctx context.Context, j *store.CoordJob) error {
	done := 0
	if j.DoneMaterialization {
		done = 1
	}
	t.touch(j.ID)
	return t.exec(ctx, "putCoordJob", j.ID, j.AppName, j.AppPath, j.User, j.Group, j.ACL, j.ExternalID, j.ParentID,
		j.Status, j.Conf, j.Definition, j.Frequency, j.TimeUnit, j.TimeZone, j.Concurrency, j.Throttle, j.Timeout,
		j.Execution, j.ConsoleURL, ms(j.StartTime), ms(j.EndTime), ms(j.PauseTime), j.LastActionNumber,
		ms(j.LastActionTime), ms(j.NextMaterializedTime), done, j.ErrorCode, j.ErrorMessage, j.State,
		ms(j.CreatedTime), ms(j.LastModTime), ms(j.SuspendedTime), t.owner)
}

func (t *tx) rebind(q string) string {
	if t.db.Dialect.Rebind != nil {
		return t.db.Dialect.Rebind(q)
	}
	return q
}

func (t *tx) CoordJobs(ctx context.Context, f store.JobFilter) ([]*store.CoordJob, error) {
	cols := coordJobColumns
	if f.Brief {
		cols = briefCoordJobColumns
	}
	q, args := listQuery("coord_jobs", cols, f, jobWhere)
	rows, err := t.query(ctx, t.rebind(q), args...)
	return listRows(t, "coordinator jobs", rows, err, func(r rowScanner) (*store.CoordJob, error) { return scanCoordJob(r) })
}

func (t *tx) CountCoordJobs(ctx context.Context, f store.JobFilter) (int, error) {
	where, args := jobWhere(f)
	var n int
	if err := t.queryRowText(ctx, t.rebind(`SELECT COUNT(*) FROM coord_jobs`+where), args...).Scan(&n); err != nil {
		return 0, store.Errorf("%s: count coordinator jobs: %w", t.db.Dialect.Name, err)
	}
	return n, nil
}

func (t *tx) CoordAction(ctx context.Context, id string) (*store.CoordAction, error) {
	a, err := scanCoordAction(t.queryRow(ctx, "getCoordAction", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, store.Errorf("%s: coordinator action %s: %w", t.db.Dialect.Name, id, err)
	}
	return a, nil
}

func (t *tx) PutCoordAction(ctx context.Context, a *store.CoordAction) error {
	t.touch(a.JobID)
	return t.exec(ctx, "putCoordAction", a.ID, a.JobID, a.Number, a.Status, ms(a.NominalTime), ms(a.CreatedTime),
		ms(a.LastModTime), a.ExternalID, a.ExternalStatus, a.MissingDependencies, a.CreatedConf, a.RunConf,
		a.ActionXML, a.Plan, a.ErrorCode, a.ErrorMessage, a.TrackerURI, a.ConsoleURL)
}

func (t *tx) DeleteCoordAction(ctx context.Context, id string) error {
	t.touch(id)
	return t.exec(ctx, "deleteCoordAction", id)
}

func (t *tx) queryCoordActions(ctx context.Context, q string, args ...any) ([]*store.CoordAction, error) {
	rows, err := t.query(ctx, t.rebind(q), args...)
	return listRows(t, "coordinator actions", rows, err, func(r rowScanner) (*store.CoordAction, error) { return scanCoordAction(r) })
}

func (t *tx) CoordActions(ctx context.Context, jobID string, f store.CoordActionFilter) ([]*store.CoordAction, error) {
	where := []string{"job_id = ?"}
	args := []any{jobID}
	if len(f.Statuses) > 0 {
		where = append(where, "status IN ("+placeholders(len(f.Statuses))+")")
		for _, s := range f.Statuses {
			args = append(args, s)
		}
	}
	if len(f.NotStatuses) > 0 {
		where = append(where, "status NOT IN ("+placeholders(len(f.NotStatuses))+")")
		for _, s := range f.NotStatuses {
			args = append(args, s)
		}
	}
	if !f.NominalFrom.IsZero() {
		where = append(where, "nominal_ms >= ?")
		args = append(args, f.NominalFrom.UnixMilli())
	}
	if !f.NominalTo.IsZero() {
		where = append(where, "nominal_ms <= ?")
		args = append(args, f.NominalTo.UnixMilli())
	}
	q := `SELECT ` + coordActionColumns + ` FROM coord_actions WHERE ` + strings.Join(where, " AND ") + " ORDER BY number"
	if f.Desc {
		q += " DESC"
	}
	q += page(f.Limit, f.Offset)
	return t.queryCoordActions(ctx, q, args...)
}

func (t *tx) CountCoordActions(ctx context.Context, jobID string) (map[string]int, error) {
	rows, err := t.query(ctx, t.db.q["countCoordActions"], jobID)
	if err != nil {
		return nil, store.Errorf("%s: count coordinator actions: %w", t.db.Dialect.Name, err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var status string
		var n int
		if err := rows.Scan(&status, &n); err != nil {
			return nil, store.Errorf("%s: count coordinator actions: %w", t.db.Dialect.Name, err)
		}
		out[status] = n
	}
	return out, rows.Err()
}

func (t *tx) CoordActionsByStatus(ctx context.Context, statuses ...string) ([]*store.CoordAction, error) {
	if len(statuses) == 0 {
		return nil, nil
	}
	args := make([]any, len(statuses))
	for i, s := range statuses {
		args[i] = s
	}
	return t.queryCoordActions(ctx, `SELECT `+coordActionColumns+` FROM coord_actions WHERE status IN (`+
		placeholders(len(statuses))+`) ORDER BY job_id, number`, args...)
}
