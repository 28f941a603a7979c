package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// testCoord is the coordinator part of the suite: jobs and actions round
// trip every field, and the listings filter, order and count as the engine
// and the REST API need.
func testCoord(t *testing.T, s store.Store) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"JobRoundTrip", testCoordJobRoundTrip},
		{"JobFilter", testCoordJobFilter},
		{"ActionRoundTrip", testCoordActionRoundTrip},
		{"ActionListing", testCoordActionListing},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, s) })
	}
}

func sampleCoordJob(id string) *store.CoordJob {
	return &store.CoordJob{
		ID: id, AppName: "hello-coord", AppPath: "file:///apps/coord", User: "joe", Group: "users", ACL: "acl",
		ExternalID: "ext", ParentID: "", Status: store.CoordRunning, Conf: "<configuration/>",
		Definition: "<coordinator-app/>", Frequency: "60", TimeUnit: "MINUTE", TimeZone: "UTC",
		Concurrency: 2, Throttle: 12, Timeout: -1, Execution: "FIFO", ConsoleURL: "http://c",
		StartTime: at(0), EndTime: at(3600 * 24), PauseTime: at(3600 * 12), LastActionNumber: 3,
		LastActionTime: at(7200), NextMaterializedTime: at(10800), DoneMaterialization: true,
		ErrorCode: "E1", ErrorMessage: "m", State: `{"tick":1}`,
		CreatedTime: at(1), LastModTime: at(2), SuspendedTime: at(3),
	}
}

func getCoordJob(t *testing.T, s store.Store, id string) (*store.CoordJob, error) {
	t.Helper()
	var j *store.CoordJob
	err := s.View(ctx, func(tx store.Tx) (err error) { j, err = tx.CoordJob(ctx, id); return err })
	return j, err
}

func testCoordJobRoundTrip(t *testing.T, s store.Store) {
	j := sampleCoordJob("0000001-260102030405123-oozie-joe-C")
	mustUpdate(t, s, func(tx store.Tx) error { return tx.PutCoordJob(ctx, j) })
	got, err := getCoordJob(t, s, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, j) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, j)
	}
	// Replacing keeps one row; zero times and false read back as such.
	j.Status, j.DoneMaterialization = store.CoordSucceeded, false
	j.PauseTime, j.SuspendedTime, j.NextMaterializedTime = time.Time{}, time.Time{}, time.Time{}
	mustUpdate(t, s, func(tx store.Tx) error { return tx.PutCoordJob(ctx, j) })
	if got, err = getCoordJob(t, s, j.ID); err != nil || !reflect.DeepEqual(got, j) {
		t.Fatalf("after replace: %+v, %v\nwant %+v", got, err, j)
	}
	if _, err := getCoordJob(t, s, "0000009-260102030405123-oozie-joe-C"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing job: err = %v, want ErrNotFound", err)
	}
	// Coordinator and workflow jobs live apart.
	if err := s.View(ctx, func(tx store.Tx) error { _, err := tx.Job(ctx, j.ID); return err }); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("coordinator job visible as workflow job: %v", err)
	}
}

func testCoordJobFilter(t *testing.T, s store.Store) {
	mustUpdate(t, s, func(tx store.Tx) error {
		for i, st := range []string{store.CoordRunning, store.CoordSucceeded, store.CoordRunning, store.CoordKilled} {
			j := sampleCoordJob(fmt.Sprintf("coord-%d", i))
			j.Status, j.CreatedTime, j.AppName = st, at(i), "filtered"
			if i == 2 {
				j.ParentID = "bundle-1"
			}
			if i == 3 {
				j.User = "ann"
			}
			if err := tx.PutCoordJob(ctx, j); err != nil {
				return err
			}
		}
		return nil
	})
	cases := []struct {
		f    store.JobFilter
		want []string
	}{
		{store.JobFilter{}, []string{"coord-3", "coord-2", "coord-1", "coord-0"}},
		{store.JobFilter{Statuses: []string{store.CoordRunning}}, []string{"coord-2", "coord-0"}},
		{store.JobFilter{ParentID: "bundle-1"}, []string{"coord-2"}},
		{store.JobFilter{User: "ann"}, []string{"coord-3"}},
		{store.JobFilter{Text: "ANN"}, []string{"coord-3"}},
		{store.JobFilter{Text: "ORD-1"}, []string{"coord-1"}},
		{store.JobFilter{Limit: 2, Offset: 1}, []string{"coord-2", "coord-1"}},
		{store.JobFilter{AppName: "other"}, nil},
	}
	for _, c := range cases {
		if c.f.AppName == "" {
			// Other subtests share the store: look at this one's jobs.
			c.f.AppName = "filtered"
		}
		var got []string
		var n int
		err := s.View(ctx, func(tx store.Tx) error {
			jobs, err := tx.CoordJobs(ctx, c.f)
			for _, j := range jobs {
				got = append(got, j.ID)
			}
			if err != nil {
				return err
			}
			n, err = tx.CountCoordJobs(ctx, c.f)
			return err
		})
		if err != nil {
			t.Fatalf("CoordJobs(%+v): %v", c.f, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("CoordJobs(%+v) = %v, want %v", c.f, got, c.want)
		}
		if c.f.Limit == 0 && n != len(c.want) {
			t.Errorf("CountCoordJobs(%+v) = %d, want %d", c.f, n, len(c.want))
		}
		if c.f.Limit > 0 && n != 4 {
			t.Errorf("CountCoordJobs(%+v) = %d, want 4 (limit ignored)", c.f, n)
		}
	}
	// Brief lists the same jobs with conf, definition and state empty.
	var full, brief []*store.CoordJob
	_ = s.View(ctx, func(tx store.Tx) (err error) {
		if full, err = tx.CoordJobs(ctx, store.JobFilter{AppName: "filtered"}); err != nil {
			return err
		}
		brief, err = tx.CoordJobs(ctx, store.JobFilter{AppName: "filtered", Brief: true})
		return err
	})
	if len(full) != 4 || len(brief) != 4 {
		t.Fatalf("Brief lists %d coordinator jobs, full %d; want 4", len(brief), len(full))
	}
	for i, j := range full {
		want := *j
		want.Conf, want.Definition, want.State = "", "", ""
		if !reflect.DeepEqual(*brief[i], want) {
			t.Errorf("Brief coordinator job = %+v, want %+v", *brief[i], want)
		}
	}
}

func sampleCoordAction(jobID string, n int, status string) *store.CoordAction {
	return &store.CoordAction{
		ID: fmt.Sprintf("%s@%d", jobID, n), JobID: jobID, Number: n, Status: status,
		NominalTime: at(3600 * (n - 1)), CreatedTime: at(1), LastModTime: at(2),
		ExternalID: "0000002-260102030405123-oozie-joe-W", ExternalStatus: "RUNNING",
		MissingDependencies: "file:///a#file:///b", CreatedConf: "<configuration/>", RunConf: "<configuration/>",
		ActionXML: "<coordinator-app/>", Plan: `{"n":1}`, ErrorCode: "E", ErrorMessage: "M",
		TrackerURI: "t", ConsoleURL: "c",
	}
}

func testCoordActionRoundTrip(t *testing.T, s store.Store) {
	a := sampleCoordAction("c-C", 1, store.CoordActionWaiting)
	mustUpdate(t, s, func(tx store.Tx) error { return tx.PutCoordAction(ctx, a) })
	var got *store.CoordAction
	mustUpdate(t, s, func(tx store.Tx) (err error) { got, err = tx.CoordAction(ctx, a.ID); return err })
	if !reflect.DeepEqual(got, a) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, a)
	}
	a.Status, a.MissingDependencies = store.CoordActionReady, ""
	mustUpdate(t, s, func(tx store.Tx) error { return tx.PutCoordAction(ctx, a) })
	mustUpdate(t, s, func(tx store.Tx) (err error) { got, err = tx.CoordAction(ctx, a.ID); return err })
	if !reflect.DeepEqual(got, a) {
		t.Fatalf("after replace:\n got %+v\nwant %+v", got, a)
	}
	err := s.View(ctx, func(tx store.Tx) error { _, err := tx.CoordAction(ctx, "c-C@2"); return err })
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing action: err = %v, want ErrNotFound", err)
	}
	// Delete removes it; deleting what is not there is no error.
	mustUpdate(t, s, func(tx store.Tx) error { return tx.DeleteCoordAction(ctx, a.ID) })
	mustUpdate(t, s, func(tx store.Tx) error { return tx.DeleteCoordAction(ctx, a.ID) })
	err = s.View(ctx, func(tx store.Tx) error { _, err := tx.CoordAction(ctx, a.ID); return err })
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted action: err = %v, want ErrNotFound", err)
	}
}

func testCoordActionListing(t *testing.T, s store.Store) {
	statuses := []string{store.CoordActionSucceeded, store.CoordActionRunning, store.CoordActionWaiting,
		store.CoordActionWaiting, store.CoordActionKilled}
	mustUpdate(t, s, func(tx store.Tx) error {
		// Inserted out of order: listings order by number, not by insert.
		for i := len(statuses) - 1; i >= 0; i-- {
			if err := tx.PutCoordAction(ctx, sampleCoordAction("a-C", i+1, statuses[i])); err != nil {
				return err
			}
		}
		return tx.PutCoordAction(ctx, sampleCoordAction("b-C", 1, store.CoordActionWaiting))
	})
	cases := []struct {
		f    store.CoordActionFilter
		want []int
	}{
		{store.CoordActionFilter{}, []int{1, 2, 3, 4, 5}},
		{store.CoordActionFilter{Desc: true}, []int{5, 4, 3, 2, 1}},
		{store.CoordActionFilter{Offset: 1, Limit: 2}, []int{2, 3}},
		{store.CoordActionFilter{Offset: 3}, []int{4, 5}},
		{store.CoordActionFilter{Desc: true, Limit: 2}, []int{5, 4}},
		{store.CoordActionFilter{Statuses: []string{store.CoordActionWaiting}}, []int{3, 4}},
		{store.CoordActionFilter{NotStatuses: []string{store.CoordActionWaiting}}, []int{1, 2, 5}},
		{store.CoordActionFilter{NominalFrom: at(3600), NominalTo: at(3600 * 2)}, []int{2, 3}},
	}
	for _, c := range cases {
		var got []int
		err := s.View(ctx, func(tx store.Tx) error {
			acts, err := tx.CoordActions(ctx, "a-C", c.f)
			for _, a := range acts {
				got = append(got, a.Number)
			}
			return err
		})
		if err != nil {
			t.Fatalf("CoordActions(%+v): %v", c.f, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("CoordActions(%+v) = %v, want %v", c.f, got, c.want)
		}
	}
	var counts map[string]int
	var waiting []*store.CoordAction
	err := s.View(ctx, func(tx store.Tx) (err error) {
		if counts, err = tx.CountCoordActions(ctx, "a-C"); err != nil {
			return err
		}
		waiting, err = tx.CoordActionsByStatus(ctx, store.CoordActionWaiting)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	wantCounts := map[string]int{store.CoordActionSucceeded: 1, store.CoordActionRunning: 1,
		store.CoordActionWaiting: 2, store.CoordActionKilled: 1}
	if !reflect.DeepEqual(counts, wantCounts) {
		t.Errorf("CountCoordActions = %v, want %v", counts, wantCounts)
	}
	var ids []string
	for _, a := range waiting {
		ids = append(ids, a.ID)
	}
	if want := []string{"a-C@3", "a-C@4", "b-C@1"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("CoordActionsByStatus(WAITING) = %v, want %v", ids, want)
	}
}
