package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// clusterProtocol is what a registering instance records in servers.protocol:
// 1, it understands servers.heir (migration 0016 on PostgreSQL). Servers of
// earlier versions register 0 (the column's default).
const clusterProtocol = 1

// ownedBy restricts a job's owner column to the jobs an instance works: its
// own, unless it was taken over, and those of the instances it inherited
// (servers.heir). Arguments: the instance, twice. The servers rows are few,
// so the jobs are then read through their owner index.
const ownedBy = ` IN (SELECT id FROM servers WHERE (id = ? AND heir IS NULL) OR heir = ?)`

// effectiveOwner is the owner of job row j: the heir of its owner when
// that instance was taken over.
const effectiveOwner = `COALESCE((SELECT s.heir FROM servers s WHERE s.id = j.owner), j.owner)`

// ownerQueries are the statements of job ownership; d's ShareLock is
// appended to the checks a fenced commit makes and its RowLock to the
// take-over's reads of the rows it changes.
func ownerQueries(d Dialect) map[string]string {
	lock := d.ShareLock
	return map[string]string{
		"ownerWorkflowLocked": `SELECT owner FROM wf_jobs WHERE id = ?` + lock,
		"ownerCoordLocked":    `SELECT owner FROM coord_jobs WHERE id = ?` + lock,
		"ownerBundleLocked":   `SELECT owner FROM bundle_jobs WHERE id = ?` + lock,
		"serverHeirLocked":    `SELECT heir FROM servers WHERE id = ?` + lock,
		"ownerWorkflow":       `SELECT ` + effectiveOwner + ` FROM wf_jobs j WHERE j.id = ?`,
		"ownerCoord":          `SELECT ` + effectiveOwner + ` FROM coord_jobs j WHERE j.id = ?`,
		"ownerBundle":         `SELECT ` + effectiveOwner + ` FROM bundle_jobs j WHERE j.id = ?`,
		"registerServer": `INSERT INTO servers (id, name, url, version, started_ms, heartbeat_ms, beat, load, host, data_dir, data_id, protocol)
			VALUES (?, ?, ?, ?, ?, ?, 1, 0, ?, ?, ?, ` + fmt.Sprint(clusterProtocol) + `)`,
		// A taken-over instance's row stays (its jobs name it) but is no
		// longer its: the heartbeat finds nothing, as if it were gone.
		"heartbeat": `UPDATE servers SET heartbeat_ms = ?, beat = beat + 1, load = ? WHERE id = ? AND heir IS NULL`,
		"servers": `SELECT id, name, url, version, started_ms, heartbeat_ms, beat, load, host, data_dir, data_id
			FROM servers WHERE heir IS NULL ORDER BY name, id`,
		// The same on a store of one server (SQLite: no servers.heir).
		"serversAlone": `SELECT id, name, url, version, started_ms, heartbeat_ms, beat, load, host, data_dir, data_id
			FROM servers ORDER BY name, id`,
		"serverBeat": `SELECT beat, protocol FROM servers WHERE id = ? AND heir IS NULL`,
		// Instances of an earlier version other than the given one, live
		// or not yet taken over.
		"oldServers": `SELECT COUNT(*) FROM servers WHERE heir IS NULL AND protocol < ` + fmt.Sprint(clusterProtocol) + ` AND id <> ?`,
		// The rows a take-over changes, locked in id order against the
		// fence (which key-share locks them) and the heartbeat.
		"lockHeirs": `SELECT id, beat FROM servers WHERE id = ? OR heir = ? ORDER BY id` + d.RowLock,
		"inherit":   `UPDATE servers SET heir = ? WHERE id = ? OR heir = ?`,
		"repoint":   `UPDATE servers SET heir = ? WHERE heir = ?`,
		// Inherited instances no job names any more are forgotten. Only the
		// instance itself creates jobs naming it, and the fence refuses the
		// commits of an instance taken over or unregistered.
		"forgetHeirs": `DELETE FROM servers s WHERE s.heir = ?
			AND NOT EXISTS (SELECT 1 FROM wf_jobs WHERE owner = s.id)
			AND NOT EXISTS (SELECT 1 FROM coord_jobs WHERE owner = s.id)
			AND NOT EXISTS (SELECT 1 FROM bundle_jobs WHERE owner = s.id)`,
		// The unowned jobs ('') are inherited through a servers row '' of
		// their own (ClaimUnowned); hidden like any taken-over instance.
		"unownedClaimed": `SELECT COUNT(*) FROM servers WHERE id = ''`,
		"countUnowned": `SELECT (SELECT COUNT(*) FROM wf_jobs WHERE owner = '') + (SELECT COUNT(*) FROM coord_jobs WHERE owner = '')
			+ (SELECT COUNT(*) FROM bundle_jobs WHERE owner = '')`,
		"claimUnowned": `INSERT INTO servers (id, name, protocol, heir) VALUES ('', '', ` + fmt.Sprint(clusterProtocol) + `, ?)`,
		"moveJobs":     `UPDATE wf_jobs SET owner = ? WHERE owner = ?`,
		"moveCoords":   `UPDATE coord_jobs SET owner = ? WHERE owner = ?`,
		"moveBundles":  `UPDATE bundle_jobs SET owner = ? WHERE owner = ?`,
		"deleteServer": `DELETE FROM servers WHERE id = ?`,
		"countOwned": `SELECT (SELECT COUNT(*) FROM wf_jobs WHERE owner` + ownedBy + ` AND status IN ('PREP', 'RUNNING', 'SUSPENDED'))
			+ (SELECT COUNT(*) FROM coord_jobs WHERE owner` + ownedBy + ` AND status NOT IN ('SUCCEEDED', 'DONEWITHERROR', 'KILLED', 'FAILED', 'IGNORED'))
			+ (SELECT COUNT(*) FROM bundle_jobs WHERE owner` + ownedBy + ` AND status NOT IN ('SUCCEEDED', 'DONEWITHERROR', 'KILLED', 'FAILED'))`,
		// Steps whose outcome only the instance's host can tell: starts
		// pending (perhaps launched, not yet recorded) and RUNNING
		// steps. Sub-workflows run nowhere but in the store.
		"countHostSteps": `SELECT (SELECT COUNT(*) FROM wf_effects e JOIN wf_jobs j ON j.id = e.job_id
				LEFT JOIN wf_actions a ON a.id = e.action_id
				WHERE j.owner` + ownedBy + ` AND e.kind = 'start' AND e.done_ms IS NULL AND COALESCE(a.type, '') <> 'sub-workflow')
			+ (SELECT COUNT(*) FROM wf_actions a JOIN wf_jobs j ON j.id = a.job_id
				WHERE j.owner` + ownedBy + ` AND a.status = 'RUNNING' AND a.type <> 'sub-workflow')`,
	}
}

// ownedArgs repeats instance o for n uses of ownedBy.
func ownedArgs(o string, n int) []any {
	args := make([]any, 2*n)
	for i := range args {
		args[i] = o
	}
	return args
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
	q := db.q["servers"]
	if db.clustered() != nil {
		q = db.q["serversAlone"]
	}
	rows, err := db.Read.QueryContext(ctx, q)
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
// means dead is alive, and nothing changes. Otherwise me inherits dead
// (servers.heir), and the instances dead had inherited: a few servers
// rows, whatever the number of jobs. While an instance of an earlier
// version is registered, which reads job owners without heirs, the jobs
// move instead, as those versions do (moveJobs).
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
		var protocol int
		err := t.QueryRowContext(ctx, db.q["serverBeat"], dead).Scan(&now, &protocol)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if now != beat {
			return nil
		}
		var old int
		if err := t.QueryRowContext(ctx, db.q["oldServers"], dead).Scan(&old); err != nil {
			return err
		}
		if protocol < clusterProtocol || old > 0 {
			moved = true
			return db.moveJobs(ctx, t, me, dead)
		}
		moved, err = db.inherit(ctx, t, me, dead, beat)
		return err
	})
	if err != nil {
		return false, store.Errorf("%s: take over %s: %w", db.Dialect.Name, dead, err)
	}
	return moved, nil
}

// inherit makes me the heir of dead and of the instances dead had
// inherited, once their rows are locked and dead's beat is still the one
// the caller saw, then forgets the inherited instances no job names.
func (db *DB) inherit(ctx context.Context, t *sql.Tx, me, dead string, beat int64) (bool, error) {
	rows, err := t.QueryContext(ctx, db.q["lockHeirs"], dead, dead)
	if err != nil {
		return false, err
	}
	alive := false
	for rows.Next() {
		var id string
		var b int64
		if err := rows.Scan(&id, &b); err != nil {
			rows.Close()
			return false, err
		}
		alive = alive || (id == dead && b != beat)
	}
	rows.Close()
	if err := rows.Err(); err != nil || alive {
		return false, err
	}
	if _, err := t.ExecContext(ctx, db.q["inherit"], me, dead, dead); err != nil {
		return false, err
	}
	_, err = t.ExecContext(ctx, db.q["forgetHeirs"], me)
	return true, err
}

// moveJobs is the take-over of the versions before heirs: dead's jobs
// are rewritten to me and its row deleted. The instances dead had
// inherited (if it was of this version) are re-pointed to me first.
// Unlike inherit it does not lock dead's row before writing the jobs: a
// fenced commit of dead locks its jobs, then dead's row, and so would
// deadlock with it.
func (db *DB) moveJobs(ctx context.Context, t *sql.Tx, me, dead string) error {
	for _, q := range moveQueries {
		if _, err := t.ExecContext(ctx, db.q[q], me, dead); err != nil {
			return err
		}
	}
	if _, err := t.ExecContext(ctx, db.q["repoint"], me, dead); err != nil {
		return err
	}
	_, err := t.ExecContext(ctx, db.q["deleteServer"], dead)
	return err
}

// ClaimUnowned implements store.Cluster. The jobs without an owner (the
// empty id) are claimed the way a take-over inherits: a servers row of the
// empty id whose heir is me, so that no job row is rewritten (a million of
// them took 35 s and left the table to vacuum). Once the row exists they
// are its heir's, and so are unowned jobs that appear later. While a
// server of an earlier version is registered, the jobs move as before.
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
		var old int
		if err := t.QueryRowContext(ctx, db.q["oldServers"], me).Scan(&old); err != nil {
			return err
		}
		if old > 0 {
			for _, q := range moveQueries {
				res, err := t.ExecContext(ctx, db.q[q], me, "")
				if err != nil {
					return err
				}
				k, _ := res.RowsAffected()
				n += k
			}
			return nil
		}
		var claimed int
		if err := t.QueryRowContext(ctx, db.q["unownedClaimed"]).Scan(&claimed); err != nil || claimed > 0 {
			return err
		}
		if err := t.QueryRowContext(ctx, db.q["countUnowned"]).Scan(&n); err != nil || n == 0 {
			return err
		}
		_, err := t.ExecContext(ctx, db.q["claimUnowned"], me)
		return err
	})
	if err != nil {
		return 0, store.Errorf("%s: claim unowned jobs: %w", db.Dialect.Name, err)
	}
	return int(n), nil
}

// Owner implements store.Cluster: the heir of the job's owner when that
// instance was taken over.
func (db *DB) Owner(ctx context.Context, jobID string) (string, error) {
	q := ownerQuery(jobID)
	if db.clustered() != nil {
		// A store of one server has no heirs (nor servers.heir, on
		// SQLite); without a ShareLock the "Locked" query reads the owner.
		q += "Locked"
	}
	var owner string
	err := db.Read.QueryRowContext(ctx, db.q[q], jobID).Scan(&owner)
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
	if err := db.Read.QueryRowContext(ctx, db.q["countOwned"], ownedArgs(id, 3)...).Scan(&n); err != nil {
		return 0, db.classify(store.Errorf("%s: jobs of %s: %w", db.Dialect.Name, id, err))
	}
	return n, nil
}

// CountHostSteps implements store.Cluster.
func (db *DB) CountHostSteps(ctx context.Context, id string) (int, error) {
	var n int
	if err := db.Read.QueryRowContext(ctx, db.q["countHostSteps"], ownedArgs(id, 2)...).Scan(&n); err != nil {
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
