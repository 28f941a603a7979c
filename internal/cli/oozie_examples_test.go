package cli

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/fsys/hcat/hcattest"
	"github.com/gozie/gozie/internal/gozietest"
	restapi "github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/server"
)

// The tests of this file run Oozie's example applications, re-created in
// examples/oozie in the layout of Oozie's examples/ directory, with their
// own job.properties as Oozie ships them (nameNode=hdfs://localhost:8020,
// application paths ${nameNode}/user/${user.name}/${examplesRoot}/apps/...).
// Nothing is rewritten: a gozie-site.xml with one mount line makes
// hdfs://localhost:8020/user a local directory T/user, and the tree is
// copied to T/user/<user>/examples, where `hadoop fs -put examples` would
// have put it on a cluster. No HDFS is involved.

// oozieNameNode is the name-node of Oozie's job.properties.
const oozieNameNode = "hdfs://localhost:8020"

// oozieExamples is one copy of examples/oozie behind the mount table.
type oozieExamples struct {
	user string
	dir  string // T/user/<user>/examples: the local side
	uri  string // hdfs://localhost:8020/user/<user>/examples: the side jobs see
	site string // T/gozie-site.xml: the mount line and nothing else
}

// newOozieExamples copies examples/oozie under a temporary T/user/<user>
// and writes the site file mounting hdfs://localhost:8020/user on T/user.
// The process's namespace is restored when t ends (gozie run and the
// server install theirs).
func newOozieExamples(t *testing.T) *oozieExamples {
	t.Helper()
	repoRoot(t)
	prev := fsys.Default()
	t.Cleanup(func() { fsys.SetDefault(prev) })
	root := t.TempDir()
	u := currentUser()
	ex := &oozieExamples{
		user: u,
		dir:  filepath.Join(root, "user", u, "examples"),
		uri:  oozieNameNode + "/user/" + u + "/examples",
		site: filepath.Join(root, "gozie-site.xml"),
	}
	copyOozieTree(t, filepath.Join("examples", "oozie"), ex.dir)
	mountKey := fsys.MountKeyPrefix + oozieNameNode + "/user"
	site := "<configuration>\n  <property>\n    <name>" + mountKey + "</name>\n    <value>" +
		filepath.Join(root, "user") + "</value>\n  </property>\n</configuration>\n"
	if err := os.WriteFile(ex.site, []byte(site), 0o644); err != nil {
		t.Fatal(err)
	}
	return ex
}

// copyOozieTree copies directory src to dst, keeping the files' modes
// (build.sh stays executable).
func copyOozieTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if rel == filepath.Join("apps", "java-main", "lib") {
				return filepath.SkipDir // a local build of the repository's copy
			}
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// props is the path of an example's unchanged job.properties.
func (ex *oozieExamples) props(app string) string {
	return filepath.Join(ex.dir, "apps", app, "job.properties")
}

// read returns the content of a file of the copy, relative to examples/.
func (ex *oozieExamples) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ex.dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("reading the mounted store: %v", err)
	}
	return string(b)
}

// oozieRunJob is the part of `gozie run -json`'s report the tests read.
type oozieRunJob struct {
	Status  string `json:"status"`
	AppPath string `json:"appPath"`
	User    string `json:"user"`
	Actions []struct {
		Name, Type, Status, Data, ErrorMessage string
	} `json:"actions"`
}

// runOozieWorkflow runs a workflow example with `gozie run -config
// <its job.properties> -site <the mount>` and returns its report; a run
// that does not succeed fails the test.
func runOozieWorkflow(t *testing.T, ex *oozieExamples, app string) *oozieRunJob {
	t.Helper()
	var out, errOut bytes.Buffer
	code := runRun([]string{"-config", ex.props(app), "-site", ex.site, "-data", t.TempDir(), "-json"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("gozie run %s: exit %d\n%s\n%s", app, code, out.String(), errOut.String())
	}
	var job oozieRunJob
	if err := json.Unmarshal(out.Bytes(), &job); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if job.Status != "SUCCEEDED" {
		t.Fatalf("status %s\n%s", job.Status, out.String())
	}
	// The application path stays the one the user wrote; only the
	// namespace knows it is local.
	if want := ex.uri + "/apps/" + app; !strings.HasPrefix(job.AppPath, want) {
		t.Errorf("app path %s, want %s", job.AppPath, want)
	}
	return &job
}

// actionData returns the captured output of a node of a run.
func (j *oozieRunJob) actionData(t *testing.T, name string) string {
	t.Helper()
	for _, a := range j.Actions {
		if a.Name == name {
			return a.Data
		}
	}
	t.Fatalf("no action %s in the run", name)
	return ""
}

// TestOozieExampleWorkflows runs the workflow examples (shell, java-main,
// streaming, map-reduce, subwf) with `gozie run`, their job.properties
// unchanged, and checks what they left on the mounted store.
func TestOozieExampleWorkflows(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	ex := newOozieExamples(t)
	text := ex.read(t, "input-data/text/data.txt")
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")

	t.Run("shell", func(t *testing.T) {
		job := runOozieWorkflow(t, ex, "shell")
		if d := job.actionData(t, "say-hello"); !strings.Contains(d, "my_output=Hello Oozie") {
			t.Errorf("captured output %q", d)
		}
	})

	t.Run("java-main", func(t *testing.T) {
		for _, tool := range []string{"javac", "jar"} {
			if _, err := exec.LookPath(tool); err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s not installed: CI must run the java-main example", tool)
				}
				t.Skipf("%s not installed: the java-main example builds its jar with the JDK", tool)
			}
		}
		if out, err := exec.Command(filepath.Join(ex.dir, "build.sh")).CombinedOutput(); err != nil {
			t.Fatalf("build.sh: %v\n%s", err, out)
		}
		job := runOozieWorkflow(t, ex, "java-main")
		d := job.actionData(t, "greet")
		for _, want := range []string{"args.count=2", "arg.0=Hello", `arg.1=Oozie\!`} {
			if !strings.Contains(d, want) {
				t.Errorf("captured output %q lacks %s", d, want)
			}
		}
	})

	t.Run("streaming", func(t *testing.T) {
		runOozieWorkflow(t, ex, "streaming")
		// One reducer, wc: the line and word counts of input-data/text.
		f := strings.Fields(ex.read(t, "output-data/streaming/part-00000"))
		words := len(strings.Fields(text))
		if len(f) < 2 || f[0] != strconv.Itoa(len(lines)) || f[1] != strconv.Itoa(words) {
			t.Errorf("part-00000 fields %q, want %d lines and %d words first", f, len(lines), words)
		}
		ex.read(t, "output-data/streaming/_SUCCESS")
	})

	// map-reduce runs alone, then as subwf's sub-workflow, each into its
	// own output directory (outputDir).
	for _, app := range []string{"map-reduce", "subwf"} {
		t.Run(app, func(t *testing.T) {
			runOozieWorkflow(t, ex, app)
			got := strings.Split(strings.TrimRight(ex.read(t, "output-data/"+app+"/part-00000"), "\n"), "\n")
			want := append([]string(nil), lines...)
			sort.Strings(want) // the shuffle's byte order
			if len(got) != len(want) {
				t.Fatalf("part-00000 has %d lines, want %d: %q", len(got), len(want), got)
			}
			for i := range got {
				if strings.TrimRight(got[i], "\t") != want[i] {
					t.Errorf("line %d = %q, want %q", i, got[i], want[i])
				}
			}
		})
	}
}

// TestOozieExampleValidateAndDryrun checks the examples offline through
// the mount: `gozie validate -site` reads every application directory by
// its hdfs:// URI, and `gozie dryrun -site` materializes the coordinators
// (the job.properties' own 2010 window; dry runs need no clock override),
// probing the aggregator's done-flags on the mounted store.
func TestOozieExampleValidateAndDryrun(t *testing.T) {
	ex := newOozieExamples(t)
	for _, app := range []string{"shell", "java-main", "streaming", "map-reduce", "subwf", "cron", "aggregator", "hcatalog"} {
		code, out, errOut := run(t, "validate", "-site", ex.site, "-config", ex.props(app), ex.uri+"/apps/"+app)
		if code != 0 || !strings.Contains(out, "Valid workflow-app") {
			t.Errorf("validate %s: exit %d\n%s%s", app, code, out, errOut)
		}
	}

	code, out, errOut := run(t, "dryrun", "-site", ex.site, "-config", ex.props("cron"))
	if code != 0 {
		t.Fatalf("dryrun cron: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"frequency 0/10 * * * * CRON", "Action 6  nominal 2010-01-01T00:50Z  READY",
		"oozie.wf.application.path=" + ex.uri + "/apps/cron", "6 action(s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("dryrun cron lacks %q:\n%s", want, out)
		}
	}

	// The last raw-log instance of the second hour has not landed yet.
	if err := os.Remove(filepath.Join(ex.dir, "input-data/rawLogs/2010/01/01/02/00/_SUCCESS")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run(t, "dryrun", "-site", ex.site, "-config", ex.props("aggregator"))
	if code != 0 {
		t.Fatalf("dryrun aggregator: exit %d\n%s%s", code, out, errOut)
	}
	raw := ex.uri + "/input-data/rawLogs/2010/01/01/"
	for _, want := range []string{
		"Action 1  nominal 2010-01-01T01:00Z  READY",
		"input last-hour: " + raw + "01/00," + raw + "00/40," + raw + "00/20",
		"output hourly: " + ex.uri + "/output-data/aggregator/aggregatedLogs/2010/01/01/01",
		"Action 2  nominal 2010-01-01T02:00Z  WAITING",
		"missing: " + raw + "02/00/_SUCCESS",
		"2 action(s)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dryrun aggregator lacks %q:\n%s", want, out)
		}
	}
}

// TestOozieExampleCoordinators submits the coordinator examples (cron,
// aggregator) with their unchanged job.properties to a server whose site
// configuration is the mount line (plus a one-second input check, so
// that the test does not wait a minute for a done-flag). Their start and
// end lie in 2010, so the server materializes every action at once: no
// time needs overriding.
func TestOozieExampleCoordinators(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	for _, k := range []string{"OOZIE_URL", "OOZIE_TIMEZONE", "OOZIE_AUTH", "GOZIE_TOKEN", "OOZIE_DEBUG"} {
		t.Setenv(k, "")
	}
	ex := newOozieExamples(t)
	site, err := server.LoadConfig(ex.site, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	site["gozie.coord.input.check.interval.s"] = "1"
	srv := gozietest.NewServer(t, gozietest.Options{Config: site, DefaultUser: ex.user})

	t.Run("cron", func(t *testing.T) { oozieCron(t, ex, srv) })
	t.Run("aggregator", func(t *testing.T) { oozieAggregator(t, ex, srv) })
}

// TestOozieExampleBundle: the bundle example, its job.properties
// unchanged, read through the mount by its hdfs:// URI: `gozie validate`
// and `gozie dryrun` offline, then `gozie job -run` on a server (bundles
// run on servers only). It starts the aggregator for the two hours of its
// job.properties, every input there: the bundle succeeds with its one
// coordinator, named after the bundle's coordinator, whose two actions
// succeeded.
func TestOozieExampleBundle(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	for _, k := range []string{"OOZIE_URL", "OOZIE_TIMEZONE", "OOZIE_AUTH", "GOZIE_TOKEN", "OOZIE_DEBUG"} {
		t.Setenv(k, "")
	}
	ex := newOozieExamples(t)
	// The bundle, read through the mount by its hdfs:// URI: valid, and its
	// dry run resolves the aggregator's path and the window's properties.
	code, out, errOut := run(t, "validate", "-site", ex.site, "-config", ex.props("bundle"), ex.uri+"/apps/bundle/bundle.xml")
	if code != 0 || !strings.Contains(out, "Valid bundle-app") {
		t.Errorf("validate bundle: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run(t, "dryrun", "-site", ex.site, "-config", ex.props("bundle"))
	if code != 0 {
		t.Fatalf("dryrun bundle: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"***Bundle job after parsing: ***", `<coordinator name="coord-1">`,
		"<app-path>" + ex.uri + "/apps/aggregator/coordinator.xml</app-path>", "<value>2010-01-01T01:00Z</value>", "<value>2010-01-01T03:00Z</value>"} {
		if !strings.Contains(out, want) {
			t.Errorf("dryrun bundle lacks %q:\n%s", want, out)
		}
	}

	site, err := server.LoadConfig(ex.site, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	srv := gozietest.NewServer(t, gozietest.Options{Config: site, DefaultUser: ex.user})
	code, out, errOut = run(t, "job", "-oozie", srv.URL, "-config", ex.props("bundle"), "-run")
	id := strings.TrimSpace(strings.TrimPrefix(out, "job: "))
	if code != 0 || !strings.HasSuffix(id, "-B") {
		t.Fatalf("job -run bundle: exit %d\n%s%s", code, out, errOut)
	}
	deadline := time.Now().Add(2 * time.Minute)
	var b *restapi.BundleJob
	for {
		var err error
		if b, err = srv.Bundles.BundleJobInfo(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		if coordEnded(b.Status) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bundle %s still %s", id, b.Status)
		}
		time.Sleep(50 * time.Millisecond) // polling a condition, not timing it
	}
	if b.Status != "SUCCEEDED" || len(b.BundleCoordJobs) != 1 {
		t.Fatalf("bundle %s ended %s with %d coordinators, want SUCCEEDED with 1", id, b.Status, len(b.BundleCoordJobs))
	}
	c := b.BundleCoordJobs[0]
	if c.CoordJobName != "coord-1" || string(c.BundleID) != id || c.Status != "SUCCEEDED" {
		t.Errorf("the bundle's coordinator: %s %s of %s, %s", c.CoordJobID, c.CoordJobName, c.BundleID, c.Status)
	}
	j := waitOozieCoord(t, srv, c.CoordJobID, func(j *restapi.CoordJob) bool { return coordEnded(j.Status) })
	if len(j.Actions) != 2 || j.Actions[0].Status != "SUCCEEDED" || j.Actions[1].Status != "SUCCEEDED" {
		t.Errorf("the bundle's aggregator:\n%s", describeCoord(j))
	}
	if !strings.Contains(string(j.Actions[0].RunConf), ex.uri+"/apps/aggregator<") {
		t.Errorf("the bundle's coordinator runs %s", j.Actions[0].RunConf)
	}
	for hour, logs := range map[string][]string{"01": {"00/20", "00/40", "01/00"}, "02": {"01/20", "01/40", "02/00"}} {
		out := "output-data/aggregator/aggregatedLogs/2010/01/01/" + hour
		if got, want := pageCounts(t, ex.read(t, out+"/part-00000")), logPageCounts(t, ex, logs); !sameCounts(got, want) {
			t.Errorf("%s: counts %v, want %v", out, got, want)
		}
	}
	code, out, errOut = run(t, "job", "-oozie", srv.URL, "-info", id)
	if code != 0 || !strings.Contains(out, "Job Name : bundle-app") || !strings.Contains(out, c.CoordJobID) {
		t.Errorf("job -info %s: exit %d\n%s%s", id, code, out, errOut)
	}
}

// oozieCron: six runs, one every ten minutes of the hour, each leaving
// its mark on the mounted store.
func oozieCron(t *testing.T, ex *oozieExamples, srv *gozietest.Server) {
	id := submitOozieCoord(t, ex, srv, "cron")
	j := waitOozieCoord(t, srv, id, func(j *restapi.CoordJob) bool { return coordEnded(j.Status) })
	if j.Status != "SUCCEEDED" || len(j.Actions) != 6 {
		t.Fatalf("cron: status %s with %d actions, want SUCCEEDED with 6:\n%s", j.Status, len(j.Actions), describeCoord(j))
	}
	for i, a := range j.Actions {
		tick := "2010010100" + strconv.Itoa(i) + "0"
		if a.Status != "SUCCEEDED" {
			t.Errorf("action %d: %s %s", a.ActionNumber, a.Status, a.ErrorMessage)
		}
		if !strings.Contains(string(a.RunConf), ex.uri+"/apps/cron<") {
			t.Errorf("action %d runs %s", a.ActionNumber, a.RunConf)
		}
		ex.read(t, "output-data/cron/"+tick)
	}
}

// oozieAggregator: the first hour's inputs are all there; the second
// hour's last instance lands late. Its action waits for that done-flag,
// named by its hdfs:// URI, and runs once the flag is written to the
// local directory behind the mount.
func oozieAggregator(t *testing.T, ex *oozieExamples, srv *gozietest.Server) {
	flag := filepath.Join(ex.dir, "input-data/rawLogs/2010/01/01/02/00/_SUCCESS")
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	id := submitOozieCoord(t, ex, srv, "aggregator")
	raw := ex.uri + "/input-data/rawLogs/2010/01/01/"
	missing := raw + "02/00/_SUCCESS"
	j := waitOozieCoord(t, srv, id, func(j *restapi.CoordJob) bool {
		return len(j.Actions) == 2 && j.Actions[1].Status == "WAITING" &&
			strings.Contains(string(j.Actions[1].MissingDependencies), missing) && actionEnded(j.Actions[0].Status)
	})
	if got := string(j.Actions[0].RunConf); !strings.Contains(got, "<value>"+raw+"01/00,"+raw+"00/40,"+raw+"00/20</value>") ||
		!strings.Contains(got, "<value>"+ex.uri+"/output-data/aggregator/aggregatedLogs/2010/01/01/01</value>") {
		t.Errorf("action 1's inputData and outputData are not the hdfs:// instances:\n%s", got)
	}
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	j = waitOozieCoord(t, srv, id, func(j *restapi.CoordJob) bool { return coordEnded(j.Status) })
	for _, a := range j.Actions {
		if a.Status != "SUCCEEDED" {
			t.Fatalf("aggregator action %d: %s\n%s", a.ActionNumber, a.Status, describeCoord(j))
		}
	}
	for hour, logs := range map[string][]string{"01": {"00/20", "00/40", "01/00"}, "02": {"01/20", "01/40", "02/00"}} {
		out := "output-data/aggregator/aggregatedLogs/2010/01/01/" + hour
		if got, want := pageCounts(t, ex.read(t, out+"/part-00000")), logPageCounts(t, ex, logs); !sameCounts(got, want) {
			t.Errorf("%s: counts %v, want %v", out, got, want)
		}
		ex.read(t, out+"/_SUCCESS") // the done-flag of the output dataset
	}
}

// submitOozieCoord submits a coordinator example with `gozie job -run`
// and returns its id.
func submitOozieCoord(t *testing.T, ex *oozieExamples, srv *gozietest.Server, app string) string {
	t.Helper()
	code, out, errOut := run(t, "job", "-oozie", srv.URL, "-config", ex.props(app), "-run")
	id := strings.TrimSpace(strings.TrimPrefix(out, "job: "))
	if code != 0 || !strings.HasSuffix(id, "-C") {
		t.Fatalf("job -run %s: exit %d\n%s%s", app, code, out, errOut)
	}
	return id
}

// waitOozieCoord polls the coordinator job until done says so (polling a
// condition with a deadline, not timing it).
func waitOozieCoord(t *testing.T, srv *gozietest.Server, id string, done func(*restapi.CoordJob) bool) *restapi.CoordJob {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		j, err := srv.Coordinators.CoordJobInfo(t.Context(), id, 1, 100, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if done(j) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("coordinator %s did not get there in time:\n%s", id, describeCoord(j))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func coordEnded(s string) bool {
	switch s {
	case "SUCCEEDED", "DONEWITHERROR", "KILLED", "FAILED":
		return true
	}
	return false
}

func actionEnded(s string) bool {
	switch s {
	case "SUCCEEDED", "KILLED", "FAILED", "TIMEDOUT", "SKIPPED", "IGNORED":
		return true
	}
	return false
}

// describeCoord is a coordinator job and its actions, one line each.
func describeCoord(j *restapi.CoordJob) string {
	var b strings.Builder
	b.WriteString(j.CoordJobID + " " + j.Status + "\n")
	for _, a := range j.Actions {
		b.WriteString("  " + strconv.Itoa(a.ActionNumber) + " " + a.Status + " " + string(a.ExternalID) +
			" missing=" + string(a.MissingDependencies) + " " + string(a.ErrorMessage) + "\n")
	}
	return b.String()
}

// pageCounts reads `uniq -c` output: "   3 /home" lines.
func pageCounts(t *testing.T, s string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("aggregated line %q is not COUNT PAGE", line)
		}
		n, err := strconv.Atoi(f[0])
		if err != nil {
			t.Fatalf("aggregated line %q: %v", line, err)
		}
		out[f[1]] += n
	}
	return out
}

// logPageCounts counts the pages (third tab-separated field) of the raw
// log instances named (HH/MM under rawLogs/2010/01/01).
func logPageCounts(t *testing.T, ex *oozieExamples, instances []string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, in := range instances {
		files, err := filepath.Glob(filepath.Join(ex.dir, "input-data/rawLogs/2010/01/01", in, "*.txt"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no log in instance %s: %v", in, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				out[strings.Split(line, "\t")[2]]++
			}
		}
	}
	return out
}

func sameCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestOozieExampleHCatalog dry-runs the hcatalog example with its
// job.properties, the metastore (hcatNode) pointed at a Thrift metastore
// stand-in: the actions wait for the partition of invites, are READY once
// it is there, and their workflow configuration holds what the HCatalog
// functions answer. A metastore that does not answer is a warning, its
// partitions missing.
func TestOozieExampleHCatalog(t *testing.T) {
	ex := newOozieExamples(t)
	ms := hcattest.Start(t)
	ms.CreateTable("default", "invites", "ds", "region")
	ms.CreateTable("default", "oozie", "ds", "region")
	node := "hcat://" + ms.Addr
	in := node + "/default/invites/ds=2010-01-01;region=usa"
	dryrun := func() string {
		t.Helper()
		code, out, errOut := run(t, "dryrun", "-site", ex.site, "-config", ex.props("hcatalog"), "-D", "hcatNode="+node)
		if code != 0 {
			t.Fatalf("dryrun hcatalog: exit %d\n%s%s", code, out, errOut)
		}
		return out
	}
	out := dryrun()
	for _, want := range []string{
		"Action 1  nominal 2010-01-01T01:00Z  WAITING",
		"Action 2  nominal 2010-01-01T01:10Z  WAITING",
		"input input: " + in,
		"output output: " + node + "/default/oozie/ds=2011-01-01;region=usa",
		"missing: " + in + "\n",
		"2 action(s)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dryrun hcatalog lacks %q:\n%s", want, out)
		}
	}
	ms.AddPartition("default", "invites", "2010-01-01", "usa")
	out = dryrun()
	for _, want := range []string{
		"Action 1  nominal 2010-01-01T01:00Z  READY",
		"Action 2  nominal 2010-01-01T01:10Z  READY",
		"DB=default", "TABLE=invites", "FILTER=(ds=='2010-01-01' AND region=='usa')",
		"OUTPUT_DB=default", "OUTPUT_TABLE=oozie", "OUTPUT_PARTITION='ds=2011-01-01,region=usa'",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dryrun hcatalog with the partition lacks %q:\n%s", want, out)
		}
	}

	ms.Stop()
	code, out, errOut := run(t, "dryrun", "-site", ex.site, "-config", ex.props("hcatalog"), "-D", "hcatNode="+node)
	if code != 0 || !strings.Contains(out, "Action 1  nominal 2010-01-01T01:00Z  WAITING") ||
		strings.Count(errOut, "did not answer") != 1 {
		t.Errorf("dryrun with no metastore: exit %d\n%s%s", code, out, errOut)
	}
}
