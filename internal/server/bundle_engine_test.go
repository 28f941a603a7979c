package server

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/store/sqlite"
)

// beanBundleJob is the key types of Oozie's JsonBundleJob as its Java
// client reads it (see beanWorkflowJob).
var beanBundleJob = map[string]string{"bundleJobId": "E", "bundleJobName": "S", "bundleJobPath": "S",
	"bundleExternalId": "S", "conf": "S", "status": "E", "timeUnit": "S", "timeOut": "I", "kickoffTime": "D",
	"startTime": "D", "endTime": "D", "pauseTime": "D", "createdTime": "D", "user": "S", "group": "S", "acl": "S",
	"consoleUrl": "S", "bundleCoordJobs": "A", "toString": "S"}

// writeBundle writes a bundle of two daily coordinators of two past days
// (they catch up at once) running a workflow that ends at once.
func writeBundle(t *testing.T, dir string) string {
	t.Helper()
	files := map[string]string{
		"wf/workflow.xml": `<workflow-app xmlns="uri:oozie:workflow:0.5" name="w"><start to="end"/><end name="end"/></workflow-app>`,
		"bundle/bundle.xml": `<bundle-app xmlns="uri:oozie:bundle:0.2" name="jb">
  <coordinator name="one"><app-path>` + dir + `/c</app-path></coordinator>
  <coordinator name="two" critical="true"><app-path>` + dir + `/c</app-path></coordinator>
  <coordinator name="off" enabled="false"><app-path>` + dir + `/c</app-path></coordinator></bundle-app>`,
		"later/bundle.xml": `<bundle-app xmlns="uri:oozie:bundle:0.2" name="later">
  <coordinator name="one"><app-path>` + dir + `/later-c</app-path></coordinator></bundle-app>`,
		"later-c/coordinator.xml": `<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="c" frequency="${coord:days(1)}"
  start="2099-01-01T00:00Z" end="2099-01-03T00:00Z" timezone="UTC">
  <action><workflow><app-path>` + dir + `/wf</app-path></workflow></action></coordinator-app>`,
		"c/coordinator.xml": `<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="c" frequency="${coord:days(1)}"
  start="2020-01-01T00:00Z" end="2020-01-03T00:00Z" timezone="UTC">
  <action><workflow><app-path>` + dir + `/wf</app-path></workflow></action></coordinator-app>`,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "bundle")
}

// TestJavaClientBundleSequence drives a real bundle engine through the
// requests Oozie's Java client sends for bundles (OozieClient: run,
// getBundleJobInfo, getBundleJobsInfo, suspend, resume, change, reRunBundle,
// kill) and reads each answer as its JSON beans do.
func TestJavaClientBundleSequence(t *testing.T) {
	dir := t.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvWith(t, dir, st, nil, nil, realBundles{})
	c := &javaClient{t: t, base: e.base}
	const xmlCT = "application/xml;charset=UTF-8"
	_, h, _ := c.send("OPTIONS", "/versions?user.name=joe", "", "")
	c.cookie = strings.SplitN(h.Get("Set-Cookie"), ";", 2)[0]

	app := writeBundle(t, dir)
	sub := c.call("POST", "/v2/jobs?action=start&user=joe", xmlCT, confXML("user.name", "joe", "oozie.bundle.application.path", app), 201)
	id, _ := sub.(map[string]any)["id"].(string)
	if !strings.HasSuffix(id, "-B") {
		t.Fatalf("submit answer %v", sub)
	}
	e.waitStatus(id, "SUCCEEDED")
	info := checkBean(t, "bundle job", c.call("GET", "/v2/job/"+id+"?show=info&timezone=GMT", "", "", 200), beanBundleJob)
	coords := info["bundleCoordJobs"].([]any)
	if len(coords) != 2 {
		t.Fatalf("coordinators %v", coords)
	}
	for i, cj := range coords {
		m := checkBean(t, fmt.Sprintf("coordinator %d", i), cj, beanCoordJob)
		if m["bundleId"] != id || m["status"] != "SUCCEEDED" {
			t.Errorf("coordinator %v", m)
		}
	}
	list := c.call("GET", "/v2/jobs?filter="+url.QueryEscape("user=joe")+"&offset=1&len=50&jobtype=bundle", "", "", 200).(map[string]any)
	checkBean(t, "jobs list", list, map[string]string{"bundlejobs": "A", "total": "I", "offset": "I", "len": "I"})
	if bs := list["bundlejobs"].([]any); len(bs) != 1 || bs[0].(map[string]any)["bundleJobId"] != id {
		t.Errorf("bundle list %v", bs)
	}
	// Rerun by coordinator name, then by date: the bundle runs and ends again.
	c.call("PUT", "/v2/job/"+id+"?action=bundle-rerun&coord-scope=one&date-scope=&refresh=false&nocleanup=true", xmlCT, "<configuration/>", 200)
	e.waitStatus(id, "SUCCEEDED")
	c.call("PUT", "/v2/job/"+id+"?action=bundle-rerun&coord-scope=&date-scope=2020-01-02T00:00Z&refresh=false&nocleanup=true", xmlCT, "<configuration/>", 200)
	e.waitStatus(id, "SUCCEEDED")
	// A later end time reopens it: its coordinators run the new day.
	c.call("PUT", "/v2/job/"+id+"?action=change&value="+url.QueryEscape("endtime=2020-01-04T00:00Z"), "", "", 200)
	e.waitStatus(id, "SUCCEEDED")

	// A bundle whose coordinator waits for 2099: suspend, resume and
	// kill reach the coordinator.
	later := c.call("POST", "/v2/jobs?action=start&user=joe", xmlCT, confXML("user.name", "joe",
		"oozie.bundle.application.path", filepath.Join(dir, "later")), 201).(map[string]any)["id"].(string)
	e.waitStatus(later, "RUNNING")
	coordOf := func() map[string]any {
		cs := checkBean(t, "bundle job", c.call("GET", "/v2/job/"+later+"?show=info", "", "", 200), beanBundleJob)["bundleCoordJobs"].([]any)
		if len(cs) != 1 {
			t.Fatalf("coordinators %v", cs)
		}
		return cs[0].(map[string]any)
	}
	c.call("PUT", "/v2/job/"+later+"?action=suspend", "", "", 200)
	e.waitStatus(later, "SUSPENDED")
	e.waitStatus(coordOf()["coordJobId"].(string), "SUSPENDED")
	c.call("PUT", "/v2/job/"+later+"?action=resume", "", "", 200)
	e.waitStatus(later, "RUNNING")
	e.waitStatus(coordOf()["coordJobId"].(string), "RUNNING")
	c.call("PUT", "/v2/job/"+later+"?action=kill", "", "", 200)
	e.waitStatus(later, "KILLED")
	e.waitStatus(coordOf()["coordJobId"].(string), "KILLED")
	id = later
	if r := e.do("PUT", "/oozie/v2/job/"+id+"?action=kill&user.name=joe", "", ""); r.header.Get("oozie-error-code") != "E1020" {
		t.Errorf("second kill: %d %v %s", r.status, r.header, r.body)
	}
}
