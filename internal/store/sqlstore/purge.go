package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// The statuses in which a coordinator or bundle has ended for a purge, as
// Oozie's purge queries list them (IGNORED and the paused or
// suspended ones excluded: an operator may still change them).
var purgeEnded = map[string]bool{store.CoordSucceeded: true, store.CoordFailed: true, store.CoordKilled: true,
	store.CoordDoneWithError: true}

// purgeScans read a table in the order of its purge index (SQLite's
// 0013, PostgreSQL's 0015 migration): by the time a job ended (a workflow
// without an end by its last modification) and then id, from the cursor
// up to the cut-off, a window at a time; the rest of the purge rules are
// applied to the rows in Go. A round with nothing to delete thus reads
// only the jobs that ended before the cut-off and must stay, not every
// job (a walk by primary key read all 1,000,000 rows of a seeded store,
// 4 to 11 s per round). The key is the row's last column.
//
// The workflows' step reads only workflows without a parent, through the
// partial index wf_jobs_purge_top (SQLite 0015, PostgreSQL 0018): the
// children of coordinators and of other workflows go with their parent,
// and a store holds far more of them (a coordinator's every run) than of
// workflows submitted alone.
var purgeScans = map[store.PurgeStep]string{
	store.PurgeWorkflows:    wfTopScan,
	store.PurgeCoordActions: wfScan,
	store.PurgeCoords: `SELECT id, parent_id, status, end_ms, last_mod_ms, last_mod_ms FROM coord_jobs
		WHERE last_mod_ms < ? AND last_mod_ms >= ? AND (last_mod_ms, id) > (?, ?) ORDER BY last_mod_ms, id LIMIT ?`,
	store.PurgeBundles: `SELECT id, '', status, end_ms, last_mod_ms, last_mod_ms FROM bundle_jobs
		WHERE last_mod_ms < ? AND last_mod_ms >= ? AND (last_mod_ms, id) > (?, ?) ORDER BY last_mod_ms, id LIMIT ?`,
}

// wfScan is the scan of the old coordinator actions' step: every ended
// workflow. The expression and the status list must stay those of the
// partial index wf_jobs_purge (SQLite 0015, PostgreSQL 0018) for the
// databases to use it; the rules check the status again. The lower
// bound is repeated outside the row value because SQLite starts its
// range scan only from a bound on the index's first column (without it
// every window would read the index again from its start).
const wfScan = `SELECT id, parent_id, status, end_ms, last_mod_ms, COALESCE(end_ms, last_mod_ms) FROM wf_jobs
		WHERE status IN ('SUCCEEDED', 'KILLED', 'FAILED')
		AND COALESCE(end_ms, last_mod_ms) < ? AND COALESCE(end_ms, last_mod_ms) >= ?
		AND (COALESCE(end_ms, last_mod_ms), id) > (?, ?)
		ORDER BY COALESCE(end_ms, last_mod_ms), id LIMIT ?`

// purgeIndexes are the indexes of the workflow scans, named in them
// where the dialect asks for hints (Dialect.IndexHints).
var purgeIndexes = map[store.PurgeStep]string{
	store.PurgeWorkflows:    "wf_jobs_purge_top",
	store.PurgeCoordActions: "wf_jobs_purge",
}

// PurgeScan is the statement reading the candidates of a purge step,
// with its index named where hints says so (Dialect.IndexHints); its
// arguments are the scan's bound, the cursor's key twice, the cursor's id
// and the window. Exported for bench/seed's plans.
func PurgeScan(step store.PurgeStep, hints bool) string {
	q := purgeScans[step]
	if idx := purgeIndexes[step]; idx != "" && hints {
		q = strings.Replace(q, "FROM wf_jobs", "FROM wf_jobs INDEXED BY "+idx, 1)
	}
	return q
}

// wfTopScan is the workflows' step: the ended workflows without a
// parent, through the partial index wf_jobs_purge_top, whose conditions
// it repeats as written there.
const wfTopScan = `SELECT id, parent_id, status, end_ms, last_mod_ms, COALESCE(end_ms, last_mod_ms) FROM wf_jobs
		WHERE status IN ('SUCCEEDED', 'KILLED', 'FAILED') AND parent_id = ''
		AND COALESCE(end_ms, last_mod_ms) < ? AND COALESCE(end_ms, last_mod_ms) >= ?
		AND (COALESCE(end_ms, last_mod_ms), id) > (?, ?)
		ORDER BY COALESCE(end_ms, last_mod_ms), id LIMIT ?`

// scanBound is the exclusive upper bound of the purge scan's key: a
// workflow goes when it ended before the cut-off, a coordinator or
// bundle when last modified at or before it.
func scanBound(step store.PurgeStep, r store.PurgeRules) int64 {
	switch step {
	case store.PurgeCoords:
		return r.CoordBefore.UnixMilli() + 1
	case store.PurgeBundles:
		return r.BundleBefore.UnixMilli() + 1
	}
	return r.WorkflowBefore.UnixMilli()
}

// scanCursor is a position of the purge scan, (key, id), as a string that
// sorts as the position does (the purge service and its tests only pass
// it back, or check that it advances): the key offset to an unsigned,
// zero-padded to 20 digits, then the id.
func scanCursor(key int64, id string) string {
	return fmt.Sprintf("%020d/%s", uint64(key)^1<<63, id)
}

// parseCursor reads a scanCursor; "" is the start of the scan.
func parseCursor(after string) (int64, string, error) {
	if after == "" {
		return math.MinInt64, "", nil
	}
	k, id, ok := strings.Cut(after, "/")
	u, err := strconv.ParseUint(k, 10, 64)
	if !ok || err != nil || len(k) != 20 {
		return 0, "", store.Errorf("purge: bad cursor %q", after)
	}
	return int64(u ^ 1<<63), id, nil
}

// inChunk bounds the ids of one IN list (SQLite's limit on parameters is
// far above it).
const inChunk = 500

// PurgeBatch implements store.Purger: the candidates are read outside the
// write transaction (a scan the engines' commits need not wait for), then
// checked again, locked, expanded to their children and deleted in one.
func (db *DB) PurgeBatch(ctx context.Context, step store.PurgeStep, r store.PurgeRules, after string) (store.PurgeCount, string, error) {
	if r.Limit <= 0 {
		r.Limit = 100
	}
	roots, next, err := db.purgeCandidates(ctx, step, r, after)
	if err != nil || len(roots) == 0 {
		return store.PurgeCount{}, "", err
	}
	var count store.PurgeCount
	err = db.retry(ctx, func() error {
		sqlTx, err := db.Write.BeginTx(ctx, nil)
		if err != nil {
			return store.Errorf("%s: purge: begin: %w", db.Dialect.Name, err)
		}
		p := &purgeTx{db: db, tx: sqlTx, rules: r}
		if err := p.purge(ctx, step, roots); err != nil {
			_ = sqlTx.Rollback()
			return err
		}
		if err := sqlTx.Commit(); err != nil {
			return store.Errorf("%s: purge: commit: %w", db.Dialect.Name, err)
		}
		count = p.count
		return nil
	})
	return count, next, err
}

// purgeCandidates scans from after for up to r.Limit roots of step and
// returns them with the cursor of the next batch ("" at the scan's end).
func (db *DB) purgeCandidates(ctx context.Context, step store.PurgeStep, r store.PurgeRules, after string) ([]string, string, error) {
	fail := func(err error) ([]string, string, error) {
		return nil, "", db.classify(store.Errorf("%s: purge candidates: %w", db.Dialect.Name, err))
	}
	key, at, err := parseCursor(after)
	if err != nil {
		return nil, "", err
	}
	window := max(10*r.Limit, 1000)
	q, bound := db.rebind(PurgeScan(step, db.Dialect.IndexHints)), scanBound(step, r)
	var roots []string
	seen := map[string]bool{}
	for {
		rows, err := db.Read.QueryContext(ctx, q, bound, key, key, at, window)
		if err != nil {
			return fail(err)
		}
		n := 0
		for rows.Next() {
			n++
			var id, parent, status string
			var end, lastMod sql.NullInt64
			if err := rows.Scan(&id, &parent, &status, &end, &lastMod, &key); err != nil {
				rows.Close()
				return fail(err)
			}
			at = id
			root, ok := candidate(step, r, id, parent, status, end, lastMod)
			if !ok || seen[root] {
				continue
			}
			seen[root] = true
			roots = append(roots, root)
			if len(roots) == r.Limit {
				rows.Close()
				return roots, scanCursor(key, id), nil
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return fail(err)
		}
		if n < window {
			return roots, "", nil
		}
	}
}

// candidate applies the rules of step to a scanned row and names the
// root it selects: the job itself, or for the old coordinator actions the
// action that ran the workflow.
func candidate(step store.PurgeStep, r store.PurgeRules, id, parent, status string, end, lastMod sql.NullInt64) (string, bool) {
	switch step {
	case store.PurgeWorkflows:
		return id, parent == "" && workflowEnded(status, end, lastMod, r.WorkflowBefore.UnixMilli())
	case store.PurgeCoordActions:
		return parent, strings.Contains(parent, "C@") && workflowEnded(status, end, lastMod, r.WorkflowBefore.UnixMilli())
	case store.PurgeCoords:
		return id, parent == "" && jobEnded(status, lastMod, r.CoordBefore.UnixMilli())
	case store.PurgeBundles:
		return id, jobEnded(status, lastMod, r.BundleBefore.UnixMilli())
	}
	return "", false
}

// purgeTx is one purge batch's transaction: the jobs it found that may
// go, each under the root it was reached from, and the roots that must
// stay because something under them may not go yet.
type purgeTx struct {
	db    *DB
	tx    *sql.Tx
	rules store.PurgeRules
	count store.PurgeCount

	wfs, coords, bundles, actions map[string]string // id -> root
	keep                          map[string]bool   // roots that stay
}

// node is a job or coordinator action reached from a root.
type node struct{ id, root string }

// purge removes the roots of step and everything under them.
func (p *purgeTx) purge(ctx context.Context, step store.PurgeStep, roots []string) error {
	p.wfs, p.coords, p.bundles, p.actions = map[string]string{}, map[string]string{}, map[string]string{}, map[string]string{}
	p.keep = map[string]bool{}
	var wfs, coords, actions []node
	var err error
	switch step {
	case store.PurgeWorkflows:
		wfs, err = p.workflows(ctx, `id`, roots, func(id, _ string) string { return id })
	case store.PurgeCoordActions:
		actions, err = p.coordActions(ctx, roots)
	case store.PurgeCoords:
		coords, err = p.coordJobs(ctx, `id`, roots, func(id, _ string) string { return id })
	case store.PurgeBundles:
		coords, err = p.bundleJobs(ctx, roots)
	}
	if err != nil {
		return err
	}
	// Down the tree: a coordinator's actions, their workflows, the
	// sub-workflows of those, level by level.
	if len(coords) > 0 {
		if actions, err = p.actionsOf(ctx, coords); err != nil {
			return err
		}
	}
	if len(actions) > 0 {
		if wfs, err = p.childWorkflows(ctx, actions, wfs); err != nil {
			return err
		}
	}
	for level := wfs; len(level) > 0; {
		if level, err = p.childWorkflows(ctx, level, nil); err != nil {
			return err
		}
	}
	return p.deleteAll(ctx, step)
}

// workflowEnded is the purge rule of a workflow: ended, and its end
// (without one, its last modification) before the cut-off.
func workflowEnded(status string, end, lastMod sql.NullInt64, cut int64) bool {
	if !store.Terminal(status) {
		return false
	}
	at := end
	if !at.Valid {
		at = lastMod
	}
	return at.Valid && at.Int64 < cut
}

// jobEnded is the purge rule of a coordinator or bundle: in one of
// Oozie's ended statuses, last modified at or before the cut-off.
func jobEnded(status string, lastMod sql.NullInt64, cut int64) bool {
	return purgeEnded[status] && lastMod.Valid && lastMod.Int64 <= cut
}

// workflows reads the workflow jobs whose column col is one of ids,
// locked; rootOf names each one's root. A workflow that may not go keeps
// its root.
func (p *purgeTx) workflows(ctx context.Context, col string, ids []string, rootOf func(id, parent string) string) ([]node, error) {
	var out []node
	err := p.selectIn(ctx, `SELECT id, parent_id, status, end_ms, last_mod_ms FROM wf_jobs WHERE `+col+` IN (%s)`, ids, true,
		func(rows *sql.Rows) error {
			var id, parent, status string
			var end, lastMod sql.NullInt64
			if err := rows.Scan(&id, &parent, &status, &end, &lastMod); err != nil {
				return err
			}
			root := rootOf(id, parent)
			if root == "" {
				return nil
			}
			if !workflowEnded(status, end, lastMod, p.rules.WorkflowBefore.UnixMilli()) {
				p.keep[root] = true
				return nil
			}
			if _, dup := p.wfs[id]; !dup {
				p.wfs[id] = root
				out = append(out, node{id, root})
			}
			return nil
		})
	return out, err
}

// childWorkflows reads the workflows whose parent is one of level's (a
// workflow's sub-workflows, a coordinator action's runs) and appends
// them to into.
func (p *purgeTx) childWorkflows(ctx context.Context, level []node, into []node) ([]node, error) {
	roots := make(map[string]string, len(level))
	ids := make([]string, 0, len(level))
	for _, n := range level {
		roots[n.id] = n.root
		ids = append(ids, n.id)
	}
	found, err := p.workflows(ctx, `parent_id`, ids, func(id, parent string) string {
		if _, dup := p.wfs[id]; dup {
			return "" // a cycle of parents, which the engines never make
		}
		return roots[parent]
	})
	return append(into, found...), err
}

// coordJobs reads the coordinator jobs whose column col is one of ids,
// locked, as wfs does for workflows.
func (p *purgeTx) coordJobs(ctx context.Context, col string, ids []string, rootOf func(id, parent string) string) ([]node, error) {
	var out []node
	cut := p.rules.CoordBefore.UnixMilli()
	err := p.selectIn(ctx, `SELECT id, parent_id, status, last_mod_ms FROM coord_jobs WHERE `+col+` IN (%s)`, ids, true,
		func(rows *sql.Rows) error {
			var id, parent, status string
			var lastMod sql.NullInt64
			if err := rows.Scan(&id, &parent, &status, &lastMod); err != nil {
				return err
			}
			root := rootOf(id, parent)
			if col == `id` && parent != "" {
				return nil // a bundle's coordinator goes with its bundle
			}
			if !jobEnded(status, lastMod, cut) {
				p.keep[root] = true
				return nil
			}
			p.coords[id] = root
			out = append(out, node{id, root})
			return nil
		})
	return out, err
}

// bundleJobs reads the bundle roots, locked, and their coordinators.
func (p *purgeTx) bundleJobs(ctx context.Context, ids []string) ([]node, error) {
	cut := p.rules.BundleBefore.UnixMilli()
	var found []string
	err := p.selectIn(ctx, `SELECT id, status, last_mod_ms FROM bundle_jobs WHERE id IN (%s)`, ids, true,
		func(rows *sql.Rows) error {
			var id, status string
			var lastMod sql.NullInt64
			if err := rows.Scan(&id, &status, &lastMod); err != nil {
				return err
			}
			if jobEnded(status, lastMod, cut) {
				p.bundles[id] = id
				found = append(found, id)
			}
			return nil
		})
	if err != nil || len(found) == 0 {
		return nil, err
	}
	return p.coordJobs(ctx, `parent_id`, found, func(_, parent string) string { return parent })
}

// coordActions reads the coordinator actions of the old-actions step,
// locked: only an ended action goes, with its runs.
func (p *purgeTx) coordActions(ctx context.Context, ids []string) ([]node, error) {
	var out []node
	err := p.selectIn(ctx, `SELECT id, status FROM coord_actions WHERE id IN (%s)`, ids, true,
		func(rows *sql.Rows) error {
			var id, status string
			if err := rows.Scan(&id, &status); err != nil {
				return err
			}
			if vocab.IsTerminal(vocab.CoordActionStatus(status)) {
				p.actions[id] = id
				out = append(out, node{id, id})
			}
			return nil
		})
	return out, err
}

// actionsOf lists the actions of coordinators (deleted with them by job,
// so not recorded one by one).
func (p *purgeTx) actionsOf(ctx context.Context, coords []node) ([]node, error) {
	roots := make(map[string]string, len(coords))
	ids := make([]string, 0, len(coords))
	for _, n := range coords {
		roots[n.id] = n.root
		ids = append(ids, n.id)
	}
	var out []node
	err := p.selectIn(ctx, `SELECT id, job_id FROM coord_actions WHERE job_id IN (%s)`, ids, false,
		func(rows *sql.Rows) error {
			var id, job string
			if err := rows.Scan(&id, &job); err != nil {
				return err
			}
			out = append(out, node{id, roots[job]})
			return nil
		})
	return out, err
}

// selectIn runs q (with "%s" where the IN list goes) over ids in chunks,
// with the dialect's row lock when lock is set, and hands every row to
// scan.
func (p *purgeTx) selectIn(ctx context.Context, q string, ids []string, lock bool, scan func(*sql.Rows) error) error {
	if lock {
		q += p.db.Dialect.RowLock
	}
	return chunks(ids, func(ph string, args []any) error {
		rows, err := p.tx.QueryContext(ctx, p.db.rebind(strings.Replace(q, "%s", ph, 1)), args...)
		if err != nil {
			return store.Errorf("%s: purge: %w", p.db.Dialect.Name, err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return store.Errorf("%s: purge: %w", p.db.Dialect.Name, err)
			}
		}
		return rows.Err()
	})
}

// deleteIn runs a DELETE (q with "%s" where the IN list goes, after the
// fixed arguments pre) over ids in chunks and counts the rows.
func (p *purgeTx) deleteIn(ctx context.Context, q string, ids []string, pre ...any) (int64, error) {
	var n int64
	err := chunks(ids, func(ph string, args []any) error {
		res, err := p.tx.ExecContext(ctx, p.db.rebind(strings.Replace(q, "%s", ph, 1)), append(append([]any{}, pre...), args...)...)
		if err != nil {
			return store.Errorf("%s: purge: %w", p.db.Dialect.Name, err)
		}
		k, err := res.RowsAffected()
		n += k
		return err
	})
	return n, err
}

// chunks calls fn with the placeholders and arguments of ids, at most
// inChunk at a time.
func chunks(ids []string, fn func(ph string, args []any) error) error {
	for len(ids) > 0 {
		k := min(len(ids), inChunk)
		args := make([]any, k)
		for i, id := range ids[:k] {
			args[i] = id
		}
		if err := fn(placeholders(k), args); err != nil {
			return err
		}
		ids = ids[k:]
	}
	return nil
}

// kept lists the ids of m whose root goes.
func (p *purgeTx) kept(m map[string]string) []string {
	var out []string
	for id, root := range m {
		if !p.keep[root] {
			out = append(out, id)
		}
	}
	return out
}

// deleteAll deletes every row of what may go, children first (Oozie's
// order; one transaction either way).
func (p *purgeTx) deleteAll(ctx context.Context, step store.PurgeStep) error {
	type del struct {
		q   string
		ids []string
		n   *int
	}
	wfs, coords, bundles := p.kept(p.wfs), p.kept(p.coords), p.kept(p.bundles)
	var actionRows int
	dels := []del{
		// Workflows: their records, log lines, pending effects (done
		// ones are deleted when done), SLA records, then the jobs.
		{`DELETE FROM wf_actions WHERE job_id IN (%s)`, wfs, nil},
		{`DELETE FROM job_logs WHERE job_id IN (%s)`, wfs, nil},
		{`DELETE FROM wf_effects WHERE job_id IN (%s) AND done_ms IS NULL`, wfs, nil},
		{`DELETE FROM sla WHERE job_id IN (%s)`, wfs, nil},
		{`DELETE FROM wf_jobs WHERE id IN (%s)`, wfs, &p.count.Workflows},
		// Coordinators: their actions and the same.
		{`DELETE FROM coord_actions WHERE job_id IN (%s)`, coords, &actionRows},
		{`DELETE FROM job_logs WHERE job_id IN (%s)`, coords, nil},
		{`DELETE FROM wf_effects WHERE job_id IN (%s) AND done_ms IS NULL`, coords, nil},
		{`DELETE FROM sla WHERE job_id IN (%s)`, coords, nil},
		{`DELETE FROM coord_jobs WHERE id IN (%s)`, coords, &p.count.Coords},
		// Bundles: their bundle actions and the same.
		{`DELETE FROM bundle_actions WHERE bundle_id IN (%s)`, bundles, nil},
		{`DELETE FROM job_logs WHERE job_id IN (%s)`, bundles, nil},
		{`DELETE FROM wf_effects WHERE job_id IN (%s) AND done_ms IS NULL`, bundles, nil},
		{`DELETE FROM bundle_jobs WHERE id IN (%s)`, bundles, &p.count.Bundles},
	}
	for _, d := range dels {
		n, err := p.deleteIn(ctx, d.q, d.ids)
		if err != nil {
			return err
		}
		p.count.Rows += n
		if d.n != nil {
			*d.n += int(n)
		}
	}
	if step == store.PurgeCoordActions {
		if err := p.deleteActions(ctx); err != nil {
			return err
		}
	}
	p.count.CoordActions += actionRows
	return nil
}

// deleteActions deletes the coordinator actions of the old-actions step
// one coordinator at a time (their log lines and effects are the
// coordinator's, keyed by its id).
func (p *purgeTx) deleteActions(ctx context.Context) error {
	byJob := map[string][]string{}
	for _, id := range p.kept(p.actions) {
		byJob[vocab.JobOf(id)] = append(byJob[vocab.JobOf(id)], id)
	}
	for job, ids := range byJob {
		for _, q := range []string{
			`DELETE FROM job_logs WHERE job_id = ? AND action_id IN (%s)`,
			`DELETE FROM wf_effects WHERE job_id = ? AND done_ms IS NULL AND action_id IN (%s)`,
		} {
			n, err := p.deleteIn(ctx, q, ids, job)
			if err != nil {
				return err
			}
			p.count.Rows += n
		}
		n, err := p.deleteIn(ctx, `DELETE FROM sla WHERE id IN (%s)`, ids)
		if err != nil {
			return err
		}
		p.count.Rows += n
		if n, err = p.deleteIn(ctx, `DELETE FROM coord_actions WHERE id IN (%s)`, ids); err != nil {
			return err
		}
		p.count.Rows += n
		p.count.CoordActions += int(n)
	}
	return nil
}

// PurgeLock implements store.Purger: PostgreSQL's session advisory lock
// (Dialect.PurgeLock) on a connection held for the round, which the
// database frees by itself if the server dies; in process a mutex (a
// SQLite database serves one server).
func (db *DB) PurgeLock(ctx context.Context) (func(), bool, error) {
	if db.Dialect.PurgeLock == "" {
		if !db.purgeMu.TryLock() {
			return nil, false, nil
		}
		return db.purgeMu.Unlock, true, nil
	}
	conn, err := db.Write.Conn(ctx)
	if err != nil {
		return nil, false, db.classify(store.Errorf("%s: purge lock: %w", db.Dialect.Name, err))
	}
	var ok bool
	if err := conn.QueryRowContext(ctx, db.Dialect.PurgeLock).Scan(&ok); err != nil || !ok {
		conn.Close()
		if err != nil {
			return nil, false, db.classify(store.Errorf("%s: purge lock: %w", db.Dialect.Name, err))
		}
		return nil, false, nil
	}
	return func() {
		// Closing the connection returns it to the pool still holding
		// the lock: unlock first; if that fails, drop the connection so
		// that the session (and its lock) ends.
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), db.Dialect.PurgeUnlock); err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		conn.Close()
	}, true, nil
}

// Reclaim implements store.Purger through Dialect.Reclaim.
func (db *DB) Reclaim(ctx context.Context) (int64, error) {
	if db.Dialect.Reclaim == nil {
		return 0, nil
	}
	n, err := db.Dialect.Reclaim(ctx, db.Write)
	return n, db.classify(err)
}
