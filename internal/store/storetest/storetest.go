// Package storetest is the behaviour every store.Store implementation must
// have, as a test suite: an implementation's tests call Run with a function
// that opens a fresh, empty store.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// Run runs the whole suite. open must return a new, empty store each time;
// the suite closes it.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"JobRoundTrip", testJobRoundTrip},
		{"JobNotFound", testJobNotFound},
		{"JobFilter", testJobFilter},
		{"ActionRoundTrip", testActionRoundTrip},
		{"ActionOrderAndStatus", testActionOrderAndStatus},
		{"Effects", testEffects},
		{"Sequence", testSequence},
		{"JobSequence", testJobSequence},
		{"JobSequenceConcurrent", testJobSequenceConcurrent},
		{"ActionSeqPerJob", testActionSeqPerJob},
		{"Rollback", testRollback},
		{"ViewIsReadOnly", testViewIsReadOnly},
		{"ConcurrentUpdates", testConcurrentUpdates},
		{"Coord", testCoord},
		{"BundleJobRoundTrip", testBundleJobRoundTrip},
		{"BundleJobFilter", testBundleJobFilter},
		{"BundleJobBrief", testBundleJobBrief},
		{"BundleActionRoundTrip", testBundleActionRoundTrip},
		{"BundleActionListing", testBundleActionListing},
		{"SLARoundTrip", testSLARoundTrip},
		{"SLAFilter", testSLAFilter},
		{"SLASort", testSLASort},
		{"DueSLAs", testDueSLAs},
		{"JobFilterLists", testJobFilterLists},
		{"Logs", testLogs},
		{"DeleteAction", testDeleteAction},
		{"ExternalIDUnique", testExternalIDUnique},
		{"WritesThenReads", testWritesThenReads},
		{"FailedWriteRollsBack", testFailedWriteRollsBack},
		{"Stats", testStats},
		{"JobTotals", testJobTotals},
		{"JobTotalsConcurrent", testJobTotalsConcurrent},
		{"JobTextSearch", testJobTextSearch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			defer s.Close()
			tc.fn(t, s)
		})
	}
}

var ctx = context.Background()

// at returns a time with millisecond precision, what the stores keep.
func at(sec int) time.Time {
	return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(sec)*time.Second + 123*time.Millisecond)
}

func sampleJob(id string) *store.Job {
	return &store.Job{
		ID: id, AppName: "app", AppPath: "file:///apps/x", User: "joe", Group: "users", ACL: "acl",
		ParentID: "", ExternalID: "ext-" + id, Status: store.JobPrep, Run: 0,
		Conf: "<configuration/>", Definition: "<workflow-app/>", State: `{"a":1}`,
		CreatedTime: at(0), LastModTime: at(1),
	}
}

func mustUpdate(t *testing.T, s store.Store, fn func(store.Tx) error) {
	t.Helper()
	if err := s.Update(ctx, fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func getJob(t *testing.T, s store.Store, id string) *store.Job {
	t.Helper()
	var j *store.Job
	if err := s.View(ctx, func(tx store.Tx) (err error) { j, err = tx.Job(ctx, id); return err }); err != nil {
		t.Fatalf("Job(%s): %v", id, err)
	}
	return j
}

func testJobRoundTrip(t *testing.T, s store.Store) {
	j := sampleJob("0000001-260102030405123-oozie-joe-W")
	mustUpdate(t, s, func(tx store.Tx) error { return tx.PutJob(ctx, j) })
	if got := getJob(t, s, j.ID); !reflect.DeepEqual(got, j) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, j)
	}
	// PutJob replaces every field, including clearing times.
	j.Status, j.StartTime, j.EndTime, j.ErrorCode, j.ErrorMessage = store.JobSucceeded, at(2), at(3), "E1", "msg"
	j.LastModTime = time.Time{}
	mustUpdate(t, s, func(tx store.Tx) error { return tx.PutJob(ctx, j) })
	if got := getJob(t, s, j.ID); !reflect.DeepEqual(got, j) {
		t.Fatalf("after update:\n got %+v\nwant %+v", got, j)
	}
}

func testJobNotFound(t *testing.T, s store.Store) {
	err := s.View(ctx, func(tx store.Tx) error { _, err := tx.Job(ctx, "nope"); return err })
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Job(nope) = %v, want ErrNotFound", err)
	}
	err = s.View(ctx, func(tx store.Tx) error { _, err := tx.Action(ctx, "nope@x"); return err })
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Action(nope@x) = %v, want ErrNotFound", err)
	}
}

func testJobFilter(t *testing.T, s store.Store) {
	mustUpdate(t, s, func(tx store.Tx) error {
		for i, st := range []string{store.JobRunning, store.JobSucceeded, store.JobRunning, store.JobKilled} {
			j := sampleJob(fmt.Sprintf("job-%d", i))
			j.Status = st
			j.CreatedTime = at(i)
			switch i {
			case 2:
				j.ParentID = "job-0"
			case 3:
				j.ParentID = "coord_1-C@2" // a wildcard of LIKE in the id
			}
			if err := tx.PutJob(ctx, j); err != nil {
				return err
			}
		}
		return nil
	})
	ids := func(f store.JobFilter) []string {
		var out []string
		err := s.View(ctx, func(tx store.Tx) error {
			jobs, err := tx.Jobs(ctx, f)
			for _, j := range jobs {
				out = append(out, j.ID)
			}
			return err
		})
		if err != nil {
			t.Fatalf("Jobs(%+v): %v", f, err)
		}
		return out
	}
	cases := []struct {
		f    store.JobFilter
		want []string
	}{
		{store.JobFilter{}, []string{"job-3", "job-2", "job-1", "job-0"}},
		{store.JobFilter{Statuses: []string{store.JobRunning}}, []string{"job-2", "job-0"}},
		{store.JobFilter{Statuses: []string{store.JobKilled, store.JobSucceeded}}, []string{"job-3", "job-1"}},
		// Pages of several statuses (one page per status, merged).
		{store.JobFilter{Statuses: []string{store.JobKilled, store.JobSucceeded}, Limit: 1}, []string{"job-3"}},
		{store.JobFilter{Statuses: []string{store.JobKilled, store.JobSucceeded}, Limit: 1, Offset: 1}, []string{"job-1"}},
		{store.JobFilter{Statuses: []string{store.JobSucceeded, store.JobKilled, store.JobKilled}, Limit: 5}, []string{"job-3", "job-1"}},
		{store.JobFilter{Statuses: []string{store.JobRunning, store.JobKilled}, Brief: true, Limit: 2, Offset: 1}, []string{"job-2", "job-0"}},
		{store.JobFilter{Statuses: []string{store.JobRunning, store.JobKilled}, Limit: 2, Offset: 3}, nil},
		{store.JobFilter{ParentID: "job-0"}, []string{"job-2"}},
		{store.JobFilter{ParentPrefix: "coord_1-C@"}, []string{"job-3"}},
		{store.JobFilter{ParentPrefix: "coord%"}, nil},
		{store.JobFilter{ParentPrefix: "coordx1-C@"}, nil},
		{store.JobFilter{ParentPrefix: "job-"}, []string{"job-2"}},
		{store.JobFilter{Limit: 2}, []string{"job-3", "job-2"}},
		{store.JobFilter{Limit: 2, Offset: 2}, []string{"job-1", "job-0"}},
		{store.JobFilter{User: "nobody"}, nil},
	}
	for _, c := range cases {
		if got := ids(c.f); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Jobs(%+v) = %v, want %v", c.f, got, c.want)
		}
	}
}

func sampleAction(jobID, name string) *store.Action {
	return &store.Action{
		ID: jobID + "@" + name, JobID: jobID, Name: name, Type: "shell", Status: store.ActionPrep,
		Conf: "<shell/>", Cred: "c", Retries: 1, UserRetryCount: 2, UserRetryMax: 3, UserRetryInterval: 4,
		Attempt: 5, Transition: "next", Data: "k=v\n", Stats: "{}", ExternalChildIDs: "a,b",
		ExternalID: "ext", ExternalStatus: "RUNNING", TrackerURI: "t", ConsoleURL: "c",
		ErrorCode: "E", ErrorMessage: "m", StartTime: at(1), EndTime: at(2), LastModTime: at(3),
	}
}

func testActionRoundTrip(t *testing.T, s store.Store) {
	a := sampleAction("j", "a")
	mustUpdate(t, s, func(tx store.Tx) error { return tx.PutAction(ctx, a) })
	if a.Seq == 0 {
		t.Fatal("PutAction did not assign Seq")
	}
	var got *store.Action
	if err := s.View(ctx, func(tx store.Tx) (err error) { got, err = tx.Action(ctx, a.ID); return err }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, a) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, a)
	}
	seq := a.Seq
	a.Status, a.EndTime = store.ActionOK, time.Time{}
	mustUpdate(t, s, func(tx store.Tx) error { return tx.PutAction(ctx, a) })
	if a.Seq != seq {
		t.Fatalf("update changed Seq %d -> %d", seq, a.Seq)
	}
	if err := s.View(ctx, func(tx store.Tx) (err error) { got, err = tx.Action(ctx, a.ID); return err }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, a) {
		t.Fatalf("after update:\n got %+v\nwant %+v", got, a)
	}
}

func testActionOrderAndStatus(t *testing.T, s store.Store) {
	names := []string{"z", "b", "m"}
	mustUpdate(t, s, func(tx store.Tx) error {
		for i, n := range names {
			a := sampleAction("j1", n)
			if i == 1 {
				a.Status = store.ActionRunning
			}
			if err := tx.PutAction(ctx, a); err != nil {
				return err
			}
		}
		other := sampleAction("j2", "x")
		other.Status = store.ActionRunning
		return tx.PutAction(ctx, other)
	})
	err := s.View(ctx, func(tx store.Tx) error {
		acts, err := tx.Actions(ctx, "j1")
		if err != nil {
			return err
		}
		var got []string
		for _, a := range acts {
			got = append(got, a.Name)
		}
		if !reflect.DeepEqual(got, names) {
			t.Errorf("Actions order = %v, want %v (creation order)", got, names)
		}
		running, err := tx.ActionsByStatus(ctx, store.ActionRunning)
		if err != nil {
			return err
		}
		got = nil
		for _, a := range running {
			got = append(got, a.ID)
		}
		if want := []string{"j1@b", "j2@x"}; !reflect.DeepEqual(got, want) {
			t.Errorf("ActionsByStatus(RUNNING) = %v, want %v", got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testEffects(t *testing.T, s store.Store) {
	var e1, e2, e3 store.Effect
	mustUpdate(t, s, func(tx store.Tx) error {
		e1 = store.Effect{JobID: "j1", ActionID: "j1@a", Kind: store.EffectStart, Attempt: 1, Payload: "p", NotBefore: at(5)}
		e2 = store.Effect{JobID: "j2", ActionID: "j2@b", Kind: store.EffectKill}
		e3 = store.Effect{JobID: "j1", Kind: store.EffectNotify}
		for _, e := range []*store.Effect{&e1, &e2, &e3} {
			if err := tx.AddEffect(ctx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if e1.ID == 0 || !(e1.ID < e2.ID && e2.ID < e3.ID) {
		t.Fatalf("effect ids not increasing: %d %d %d", e1.ID, e2.ID, e3.ID)
	}
	pending := func(job string, limit int) []int64 {
		var ids []int64
		err := s.View(ctx, func(tx store.Tx) error {
			es, err := tx.PendingEffects(ctx, job, limit)
			for _, e := range es {
				ids = append(ids, e.ID)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	if got, want := pending("", 0), []int64{e1.ID, e2.ID, e3.ID}; !reflect.DeepEqual(got, want) {
		t.Fatalf("pending = %v, want %v", got, want)
	}
	if got, want := pending("j1", 0), []int64{e1.ID, e3.ID}; !reflect.DeepEqual(got, want) {
		t.Fatalf("pending(j1) = %v, want %v", got, want)
	}
	if got, want := pending("", 1), []int64{e1.ID}; !reflect.DeepEqual(got, want) {
		t.Fatalf("pending limit 1 = %v, want %v", got, want)
	}
	err := s.View(ctx, func(tx store.Tx) error {
		es, err := tx.PendingEffects(ctx, "j1", 1)
		if err != nil {
			return err
		}
		got := *es[0]
		got.CreatedTime = time.Time{}
		want := e1
		want.CreatedTime = time.Time{}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("effect round trip:\n got %+v\nwant %+v", got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, s, func(tx store.Tx) error { return tx.DoneEffect(ctx, e1.ID) })
	mustUpdate(t, s, func(tx store.Tx) error { return tx.DoneEffect(ctx, e1.ID) }) // twice is fine
	if got, want := pending("", 0), []int64{e2.ID, e3.ID}; !reflect.DeepEqual(got, want) {
		t.Fatalf("pending after done = %v, want %v", got, want)
	}
}

func testSequence(t *testing.T, s store.Store) {
	for want := int64(1); want <= 3; want++ {
		var got int64
		mustUpdate(t, s, func(tx store.Tx) (err error) { got, err = tx.NextSequence(ctx, "wf"); return err })
		if got != want {
			t.Fatalf("NextSequence = %d, want %d", got, want)
		}
	}
	var other int64
	mustUpdate(t, s, func(tx store.Tx) (err error) { other, err = tx.NextSequence(ctx, "coord"); return err })
	if other != 1 {
		t.Fatalf("independent sequence started at %d, want 1", other)
	}
}

// testJobSequence: the job counter, which a store may keep outside its
// sequences table, counts from 1 like any other, and a value handed to a
// transaction that rolled back is never handed out again.
func testJobSequence(t *testing.T, s store.Store) {
	next := func() int64 {
		var v int64
		mustUpdate(t, s, func(tx store.Tx) (err error) { v, err = tx.NextSequence(ctx, store.JobSequence); return err })
		return v
	}
	if got := next(); got != 1 {
		t.Fatalf("first job number = %d, want 1", got)
	}
	if got := next(); got != 2 {
		t.Fatalf("second job number = %d, want 2", got)
	}
	var lost int64
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx store.Tx) (err error) {
		if lost, err = tx.NextSequence(ctx, store.JobSequence); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want boom", err)
	}
	if got := next(); got <= 2 || got < lost {
		t.Fatalf("job number after a rollback = %d, want > 2 and >= %d", got, lost)
	}
}

// testJobSequenceConcurrent: many transactions numbering jobs at once, as
// concurrent submissions (and several servers sharing a database) do, get
// distinct numbers, increasing in the order each client asked.
func testJobSequenceConcurrent(t *testing.T, s store.Store) {
	const workers, each = 8, 25
	got := make([][]int64, workers)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				var v int64
				err := s.Update(ctx, func(tx store.Tx) (err error) {
					if v, err = tx.NextSequence(ctx, store.JobSequence); err != nil {
						return err
					}
					j := sampleJob(fmt.Sprintf("job-%d-%d", w, i))
					j.ExternalID = ""
					return tx.PutJob(ctx, j)
				})
				if err != nil {
					errs <- err
					return
				}
				got[w] = append(got[w], v)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for w, vs := range got {
		for i, v := range vs {
			if seen[v] {
				t.Errorf("job number %d handed out twice", v)
			}
			seen[v] = true
			if i > 0 && v <= vs[i-1] {
				t.Errorf("client %d got %d after %d", w, v, vs[i-1])
			}
		}
	}
	if len(seen) != workers*each {
		t.Errorf("%d distinct job numbers, want %d", len(seen), workers*each)
	}
}

// testActionSeqPerJob: action records are numbered within their job, in
// creation order, whatever other jobs create meanwhile; a record put again
// keeps its number.
func testActionSeqPerJob(t *testing.T, s store.Store) {
	steps := []struct{ job, name string }{
		{"j1", "start"}, {"j2", "start"}, {"j1", "a"}, {"j1", "b"}, {"j2", "x"}, {"j1", "end"},
	}
	for _, st := range steps {
		mustUpdate(t, s, func(tx store.Tx) error { return tx.PutAction(ctx, sampleAction(st.job, st.name)) })
	}
	again := sampleAction("j1", "a")
	again.Seq = 2
	again.Status = store.ActionOK
	mustUpdate(t, s, func(tx store.Tx) error { return tx.PutAction(ctx, again) })
	tests := []struct {
		job   string
		names []string
		seqs  []int64
	}{
		{"j1", []string{"start", "a", "b", "end"}, []int64{1, 2, 3, 4}},
		{"j2", []string{"start", "x"}, []int64{1, 2}},
	}
	for _, tc := range tests {
		var acts []*store.Action
		if err := s.View(ctx, func(tx store.Tx) (err error) { acts, err = tx.Actions(ctx, tc.job); return err }); err != nil {
			t.Fatal(err)
		}
		var names []string
		var seqs []int64
		for _, a := range acts {
			names, seqs = append(names, a.Name), append(seqs, a.Seq)
		}
		if !reflect.DeepEqual(names, tc.names) || !reflect.DeepEqual(seqs, tc.seqs) {
			t.Errorf("Actions(%s) = %v %v, want %v %v", tc.job, names, seqs, tc.names, tc.seqs)
		}
	}
}

func testRollback(t *testing.T, s store.Store) {
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx store.Tx) error {
		if err := tx.PutJob(ctx, sampleJob("rolled-back")); err != nil {
			return err
		}
		if err := tx.AddEffect(ctx, &store.Effect{JobID: "rolled-back", Kind: store.EffectStart}); err != nil {
			return err
		}
		// Reads inside the transaction see its own writes.
		if _, err := tx.Job(ctx, "rolled-back"); err != nil {
			return fmt.Errorf("own write not visible: %w", err)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want boom", err)
	}
	err = s.View(ctx, func(tx store.Tx) error {
		if _, err := tx.Job(ctx, "rolled-back"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("job survived rollback: %v", err)
		}
		es, err := tx.PendingEffects(ctx, "", 0)
		if len(es) != 0 {
			t.Errorf("effect survived rollback: %v", es)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testViewIsReadOnly(t *testing.T, s store.Store) {
	err := s.View(ctx, func(tx store.Tx) error { return tx.PutJob(ctx, sampleJob("x")) })
	if err == nil {
		t.Fatal("PutJob in View succeeded")
	}
}

func testConcurrentUpdates(t *testing.T, s store.Store) {
	const workers, each = 8, 25
	var mu sync.Mutex
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				var v int64
				err := s.Update(ctx, func(tx store.Tx) (err error) {
					v, err = tx.NextSequence(ctx, "c")
					if err != nil {
						return err
					}
					return tx.PutJob(ctx, sampleJob(fmt.Sprintf("w%d-%d", w, i)))
				})
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				seen[v] = true
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(seen) != workers*each {
		t.Fatalf("%d distinct sequence values, want %d", len(seen), workers*each)
	}
}

// testExternalIDUnique checks the unique index behind the de-duplication
// of submissions: one job per user and oozie.wf.external.id; other users
// and jobs without an external id are not constrained.
func testExternalIDUnique(t *testing.T, s store.Store) {
	put := func(id, user, ext string) error {
		return s.Update(ctx, func(tx store.Tx) error {
			j := sampleJob(id)
			j.User, j.ExternalID = user, ext
			return tx.PutJob(ctx, j)
		})
	}
	for _, tc := range []struct {
		id, user, ext string
		ok            bool
	}{
		{"a", "joe", "x", true},
		{"a", "joe", "x", true}, // the same job written again
		{"b", "joe", "x", false},
		{"c", "ann", "x", true},
		{"d", "joe", "", true},
		{"e", "joe", "", true},
		{"f", "joe", "y", true},
	} {
		err := put(tc.id, tc.user, tc.ext)
		if (err == nil) != tc.ok {
			t.Errorf("PutJob(%s, user %s, external id %q) = %v, want ok=%v", tc.id, tc.user, tc.ext, err, tc.ok)
		}
		if err != nil && errors.Is(err, store.ErrUnavailable) {
			t.Errorf("a constraint violation is not unavailability: %v", err)
		}
	}
}
