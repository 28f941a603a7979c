package sqlstore

// The SLA side of the schema (migrations sqlite 0010, postgres 0012): one
// record per tracked job or action, the REST API's listing and the
// calculator's scan of the records due.

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

const slaColumns = `id, app_type, app_name, user_name, parent_id, bundle_id, nominal_ms, expected_start_ms,
	expected_end_ms, expected_duration_ms, alert_events, alert_contact, upstream_apps, notification_msg, disabled,
	job_status, actual_start_ms, actual_end_ms, actual_duration_ms, sla_status, event_status, event_processed,
	next_check_ms, created_ms, last_mod_ms`

// entityStatus reads the current status of the tracked entity (whose id is
// its three arguments) when a record is put; the triggers of the
// migration keep it from then on.
const entityStatus = `COALESCE((SELECT status FROM wf_jobs WHERE id = ?), (SELECT status FROM wf_actions WHERE id = ?),
	(SELECT status FROM coord_actions WHERE id = ?))`

func init() {
	for name, text := range slaQueries {
		queries[name] = text
	}
}

var slaQueries = map[string]string{
	"getSLA": `SELECT ` + slaColumns + ` FROM sla WHERE id = ?`,
	"putSLA": `INSERT INTO sla (` + slaColumns + `, job_id, entity_status) VALUES (` + placeholders(26) + `, ` +
		entityStatus + `) ON CONFLICT (id) DO UPDATE SET ` + excludedSet(slaColumns+", job_id, entity_status"),
	"dueSLAs":      dueSLAs(""),
	"dueSLAsOwned": dueSLAs(slaOwned),
}

// slaOwned restricts a scan to the records whose owning job (a workflow
// or coordinator job) the instance works (ownedBy), given four times.
const slaOwned = ` AND (EXISTS (SELECT 1 FROM wf_jobs j WHERE j.id = sla.job_id AND j.owner` + ownedBy + `)
	OR EXISTS (SELECT 1 FROM coord_jobs c WHERE c.id = sla.job_id AND c.owner` + ownedBy + `))`

// dueSLAs is the calculator's scan: the undecided records past their next
// check, and those whose entity's status changed, each read in the order
// of its partial index (sla_due, sla_changed) and bounded before the
// union, so that neither visits more than limit records of the 100,000s
// a busy store holds. Arguments: the time, [owner x4,] the limit,
// [owner x4,] the limit, the limit.
func dueSLAs(owned string) string {
	const order = ` ORDER BY next_check_ms ASC NULLS FIRST, id`
	due := `SELECT ` + slaColumns + ` FROM sla WHERE event_processed < 8 AND next_check_ms <= ?` + owned + order + ` LIMIT ?`
	changed := `SELECT ` + slaColumns + ` FROM sla WHERE event_processed < 8 AND entity_status <> job_status` + owned +
		order + ` LIMIT ?`
	return `SELECT ` + slaColumns + ` FROM (SELECT * FROM (` + due + `) d UNION SELECT * FROM (` + changed + `) c) u` +
		order + ` LIMIT ?`
}

func scanSLA(row interface{ Scan(...any) error }) (*store.SLA, error) {
	var s store.SLA
	var nominal, expStart, expEnd, actStart, actEnd, next, created, mod sql.NullInt64
	var disabled int
	err := row.Scan(&s.ID, &s.AppType, &s.AppName, &s.User, &s.ParentID, &s.BundleID, &nominal, &expStart,
		&expEnd, &s.ExpectedDurationMs, &s.AlertEvents, &s.AlertContact, &s.UpstreamApps, &s.NotificationMsg,
		&disabled, &s.JobStatus, &actStart, &actEnd, &s.ActualDurationMs, &s.SLAStatus, &s.EventStatus,
		&s.EventProcessed, &next, &created, &mod)
	if err != nil {
		return nil, err
	}
	s.Disabled = disabled != 0
	s.NominalTime, s.ExpectedStart, s.ExpectedEnd = fromMS(nominal), fromMS(expStart), fromMS(expEnd)
	s.ActualStart, s.ActualEnd, s.NextCheck = fromMS(actStart), fromMS(actEnd), fromMS(next)
	s.CreatedTime, s.LastModTime = fromMS(created), fromMS(mod)
	return &s, nil
}

func (t *tx) SLA(ctx context.Context, id string) (*store.SLA, error) {
	s, err := scanSLA(t.queryRow(ctx, "getSLA", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, store.Errorf("%s: sla %s: %w", t.db.Dialect.Name, id, err)
	}
	return s, nil
}

func (t *tx) PutSLA(ctx context.Context, s *store.SLA) error {
	if s.ID == "" {
		return store.Errorf("%s: sla: a record needs the id of its job or action", t.db.Dialect.Name)
	}
	// The owning job (a workflow job, or the job of a workflow or
	// coordinator action) fences the write, as for the entity's own.
	job := vocab.JobOf(s.ID)
	t.touch(job)
	disabled := 0
	if s.Disabled {
		disabled = 1
	}
	return t.exec(ctx, "putSLA", s.ID, s.AppType, s.AppName, s.User, s.ParentID, s.BundleID, ms(s.NominalTime),
		ms(s.ExpectedStart), ms(s.ExpectedEnd), s.ExpectedDurationMs, s.AlertEvents, s.AlertContact, s.UpstreamApps,
		s.NotificationMsg, disabled, s.JobStatus, ms(s.ActualStart), ms(s.ActualEnd), s.ActualDurationMs,
		s.SLAStatus, s.EventStatus, s.EventProcessed, ms(s.NextCheck), ms(s.CreatedTime), ms(s.LastModTime),
		job, s.ID, s.ID, s.ID)
}

// slaSort maps the names of Oozie's sortby to columns.
var slaSort = map[string]string{
	"actualDuration":   "actual_duration_ms",
	"actualEndTS":      "actual_end_ms",
	"actualStartTS":    "actual_start_ms",
	"appName":          "app_name",
	"appType":          "app_type",
	"createdTimeTS":    "created_ms",
	"eventProcessed":   "event_processed",
	"eventStatus":      "event_status",
	"expectedDuration": "expected_duration_ms",
	"expectedEndTS":    "expected_end_ms",
	"expectedStartTS":  "expected_start_ms",
	"jobId":            "id",
	"jobStatus":        "job_status",
	"lastModifiedTS":   "last_mod_ms",
	"nominalTimeTS":    "nominal_ms",
	"parentId":         "parent_id",
	"slaStatus":        "sla_status",
	"user":             "user_name",
}

// slaOrder renders the ORDER BY of a listing. Unset times (NULL) sort as
// the earliest in both databases, whose defaults differ.
func slaOrder(f store.SLAFilter) (string, error) {
	by := f.SortBy
	if by == "" {
		by = "nominalTimeTS"
	}
	col, ok := slaSort[by]
	if !ok {
		names := make([]string, 0, len(slaSort))
		for n := range slaSort {
			names = append(names, n)
		}
		slices.Sort(names)
		return "", vocab.Errorf("E0302", "Invalid parameter [sortby=%s], one of %s", by, strings.Join(names, ", "))
	}
	dir := " ASC NULLS FIRST"
	if f.Desc {
		dir = " DESC NULLS LAST"
	}
	return " ORDER BY " + col + dir + ", nominal_ms ASC NULLS FIRST, id ASC", nil
}

// slaWhere renders an SLAFilter as a WHERE clause ("" for none) with its
// arguments.
func slaWhere(f store.SLAFilter) (string, []any) {
	var where []string
	var args []any
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		where = append(where, col+" IN ("+placeholders(len(vals))+")")
		for _, v := range vals {
			args = append(args, v)
		}
	}
	// Oozie's filter takes these as SQL LIKE patterns: % and _ are
	// wildcards. The backslash is made a plain character (PostgreSQL's
	// LIKE escapes with it by default, SQLite's does not), so a value
	// without wildcards matches itself in both.
	like := func(col string, pats []string) {
		if len(pats) == 0 {
			return
		}
		var or []string
		for _, p := range pats {
			or = append(or, col+` LIKE ? ESCAPE '\'`)
			args = append(args, strings.ReplaceAll(p, `\`, `\\`))
		}
		where = append(where, "("+strings.Join(or, " OR ")+")")
	}
	in("id", f.IDs)
	in("parent_id", f.ParentIDs)
	like("app_name", f.AppNames)
	like("app_type", f.AppTypes)
	like("user_name", f.Users)
	like("job_status", f.JobStatuses)
	in("bundle_id", f.BundleIDs)
	in("event_status", f.EventStatuses)
	in("sla_status", f.SLAStatuses)
	timeRange := func(col string, after, before time.Time) {
		if !after.IsZero() {
			where = append(where, col+" >= ?")
			args = append(args, after.UnixMilli())
		}
		if !before.IsZero() {
			where = append(where, col+" <= ?")
			args = append(args, before.UnixMilli())
		}
	}
	timeRange("nominal_ms", f.NominalAfter, f.NominalBefore)
	timeRange("created_ms", f.CreatedAfter, f.CreatedBefore)
	timeRange("expected_start_ms", f.ExpectedStartAfter, f.ExpectedStartBefore)
	timeRange("expected_end_ms", f.ExpectedEndAfter, f.ExpectedEndBefore)
	timeRange("actual_start_ms", f.ActualStartAfter, f.ActualStartBefore)
	timeRange("actual_end_ms", f.ActualEndAfter, f.ActualEndBefore)
	// A duration bound selects known durations only: -1 (unknown) is
	// below every minimum and excluded from under a maximum.
	durRange := func(col string, lo, hi int64) {
		if lo > 0 {
			where = append(where, col+" >= ?")
			args = append(args, lo)
		}
		if hi > 0 {
			where = append(where, col+" >= 0 AND "+col+" <= ?")
			args = append(args, hi)
		}
	}
	durRange("actual_duration_ms", f.ActualDurationMin, f.ActualDurationMax)
	durRange("expected_duration_ms", f.ExpectedDurationMin, f.ExpectedDurationMax)
	if len(where) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(where, " AND "), args
}

func (t *tx) SLAs(ctx context.Context, f store.SLAFilter) ([]*store.SLA, error) {
	order, err := slaOrder(f)
	if err != nil {
		return nil, err
	}
	where, args := slaWhere(f)
	q := `SELECT ` + slaColumns + ` FROM sla` + where + order
	q += page(f.Limit, f.Offset)
	return t.querySLAs(ctx, "slas", t.rebind(q), args...)
}

// CountSLAs counts the records matching f, ignoring its order and paging.
func (t *tx) CountSLAs(ctx context.Context, f store.SLAFilter) (int, error) {
	where, args := slaWhere(f)
	var n int
	if err := t.queryRowText(ctx, t.rebind(`SELECT COUNT(*) FROM sla`+where), args...).Scan(&n); err != nil {
		return 0, store.Errorf("%s: count slas: %w", t.db.Dialect.Name, err)
	}
	return n, nil
}

func (t *tx) DueSLAs(ctx context.Context, at time.Time, limit int) ([]*store.SLA, error) {
	n := int64(limit)
	if limit <= 0 {
		n = int64(1) << 62
	}
	if t.owner == "" {
		return t.querySLAs(ctx, "due slas", t.db.q["dueSLAs"], at.UnixMilli(), n, n, n)
	}
	o := ownedArgs(t.owner, 2)
	args := append(append(append(append([]any{at.UnixMilli()}, o...), n), o...), n, n)
	return t.querySLAs(ctx, "due slas", t.db.q["dueSLAsOwned"], args...)
}

func (t *tx) querySLAs(ctx context.Context, what, q string, args ...any) ([]*store.SLA, error) {
	rows, err := t.query(ctx, q, args...)
	return listRows(t, what, rows, err, func(r rowScanner) (*store.SLA, error) { return scanSLA(r) })
}
