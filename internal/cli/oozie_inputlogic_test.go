package cli

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/gozietest"
	restapi "github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/server"
)

// The coord-input-logic example (examples/oozie/apps/coord-input-logic):
// an hourly coordinator whose <input-logic> is an "or" of two feeds,
// rawLogs (input-1) preferred, rawLogs-2 (input-2) when the first is
// incomplete.

// rawLogFlags are the done-flags of a feed's instances of the second hour.
func rawLogFlags(ex *oozieExamples, feed string) []string {
	var out []string
	for _, m := range []string{"01/20", "01/40", "02/00"} {
		out = append(out, filepath.Join(ex.dir, "input-data", feed, "2010/01/01", m, "_SUCCESS"))
	}
	return out
}

// TestOozieExampleInputLogicDryrun: `gozie validate` accepts the app and
// `gozie dryrun` shows the first hour satisfied by the primary feed and
// the second, whose instances of both feeds are incomplete, waiting, with
// the evaluated logic.
func TestOozieExampleInputLogicDryrun(t *testing.T) {
	ex := newOozieExamples(t)
	code, out, errOut := run(t, "validate", "-site", ex.site, "-config", ex.props("coord-input-logic"), ex.uri+"/apps/coord-input-logic")
	if code != 0 || !strings.Contains(out, "Valid") {
		t.Fatalf("validate: exit %d\n%s%s", code, out, errOut)
	}
	for _, f := range []string{rawLogFlags(ex, "rawLogs")[2], rawLogFlags(ex, "rawLogs-2")[1]} {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut = run(t, "dryrun", "-site", ex.site, "-config", ex.props("coord-input-logic"))
	if code != 0 {
		t.Fatalf("dryrun: exit %d\n%s%s", code, out, errOut)
	}
	raw := ex.uri + "/input-data/rawLogs/2010/01/01/"
	for _, want := range []string{
		"Action 1  nominal 2010-01-01T01:00Z  READY",
		"inputData=" + raw + "01/00," + raw + "00/40," + raw + "00/20",
		"Action 2  nominal 2010-01-01T02:00Z  WAITING",
		"  input logic:\n    or name=input: blocked\n      data-in input-1: blocked, 0 of 3 instances available (looked up to the first missing)\n" +
			"      data-in input-2: blocked, 1 of 3 instances available (looked up to the first missing)\n",
		"Action 1  nominal 2010-01-01T01:00Z  READY\n", "      data-in input-2: not checked\n",
		"inputData=${coord:dataIn('input')}",
		// What the logic asked for and missed, then what it did not ask.
		"  missing: " + raw + "02/00/_SUCCESS\n  missing: " + ex.uri + "/input-data/rawLogs-2/2010/01/01/01/40/_SUCCESS\n" +
			"  not checked yet: " + raw + "01/40/_SUCCESS\n",
		"2 action(s)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dryrun lacks %q:\n%s", want, out)
		}
	}
	// The first hour, satisfied by input-1, misses nothing.
	if first, _, _ := strings.Cut(out, "Action 2"); strings.Contains(first, "missing:") {
		t.Errorf("action 1 lists missing dependencies:\n%s", first)
	}
}

// TestOozieExampleInputLogic runs the example on a server with its files
// appearing in stages: the first hour runs on the primary feed; the
// second hour's primary feed misses its last instance and its secondary
// feed has not landed, so the action waits (job -info and -missingdeps
// show the logic); once the secondary feed lands it runs on that feed.
func TestOozieExampleInputLogic(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	for _, k := range []string{"OOZIE_URL", "OOZIE_TIMEZONE", "OOZIE_AUTH", "GOZIE_TOKEN", "OOZIE_DEBUG"} {
		t.Setenv(k, "")
	}
	ex := newOozieExamples(t)
	if err := os.Remove(rawLogFlags(ex, "rawLogs")[2]); err != nil {
		t.Fatal(err)
	}
	second := rawLogFlags(ex, "rawLogs-2")
	for _, f := range second {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	site, err := server.LoadConfig(ex.site, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	site["gozie.coord.input.check.interval.s"] = "1"
	srv := gozietest.NewServer(t, gozietest.Options{Config: site, DefaultUser: ex.user})

	id := submitOozieCoord(t, ex, srv, "coord-input-logic")
	j := waitOozieCoord(t, srv, id, func(j *restapi.CoordJob) bool {
		return len(j.Actions) == 2 && j.Actions[1].Status == "WAITING" && actionEnded(j.Actions[0].Status) &&
			strings.Contains(string(j.Actions[1].MissingDependencies), "rawLogs-2")
	})
	raw := ex.uri + "/input-data/rawLogs/2010/01/01/"
	if got := string(j.Actions[0].RunConf); !strings.Contains(got, "<value>"+raw+"01/00,"+raw+"00/40,"+raw+"00/20</value>") {
		t.Errorf("action 1's inputData is not the primary feed:\n%s", got)
	}
	code, out, errOut := run(t, "job", "-oozie", srv.URL, "-info", id+"@2")
	if code != 0 || !strings.Contains(out, "Input logic : \n\t  or name=input: blocked\n\t    data-in input-1: blocked, 0 of 3 instances available (looked up to the first missing)\n") {
		t.Errorf("job -info %s@2: exit %d\n%s%s", id, code, out, errOut)
	}
	code, out, errOut = run(t, "job", "-oozie", srv.URL, "-missingdeps", id+"@2")
	if code != 0 || !strings.Contains(out, "data-in input-2: blocked, 0 of 3 instances available (looked up to the first missing)") {
		t.Errorf("job -missingdeps %s@2: exit %d\n%s%s", id, code, out, errOut)
	}

	// The console's cell of the waiting action shows the logic.
	req, _ := http.NewRequest("GET", srv.URL+"/console/job/"+id, nil)
	req.Header.Set("Accept", "text/html")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), "input logic:") || !strings.Contains(string(page), "data-in input-2: blocked, 0 of 3 instances available") {
		t.Errorf("the console page lacks the input logic:\n%s", page)
	}

	for _, f := range second {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	j = waitOozieCoord(t, srv, id, func(j *restapi.CoordJob) bool { return coordEnded(j.Status) })
	for _, a := range j.Actions {
		if a.Status != "SUCCEEDED" {
			t.Fatalf("action %d: %s\n%s", a.ActionNumber, a.Status, describeCoord(j))
		}
	}
	raw2 := ex.uri + "/input-data/rawLogs-2/2010/01/01/"
	if got := string(j.Actions[1].RunConf); !strings.Contains(got, "<value>"+raw2+"02/00,"+raw2+"01/40,"+raw2+"01/20</value>") {
		t.Errorf("action 2's inputData is not the secondary feed:\n%s", got)
	}
	out2 := ex.read(t, "output-data/inputLogic/2010/01/01/02/part-00000")
	// rawLogs-2's second hour: /home 5 times, /search 2, /checkout 1, /help 1.
	if got := pageCounts(t, out2); got["/home"] != 5 || got["/search"] != 2 || got["/checkout"] != 1 || got["/help"] != 1 {
		t.Errorf("counts of the secondary feed: %v\n%s", got, out2)
	}
}

// TestPrintMissingDepsInputLogic pins the text of -missingdeps for an
// action with input logic: the evaluated tree after "Blocked on".
func TestPrintMissingDepsInputLogic(t *testing.T) {
	var b strings.Builder
	printMissingDeps(&b, []client.MissingDeps{{ActionNumber: 2, BlockedOn: "file:///a/_SUCCESS",
		InputLogic: []string{"or name=AorB: waiting", "  data-in A: waiting, 0 of 1 instances available, wait 10 min, applies at 2026-03-02T10:10Z", "  data-in B: not checked"}}})
	want := "\nCoordAction : 2\nBlocked on  : file:///a/_SUCCESS\nInput logic : \n\t  or name=AorB: waiting\n" +
		"\t    data-in A: waiting, 0 of 1 instances available, wait 10 min, applies at 2026-03-02T10:10Z\n\t    data-in B: not checked\n\n"
	if b.String() != want {
		t.Errorf("got:\n%q\nwant:\n%q", b.String(), want)
	}
}
