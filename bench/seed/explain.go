package main

// -explain: the plans the database chooses for the queries a request
// runs, on a seeded store. The statements are those internal/store/sqlstore
// builds for each request (the same columns, WHERE, ORDER BY and LIMIT),
// with arguments naming seeded jobs; plans are printed as the database
// gives them (EXPLAIN QUERY PLAN on SQLite, EXPLAIN on PostgreSQL).

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlstore"
)

// planQuery is one statement of a request path.
type planQuery struct {
	request, sql string
	args         []any
}

const briefJobCols = `id, app_name, app_path, user_name, group_name, acl, parent_id, external_id, status, run,
	'', '', '', error_code, error_message, created_ms, start_ms, end_ms, last_mod_ms`

const textFilter = `(LOWER(id) LIKE ? ESCAPE '\' OR LOWER(app_name) LIKE ? ESCAPE '\' OR LOWER(app_path) LIKE ? ESCAPE '\' OR LOWER(user_name) LIKE ? ESCAPE '\')`

// requestQueries lists the statements of every request the scale
// benchmark measures, for a store seeded with p (PostgreSQL's when pg).
func requestQueries(p plan, pg bool) []planQuery {
	wf := wfID(p.Jobs/2 + 1)
	co := coordID(p.Jobs + 1)
	page := " ORDER BY created_ms DESC, id DESC LIMIT 50 OFFSET 0"
	text := "%" + "app-7" + "%"
	list := func(name, where string, args ...any) []planQuery {
		w := ""
		if where != "" {
			w = " WHERE " + where
		}
		total := "SELECT COUNT(*) FROM wf_jobs" + w
		if !strings.Contains(w, "app_name") && !strings.Contains(w, "LIKE") {
			// Filters of status and user only: a sum over the counts
			// the triggers keep (sqlstore.countable).
			total = "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT), COUNT(*) FROM wf_job_counts" + w
		}
		return []planQuery{
			{"jobs list " + name + ": page", "SELECT " + briefJobCols + " FROM wf_jobs" + w + page, args},
			{"jobs list " + name + ": total", total, args},
		}
	}
	var qs []planQuery
	qs = append(qs, list("first page", "")...)
	qs = append(qs, list("by user", "user_name IN (?)", "user3")...)
	qs = append(qs, list("by status", "status IN (?)", "KILLED")...)
	qs = append(qs, list("by running status", "status IN (?)", "RUNNING")...)
	qs = append(qs, list("by name", "app_name IN (?)", "seed-app-7")...)
	qs = append(qs, list("by user and status", "status IN (?) AND user_name IN (?)", "KILLED", "user3")...)
	// Several statuses: one page per status, merged (sqlstore.listQuery).
	one := "SELECT * FROM (SELECT " + briefJobCols + " FROM wf_jobs WHERE status IN (?)" + page + ") s%d"
	qs = append(qs,
		planQuery{"jobs list by two statuses: page", "SELECT * FROM (" + fmt.Sprintf(one, 0) + " UNION ALL " + fmt.Sprintf(one, 1) +
			") u ORDER BY created_ms DESC, id DESC LIMIT 50 OFFSET 0", []any{"FAILED", "KILLED"}},
		planQuery{"jobs list by two statuses: total", "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT), COUNT(*) FROM wf_job_counts WHERE status IN (?,?)", []any{"FAILED", "KILLED"}})
	qs = append(qs, list("by text (scan)", textFilter, text, text, text, text)...)
	// With the text index (SQLite and PostgreSQL TextMatch): candidates
	// from it, the exact filter on each; the total capped as the
	// console's (textCountCap).
	indexed, arg := textFilter+` AND id IN (SELECT job_id FROM wf_job_text_ids WHERE k IN
		(SELECT rowid FROM wf_jobs_text WHERE wf_jobs_text MATCH ? UNION ALL SELECT k FROM wf_job_text_ids
		WHERE k > (SELECT value FROM sequences WHERE name = 'wf_jobs_text')))`, any(`"app-7"`)
	if pg {
		indexed, arg = textFilter+` AND id IN (SELECT job_id FROM wf_job_text WHERE txt LIKE ? ESCAPE '\')`, any(text)
	}
	qs = append(qs,
		planQuery{"jobs list by text: page", "SELECT " + briefJobCols + " FROM wf_jobs WHERE " + indexed + page, []any{text, text, text, text, arg}},
		planQuery{"jobs list by text: capped total", "SELECT COUNT(*) FROM (SELECT 1 FROM wf_jobs WHERE " + indexed + " LIMIT 10001) c", []any{text, text, text, text, arg}})
	qs = append(qs,
		planQuery{"coordinator list: page", "SELECT id FROM coord_jobs ORDER BY created_ms DESC, id DESC LIMIT 50 OFFSET 0", nil},
		planQuery{"coordinator list: total", "SELECT COUNT(*) FROM coord_jobs", nil},
		planQuery{"workflow info: job", "SELECT * FROM wf_jobs WHERE id = ?", []any{wf}},
		planQuery{"workflow info: actions", "SELECT * FROM wf_actions WHERE job_id = ? ORDER BY seq, id", []any{wf}},
		planQuery{"workflow info: children", "SELECT * FROM wf_jobs WHERE parent_id = ? ORDER BY created_ms DESC, id DESC", []any{wf}},
		planQuery{"action info", "SELECT * FROM wf_actions WHERE id = ?", []any{wf + "@s1"}},
		planQuery{"workflow log", "SELECT id, job_id, action_id, time_ms, level, message FROM job_logs WHERE job_id = ? AND id > ? ORDER BY id", []any{wf, 0}},
		planQuery{"coordinator info: job", "SELECT * FROM coord_jobs WHERE id = ?", []any{co}},
		planQuery{"coordinator info: actions page", "SELECT * FROM coord_actions WHERE job_id = ? ORDER BY number DESC LIMIT 1000 OFFSET 0", []any{co}},
		planQuery{"coordinator info: counts", "SELECT status, COUNT(*) FROM coord_actions WHERE job_id = ? GROUP BY status", []any{co}},
		planQuery{"coordinator action info", "SELECT * FROM coord_actions WHERE id = ?", []any{co + "@1"}},
		planQuery{"coordinator action's run", "SELECT * FROM wf_jobs WHERE parent_id = ? ORDER BY created_ms DESC, id DESC", []any{co + "@1"}},
	)
	// The purge's candidates of its workflow steps, a round with
	// nothing to delete (sqlstore.PurgeScan): read from the partial
	// indexes in their order, not sorted.
	for _, step := range []store.PurgeStep{store.PurgeWorkflows, store.PurgeCoordActions} {
		qs = append(qs, planQuery{"purge scan: " + step.String(), sqlstore.PurgeScan(step, !pg),
			[]any{int64(1) << 50, int64(0), int64(0), "", 1000}})
	}
	return qs
}

// explain prints the plan of every request query on the store o names.
func explain(ctx context.Context, w io.Writer, o options) error {
	if o.plan.Running < 0 {
		o.plan.Running = o.plan.Coords
	}
	qs := requestQueries(o.plan, o.data == "")
	if o.data != "" {
		db, err := sql.Open("sqlite", "file:"+filepath.Join(o.data, "gozie.db")+"?mode=ro")
		if err != nil {
			return err
		}
		defer db.Close()
		for _, q := range qs {
			rows, err := db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q.sql, q.args...)
			if err != nil {
				return fmt.Errorf("%s: %w", q.request, err)
			}
			var lines []string
			for rows.Next() {
				var id, parent, unused int
				var detail string
				if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
					rows.Close()
					return err
				}
				lines = append(lines, detail)
			}
			rows.Close()
			fmt.Fprintf(w, "%-40s %s\n", q.request, strings.Join(lines, "; "))
		}
		return nil
	}
	dsn, err := schemaDSN(o.dsn, o.schema)
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, q := range qs {
		rows, err := conn.Query(ctx, "EXPLAIN "+sqlstore.Rebind(q.sql), q.args...)
		if err != nil {
			return fmt.Errorf("%s: %w", q.request, err)
		}
		var lines []string
		for rows.Next() {
			var l string
			if err := rows.Scan(&l); err != nil {
				rows.Close()
				return err
			}
			lines = append(lines, strings.TrimSpace(l))
		}
		rows.Close()
		fmt.Fprintf(w, "%-40s %s\n", q.request, strings.Join(lines, " | "))
	}
	return nil
}
