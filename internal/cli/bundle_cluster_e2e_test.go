//go:build linux

package cli

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store/postgres"
)

// The bundle take-over test runs two `gozie server` processes (this test
// binary, as in TestClusterFailover) on one PostgreSQL schema, submits the
// bundle of TestBundleCrashRecovery to the first, passes a suspend and a
// resume of it through the second, SIGKILLs the first while coordinator
// actions run, and lets the second take the whole family over and finish
// it.

// TestBundleClusterTakeOver: a bundle, its coordinators and their
// workflows survive the death of the server owning them. Server A owns the
// family; B forwards -suspend and -resume to A, and the coordinators
// follow; A is SIGKILLed with steps running and others still to come; once
// A's lease (3 s) has run out B takes every job of the family over and the
// bundle ends SUCCEEDED on B. Checked through B's REST API and the store:
// the family is B's instance's, each coordinator exists once, each
// coordinator action launched one workflow, each step ran once. Skipped
// without PostgreSQL (postgres.TestDSN).
func TestBundleClusterTakeOver(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	dsn := postgres.TestDSN(t)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	work := t.TempDir()
	marks := filepath.Join(work, "marks")
	bundleCrashApp(t, work, marks)
	a := newClusterServer(t, work, "bundle-a", dsn)
	b := newClusterServer(t, work, "bundle-b", dsn)
	clusterCleanup(t, a, b)
	// One cookie secret for both (docs/server.md, "Several servers"): the
	// CLI authenticates to B with a hadoop.auth cookie, which B passes on
	// to A with the commands it forwards.
	secret := filepath.Join(work, "cookie.secret")
	if err := os.WriteFile(secret, []byte(strings.Repeat("bundle-take-over-", 4)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*clusterServer{a, b} {
		s.env = append(s.env, "GOZIE_AUTHENTICATION_SECRET_FILE="+secret)
	}
	for _, s := range []*clusterServer{a, b} {
		if err := s.start(); err != nil {
			t.Fatal(err)
		}
	}
	aID, bID := clusterInstance(t, db, a.name), clusterInstance(t, db, b.name)
	began := time.Now()

	id, err := clusterSubmit(a.base, map[string]string{"oozie.bundle.application.path": "file://" + work + "/bundle"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(id, "-B") {
		t.Fatalf("submission answered %s, not a bundle id", id)
	}
	// Read on B: any server answers reads from the store.
	running := func(what string) {
		t.Helper()
		pollBundle(t, b.base, id, what, func(v *bundleCrashView) bool {
			if v.Status != "RUNNING" || len(v.Coords) != bundleCrashCoords {
				return false
			}
			n, err := runningActions(b.base, v)
			if err != nil {
				t.Fatal(err)
			}
			return n > 0
		})
	}
	running("coordinator actions running on A")
	// Submitted to A with no other job about, the family is A's (a
	// submission is spread only away from a clearly busier server).
	checkBundleFamily(t, db, id, aID, false)

	bundleCommandsForwarded(t, b, a, id)
	running("coordinator actions running again after the resume")

	a.kill()
	data, _ := os.ReadFile(marks)
	started := strings.Count(string(data), "\n")
	t.Logf("%5.2fs: killed A with %d of %d steps started", time.Since(began).Seconds(), started, bundleCrashCoords*bundleCrashActions)
	if started >= bundleCrashCoords*bundleCrashActions {
		t.Fatalf("every step had started before the kill; nothing was left for B to launch")
	}
	took := waitTakeOver(t, b, a)
	t.Logf("%5.2fs: B took A's jobs over %v after the kill", time.Since(began).Seconds(), took.Round(time.Millisecond))

	v := pollBundle(t, b.base, id, "bundle ended on B", func(v *bundleCrashView) bool {
		return v.Status != "RUNNING" && v.Status != "PREP"
	})
	if v.Status != "SUCCEEDED" {
		t.Fatalf("bundle ended %s: %+v", v.Status, v)
	}
	t.Logf("%5.2fs: bundle SUCCEEDED on B", time.Since(began).Seconds())
	checkBundleCrashRun(t, b.base, id, marks)
	checkBundleFamily(t, db, id, bID, true)
	if n := b.count("the step may run twice"); n > 0 {
		t.Errorf("B started %d step(s) again whose first start it could not see", n)
	}
}

// bundleCommandsForwarded sends -suspend and then -resume of bundle id to
// via, a server that does not own it, and checks that via passed each on
// to owner (via's forwarded.requests counter) and that owner applied it:
// the bundle and every coordinator SUSPENDED, then RUNNING again.
func bundleCommandsForwarded(t *testing.T, via, owner *clusterServer, id string) {
	t.Helper()
	for _, step := range []struct{ flag, status string }{{"-suspend", "SUSPENDED"}, {"-resume", "RUNNING"}} {
		before, ownBefore := clusterForwarded(t, via), clusterForwarded(t, owner)
		if code, out, errOut := run(t, "job", "-oozie", via.base, step.flag, id); code != 0 {
			t.Fatalf("gozie job %s %s at %s: exit %d\n%s%s", step.flag, id, via.name, code, out, errOut)
		}
		if n := clusterForwarded(t, via) - before; n != 1 {
			t.Errorf("%s: %s forwarded %d requests, want 1", step.flag, via.name, n)
		}
		if n := clusterForwarded(t, owner) - ownBefore; n != 0 {
			t.Errorf("%s: the owner %s forwarded %d requests, want none", step.flag, owner.name, n)
		}
		pollBundle(t, via.base, id, "bundle and coordinators "+step.status, func(v *bundleCrashView) bool {
			ok := v.Status == step.status && len(v.Coords) == bundleCrashCoords
			for _, c := range v.Coords {
				ok = ok && c.Status == step.status
			}
			return ok
		})
	}
}

// clusterForwarded reads the forwarded.requests counter of a server
// (GET admin/metrics): the commands it passed on to the owner of a job.
func clusterForwarded(t *testing.T, s *clusterServer) int64 {
	t.Helper()
	var m struct {
		Counters map[string]struct {
			Count int64 `json:"count"`
		} `json:"counters"`
	}
	if err := clusterGet(s.base, "/v2/admin/metrics", &m); err != nil {
		t.Fatal(err)
	}
	c, ok := m.Counters["forwarded.requests"]
	if !ok {
		t.Fatalf("%s: admin/metrics has no forwarded.requests counter", s.name)
	}
	return c.Count
}

// clusterInstance is the instance id (gozie.server.id#random) the live
// server named name registered in the store.
func clusterInstance(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `SELECT id FROM servers WHERE name = $1`, name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 {
		t.Fatalf("server %s has instances %v in the store, want one", name, ids)
	}
	return ids[0]
}

// waitTakeOver waits until server s says it took the jobs of the killed
// server dead over, and returns how long after the kill; it fails the test
// 20 s after the lease.
func waitTakeOver(t *testing.T, s, dead *clusterServer) time.Duration {
	t.Helper()
	killedAt := dead.kills[len(dead.kills)-1]
	deadline := killedAt.Add(clusterLeaseS*time.Second + 20*time.Second)
	for s.count("cluster: "+dead.name+"#", "its jobs are this server's now") == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not take over the jobs of %s within %v of its kill", s.name, dead.name, time.Since(killedAt))
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(killedAt)
}

// bundleFamilyJob is one job row of the store: bundle, coordinator or
// workflow.
type bundleFamilyJob struct {
	kind, id, owner, parent, name string
}

// checkBundleFamily checks the store's jobs (the test's schema holds no
// others) against bundle id: every job is owner's. With complete, also
// the family's shape once the bundle has ended: one bundle, each of its
// coordinators once, and each coordinator action with exactly one
// workflow, the one its external id names.
func checkBundleFamily(t *testing.T, db *sql.DB, id, owner string, complete bool) {
	t.Helper()
	jobs := bundleFamilyJobs(t, db)
	for _, j := range jobs {
		if j.owner != owner {
			t.Errorf("%s %s (%s) belongs to %q, want %q", j.kind, j.id, j.name, j.owner, owner)
		}
	}
	if !complete {
		return
	}
	perKind := map[string][]bundleFamilyJob{}
	for _, j := range jobs {
		perKind[j.kind] = append(perKind[j.kind], j)
	}
	if bs := perKind["bundle"]; len(bs) != 1 || bs[0].id != id {
		t.Errorf("bundle jobs %v, want %s alone", bs, id)
	}
	coords := map[string]bool{}
	perName := map[string]int{}
	for _, c := range perKind["coord"] {
		if c.parent != id {
			t.Errorf("coordinator %s (%s) of parent %q, want %s", c.id, c.name, c.parent, id)
		}
		coords[c.id] = true
		perName[c.name]++
	}
	for i := range bundleCrashCoords {
		if name := fmt.Sprintf("c%d", i+1); perName[name] != 1 {
			t.Errorf("the store holds coordinator %s %d times, want once (%v)", name, perName[name], perName)
		}
	}
	wfsOf := map[string][]string{}
	for _, w := range perKind["wf"] {
		wfsOf[w.parent] = append(wfsOf[w.parent], w.id)
	}
	actions := bundleFamilyActions(t, db)
	for action, ext := range actions {
		coord, _, _ := strings.Cut(action, "@")
		if !coords[coord] {
			t.Errorf("coordinator action %s of no coordinator of the bundle", action)
		}
		if wfs := wfsOf[action]; len(wfs) != 1 || wfs[0] != ext {
			t.Errorf("coordinator action %s (external id %q) launched workflows %v, want that one alone", action, ext, wfs)
		}
	}
	for parent, wfs := range wfsOf {
		if _, ok := actions[parent]; !ok {
			t.Errorf("workflows %v of %q, no coordinator action", wfs, parent)
		}
	}
	if len(actions) != bundleCrashCoords*bundleCrashActions {
		t.Errorf("%d coordinator actions, want %d", len(actions), bundleCrashCoords*bundleCrashActions)
	}
}

// bundleFamilyJobs reads every bundle, coordinator and workflow job of the
// store with its owner (the heir of the instance its row names, when that
// one was taken over), parent and name.
func bundleFamilyJobs(t *testing.T, db *sql.DB) []bundleFamilyJob {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `
		SELECT kind, id, COALESCE((SELECT heir FROM servers s WHERE s.id = j.owner), j.owner), parent_id, app_name FROM (
			SELECT 'bundle' AS kind, id, owner, '' AS parent_id, app_name FROM bundle_jobs
			UNION ALL SELECT 'coord', id, owner, parent_id, app_name FROM coord_jobs
			UNION ALL SELECT 'wf', id, owner, parent_id, app_name FROM wf_jobs) j`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var jobs []bundleFamilyJob
	for rows.Next() {
		var j bundleFamilyJob
		if err := rows.Scan(&j.kind, &j.id, &j.owner, &j.parent, &j.name); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(jobs, func(x, y bundleFamilyJob) int { return strings.Compare(x.id, y.id) })
	return jobs
}

// bundleFamilyActions reads every coordinator action of the store: its id
// and the id of the workflow it launched.
func bundleFamilyActions(t *testing.T, db *sql.DB) map[string]string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `SELECT id, external_id FROM coord_actions`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, ext string
		if err := rows.Scan(&id, &ext); err != nil {
			t.Fatal(err)
		}
		out[id] = ext
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
