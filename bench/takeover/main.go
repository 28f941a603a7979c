// Command takeover measures a cluster take-over on a PostgreSQL schema that
// bench/seed filled: every job belongs to a dead instance, the tables are
// vacuumed, then a second instance takes the dead one over, and the tool
// prints the time of the TakeOver transaction, the job rows it left dead
// (pg_stat_user_tables) and the time of a count of finished jobs before
// and after (an index-only scan, which a cleared visibility map turns into
// heap fetches).
//
//	go run ./bench/seed -dsn URL -schema heir_bench -jobs 300000
//	go run ./bench/takeover -dsn URL -schema heir_bench [-move] [-claim]
//
// -claim times instead the claim of jobs without an owner (a store of a
// version before clusters, or fresh from bench/seed) by a live instance.
//
// -move registers a third instance as a server of an earlier version
// (servers.protocol 0), so that the take-over moves the job rows as every
// take-over did before servers.heir (issue 31): the "before" of the
// comparison, on the same binary.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"net/url"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/postgres"
)

func main() {
	dsn := flag.String("dsn", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "PostgreSQL server URL")
	schema := flag.String("schema", "gozie_seed", "the schema bench/seed filled")
	move := flag.Bool("move", false, "take over the way of the versions before heirs (rewrite the job rows)")
	claim := flag.Bool("claim", false, "time the claim of jobs without an owner (ClaimUnowned) instead of a take-over")
	flag.Parse()
	if err := run(context.Background(), *dsn, *schema, *move, *claim); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, dsn, schema string, move, claim bool) error {
	u, err := url.Parse(dsn)
	if err != nil {
		return err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	raw, err := sql.Open("pgx", u.String())
	if err != nil {
		return err
	}
	defer raw.Close()
	dead, live, deadID, liveID, err := setup(ctx, u.String(), raw, move, claim)
	if err != nil {
		return err
	}
	countBefore, err := timeCount(ctx, raw)
	if err != nil {
		return err
	}
	took, err := measure(ctx, raw, live.(store.Cluster), liveID, deadID, claim)
	if err != nil {
		return err
	}
	// A backend sends its table statistics when it ends: close both.
	dead.Close()
	live.Close()
	countAfter, err := timeCount(ctx, raw)
	if err != nil {
		return err
	}
	var jobs, deadTup, upd int64
	if err := raw.QueryRowContext(ctx, `SELECT COUNT(*) FROM wf_jobs`).Scan(&jobs); err != nil {
		return err
	}
	if _, err := raw.ExecContext(ctx, `SELECT pg_stat_clear_snapshot()`); err != nil {
		return err
	}
	err = raw.QueryRowContext(ctx, `SELECT n_dead_tup, n_tup_upd FROM pg_stat_user_tables
		WHERE schemaname = current_schema() AND relname = 'wf_jobs'`).Scan(&deadTup, &upd)
	if err != nil {
		return err
	}
	mode, op := "heir", "takeover"
	if move {
		mode = "move"
	}
	if claim {
		op = "claim"
	}
	fmt.Printf("mode=%s wf_jobs=%d %s=%v wf_jobs.n_dead_tup=%d wf_jobs.n_tup_upd(since setup)=%d count(finished) before=%v after=%v\n",
		mode, jobs, op, took.Round(time.Microsecond), deadTup, upd, countBefore.Round(time.Microsecond), countAfter.Round(time.Microsecond))
	return nil
}

// measure times the take-over of deadID by liveID, or with claim the
// claim of the unowned jobs by liveID.
func measure(ctx context.Context, raw *sql.DB, live store.Cluster, liveID, deadID string, claim bool) (time.Duration, error) {
	if claim {
		began := time.Now()
		n, err := live.ClaimUnowned(ctx, liveID)
		took := time.Since(began)
		if err != nil || n == 0 {
			return 0, fmt.Errorf("claim: %d, %v", n, err)
		}
		return took, nil
	}
	var beat int64
	if err := raw.QueryRowContext(ctx, `SELECT beat FROM servers WHERE id = $1`, deadID).Scan(&beat); err != nil {
		return 0, err
	}
	began := time.Now()
	moved, err := live.TakeOver(ctx, liveID, deadID, beat)
	took := time.Since(began)
	if err != nil || !moved {
		return 0, fmt.Errorf("take-over: %v, %v", moved, err)
	}
	return took, nil
}

// setup registers the instance the jobs name as the dead one (giving
// every job to dead#bench first on a store fresh from bench/seed, whose
// jobs have no owner; later runs reuse the owner the last one left, so that
// no setup rewrites the rows the measure reads), vacuums the job tables,
// resets their statistics, and registers a live instance (and, for move, an
// instance of an earlier version). With claim the jobs are left without
// an owner (rewritten so if a run gave them one) and no dead instance
// registers.
func setup(ctx context.Context, dsn string, raw *sql.DB, move, claim bool) (dead, live store.Store, deadID, liveID string, err error) {
	dead, err = postgres.Open(ctx, dsn) // migrates the seeded schema
	if err != nil {
		return nil, nil, "", "", err
	}
	if err := raw.QueryRowContext(ctx, `SELECT owner FROM wf_jobs LIMIT 1`).Scan(&deadID); err != nil {
		return nil, nil, "", "", err
	}
	stmts := []string{`DELETE FROM servers`}
	if want := "dead#bench"; deadID == "" && !claim || deadID != "" && claim {
		if claim {
			want = ""
		}
		deadID = want
		for _, table := range []string{"wf_jobs", "coord_jobs", "bundle_jobs"} {
			stmts = append(stmts, `UPDATE `+table+` SET owner = '`+want+`'`)
		}
	}
	stmts = append(stmts, `VACUUM (ANALYZE) wf_jobs`, `VACUUM (ANALYZE) coord_jobs`, `VACUUM (ANALYZE) bundle_jobs`)
	for _, stmt := range stmts {
		if _, err := raw.ExecContext(ctx, stmt); err != nil {
			return nil, nil, "", "", fmt.Errorf("%s: %w", stmt, err)
		}
	}
	if !claim {
		if err := dead.(store.Cluster).Register(ctx, store.ServerInfo{ID: deadID, Name: "dead"}); err != nil {
			return nil, nil, "", "", err
		}
	}
	if live, err = postgres.Open(ctx, dsn); err != nil {
		return nil, nil, "", "", err
	}
	liveID = fmt.Sprintf("live#%d", time.Now().UnixNano())
	if err := live.(store.Cluster).Register(ctx, store.ServerInfo{ID: liveID, Name: "live"}); err != nil {
		return nil, nil, "", "", err
	}
	if move {
		_, err := raw.ExecContext(ctx, `INSERT INTO servers (id, name) VALUES ('old#bench', 'old')`)
		if err != nil {
			return nil, nil, "", "", err
		}
	}
	// n_tup_upd counts from here: the statistics of the setup's backend
	// are sent when it closes.
	raw.SetMaxIdleConns(0)
	raw.SetMaxIdleConns(2)
	time.Sleep(time.Second)
	_, err = raw.ExecContext(ctx, `SELECT pg_stat_reset_single_table_counters('wf_jobs'::regclass)`)
	return dead, live, deadID, liveID, err
}

// timeCount times the count of the finished workflow jobs.
func timeCount(ctx context.Context, raw *sql.DB) (time.Duration, error) {
	var n int64
	began := time.Now()
	err := raw.QueryRowContext(ctx, `SELECT COUNT(*) FROM wf_jobs WHERE status IN ('SUCCEEDED', 'KILLED', 'FAILED')`).Scan(&n)
	return time.Since(began), err
}
