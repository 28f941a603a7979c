package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/engine/enginetest"
	"github.com/gozie/gozie/internal/gozietest"
)

// migrateE2E is two gozie servers on one fake clock: the source plays
// the Oozie server jobs are moved from.
type migrateE2E struct {
	t        *testing.T
	clock    *enginetest.FakeClock
	src, dst *gozietest.Server
	sc, dc   *client.Client
	dir      string
}

func newMigrateE2E(t *testing.T, now time.Time) *migrateE2E {
	pinEnv(t)
	clock := enginetest.NewFakeClock(now)
	opts := gozietest.Options{Clock: clock, DefaultUser: "tester", PollInterval: 50 * time.Millisecond}
	e := &migrateE2E{t: t, clock: clock, src: gozietest.NewServer(t, opts), dst: gozietest.NewServer(t, opts), dir: t.TempDir()}
	e.sc = client.New(e.src.URL, client.Options{User: "tester"})
	e.dc = client.New(e.dst.URL, client.Options{User: "tester"})
	files := map[string]string{
		"wf/workflow.xml": `<workflow-app name="w" xmlns="uri:oozie:workflow:0.5"><start to="end"/><end name="end"/></workflow-app>`,
		"coord/coordinator.xml": `<coordinator-app name="${coordName}" frequency="${coord:hours(1)}" start="${start}" end="2030-01-02T00:00Z"
    timezone="UTC" xmlns="uri:oozie:coordinator:0.4"><action><workflow><app-path>` + filepath.Join(e.dir, "wf") + `</app-path>
    <configuration><property><name>hour</name><value>${coord:formatTime(coord:nominalTime(), 'HH')}</value></property></configuration>
    </workflow></action></coordinator-app>`,
		"bundle/bundle.xml": `<bundle-app name="pipes" xmlns="uri:oozie:bundle:0.2"><controls><kick-off-time>2030-01-01T00:00Z</kick-off-time></controls>
  <coordinator name="ba"><app-path>` + filepath.Join(e.dir, "coord") + `</app-path></coordinator>
  <coordinator name="bb"><app-path>` + filepath.Join(e.dir, "coord") + `</app-path></coordinator></bundle-app>`,
	}
	for name, body := range files {
		p := filepath.Join(e.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// submit submits a coordinator (or, with bundle, the bundle) to the source.
func (e *migrateE2E) submit(name, start string, bundle bool) string {
	e.t.Helper()
	cf := conf.New()
	cf.Set("user.name", "tester")
	cf.Set("coordName", name)
	cf.Set("start", start)
	if bundle {
		cf.Set("oozie.bundle.application.path", filepath.Join(e.dir, "bundle"))
	} else {
		cf.Set("oozie.coord.application.path", filepath.Join(e.dir, "coord"))
	}
	id, _, err := e.sc.Submit(e.t.Context(), cf, false)
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

// settle waits until neither server has anything due.
func (e *migrateE2E) settle() {
	e.t.Helper()
	enginetest.Settle(e.t, e.src.Store, e.clock.Now)
	enginetest.Settle(e.t, e.dst.Store, e.clock.Now)
	enginetest.Settle(e.t, e.src.Store, e.clock.Now)
}

// advance moves the clock to at in steps of five minutes, both servers
// settled after each.
func (e *migrateE2E) advance(at time.Time) {
	e.t.Helper()
	for e.clock.Now().Before(at) {
		e.clock.Advance(min(5*time.Minute, at.Sub(e.clock.Now())))
		e.settle()
	}
}

// migrate runs `gozie migrate` from the source to the destination.
func (e *migrateE2E) migrate(args ...string) (string, int) {
	e.t.Helper()
	var out, errb bytes.Buffer
	code := Main(append([]string{"migrate", "-from", e.src.URL, "-oozie", e.dst.URL}, args...), &out, &errb)
	if errb.Len() > 0 {
		e.t.Logf("stderr: %s", errb.String())
	}
	e.settle()
	return out.String(), code
}

// coordJobs lists every coordinator of a server.
func coordJobsOf(t *testing.T, c *client.Client) []*client.CoordJob {
	t.Helper()
	l, _, err := c.Jobs(t.Context(), client.ListOptions{JobType: "coord", Len: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return l.CoordinatorJobs
}

// ran is the nominal times (HH:MM) of a coordinator's actions by status.
func ran(t *testing.T, c *client.Client, id string) map[string][]string {
	t.Helper()
	j, _, err := c.CoordInfo(t.Context(), id, client.InfoOptions{Len: 1000})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, a := range j.Actions {
		out[a.Status] = append(out[a.Status], a.NominalTime.UTC().Format("15:04"))
	}
	return out
}

// hours lists HH:00 from first to last.
func hours(first, last int) []string {
	var out []string
	for h := first; h <= last; h++ {
		out = append(out, fmt.Sprintf("%02d:00", h))
	}
	return out
}

// copies maps each source coordinator (standalone by id, a bundle's by
// "bundle/name") to its copy on the destination.
func (e *migrateE2E) copies(bundleID string) map[string]string {
	e.t.Helper()
	out := map[string]string{}
	for _, c := range coordJobsOf(e.t, e.dc) {
		if c.BundleID != "" {
			continue
		}
		j, _, err := e.dc.CoordInfo(e.t.Context(), c.CoordJobID, client.InfoOptions{Len: 1})
		if err != nil {
			e.t.Fatal(err)
		}
		src := migratedFrom(string(j.Conf))
		if src == "" || out[src] != "" {
			e.t.Fatalf("destination coordinator %s copies %q (twice: %v)", c.CoordJobID, src, out[src] != "")
		}
		out[src] = c.CoordJobID
	}
	if bundleID == "" {
		return out
	}
	l, _, err := e.dc.Jobs(e.t.Context(), client.ListOptions{JobType: "bundle", Len: 100})
	if err != nil {
		e.t.Fatal(err)
	}
	if len(l.BundleJobs) != 1 {
		e.t.Fatalf("destination bundles: %d", len(l.BundleJobs))
	}
	b, _, err := e.dc.BundleInfo(e.t.Context(), l.BundleJobs[0].BundleJobID)
	if err != nil || migratedFrom(string(b.Conf)) != bundleID {
		e.t.Fatalf("destination bundle copying %q (%v)", migratedFrom(string(b.Conf)), err)
	}
	for _, c := range b.BundleCoordJobs {
		out["bundle/"+string(c.CoordJobName)] = c.CoordJobID
	}
	return out
}

// checkOnce checks that each period of a coordinator ran exactly once:
// want on the source before the hand-over, the rest on the copy.
func (e *migrateE2E) checkOnce(label, srcID, copyID string, want []string) {
	e.t.Helper()
	s, d := ran(e.t, e.sc, srcID), ran(e.t, e.dc, copyID)
	all := append(slices.Clone(s["SUCCEEDED"]), d["SUCCEEDED"]...)
	slices.Sort(all)
	others := 0
	for _, m := range []map[string][]string{s, d} {
		for st := range m {
			if st != "SUCCEEDED" {
				others++
			}
		}
	}
	if !slices.Equal(all, want) || others > 0 {
		e.t.Errorf("%s: source %v, copy %v; want %v each once", label, s, d, want)
	}
}

// TestMigrateEndToEnd moves 20 coordinators (RUNNING with materialized
// actions, one SUSPENDED, one PREP before its start) and a bundle of two
// from one gozie server to another, with -suspend-source, at 05:58 when
// the source has run 00:00 to 05:00 and materialized 06:00; then both
// servers run to 12:10 and each hour ran exactly once, on one of them.
// A dry run submits nothing; a second run submits nothing new.
func TestMigrateEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	e := newMigrateE2E(t, time.Date(2030, 1, 1, 5, 58, 0, 0, time.UTC))
	ids := map[string]string{}
	for i := range 20 {
		name, start := fmt.Sprintf("c%02d", i), "2030-01-01T00:00Z"
		if i == 18 {
			start = "2030-01-01T08:00Z"
		}
		ids[name] = e.submit(name, start, false)
	}
	bundleID := e.submit("", "2030-01-01T00:00Z", true)
	// A workflow in flight (held before its end node): listed, not moved.
	wf := conf.New()
	wf.Set("user.name", "tester")
	wf.Set("oozie.wf.application.path", filepath.Join(e.dir, "wf"))
	wf.Set("oozie.suspend.on.nodes", "end")
	wfID, _, err := e.sc.Submit(t.Context(), wf, true)
	if err != nil {
		t.Fatal(err)
	}
	e.settle()
	if err := e.sc.Suspend(t.Context(), ids["c19"]); err != nil {
		t.Fatal(err)
	}
	e.settle()
	if got := ran(t, e.sc, ids["c00"]); !slices.Equal(got["SUCCEEDED"], hours(0, 5)) || !slices.Equal(got["WAITING"], []string{"06:00"}) {
		t.Fatalf("the source before the move: %v", got)
	}

	out, code := e.migrate("-dryrun", "-suspend-source")
	if code != 0 || !strings.Contains(out, "migrate: 20 coordinators, 1 bundles: 21 to submit (dry run), 0 already migrated, 0 skipped, 0 failed") ||
		!strings.Contains(out, "coordinator "+ids["c00"]+" [c00] RUNNING: next 2030-01-01T07:00Z: would submit oozie.coord.application.path=") ||
		!strings.Contains(out, "gozie.coord.materialize.from=2030-01-01T06:00Z gozie.migrated.from="+ids["c00"]+"; would suspend the source; would set the source's end time to 2030-01-01T06:00Z") {
		t.Fatalf("dry run (%d):\n%s", code, out)
	}
	if n := len(coordJobsOf(t, e.dc)); n != 0 {
		t.Fatalf("the dry run submitted %d coordinators", n)
	}
	if got := ran(t, e.sc, ids["c00"]); !slices.Equal(got["WAITING"], []string{"06:00"}) {
		t.Fatalf("the dry run changed the source: %v", got)
	}

	out, code = e.migrate("-suspend-source")
	if code != 0 || !strings.Contains(out, "21 submitted, 0 already migrated, 0 skipped, 0 failed; 1 workflows in flight left on the source") ||
		!strings.Contains(out, "workflow "+wfID+" [w] SUSPENDED: in flight, left on the source\n") {
		t.Fatalf("migrate (%d):\n%s", code, out)
	}
	if n := len(regexp.MustCompile(`(?m)^coordinator \S+ \[c\d\d\] \w+: submitted as \S+-C, materializing from 2030-01-01T0[68]:00Z`).FindAllString(out, -1)); n != 20 {
		t.Errorf("%d coordinator lines, want 20:\n%s", n, out)
	}
	for name, id := range ids {
		j, _, err := e.sc.CoordInfo(t.Context(), id, client.InfoOptions{Len: 1})
		if err != nil || (j.Status != "SUSPENDED" && j.Status != "PREPSUSPENDED") {
			t.Errorf("source %s %s: %s (%v)", name, id, j.Status, err)
		}
	}
	if st, err := e.sc.JobStatus(t.Context(), bundleID); err != nil || st != "SUSPENDED" {
		t.Errorf("source bundle: %s (%v)", st, err)
	}

	again, code := e.migrate("-suspend-source")
	if code != 0 || !strings.Contains(again, "0 submitted, 21 already migrated, 0 skipped, 0 failed") {
		t.Fatalf("second migrate (%d):\n%s", code, again)
	}
	t.Logf("migrate:\n%s", out)
	copies := e.copies(bundleID)
	if len(copies) != 22 {
		t.Fatalf("copies %v", copies)
	}
	c19, _, err := e.dc.CoordInfo(t.Context(), copies[ids["c19"]], client.InfoOptions{Len: 1})
	if err != nil || c19.Status != "PREPSUSPENDED" {
		t.Fatalf("the copy of the suspended source: %s (%v)", c19.Status, err)
	}
	if err := e.dc.Resume(t.Context(), copies[ids["c19"]]); err != nil {
		t.Fatal(err)
	}

	e.advance(time.Date(2030, 1, 1, 12, 10, 0, 0, time.UTC))
	for name, id := range ids {
		want := hours(0, 12)
		if name == "c18" {
			want = hours(8, 12)
		}
		e.checkOnce(name, id, copies[id], want)
	}
	b, _, err := e.sc.BundleInfo(t.Context(), bundleID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range b.BundleCoordJobs {
		e.checkOnce("bundle/"+string(c.CoordJobName), c.CoordJobID, copies["bundle/"+string(c.CoordJobName)], hours(0, 12))
	}
}

// TestMigrateKeepsSourceActions: without -suspend-source the source keeps
// what it materialized (06:00, materialized ahead, runs there at 06:00)
// and stops there; the copy starts at 07:00; the source ends SUCCEEDED.
// A second run finishes what a first one left undone.
func TestMigrateKeepsSourceActions(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	e := newMigrateE2E(t, time.Date(2030, 1, 1, 5, 58, 0, 0, time.UTC))
	ids := []string{e.submit("a", "2030-01-01T00:00Z", false), e.submit("b", "2030-01-01T03:00Z", false)}
	e.settle()
	if err := e.sc.Change(t.Context(), ids[1], "concurrency=3"); err != nil {
		t.Fatal(err)
	}
	out, code := e.migrate()
	if code != 0 || !strings.Contains(out, "2 submitted") || !strings.Contains(out, "[a] RUNNING: submitted as ") ||
		!strings.Contains(out, "materializing from 2030-01-01T07:00Z; source end time set to 2030-01-01T07:00Z\n") ||
		!strings.Contains(out, "materializing from 2030-01-01T07:00Z; copy changed to concurrency=3 as the source; source end time set to 2030-01-01T07:00Z\n") {
		t.Fatalf("migrate (%d):\n%s", code, out)
	}
	// A second run with -suspend-source: the sources' 06:00 is their own
	// and has not started, so they are not suspended; b's end time, put
	// back as if the first run had failed there, is set again.
	if err := e.sc.Change(t.Context(), ids[1], "endtime=2030-01-02T00:00Z"); err != nil {
		t.Fatal(err)
	}
	again, code := e.migrate("-suspend-source")
	if code != 0 || !strings.Contains(again, "0 submitted, 2 already migrated") ||
		!strings.Contains(again, "[a] RUNNING: already migrated as "+e.copies("")[ids[0]]+"; source not suspended: 1 of its actions before 2030-01-01T07:00Z have not started yet (rerun once they have)\n") ||
		!strings.Contains(again, "[b] RUNNING: already migrated as "+e.copies("")[ids[1]]+"; source not suspended: 1 of its actions before 2030-01-01T07:00Z have not started yet (rerun once they have); source end time set to 2030-01-01T07:00Z\n") {
		t.Fatalf("second migrate (%d):\n%s", code, again)
	}
	copies := e.copies("")
	e.advance(time.Date(2030, 1, 1, 9, 10, 0, 0, time.UTC))
	e.checkOnce("a", ids[0], copies[ids[0]], hours(0, 9))
	e.checkOnce("b", ids[1], copies[ids[1]], hours(3, 9))
	if s := ran(t, e.sc, ids[0]); !slices.Contains(s["SUCCEEDED"], "06:00") {
		t.Errorf("06:00 did not run on the source: %v", s)
	}
	for _, id := range ids {
		if st, err := e.sc.JobStatus(context.Background(), id); err != nil || st != "SUCCEEDED" {
			t.Errorf("source %s: %s (%v)", id, st, err)
		}
	}
}

// TestMigrateBundleBeforeKickoff: a bundle whose kick-off is still ahead
// has no coordinator to stop at a hand-over time: without
// -suspend-source it is not moved (exit 1); with it the copy is
// submitted and the source suspended before its kick-off, and the copy
// runs every period from the start once it kicks off.
func TestMigrateBundleBeforeKickoff(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	e := newMigrateE2E(t, time.Date(2030, 1, 1, 5, 58, 0, 0, time.UTC))
	later := strings.Replace(mustRead(t, filepath.Join(e.dir, "bundle", "bundle.xml")), "2030-01-01T00:00Z", "2030-01-01T08:00Z", 1)
	if err := os.WriteFile(filepath.Join(e.dir, "bundle", "bundle.xml"), []byte(later), 0o644); err != nil {
		t.Fatal(err)
	}
	id := e.submit("", "2030-01-01T00:00Z", true)
	e.settle()
	out, code := e.migrate()
	if code != exitFail || !strings.Contains(out, "bundle "+id+" [pipes] PREP: FAILED: not kicked off yet (kick-off 2030-01-01T08:00Z): not moved; rerun with -suspend-source") {
		t.Fatalf("migrate (%d):\n%s", code, out)
	}
	out, code = e.migrate("-suspend-source")
	if code != 0 || !strings.Contains(out, "bundle "+id+" [pipes] PREP: submitted as ") || !strings.Contains(out, "; source suspended\n") {
		t.Fatalf("migrate -suspend-source (%d):\n%s", code, out)
	}
	if st, err := e.sc.JobStatus(t.Context(), id); err != nil || st != "PREPSUSPENDED" {
		t.Errorf("source bundle: %s (%v)", st, err)
	}
	e.advance(time.Date(2030, 1, 1, 9, 10, 0, 0, time.UTC))
	if n := len(coordJobsOf(t, e.sc)); n != 0 {
		t.Errorf("the source kicked off %d coordinators", n)
	}
	copies := e.copies(id)
	for _, name := range []string{"ba", "bb"} {
		if got := ran(t, e.dc, copies["bundle/"+name]); !slices.Equal(got["SUCCEEDED"], hours(0, 9)) || len(got) != 1 {
			t.Errorf("copy of %s: %v", name, got)
		}
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
