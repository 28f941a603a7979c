package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// ownerQueries are the statements of job ownership; lock is the dialect's
// ShareLock, appended to the checks a fenced commit makes.
func ownerQueries(lock string) map[string]string {
	return map[string]string{
		"ownerWorkflowLocked": `SELECT owner FROM wf_jobs WHERE id = ?` + lock,
		"ownerCoordLocked":    `SELECT owner FROM coord_jobs WHERE id = ?` + lock,
		"ownerWorkflow":       `SELECT owner FROM wf_jobs WHERE id = ?`,
		"ownerCoord":          `SELECT owner FROM coord_jobs WHERE id = ?`,
		"ownerBundleLocked":   `SELECT owner FROM bundle_jobs WHERE id = ?` + lock,
		"ownerBundle":         `SELECT owner FROM bundle_jobs WHERE id = ?`,
		"registerServer": `INSERT INTO servers (id, name, url, version, started_ms, heartbeat_ms, beat, load, host, data_dir, data_id)
			VALUES (?, ?, ?, ?, ?, ?, 1, 0, ?, ?, ?)`,
		"heartbeat": `UPDATE servers SET heartbeat_ms = ?, beat = beat + 1, load = ? WHERE id = ?`,
		"servers": `SELECT id, name, url, version, started_ms, heartbeat_ms, beat, load, host, data_dir, data_id
			FROM servers ORDER BY name, id`,
		"serverBeat":   `SELECT beat FROM servers WHERE id = ?`,
		"moveJobs":     `UPDATE wf_jobs SET owner = ? WHERE owner = ?`,
		"moveCoords":   `UPDATE coord_jobs SET owner = ? WHERE owner = ?`,
		"moveBundles":  `UPDATE bundle_jobs SET owner = ? WHERE owner = ?`,
		"deleteServer": `DELETE FROM servers WHERE id = ?`,
		"countOwned": `SELECT (SELECT COUNT(*) FROM wf_jobs WHERE owner = ? AND status IN ('PREP', 'RUNNING', 'SUSPENDED'))
			+ (SELECT COUNT(*) FROM coord_jobs WHERE owner = ? AND status NOT IN ('SUCCEEDED', 'DONEWITHERROR', 'KILLED', 'FAILED', 'IGNORED'))
			+ (SELECT COUNT(*) FROM bundle_jobs WHERE owner = ? AND status NOT IN ('SUCCEEDED', 'DONEWITHERROR', 'KILLED', 'FAILED'))`,
		// Steps whose outcome only the instance's host can tell: starts
		// pending (perhaps launched, not yet recorded) and RUNNING
		// steps. Sub-workflows run nowhere but in the store.
		"countHostSteps": `SELECT (SELECT COUNT(*) FROM wf_effects e JOIN wf_jobs j ON j.id = e.job_id
				LEFT JOIN wf_actions a ON a.id = e.action_id
				WHERE j.owner = ? AND e.kind = 'start' AND e.done_ms IS NULL AND COALESCE(a.type, '') <> 'sub-workflow')
			+ (SELECT COUNT(*) FROM wf_actions a JOIN wf_jobs j ON j.id = a.job_id
				WHERE j.owner = ? AND a.status = 'RUNNING' AND a.type <> 'sub-workflow')`,
	}
}

// moveQueries move the jobs of every kind from one instance to another
// (arguments: the new owner, the old one).
var moveQueries = []string{"moveJobs", "moveCoords", "moveBundles"}

// errNoCluster refuses the cluster calls on a database several servers
// cannot share safely (SQLite: one server per data directory).
var errNoCluster = errors.New("several servers need a shared PostgreSQL store; this database serves one server")

func (db *DB) clustered() error {
	if db.Dialect.ShareLock == "" {
		return store.Errorf("%s: %w", db.Dialect.Name, errNoCluster)
	}
	return nil
}

// Register implements store.Cluster: the instance's row, and from now on
// the store's new jobs are s.ID's and its commits are fenced by it.
func (db *DB) Register(ctx context.Context, s store.ServerInfo) error {
	if err := db.clustered(); err != nil {
		return err
	}
	_, err := db.Write.ExecContext(ctx, db.q["registerServer"], s.ID, s.Name, s.URL, s.Version,
		ms(s.Started), time.Now().UnixMilli(), s.Host, s.DataDir, s.DataID)
	if err != nil {
		return db.classify(store.Errorf("%s: register server: %w", db.Dialect.Name, err))
	}
	id := s.ID
	db.owner.Store(&id)
	return nil
}

// Heartbeat implements store.Cluster.
func (db *DB) Heartbeat(ctx context.Context, id string, load int) error {
	res, err := db.Write.ExecContext(ctx, db.q["heartbeat"], time.Now().UnixMilli(), load, id)
	if err != nil {
		return db.classify(store.Errorf("%s: heartbeat: %w", db.Dialect.Name, err))
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("server instance %s: %w", id, store.ErrNotOwner)
	}
	return nil
}

// Servers implements store.Cluster.
func (db *DB) Servers(ctx context.Context) ([]store.ServerInfo, error) {
	rows, err := db.Read.QueryContext(ctx, db.q["servers"])
	if err != nil {
		return nil, db.classify(store.Errorf("%s: servers: %w", db.Dialect.Name, err))
	}
	defer rows.Close()
	var out []store.ServerInfo
	for rows.Next() {
		var s store.ServerInfo
		var started, beatAt sql.NullInt64
		if err := rows.Scan(&s.ID, &s.Name, &s.URL, &s.Version, &started, &beatAt, &s.Beat, &s.Load,
			&s.Host, &s.DataDir, &s.DataID); err != nil {
			return nil, store.Errorf("%s: servers: %w", db.Dialect.Name, err)
		}
		s.Started, s.Heartbeat = fromMS(started), fromMS(beatAt)
		out = append(out, s)
	}
	return out, db.classify(rows.Err())
}

// TakeOver implements store.Cluster. Under the dialect's TakeOverLock it
// re-reads dead's beat: a heartbeat that arrived since the caller looked
// means dead is alive, and nothing moves.
func (db *DB) TakeOver(ctx context.Context, me, dead string, beat int64) (bool, error) {
	if err := db.clustered(); err != nil {
		return false, err
	}
	moved := false
	err := db.direct(ctx, func(t *sql.Tx) error {
		moved = false
		if db.Dialect.TakeOverLock != "" {
			if _, err := t.ExecContext(ctx, db.Dialect.TakeOverLock); err != nil {
				return err
			}
		}
		var now int64
		err := t.QueryRowContext(ctx, db.q["serverBeat"], dead).Scan(&now)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if now != beat {
			return nil
		}
		for _, q := range moveQueries {
			if _, err := t.ExecContext(ctx, db.q[q], me, dead); err != nil {
				return err
			}
		}
		if _, err := t.ExecContext(ctx, db.q["deleteServer"], dead); err != nil {
			return err
		}
		moved = true
		return nil
	})
	if err != nil {
		return false, store.Errorf("%s: take over %s: %w", db.Dialect.Name, dead, err)
	}
	return moved, nil
}

// ClaimUnowned implements store.Cluster.
func (db *DB) ClaimUnowned(ctx context.Context, me string) (int, error) {
	if err := db.clustered(); err != nil {
		return 0, err
	}
	var n int64
	err := db.direct(ctx, func(t *sql.Tx) error {
		n = 0
		if db.Dialect.TakeOverLock != "" {
			if _, err := t.ExecContext(ctx, db.Dialect.TakeOverLock); err != nil {
				return err
			}
		}
		for _, q := range moveQueries {
			res, err := t.ExecContext(ctx, db.q[q], me, "")
			if err != nil {
				return err
			}
			k, _ := res.RowsAffected()
			n += k
		}
		return nil
	})
	if err != nil {
		return 0, store.Errorf("%s: claim unowned jobs: %w", db.Dialect.Name, err)
	}
	return int(n), nil
}

// Owner implements store.Cluster.
func (db *DB) Owner(ctx context.Context, jobID string) (string, error) {
	var owner string
	err := db.Read.QueryRowContext(ctx, db.q[ownerQuery(jobID)], jobID).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return "", store.ErrNotFound
	}
	if err != nil {
		return "", db.classify(store.Errorf("%s: owner of %s: %w", db.Dialect.Name, jobID, err))
	}
	return owner, nil
}

// CountOwned implements store.Cluster.
func (db *DB) CountOwned(ctx context.Context, id string) (int, error) {
	var n int
	if err := db.Read.QueryRowContext(ctx, db.q["countOwned"], id, id, id).Scan(&n); err != nil {
		return 0, db.classify(store.Errorf("%s: jobs of %s: %w", db.Dialect.Name, id, err))
	}
	return n, nil
}

// CountHostSteps implements store.Cluster.
func (db *DB) CountHostSteps(ctx context.Context, id string) (int, error) {
	var n int
	if err := db.Read.QueryRowContext(ctx, db.q["countHostSteps"], id, id).Scan(&n); err != nil {
		return 0, db.classify(store.Errorf("%s: steps of %s: %w", db.Dialect.Name, id, err))
	}
	return n, nil
}

// direct runs fn in a write transaction of its own, run again on the
// dialect's retryable conflicts (a deadlock with a fenced commit).
func (db *DB) direct(ctx context.Context, fn func(*sql.Tx) error) error {
	return db.retry(ctx, func() error {
		t, err := db.Write.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := fn(t); err != nil {
			_ = t.Rollback()
			return err
		}
		return t.Commit()
	})
}

var _ store.Cluster = (*DB)(nil)
