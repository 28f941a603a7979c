package storetest

// The bundle part of the suite (each case on a store of its own, see Run):
// jobs and actions round trip every field, the job listing filters, orders
// and counts as the REST API's jobs list needs, and a bundle's actions come
// by coordinator name.

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// sampleBundleJob is a bundle job with every field set.
func sampleBundleJob(id string) *store.BundleJob {
	return &store.BundleJob{
		ID: id, AppName: "hello-bundle", AppPath: "file:///apps/bundle", User: "joe", Group: "users",
		ACL: "acl", ExternalID: "ext-" + id, Status: store.BundleRunning, Conf: "<configuration/>",
		Definition: "<bundle-app/>", TimeUnit: "NONE", TimeOut: -1,
		KickoffTime: at(60), StartTime: at(120), EndTime: at(3600 * 24), PauseTime: at(3600 * 12),
		ErrorCode: "E1", ErrorMessage: "m", State: `{"kicked":true}`,
		CreatedTime: at(1), LastModTime: at(2), SuspendedTime: at(3),
	}
}

func getBundleJob(t *testing.T, s store.Store, id string) (*store.BundleJob, error) {
	t.Helper()
	var j *store.BundleJob
	err := s.View(ctx, func(tx store.Tx) (err error) { j, err = tx.BundleJob(ctx, id); return err })
	return j, err
}

func testBundleJobRoundTrip(t *testing.T, s store.Store) {
	j := sampleBundleJob("0000001-260102030405123-oozie-joe-B")
	mustUpdate(t, s, func(tx store.Tx) error { return tx.PutBundleJob(ctx, j) })
	got, err := getBundleJob(t, s, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, j) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, j)
	}
	// Replacing keeps one row; zero times read back as zero.
	j.Status, j.ErrorCode, j.ErrorMessage = store.BundleSucceeded, "", ""
	j.KickoffTime, j.StartTime, j.EndTime, j.PauseTime = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	j.CreatedTime, j.LastModTime, j.SuspendedTime = time.Time{}, time.Time{}, time.Time{}
	mustUpdate(t, s, func(tx store.Tx) error { return tx.PutBundleJob(ctx, j) })
	if got, err = getBundleJob(t, s, j.ID); err != nil || !reflect.DeepEqual(got, j) {
		t.Fatalf("after replace: %+v, %v\nwant %+v", got, err, j)
	}
	var n int
	if err := s.View(ctx, func(tx store.Tx) (err error) { n, err = tx.CountBundleJobs(ctx, store.JobFilter{}); return err }); err != nil || n != 1 {
		t.Fatalf("CountBundleJobs after a replace = %d, %v; want 1", n, err)
	}
	if _, err := getBundleJob(t, s, "0000009-260102030405123-oozie-joe-B"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing job: err = %v, want ErrNotFound", err)
	}
	// Bundle, coordinator and workflow jobs live apart.
	err = s.View(ctx, func(tx store.Tx) error {
		if _, err := tx.CoordJob(ctx, j.ID); !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("bundle job visible as coordinator job: %v", err)
		}
		if _, err := tx.Job(ctx, j.ID); !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("bundle job visible as workflow job: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// putFilterBundles writes the four bundles testBundleJobFilter selects
// from: b0-B (oldest) to b3-B (newest), named "filtered" except b2-B.
func putFilterBundles(t *testing.T, s store.Store) {
	t.Helper()
	mustUpdate(t, s, func(tx store.Tx) error {
		for i, x := range []struct{ status, name, user, group string }{
			{store.BundleRunning, "filtered", "joe", "users"},
			{store.BundleSucceeded, "filtered", "joe", "admins"},
			{store.BundleRunning, "other", "ann", "users"},
			{store.BundleKilled, "filtered", "ann", "users"},
		} {
			j := sampleBundleJob(fmt.Sprintf("b%d-B", i))
			j.Status, j.AppName, j.User, j.Group = x.status, x.name, x.user, x.group
			j.CreatedTime = at(100 * i)
			if err := tx.PutBundleJob(ctx, j); err != nil {
				return err
			}
		}
		return nil
	})
}

func testBundleJobFilter(t *testing.T, s store.Store) {
	putFilterBundles(t, s)
	all := []string{"b3-B", "b2-B", "b1-B", "b0-B"}
	cases := []struct {
		name string
		f    store.JobFilter
		want []string
	}{
		{"none", store.JobFilter{}, all},
		{"Statuses", store.JobFilter{Statuses: []string{store.BundleRunning}}, []string{"b2-B", "b0-B"}},
		{"Statuses OR", store.JobFilter{Statuses: []string{store.BundleKilled, store.BundleSucceeded}}, []string{"b3-B", "b1-B"}},
		{"Names", store.JobFilter{Names: []string{"other"}}, []string{"b2-B"}},
		{"AppName", store.JobFilter{AppName: "filtered"}, []string{"b3-B", "b1-B", "b0-B"}},
		{"Users", store.JobFilter{Users: []string{"ann"}}, []string{"b3-B", "b2-B"}},
		{"User", store.JobFilter{User: "joe"}, []string{"b1-B", "b0-B"}},
		{"Groups", store.JobFilter{Groups: []string{"admins"}}, []string{"b1-B"}},
		{"IDs", store.JobFilter{IDs: []string{"b0-B", "b3-B", "nope-B"}}, []string{"b3-B", "b0-B"}},
		{"ExternalID", store.JobFilter{ExternalID: "ext-b2-B"}, []string{"b2-B"}},
		{"Text id", store.JobFilter{Text: "B1-"}, []string{"b1-B"}},
		{"Text user", store.JobFilter{Text: "ANN"}, []string{"b3-B", "b2-B"}},
		{"Text no wildcard", store.JobFilter{Text: "b_-B"}, nil},
		{"CreatedAfter", store.JobFilter{CreatedAfter: at(100)}, []string{"b3-B", "b2-B", "b1-B"}},
		{"CreatedBefore", store.JobFilter{CreatedBefore: at(100)}, []string{"b1-B", "b0-B"}},
		{"Created between", store.JobFilter{CreatedAfter: at(100), CreatedBefore: at(200)}, []string{"b2-B", "b1-B"}},
		{"keys AND", store.JobFilter{Statuses: []string{store.BundleRunning}, Users: []string{"joe"}}, []string{"b0-B"}},
		{"Limit", store.JobFilter{Limit: 2}, []string{"b3-B", "b2-B"}},
		{"Limit Offset", store.JobFilter{Limit: 2, Offset: 1}, []string{"b2-B", "b1-B"}},
		{"Offset", store.JobFilter{Offset: 3}, []string{"b0-B"}},
		{"ParentID", store.JobFilter{ParentID: "b0-B"}, nil},
		{"ParentPrefix", store.JobFilter{ParentPrefix: "b"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			var n int
			err := s.View(ctx, func(tx store.Tx) error {
				jobs, err := tx.BundleJobs(ctx, c.f)
				for _, j := range jobs {
					got = append(got, j.ID)
				}
				if err != nil {
					return err
				}
				n, err = tx.CountBundleJobs(ctx, c.f)
				return err
			})
			if err != nil {
				t.Fatalf("BundleJobs(%+v): %v", c.f, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("BundleJobs(%+v) = %v, want %v", c.f, got, c.want)
			}
			// The count ignores Limit and Offset.
			want := len(c.want)
			if c.f.Limit > 0 || c.f.Offset > 0 {
				want = len(all)
			}
			if n != want {
				t.Errorf("CountBundleJobs(%+v) = %d, want %d", c.f, n, want)
			}
		})
	}
}

// testBundleJobBrief: Brief lists the same jobs, every field as read by
// BundleJob but Conf, Definition and State, which are empty.
func testBundleJobBrief(t *testing.T, s store.Store) {
	putFilterBundles(t, s)
	var full, brief []*store.BundleJob
	err := s.View(ctx, func(tx store.Tx) (err error) {
		if full, err = tx.BundleJobs(ctx, store.JobFilter{}); err != nil {
			return err
		}
		brief, err = tx.BundleJobs(ctx, store.JobFilter{Brief: true})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(full) != 4 || len(brief) != 4 {
		t.Fatalf("Brief lists %d bundle jobs, full %d; want 4", len(brief), len(full))
	}
	for i, j := range full {
		if j.Conf == "" || j.Definition == "" || j.State == "" {
			t.Errorf("full listing lacks conf, definition or state: %+v", j)
		}
		want := *j
		want.Conf, want.Definition, want.State = "", "", ""
		if !reflect.DeepEqual(*brief[i], want) {
			t.Errorf("Brief bundle job = %+v, want %+v", *brief[i], want)
		}
	}
}

func sampleBundleAction(bundleID, coord string) *store.BundleAction {
	return &store.BundleAction{
		ID: bundleID + "_" + coord, BundleID: bundleID, CoordName: coord,
		CoordID: "0000002-260102030405123-oozie-joe-C", Status: store.CoordRunning, Critical: true,
		Pending: 2, LastModTime: at(5),
	}
}

func getBundleAction(t *testing.T, s store.Store, id string) (*store.BundleAction, error) {
	t.Helper()
	var a *store.BundleAction
	err := s.View(ctx, func(tx store.Tx) (err error) { a, err = tx.BundleAction(ctx, id); return err })
	return a, err
}

func testBundleActionRoundTrip(t *testing.T, s store.Store) {
	a := sampleBundleAction("0000001-260102030405123-oozie-joe-B", "coord-a")
	mustUpdate(t, s, func(tx store.Tx) error { return tx.PutBundleAction(ctx, a) })
	got, err := getBundleAction(t, s, a.ID)
	if err != nil || !reflect.DeepEqual(got, a) {
		t.Fatalf("round trip: %+v, %v\nwant %+v", got, err, a)
	}
	// Replaced: a coordinator not submitted (enabled="false"), nothing
	// pending, never modified.
	a.CoordID, a.Status, a.Critical, a.Pending, a.LastModTime = "", "", false, 0, time.Time{}
	mustUpdate(t, s, func(tx store.Tx) error { return tx.PutBundleAction(ctx, a) })
	if got, err = getBundleAction(t, s, a.ID); err != nil || !reflect.DeepEqual(got, a) {
		t.Fatalf("after replace: %+v, %v\nwant %+v", got, err, a)
	}
	var acts []*store.BundleAction
	if err := s.View(ctx, func(tx store.Tx) (err error) { acts, err = tx.BundleActions(ctx, a.BundleID); return err }); err != nil {
		t.Fatal(err)
	}
	if len(acts) != 1 {
		t.Errorf("BundleActions after a replace = %d actions, want 1", len(acts))
	}
	if _, err := getBundleAction(t, s, a.BundleID+"_missing"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing action: err = %v, want ErrNotFound", err)
	}
}

func testBundleActionListing(t *testing.T, s store.Store) {
	// Inserted out of name order; upper case sorts before lower case
	// (byte order) on every store.
	names := []string{"zeta", "alpha", "Mid", "beta-2", "beta"}
	mustUpdate(t, s, func(tx store.Tx) error {
		for _, n := range names {
			if err := tx.PutBundleAction(ctx, sampleBundleAction("x-B", n)); err != nil {
				return err
			}
		}
		return tx.PutBundleAction(ctx, sampleBundleAction("y-B", "alpha"))
	})
	cases := []struct {
		bundle string
		want   []string
	}{
		{"x-B", []string{"Mid", "alpha", "beta", "beta-2", "zeta"}},
		{"y-B", []string{"alpha"}},
		{"z-B", nil},
	}
	for _, c := range cases {
		var got []string
		err := s.View(ctx, func(tx store.Tx) error {
			acts, err := tx.BundleActions(ctx, c.bundle)
			for _, a := range acts {
				if a.BundleID != c.bundle {
					t.Errorf("BundleActions(%s) lists %s of %s", c.bundle, a.ID, a.BundleID)
				}
				got = append(got, a.CoordName)
			}
			return err
		})
		if err != nil {
			t.Fatalf("BundleActions(%s): %v", c.bundle, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("BundleActions(%s) = %v, want %v", c.bundle, got, c.want)
		}
	}
}
