package storetest

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// testJobFilterLists checks the list and time bounds of JobFilter, which
// the REST API's jobs filter (name=, user=, group=, id=, startcreatedtime=,
// endcreatedtime=) maps onto, and that CountJobs agrees with Jobs.
func testJobFilterLists(t *testing.T, s store.Store) {
	users := []string{"joe", "ann", "joe", "bob"}
	mustUpdate(t, s, func(tx store.Tx) error {
		for i, u := range users {
			j := sampleJob(fmt.Sprintf("job-%d", i))
			j.User = u
			j.AppName = fmt.Sprintf("app-%d", i%2)
			j.Group = "g" + u
			j.ExternalID = fmt.Sprintf("ext-%d", i)
			j.CreatedTime = at(i * 10)
			if err := tx.PutJob(ctx, j); err != nil {
				return err
			}
		}
		return nil
	})
	cases := []struct {
		name string
		f    store.JobFilter
		want []string
	}{
		{"users OR", store.JobFilter{Users: []string{"joe", "bob"}}, []string{"job-3", "job-2", "job-0"}},
		{"names", store.JobFilter{Names: []string{"app-1"}}, []string{"job-3", "job-1"}},
		{"groups", store.JobFilter{Groups: []string{"gann"}}, []string{"job-1"}},
		{"ids", store.JobFilter{IDs: []string{"job-0", "job-3", "nope"}}, []string{"job-3", "job-0"}},
		{"external id", store.JobFilter{ExternalID: "ext-2"}, []string{"job-2"}},
		{"keys AND", store.JobFilter{Users: []string{"joe"}, Names: []string{"app-0"}}, []string{"job-2", "job-0"}},
		{"created after", store.JobFilter{CreatedAfter: at(10)}, []string{"job-3", "job-2", "job-1"}},
		{"created before", store.JobFilter{CreatedBefore: at(10)}, []string{"job-1", "job-0"}},
		{"created range", store.JobFilter{CreatedAfter: at(5), CreatedBefore: at(25)}, []string{"job-2", "job-1"}},
		{"offset without limit", store.JobFilter{Offset: 3}, []string{"job-0"}},
		{"page of users", store.JobFilter{Users: []string{"joe"}, Limit: 1, Offset: 1}, []string{"job-0"}},
		// Text: a substring of id, name, app path or user, any case; LIKE's
		// wildcards match only themselves.
		{"text name", store.JobFilter{Text: "APP-1"}, []string{"job-3", "job-1"}},
		{"text user", store.JobFilter{Text: "nn"}, []string{"job-1"}},
		{"text id", store.JobFilter{Text: "b-2"}, []string{"job-2"}},
		{"text underscore is literal", store.JobFilter{Text: "app_1"}, nil},
		{"text percent is literal", store.JobFilter{Text: "%"}, nil},
		{"text AND user", store.JobFilter{Text: "app-0", Users: []string{"joe"}, Limit: 1}, []string{"job-2"}},
	}
	for _, c := range cases {
		var got []string
		var n int
		err := s.View(ctx, func(tx store.Tx) error {
			jobs, err := tx.Jobs(ctx, c.f)
			if err != nil {
				return err
			}
			for _, j := range jobs {
				got = append(got, j.ID)
			}
			n, err = tx.CountJobs(ctx, c.f)
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Jobs = %v, want %v", c.name, got, c.want)
		}
		unpaged := c.f
		unpaged.Limit, unpaged.Offset = 0, 0
		var all []*store.Job
		_ = s.View(ctx, func(tx store.Tx) (err error) { all, err = tx.Jobs(ctx, unpaged); return err })
		if n != len(all) {
			t.Errorf("%s: CountJobs = %d, want %d (limit and offset ignored)", c.name, n, len(all))
		}
	}
	// Brief lists the same jobs with the large text columns left empty.
	var full, brief []*store.Job
	_ = s.View(ctx, func(tx store.Tx) (err error) {
		if full, err = tx.Jobs(ctx, store.JobFilter{}); err != nil {
			return err
		}
		brief, err = tx.Jobs(ctx, store.JobFilter{Brief: true})
		return err
	})
	if len(full) != len(brief) || len(full) == 0 {
		t.Fatalf("Brief lists %d jobs, full %d", len(brief), len(full))
	}
	for i, j := range full {
		if j.Conf == "" || j.Definition == "" || j.State == "" {
			t.Errorf("%s: full listing lost conf/definition/state", j.ID)
		}
		want := *j
		want.Conf, want.Definition, want.State = "", "", ""
		if !reflect.DeepEqual(*brief[i], want) {
			t.Errorf("Brief job = %+v, want %+v", *brief[i], want)
		}
	}
}

// testDeleteAction checks that a deleted action is gone and that deleting
// it again is not an error.
func testDeleteAction(t *testing.T, s store.Store) {
	a := &store.Action{ID: "job-a@x", JobID: "job-a", Name: "x", Type: "fs", Status: store.ActionOK}
	b := &store.Action{ID: "job-a@y", JobID: "job-a", Name: "y", Type: "fs", Status: store.ActionOK}
	mustUpdate(t, s, func(tx store.Tx) error {
		if err := tx.PutAction(ctx, a); err != nil {
			return err
		}
		return tx.PutAction(ctx, b)
	})
	for range 2 {
		mustUpdate(t, s, func(tx store.Tx) error { return tx.DeleteAction(ctx, a.ID) })
	}
	var acts []*store.Action
	_ = s.View(ctx, func(tx store.Tx) (err error) { acts, err = tx.Actions(ctx, "job-a"); return err })
	if len(acts) != 1 || acts[0].ID != b.ID {
		t.Fatalf("after DeleteAction: %+v, want only %s", acts, b.ID)
	}
}

// testLogs checks that log lines come back per job, oldest first, after a
// given id and bounded by a limit, and that a rolled-back line is gone.
func testLogs(t *testing.T, s store.Store) {
	var written []*store.LogEntry
	mustUpdate(t, s, func(tx store.Tx) error {
		for i := range 5 {
			e := &store.LogEntry{JobID: "job-a", Time: at(i), Level: "INFO", Message: fmt.Sprintf("line %d", i)}
			if i == 3 {
				e.ActionID, e.Level = "job-a@step", "ERROR"
			}
			if err := tx.AppendLog(ctx, e); err != nil {
				return err
			}
			written = append(written, e)
			if err := tx.AppendLog(ctx, &store.LogEntry{JobID: "job-b", Time: at(i), Level: "INFO", Message: "other"}); err != nil {
				return err
			}
		}
		return nil
	})
	for _, e := range written {
		// Set when Update returns at the latest (a store may send the
		// line with the commit).
		if e.ID == 0 {
			t.Fatalf("AppendLog left ID 0")
		}
	}
	_ = s.Update(ctx, func(tx store.Tx) error {
		_ = tx.AppendLog(ctx, &store.LogEntry{JobID: "job-a", Time: at(9), Level: "INFO", Message: "rolled back"})
		return fmt.Errorf("abort")
	})
	logs := func(after int64, limit int) []*store.LogEntry {
		var out []*store.LogEntry
		if err := s.View(ctx, func(tx store.Tx) (err error) { out, err = tx.Logs(ctx, "job-a", after, limit); return err }); err != nil {
			t.Fatalf("Logs: %v", err)
		}
		return out
	}
	if got := logs(0, 0); !reflect.DeepEqual(got, written) {
		t.Fatalf("Logs(all) = %+v, want %+v", got, written)
	}
	if got := logs(written[1].ID, 2); !reflect.DeepEqual(got, written[2:4]) {
		t.Errorf("Logs(after 2nd, limit 2) = %+v, want %+v", got, written[2:4])
	}
	if got := logs(written[4].ID, 0); len(got) != 0 {
		t.Errorf("Logs after the last = %+v, want none", got)
	}
	if err := s.View(ctx, func(tx store.Tx) error {
		return tx.AppendLog(ctx, &store.LogEntry{JobID: "job-a", Time: at(0), Level: "INFO"})
	}); err == nil {
		t.Errorf("AppendLog in View succeeded")
	}
}
