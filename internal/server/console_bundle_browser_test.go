package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gozie/gozie/internal/store/sqlite"
)

// bundleBrowserApp writes a bundle of two hourly coordinators under dir:
// "done", whose two actions run a workflow at once, and "waits", whose
// action waits for a done-flag nobody writes.
func bundleBrowserApp(t *testing.T, dir, wfApp string) string {
	t.Helper()
	files := map[string]string{
		"bundle/bundle.xml": fmt.Sprintf(`<bundle-app name="console-bundle" xmlns="uri:oozie:bundle:0.2">
  <coordinator name="done"><app-path>%[1]s/done</app-path></coordinator>
  <coordinator name="waits"><app-path>%[1]s/waits</app-path></coordinator>
</bundle-app>`, dir),
		"done/coordinator.xml": fmt.Sprintf(`<coordinator-app name="done" frequency="${coord:hours(1)}" start="2026-01-01T00:00Z" end="2026-01-01T02:00Z"
    timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <action><workflow><app-path>%s</app-path></workflow></action>
</coordinator-app>`, wfApp),
		"waits/coordinator.xml": fmt.Sprintf(`<coordinator-app name="waits" frequency="${coord:hours(1)}" start="2026-01-01T00:00Z" end="2026-01-01T01:00Z"
    timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <datasets><dataset name="in" frequency="${coord:hours(1)}" initial-instance="2026-01-01T00:00Z" timezone="UTC">
    <uri-template>%s/data/${HOUR}</uri-template></dataset></datasets>
  <input-events><data-in name="in" dataset="in"><instance>${coord:current(0)}</instance></data-in></input-events>
  <action><workflow><app-path>%s</app-path></workflow></action>
</coordinator-app>`, dir, wfApp),
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "bundle")
}

// TestConsoleBundleInBrowser opens a real bundle's page in headless
// Chromium: its coordinators with their statuses and links to their pages
// (and back), the Bundles tab of the jobs page, and the page's suspend and
// kill controls reaching the bundle engine.
func TestConsoleBundleInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	b := startBrowser(t)
	dir := t.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvWith(t, dir, st, nil, nil, realBundles{})
	appDir := filepath.Join(dir, "bundle-app")
	id := e.submit("joe", "start", "oozie.bundle.application.path", bundleBrowserApp(t, appDir, e.app("fj")))
	coords := map[string]string{} // name -> id
	waitFor(t, "the bundle's coordinators: done SUCCEEDED, waits RUNNING", func() bool {
		j := e.do("GET", "/oozie/v2/job/"+id+"?show=info", "", "").json(t)
		list, _ := j["bundleCoordJobs"].([]any)
		got := map[string]string{}
		for _, c := range list {
			c := c.(map[string]any)
			name, _ := c["coordJobName"].(string)
			got[name], _ = c["status"].(string)
			coords[name], _ = c["coordJobId"].(string)
		}
		return j["status"] == "RUNNING" && len(got) == 2 && got["done"] == "SUCCEEDED" && got["waits"] == "RUNNING"
	})
	text := func(s string) string { return "document.body.innerText.includes(" + jsString(s) + ")" }
	// row is a condition on the coordinators table: a row linking to the
	// coordinator's page, with its name and status.
	row := func(name, status string) string {
		return "[...document.querySelectorAll('#bundle-coords tbody tr')].some(r => r.querySelector('a.id[href=\"/oozie/console/job/" +
			coords[name] + "\"]') && r.cells[1].innerText === " + jsString(name) + " && r.cells[2].innerText === " + jsString(status) + ")"
	}

	page := e.ts.URL + "/oozie/console/job/" + id + "?user.name=joe"
	b.open(page)
	b.waitTrue("bundle page", text("Bundle console-bundle")+" && document.getElementById('job-status').textContent === 'RUNNING'")
	b.waitTrue("coordinators and statuses", row("done", "SUCCEEDED")+" && "+row("waits", "RUNNING"))
	b.screenshot("bundle")
	// A coordinator's link leads to its page, which links back.
	b.run(`document.querySelector('#bundle-coords a.id[href$="` + coords["waits"] + `"]').click()`)
	b.waitTrue("coordinator page", "document.location.pathname.endsWith("+jsString(coords["waits"])+") && document.querySelector('#coord-bundle a')")
	b.run(`document.querySelector('#coord-bundle a').click()`)
	b.waitTrue("back on the bundle page", "document.location.pathname.endsWith("+jsString(id)+") && document.getElementById('bundle-coords')")

	// Suspend from the page: the bundle and its waiting coordinator show
	// SUSPENDED without a reload.
	b.open(page)
	b.run(`window.sameLoad = true; document.querySelector('button.act[data-action=suspend]').click()`)
	b.waitTrue("confirmation", "document.getElementById('confirm').open")
	b.run(`document.getElementById('confirm-ok').click()`)
	b.waitTrue("SUSPENDED on the page", "window.sameLoad === true && document.getElementById('job-status').textContent === 'SUSPENDED' && "+
		row("waits", "SUSPENDED")+" && "+row("done", "SUCCEEDED"))
	if s := e.do("GET", "/oozie/v2/job/"+id+"?show=status", "", "").json(t)["status"]; s != "SUSPENDED" {
		t.Errorf("REST status after the console's suspend: %v", s)
	}

	// The Bundles tab lists it with its status and a link to its page.
	b.open(e.ts.URL + "/oozie/console/?tab=bundle")
	listed := "[...document.querySelectorAll('#bundle-list tbody tr')].some(r => r.querySelector('a.id[href=\"/oozie/console/job/" + id +
		"\"]') && r.cells[1].innerText === 'console-bundle' && r.cells[2].innerText === 'SUSPENDED')"
	b.waitTrue("bundle listed", listed)
	b.screenshot("bundles-tab")
	b.run(`document.querySelector('#bundle-list a.id[href$="` + id + `"]').click()`)
	b.waitTrue("bundle page from the list", "document.location.pathname.endsWith("+jsString(id)+") && "+row("waits", "SUSPENDED"))

	// Killed from the page: the coordinator that had not ended is killed.
	// A failure here was seen once in CI (the coordinator still SUSPENDED
	// 20 s after the bundle's kill) and passed every rerun: on failure the
	// test leaves the bundle's and the coordinator's state and logs.
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, j := range []string{id, coords["waits"]} {
			for _, show := range []string{"info", "log"} {
				t.Logf("%s show=%s:\n%s", j, show, e.do("GET", "/oozie/v2/job/"+j+"?show="+show, "", "").body)
			}
		}
	})
	b.open(page)
	b.run(`document.querySelector('button.act[data-action=kill]').click()`)
	b.waitTrue("confirmation", "document.getElementById('confirm').open")
	b.run(`window.sameLoad = true; document.getElementById('confirm-ok').click()`)
	b.waitTrue("KILLED on the page", "window.sameLoad === true && document.getElementById('job-status').textContent === 'KILLED' && "+
		row("waits", "KILLED")+" && "+row("done", "SUCCEEDED"))
	e.waitStatus(id, "KILLED")
}
