package server

import (
	"strings"
	"testing"
)

// TestConsoleBundles: the bundle page (fields, coordinators with their
// status and next materialization, links to their pages, controls and
// forms), the Bundles tab of the jobs page with its filters, masking for
// a stranger, and the console's bundle commands going through the REST
// API to the bundle engine.
func TestConsoleBundles(t *testing.T) {
	e, fb := newBundleEnv(t)
	for _, tc := range []struct {
		name, path string
		has, lacks []string
	}{
		{name: "bundle page", path: "/oozie/console/job/" + bundleA + "?user.name=joe",
			has: []string{"Bundle daily-bundle", "RUNNING", "/apps/bundle", `href="/oozie/console/job/` + coordOne + `"`,
				`href="/oozie/console/job/` + coordTwo + `"`, "hourly", `datetime="2026-01-01T03:00:00Z"`, `data-action="suspend"`, `data-action="kill"`,
				`id="bundle-rerun"`, `id="bundle-change"`, `data-live="1"`, "hunter2secret"},
			lacks: []string{`data-action="start"`, `name="concurrency"`}},
		{name: "bundle page of a stranger", path: "/oozie/console/job/" + bundleA + "?user.name=bob",
			has: []string{"Bundle daily-bundle", "*****"}, lacks: []string{"hunter2secret"}},
		{name: "PREP bundle starts", path: "/oozie/console/job/" + bundleB,
			has: []string{"Bundle other", `data-action="start"`, `data-action="suspend"`}},
		{name: "Bundles tab", path: "/oozie/console/?tab=bundle",
			has: []string{`aria-current="page">Bundles`, `id="bundle-list"`, bundleA, bundleB, "daily-bundle", "PREPSUSPENDED"}},
		{name: "Bundles tab filtered", path: "/oozie/console/?tab=bundle&user=ann",
			has: []string{bundleB, "1–1 of 1"}, lacks: []string{bundleA}},
		{name: "Bundles tab paged", path: "/oozie/console/?tab=bundle&len=1",
			has: []string{bundleA, "1–1 of 2", `rel="next"`}, lacks: []string{bundleB}},
		{name: "a coordinator links to its bundle", path: "/oozie/console/job/" + coordOne,
			has: []string{`id="coord-bundle"`, `href="/oozie/console/job/` + bundleA + `"`}},
		{name: "system page counts bundles", path: "/oozie/console/system", has: []string{"bundles"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := e.page(tc.path)
			if status != 200 {
				t.Fatalf("%d %.300s", status, body)
			}
			for _, want := range tc.has {
				if !strings.Contains(body, want) {
					t.Errorf("page lacks %q", want)
				}
			}
			for _, bad := range tc.lacks {
				if strings.Contains(body, bad) {
					t.Errorf("page holds %q", bad)
				}
			}
		})
	}
	if status, _ := e.page("/oozie/console/job/0000009-260101000000000-oozie-test-B"); status != 400 && status != 404 {
		t.Errorf("unknown bundle page: %d", status)
	}

	for _, tc := range []struct {
		query  string
		status int
		code   string
		call   string
	}{
		{"action=change&endtime=2026-03-01T00:00Z&concurrency=3&user.name=joe", 200, "", "change " + bundleA + " endtime=2026-03-01T00:00Z"},
		{"action=bundle-rerun&coord-scope=daily&date-scope=2026-01-01T00:00Z&refresh=on&user.name=joe", 200, "",
			"rerun " + bundleA + " coords=daily dates=2026-01-01T00:00Z refresh=true nocleanup=false"},
		{"action=change&endtime=2026-03-01T00:00Z&user.name=bob", 401, "E0509", ""},
		{"action=coord-rerun&type=action&scope=1&user.name=joe", 400, "E0303", ""},
	} {
		before := fb.last()
		r := e.do("PUT", "/oozie/console/job/"+bundleA+"?"+tc.query, "", "")
		if r.status != tc.status || r.header.Get("oozie-error-code") != tc.code {
			t.Errorf("PUT %s: %d %q %s, want %d %q", tc.query, r.status, r.header.Get("oozie-error-code"), r.body, tc.status, tc.code)
			continue
		}
		if got := fb.last(); tc.call != "" && got != tc.call {
			t.Errorf("PUT %s: engine call %q, want %q", tc.query, got, tc.call)
		} else if tc.call == "" && got != before {
			t.Errorf("PUT %s: a refused command reached the engine: %q", tc.query, got)
		}
	}
	// start is a bundle's control only.
	if r := e.do("PUT", "/oozie/console/job/"+coordOne+"?action=start&user.name=joe", "", ""); r.status != 400 {
		t.Errorf("console start of a coordinator: %d %s", r.status, r.body)
	}
}
