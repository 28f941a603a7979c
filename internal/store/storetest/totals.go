package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// countFolder is implemented by the SQL stores: PostgreSQL's job counts
// are deltas that it folds, SQLite's fold is a no-op.
type countFolder interface {
	FoldJobCounts(ctx context.Context) (int64, error)
}

// textIndexer is implemented by the SQL stores: SQLite adds new jobs to
// its text index in batches, PostgreSQL's is a no-op.
type textIndexer interface {
	IndexJobText(ctx context.Context) (int64, error)
}

// indexText runs the store's batch of the text index, if it has one.
func indexText(t *testing.T, s store.Store) {
	t.Helper()
	if ti, ok := s.(textIndexer); ok {
		if _, err := ti.IndexJobText(ctx); err != nil {
			t.Fatalf("IndexJobText: %v", err)
		}
	}
}

// totalFilters are the filters whose totals the stores keep in a counts
// table (status and user) and some they cannot (name, text, parent,
// time), each combined with the others.
func totalFilters() []store.JobFilter {
	var fs []store.JobFilter
	statuses := [][]string{nil, {store.JobRunning}, {store.JobSucceeded}, {store.JobKilled, store.JobFailed},
		{store.JobPrep, store.JobRunning, store.JobSucceeded, store.JobKilled}, {"NOPE"}}
	users := [][]string{nil, {"u0"}, {"u1", "u2"}, {"nobody"}}
	for _, st := range statuses {
		for _, us := range users {
			fs = append(fs, store.JobFilter{Statuses: st, Users: us})
			if len(us) == 1 {
				fs = append(fs, store.JobFilter{Statuses: st, User: us[0]})
				fs = append(fs, store.JobFilter{Statuses: st, User: us[0], Users: []string{"u1"}})
			}
		}
		fs = append(fs, store.JobFilter{Statuses: st, Names: []string{"app-1"}},
			store.JobFilter{Statuses: st, Text: "APP-2"}, store.JobFilter{Statuses: st, ParentID: "p"},
			store.JobFilter{Statuses: st, CreatedAfter: at(20)})
	}
	return fs
}

// checkTotals compares CountJobs with the jobs Jobs lists for every
// filter of totalFilters, before and after a fold of the counts.
func checkTotals(t *testing.T, s store.Store, when string) {
	t.Helper()
	for round := 0; round < 2; round++ {
		for _, f := range totalFilters() {
			paged := f
			paged.Limit, paged.Offset = 2, 1
			var all []*store.Job
			var n int
			err := s.View(ctx, func(tx store.Tx) (err error) {
				if all, err = tx.Jobs(ctx, f); err != nil {
					return err
				}
				n, err = tx.CountJobs(ctx, paged)
				return err
			})
			if err != nil {
				t.Fatalf("%s: %+v: %v", when, f, err)
			}
			if n != len(all) {
				t.Errorf("%s (fold %d): CountJobs(%+v) = %d, want %d", when, round, f, n, len(all))
			}
		}
		if cf, ok := s.(countFolder); ok {
			if _, err := cf.FoldJobCounts(ctx); err != nil {
				t.Fatalf("%s: FoldJobCounts: %v", when, err)
			}
		}
	}
}

// testJobTotals: the totals equal the jobs the lists hold after inserts,
// status changes, user changes and a purge's deletes.
func testJobTotals(t *testing.T, s store.Store) {
	statuses := []string{store.JobPrep, store.JobRunning, store.JobSucceeded, store.JobKilled, store.JobFailed}
	jobs := map[string]*store.Job{}
	mustUpdate(t, s, func(tx store.Tx) error {
		for i := range 40 {
			j := sampleJob(fmt.Sprintf("job-%02d", i))
			j.User, j.AppName, j.Status = fmt.Sprintf("u%d", i%3), fmt.Sprintf("app-%d", i%4), statuses[i%len(statuses)]
			j.CreatedTime = at(i)
			if i%7 == 0 {
				j.ParentID = "p"
			}
			jobs[j.ID] = j
			if err := tx.PutJob(ctx, j); err != nil {
				return err
			}
		}
		return nil
	})
	indexText(t, s)
	checkTotals(t, s, "after inserts")
	steps := []struct {
		name   string
		change func(i int, j *store.Job)
	}{
		{"status changes", func(i int, j *store.Job) {
			if i%2 == 0 {
				j.Status = statuses[(i+1)%len(statuses)]
			}
		}},
		{"user changes", func(i int, j *store.Job) {
			if i%3 == 1 {
				j.User = "u2"
			}
		}},
		{"puts without change", func(int, *store.Job) {}},
		{"ends", func(i int, j *store.Job) {
			if i%4 != 3 {
				j.Status, j.EndTime, j.ParentID = store.JobSucceeded, at(100), ""
			} else {
				j.Status = store.JobRunning // the purge keeps these
			}
		}},
	}
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range jobs {
			if !yield(id) {
				return
			}
		}
	})
	for _, st := range steps {
		mustUpdate(t, s, func(tx store.Tx) error {
			for i, id := range ids {
				st.change(i, jobs[id])
				if err := tx.PutJob(ctx, jobs[id]); err != nil {
					return err
				}
			}
			return nil
		})
		checkTotals(t, s, "after "+st.name)
	}
	p, ok := s.(store.Purger)
	if !ok {
		return
	}
	purgeAll(t, p, store.PurgeRules{WorkflowBefore: at(1000), CoordBefore: at(0), BundleBefore: at(0), Limit: 7}, false)
	var left int
	_ = s.View(ctx, func(tx store.Tx) (err error) { left, err = tx.CountJobs(ctx, store.JobFilter{}); return err })
	if left != 10 {
		t.Errorf("after the purge: %d jobs, want the 10 not ended", left)
	}
	checkTotals(t, s, "after a purge")
}

// testJobTotalsConcurrent: commits of several goroutines that create
// jobs and change their statuses keep the totals exact (PostgreSQL's
// deltas are appended by concurrent transactions; a fold runs among
// them).
func testJobTotalsConcurrent(t *testing.T, s store.Store) {
	const workers, each = 6, 15
	var wg sync.WaitGroup
	errs := make(chan error, workers+1)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				j := sampleJob(fmt.Sprintf("w%d-%02d", w, i))
				j.User = fmt.Sprintf("u%d", w%3)
				for _, st := range []string{store.JobPrep, store.JobRunning, []string{store.JobSucceeded, store.JobKilled}[i%2]} {
					j.Status = st
					if err := s.Update(ctx, func(tx store.Tx) error { return tx.PutJob(ctx, j) }); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	if cf, ok := s.(countFolder); ok {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				if _, err := cf.FoldJobCounts(ctx); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkTotals(t, s, "after concurrent commits")
	var n int
	_ = s.View(ctx, func(tx store.Tx) (err error) {
		n, err = tx.CountJobs(ctx, store.JobFilter{Statuses: []string{store.JobSucceeded}})
		return err
	})
	if want := workers * ((each + 1) / 2); n != want {
		t.Errorf("SUCCEEDED total %d, want %d", n, want)
	}
}

// testJobTextSearch: the console's free text matches a substring of the
// id, name, app path or user, ignoring case, with LIKE's wildcards and
// escape taken literally, whatever the length of the text (a trigram
// index needs three characters); CountCap bounds the total.
func testJobTextSearch(t *testing.T, s store.Store) {
	rows := []struct{ id, name, path, user string }{
		{"t-001-W", "Daily_ETL", "hdfs:///apps/etl%v2", "alice"},
		{"t-002-W", "dailyetl", `file:///apps/back\slash`, "Bob"},
		{"t-003-W", "report", "hdfs:///apps/Report", "carol"},
		{"t-004-W", "x", "hdfs:///y", "DAVE"},
		{"t-005-W", "Ünïcode-Näme", "hdfs:///ü", "eve"},
	}
	mustUpdate(t, s, func(tx store.Tx) error {
		for i, r := range rows {
			j := sampleJob(r.id)
			j.AppName, j.AppPath, j.User, j.CreatedTime = r.name, r.path, r.user, at(i)
			if err := tx.PutJob(ctx, j); err != nil {
				return err
			}
		}
		return nil
	})
	checkText(t, s, "before indexing", rows)
	indexText(t, s)
	checkText(t, s, "indexed", rows)
	// A change of an indexed job's text, and a new job not indexed yet.
	rows[3].name, rows[3].path = "Renamed_X", "hdfs:///Z%z"
	rows = append(rows, struct{ id, name, path, user string }{"t-006-W", "daily_new", "hdfs:///n", "frank"})
	mustUpdate(t, s, func(tx store.Tx) error {
		for i, r := range rows[3:] {
			j := sampleJob(r.id)
			j.AppName, j.AppPath, j.User, j.CreatedTime = r.name, r.path, r.user, at(3+i)
			if err := tx.PutJob(ctx, j); err != nil {
				return err
			}
		}
		return nil
	})
	checkText(t, s, "after a change", rows)
}

// checkText runs the patterns of testJobTextSearch against the rows.
func checkText(t *testing.T, s store.Store, when string, rows []struct{ id, name, path, user string }) {
	t.Helper()
	patterns := []string{"a", "A", "ly", "LY", "_", "%", `\`, "y_e", "l_e", "%v", "etl%v2", `back\s`, `\s`, "daily",
		"DAILY_", "ilyetl", "report", "t-00", "-w", "T-003-W", "bob", "ob", "dave", "appS/", "", "zz", "zzz",
		"näme", "ü", "e-n", "hdfs:///apps/etl%v2", "renamed", "z%z", "_new", "frank", "x"}
	for _, p := range patterns {
		if p == "" {
			continue
		}
		var want []string
		for i := len(rows) - 1; i >= 0; i-- {
			r := rows[i]
			for _, v := range []string{r.id, r.name, r.path, r.user} {
				if strings.Contains(asciiLower(v), asciiLower(p)) {
					want = append(want, r.id)
					break
				}
			}
		}
		for _, capped := range []int{0, 1} {
			f := store.JobFilter{Text: p, CountCap: capped}
			var got []string
			var n int
			err := s.View(ctx, func(tx store.Tx) error {
				jobs, err := tx.Jobs(ctx, f)
				for _, j := range jobs {
					got = append(got, j.ID)
				}
				if err == nil {
					n, err = tx.CountJobs(ctx, f)
				}
				return err
			})
			if err != nil {
				t.Fatalf("%s: text %q: %v", when, p, err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: text %q: Jobs = %v, want %v", when, p, got, want)
			}
			wantN := len(want)
			if capped > 0 {
				wantN = min(wantN, capped+1)
			}
			if n != wantN {
				t.Errorf("%s: text %q, cap %d: CountJobs = %d, want %d", when, p, capped, n, wantN)
			}
		}
		// A page: from the newest jobs when they hold it, else from the
		// index's candidates (fewer matches than offset + limit).
		var paged []string
		err := s.View(ctx, func(tx store.Tx) error {
			jobs, err := tx.Jobs(ctx, store.JobFilter{Text: p, Limit: 2, Offset: 1, Brief: true})
			for _, j := range jobs {
				paged = append(paged, j.ID)
			}
			return err
		})
		if wantPage := want[min(1, len(want)):min(3, len(want))]; err != nil || !slices.Equal(paged, wantPage) {
			t.Errorf("%s: text %q, page 2 of 2: %v, %v; want %v", when, p, paged, err, wantPage)
		}
	}
}

// asciiLower lowers ASCII letters only: the case the search ignores on
// both stores (SQLite's LOWER and LIKE fold no other letters; the rows
// above match the same way whatever folding of the others).
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}
