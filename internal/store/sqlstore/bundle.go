package sqlstore

// The bundle side of the schema: bundle jobs and their actions (one per
// coordinator of bundle.xml), rows, queries and the Tx methods over them.

import (
	"context"
	"database/sql"
	"errors"

	"github.com/gozie/gozie/internal/store"
)

const bundleJobColumns = `id, app_name, app_path, user_name, group_name, acl, external_id, status,
	conf, definition, time_unit, time_out, kickoff_ms, start_ms, end_ms, pause_ms,
	error_code, error_message, state, created_ms, last_mod_ms, suspended_ms`

// briefBundleJobColumns is bundleJobColumns with empty text in place of
// conf, definition and state, for store.JobFilter.Brief.
const briefBundleJobColumns = `id, app_name, app_path, user_name, group_name, acl, external_id, status,
	'', '', time_unit, time_out, kickoff_ms, start_ms, end_ms, pause_ms,
	error_code, error_message, '', created_ms, last_mod_ms, suspended_ms`

const bundleActionColumns = `id, bundle_id, coord_name, coord_id, status, critical, pending, last_modified_ms`

// The bundle statements join the shared query table at package
// initialization, so New prepares them like the others.
func init() {
	for name, text := range bundleQueries {
		queries[name] = text
	}
}

var bundleQueries = map[string]string{
	"getBundleJob": `SELECT ` + bundleJobColumns + ` FROM bundle_jobs WHERE id = ?`,
	// As putJob: a new bundle job belongs to the registered instance (the
	// last value), and replacing one keeps its owner.
	"putBundleJob": `INSERT INTO bundle_jobs (` + bundleJobColumns + `, owner) VALUES (` + placeholders(23) + `)
		ON CONFLICT (id) DO UPDATE SET ` + excludedSet(bundleJobColumns),
	"getBundleAction": `SELECT ` + bundleActionColumns + ` FROM bundle_actions WHERE id = ?`,
	"putBundleAction": `INSERT INTO bundle_actions (` + bundleActionColumns + `) VALUES (` + placeholders(8) + `)
		ON CONFLICT (id) DO UPDATE SET ` + excludedSet(bundleActionColumns),
	"bundleActions": `SELECT ` + bundleActionColumns + ` FROM bundle_actions WHERE bundle_id = ?
		ORDER BY coord_name, id`,
}

func scanBundleJob(row interface{ Scan(...any) error }) (*store.BundleJob, error) {
	var j store.BundleJob
	var kickoff, start, end, pause, created, mod, suspended sql.NullInt64
	err := row.Scan(&j.ID, &j.AppName, &j.AppPath, &j.User, &j.Group, &j.ACL, &j.ExternalID, &j.Status,
		&j.Conf, &j.Definition, &j.TimeUnit, &j.TimeOut, &kickoff, &start, &end, &pause,
		&j.ErrorCode, &j.ErrorMessage, &j.State, &created, &mod, &suspended)
	if err != nil {
		return nil, err
	}
	j.KickoffTime, j.StartTime, j.EndTime, j.PauseTime = fromMS(kickoff), fromMS(start), fromMS(end), fromMS(pause)
	j.CreatedTime, j.LastModTime, j.SuspendedTime = fromMS(created), fromMS(mod), fromMS(suspended)
	return &j, nil
}

func scanBundleAction(row interface{ Scan(...any) error }) (*store.BundleAction, error) {
	var a store.BundleAction
	var mod sql.NullInt64
	var critical int
	if err := row.Scan(&a.ID, &a.BundleID, &a.CoordName, &a.CoordID, &a.Status, &critical, &a.Pending, &mod); err != nil {
		return nil, err
	}
	a.Critical, a.LastModTime = critical != 0, fromMS(mod)
	return &a, nil
}

func (t *tx) BundleJob(ctx context.Context, id string) (*store.BundleJob, error) {
	j, err := scanBundleJob(t.queryRow(ctx, "getBundleJob", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, store.Errorf("%s: bundle job %s: %w", t.db.Dialect.Name, id, err)
	}
	return j, nil
}

func (t *tx) PutBundleJob(ctx context.Context, j *store.BundleJob) error {
	t.touch(j.ID)
	return t.exec(ctx, "putBundleJob", j.ID, j.AppName, j.AppPath, j.User, j.Group, j.ACL, j.ExternalID, j.Status,
		j.Conf, j.Definition, j.TimeUnit, j.TimeOut, ms(j.KickoffTime), ms(j.StartTime), ms(j.EndTime),
		ms(j.PauseTime), j.ErrorCode, j.ErrorMessage, j.State, ms(j.CreatedTime), ms(j.LastModTime),
		ms(j.SuspendedTime), t.owner)
}

// bundleWhere is jobWhere for bundle_jobs, which have no parent: a filter
// by parent selects nothing (ok false).
func bundleWhere(f store.JobFilter) (where string, args []any, ok bool) {
	if f.ParentID != "" || f.ParentPrefix != "" {
		return "", nil, false
	}
	where, args = jobWhere(f)
	return where, args, true
}

func (t *tx) BundleJobs(ctx context.Context, f store.JobFilter) ([]*store.BundleJob, error) {
	where, args, ok := bundleWhere(f)
	if !ok {
		return nil, nil
	}
	cols := bundleJobColumns
	if f.Brief {
		cols = briefBundleJobColumns
	}
	q := `SELECT ` + cols + ` FROM bundle_jobs` + where + " ORDER BY created_ms DESC, id DESC"
	q += page(f.Limit, f.Offset)
	rows, err := t.query(ctx, t.rebind(q), args...)
	return listRows(t, "bundle jobs", rows, err, func(r rowScanner) (*store.BundleJob, error) { return scanBundleJob(r) })
}

func (t *tx) CountBundleJobs(ctx context.Context, f store.JobFilter) (int, error) {
	where, args, ok := bundleWhere(f)
	if !ok {
		return 0, nil
	}
	var n int
	if err := t.queryRowText(ctx, t.rebind(`SELECT COUNT(*) FROM bundle_jobs`+where), args...).Scan(&n); err != nil {
		return 0, store.Errorf("%s: count bundle jobs: %w", t.db.Dialect.Name, err)
	}
	return n, nil
}

func (t *tx) BundleAction(ctx context.Context, id string) (*store.BundleAction, error) {
	a, err := scanBundleAction(t.queryRow(ctx, "getBundleAction", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, store.Errorf("%s: bundle action %s: %w", t.db.Dialect.Name, id, err)
	}
	return a, nil
}

func (t *tx) PutBundleAction(ctx context.Context, a *store.BundleAction) error {
	// The action's bundle is the job whose ownership the commit checks
	// (its id, <bundle>_<name>, has no "@" to find it by).
	t.touch(a.BundleID)
	critical := 0
	if a.Critical {
		critical = 1
	}
	return t.exec(ctx, "putBundleAction", a.ID, a.BundleID, a.CoordName, a.CoordID, a.Status, critical, a.Pending,
		ms(a.LastModTime))
}

func (t *tx) BundleActions(ctx context.Context, bundleID string) ([]*store.BundleAction, error) {
	rows, err := t.query(ctx, t.db.q["bundleActions"], bundleID)
	return listRows(t, "bundle actions", rows, err, func(r rowScanner) (*store.BundleAction, error) { return scanBundleAction(r) })
}
