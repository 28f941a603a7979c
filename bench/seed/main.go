// Command seed fills a new gozie store with a year's worth of finished
// work, for the scale benchmarks of issue 31 (docs/benchmarks.md, "A
// store of a million jobs"):
//
//   - -jobs finished workflow jobs of ten node records each (start, eight
//     fs steps, end; one in ten killed at its last step) with the thirteen
//     log lines the engine writes for such a run;
//   - -coords daily coordinators with -coord-actions materialized actions
//     each, whose runs are the first coords×coord-actions workflow jobs;
//     the first -running of them are RUNNING, their next action due
//     tomorrow (a pending tick, as the engine leaves it), the rest
//     SUCCEEDED.
//
// The store is created by its own package (every migration applied), then
// written in bulk: multi-row INSERTs into a SQLite file (-data DIR, the
// server's gozie.db there) or COPY into a PostgreSQL schema (-dsn URL
// -schema NAME), with the secondary indexes built after the rows. The rows
// are column for column what the engines write, so a server started on the
// store reads them as its own. -explain prints the query plans of the
// request path instead of seeding (see explain.go).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

type options struct {
	data, dsn, schema string
	plan              plan
	batch             int
	explain           bool
}

func main() {
	var o options
	flag.StringVar(&o.data, "data", "", "SQLite: the data directory whose gozie.db to create")
	flag.StringVar(&o.dsn, "dsn", "", "PostgreSQL: the server's URL, e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	flag.StringVar(&o.schema, "schema", "gozie_seed", "PostgreSQL: the schema to create and fill")
	flag.IntVar(&o.plan.Jobs, "jobs", 1000000, "finished workflow jobs")
	flag.IntVar(&o.plan.Coords, "coords", 1000, "coordinators")
	flag.IntVar(&o.plan.CoordActions, "coord-actions", 1000, "actions of each coordinator")
	flag.IntVar(&o.plan.Running, "running", -1, "coordinators left RUNNING (-1: all)")
	flag.IntVar(&o.batch, "batch", 5000, "workflow jobs per batch")
	flag.BoolVar(&o.explain, "explain", false, "print the plans of the request-path queries of the store instead of seeding")
	flag.Parse()
	if flag.NArg() > 0 || (o.data == "") == (o.dsn == "") {
		fmt.Fprintln(os.Stderr, "usage: seed -data DIR | -dsn postgres://... [-schema NAME] [flags]")
		os.Exit(2)
	}
	ctx := context.Background()
	var err error
	if o.explain {
		err = explain(ctx, os.Stdout, o)
	} else {
		var r *result
		if r, err = seed(ctx, o, time.Now()); err == nil {
			fmt.Println(r)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "seed:", err)
		os.Exit(1)
	}
}

// result is what a seeding took and made.
type result struct {
	Store                string
	Jobs, Actions, Logs  int
	Coords, CoordActions int
	Took, BuildTook      time.Duration
	Bytes                int64
}

func (r *result) String() string {
	return fmt.Sprintf("seeded %s: %d jobs, %d actions, %d log lines, %d coordinators, %d coordinator actions in %s (indexes %s): %.0f jobs/s, %.2f GiB",
		r.Store, r.Jobs, r.Actions, r.Logs, r.Coords, r.CoordActions, r.Took.Round(time.Second), r.BuildTook.Round(time.Second),
		float64(r.Jobs)/r.Took.Seconds(), float64(r.Bytes)/(1<<30))
}

// open creates the store o names and returns its sink.
func open(ctx context.Context, o options) (sink, string, error) {
	if o.data != "" {
		if err := os.MkdirAll(o.data, 0o755); err != nil {
			return nil, "", err
		}
		path := filepath.Join(o.data, "gozie.db")
		s, err := openSQLite(ctx, path)
		return s, "sqlite " + path, err
	}
	s, err := openPostgres(ctx, o.dsn, o.schema)
	return s, "postgres schema " + o.schema, err
}

// seed writes the store o names as of now.
func seed(ctx context.Context, o options, now time.Time) (*result, error) {
	p := o.plan
	p.Now = now
	if p.Running < 0 || p.Running > p.Coords {
		p.Running = p.Coords
	}
	if p.Jobs < 0 || p.Coords < 0 || p.CoordActions < 1 || o.batch < 1 {
		return nil, fmt.Errorf("-jobs, -coords must be >= 0, -coord-actions and -batch >= 1")
	}
	start := time.Now()
	s, name, err := open(ctx, o)
	if err != nil {
		return nil, err
	}
	defer s.close()
	r := &result{Store: name, Jobs: p.Jobs, Coords: p.Coords, CoordActions: p.Coords * p.CoordActions}
	var jobs, acts, logs [][]any
	for i := 0; i < p.Jobs; i++ {
		p.jobRows(i, &jobs, &acts, &logs)
		if len(jobs) == o.batch || i == p.Jobs-1 {
			r.Actions, r.Logs = r.Actions+len(acts), r.Logs+len(logs)
			if err := writeAll(ctx, s, []table{{"wf_jobs", jobCols, jobs}, {"wf_actions", actionCols, acts}, {"job_logs", logCols, logs}}); err != nil {
				return nil, err
			}
			jobs, acts, logs = jobs[:0], acts[:0], logs[:0]
		}
	}
	var coords, cacts, effects [][]any
	for c := 0; c < p.Coords; c++ {
		p.coordRows(c, int64(c+1), &coords, &cacts, &effects)
		if len(cacts) >= 10*o.batch || c == p.Coords-1 {
			if err := writeAll(ctx, s, []table{{"coord_jobs", coordCols, coords}, {"coord_actions", coordActionCols, cacts}, {"wf_effects", effectCols, effects}}); err != nil {
				return nil, err
			}
			coords, cacts, effects = coords[:0], cacts[:0], effects[:0]
		}
	}
	built := time.Now()
	if err := s.finish(ctx, p.Jobs+p.Coords); err != nil {
		return nil, err
	}
	r.Took, r.BuildTook = time.Since(start), time.Since(built)
	r.Bytes, err = s.size(ctx)
	return r, err
}

type table struct {
	name string
	cols []string
	rows [][]any
}

func writeAll(ctx context.Context, s sink, ts []table) error {
	for _, t := range ts {
		if len(t.rows) == 0 {
			continue
		}
		if err := s.write(ctx, t.name, t.cols, t.rows); err != nil {
			return err
		}
	}
	return s.commit(ctx)
}
