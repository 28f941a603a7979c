package server

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/slatrack"
)

// withTracker rebuilds e's server with a real SLA tracker on its engine's
// runtime, passing every interval, as assembly wires it.
func withTracker(e *env, interval time.Duration) {
	e.t.Helper()
	tr := slatrack.New(e.eng.Runtime(), slatrack.Options{Interval: interval, Logf: e.t.Logf})
	tr.Start(context.Background())
	e.t.Cleanup(tr.Close) // before the engine closes: cleanups run last first
	e.srv.opts.SLAs = tr
	e.srv.mux = e.srv.routes()
}

// TestConsoleSLAInBrowser opens the SLA page in headless Chromium over a
// real tracker: a workflow whose start was due 20 minutes ago runs at
// once, so it misses its start but meets its end; the page lists it as
// MET with START_MISS among its events, links it to its workflow page,
// filters it by SLA status, and the workflow page shows its SLA section.
func TestConsoleSLAInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	b := startBrowser(t)
	e := newEnv(t)
	withTracker(e, 200*time.Millisecond)
	nominal := time.Now().UTC().Add(-30 * time.Minute).Format("2006-01-02T15:04Z")
	app := filepath.Join(e.dir, "apps", "sla-late")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	wf := `<workflow-app xmlns="uri:oozie:workflow:0.5" xmlns:sla="uri:oozie:sla:0.2" name="sla-late">
  <start to="end"/><end name="end"/>
  <sla:info><sla:nominal-time>` + nominal + `</sla:nominal-time><sla:should-start>${10 * MINUTES}</sla:should-start>
    <sla:should-end>${2 * HOURS}</sla:should-end></sla:info>
</workflow-app>`
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	id := e.submit("joe", "start", "oozie.wf.application.path", app)
	e.waitStatus(id, "SUCCEEDED")

	// row is a condition on the SLA table: the workflow's row, linking to
	// its page, MET with START_MISS among its events.
	row := "[...document.querySelectorAll('#sla-list tbody tr')].some(r => r.querySelector('a.id[href=\"/oozie/console/job/" + id + "\"]') && " +
		"r.cells[1].innerText === 'sla-late' && r.cells[2].innerText === 'WORKFLOW_JOB' && r.cells[9].innerText === 'MET' && " +
		"r.cells[10].innerText.includes('START_MISS') && r.cells[11].innerText === 'SUCCEEDED')"
	// The page refreshes itself: the tracker's pass decides the record
	// within its interval.
	b.open(e.ts.URL + "/oozie/console/sla")
	b.waitTrue("the workflow listed MET with START_MISS", row)
	b.screenshot("sla")

	// The filter by SLA status, with the form: MET shows it, MISS hides it.
	filter := func(status string) {
		b.run(`document.querySelector('select[name=sla_status]').value = ` + jsString(status) + `; document.querySelector('form.filters button[type=submit]').click()`)
	}
	filter("MET")
	b.waitTrue("filtered by MET", "document.location.search.includes('sla_status=MET') && document.readyState === 'complete' && "+row)
	filter("MISS")
	b.waitTrue("filtered by MISS", "document.location.search.includes('sla_status=MISS') && document.readyState === 'complete' && "+
		"document.getElementById('live-sla').innerText.includes('No SLA records') && !document.querySelector('#sla-list a.id[href$=\""+id+"\"]')")

	// The job id leads to the workflow's page, which shows its SLA section.
	filter("MET")
	b.waitTrue("filtered by MET again", "document.location.search.includes('sla_status=MET') && document.readyState === 'complete' && "+row)
	b.run(`document.querySelector('#sla-list a.id[href$="` + id + `"]').click()`)
	b.waitTrue("workflow page with its SLA section", "document.location.pathname === "+jsString("/oozie/console/job/"+id)+
		" && document.getElementById('job-sla') && "+row)
	b.run(`document.getElementById('job-sla').scrollIntoView()`)
	b.screenshot("workflow-sla")
}
