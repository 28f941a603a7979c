package coordengine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/fsys"
	_ "github.com/gozie/gozie/internal/fsys/hcat" // the hcat:// backend
	"github.com/gozie/gozie/internal/fsys/hcat/hcattest"
	"github.com/gozie/gozie/internal/store"
)

// hcatCoord reads the last two hourly partitions of mydb.clicks and
// writes one of mydb.stats, on the metastore ${metastore}; its workflow
// gets the HCatalog functions' answers as properties (spec: coord 6.8).
const hcatCoord = `<coordinator-app name="hcat" frequency="${coord:hours(1)}" start="2026-03-02T07:00Z" end="2026-03-02T08:00Z"
    timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <controls><timeout>-1</timeout></controls>
  <datasets>
    <dataset name="clicks" frequency="${coord:hours(1)}" initial-instance="2026-01-01T00:00Z" timezone="UTC">
      <uri-template>hcat://${metastore}/mydb/clicks/datestamp=${YEAR}${MONTH}${DAY}${HOUR};region=us</uri-template>
    </dataset>
    <dataset name="stats" frequency="${coord:hours(1)}" initial-instance="2026-01-01T00:00Z" timezone="UTC">
      <uri-template>hcat://${metastore}/mydb/stats/datestamp=${YEAR}${MONTH}${DAY}${HOUR}</uri-template>
    </dataset>
  </datasets>
  <input-events>
    <data-in name="raw" dataset="clicks">
      <start-instance>${coord:current(-1)}</start-instance><end-instance>${coord:current(0)}</end-instance>
    </data-in>
  </input-events>
  <output-events><data-out name="out" dataset="stats"><instance>${coord:current(0)}</instance></data-out></output-events>
  <action><workflow><app-path>${wfApp}</app-path><configuration>
    <property><name>IN_DB</name><value>${coord:databaseIn('raw')}</value></property>
    <property><name>IN_TABLE</name><value>${coord:tableIn('raw')}</value></property>
    <property><name>FILTER</name><value>${coord:dataInPartitionFilter('raw', 'pig')}</value></property>
    <property><name>DATE_MIN</name><value>${coord:dataInPartitionMin('raw', 'datestamp')}</value></property>
    <property><name>DATE_MAX</name><value>${coord:dataInPartitionMax('raw', 'datestamp')}</value></property>
    <property><name>OUT_DB</name><value>${coord:databaseOut('out')}</value></property>
    <property><name>OUT_TABLE</name><value>${coord:tableOut('out')}</value></property>
    <property><name>OUT_PARTITIONS</name><value>${coord:dataOutPartitions('out')}</value></property>
    <property><name>OUT_DATE</name><value>${coord:dataOutPartitionValue('out', 'datestamp')}</value></property>
    <property><name>INPUTS</name><value>${coord:dataIn('raw')}</value></property>
  </configuration></workflow></action>
</coordinator-app>`

// A coordinator on HCatalog partitions, end to end over a Thrift metastore:
// the action waits for the partitions (no done-flag), goes READY when the
// last appears, its workflow sees the HCatalog functions' values, and a
// rerun with cleanup drops its output partition.
func TestCoordOnHCatalog(t *testing.T) {
	ms := hcattest.Start(t)
	ms.CreateTable("mydb", "clicks", "datestamp", "region")
	ms.CreateTable("mydb", "stats", "datestamp")
	ns, err := fsys.NewNamespace(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := newCoordHarness(t, policyNow, Options{InputCheckInterval: time.Minute, Namespace: ns})
	writeFiles(t, filepath.Join(h.dir, "apps"), map[string]string{
		"coord/coordinator.xml": hcatCoord,
		"wf/workflow.xml":       holdWorkflow,
	})
	p := conf.New()
	for k, v := range map[string]string{
		engine.PropCoordAppPath: "file://" + filepath.Join(h.dir, "apps", "coord"),
		"wfApp":                 "file://" + filepath.Join(h.dir, "apps", "wf"),
		"metastore":             ms.Addr,
		engine.PropUser:         "tester",
	} {
		p.Set(k, v)
	}
	ctx := context.Background()
	id, err := h.e.Run(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	part := func(ds string) string {
		return "hcat://" + ms.Addr + "/mydb/clicks/datestamp=" + ds + ";region=us"
	}
	a := h.action(id, 1)
	if a.Status != store.CoordActionWaiting || a.MissingDependencies != part("2026030207")+"#"+part("2026030206") {
		t.Fatalf("before any partition: %s missing %q", a.Status, a.MissingDependencies)
	}
	ms.AddPartition("mydb", "clicks", "2026030207", "us")
	h.advance(time.Minute, time.Minute, nil)
	if a = h.action(id, 1); a.Status != store.CoordActionWaiting || a.MissingDependencies != part("2026030206") {
		t.Fatalf("with one partition: %s missing %q", a.Status, a.MissingDependencies)
	}
	ms.AddPartition("mydb", "clicks", "2026030206", "us")
	h.advance(time.Minute, time.Minute, nil)
	if a = h.action(id, 1); a.Status != store.CoordActionRunning || a.ExternalID == "" {
		t.Fatalf("with both partitions: %s (%s %s), want RUNNING", a.Status, a.ErrorCode, a.ErrorMessage)
	}
	if n := ms.Calls("get_partitions_by_filter"); n < 3 {
		t.Errorf("%d metastore calls, want the input check to have asked", n)
	}

	// The workflow's configuration.
	var wfConf string
	for _, w := range h.workflowsByParent()[id+"@1"] {
		wfConf = w.Conf
	}
	c, err := conf.ParseXML(strings.NewReader(wfConf), "workflow conf")
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"IN_DB":          "mydb",
		"IN_TABLE":       "clicks",
		"FILTER":         "(datestamp=='2026030207' AND region=='us') OR (datestamp=='2026030206' AND region=='us')",
		"DATE_MIN":       "2026030206",
		"DATE_MAX":       "2026030207",
		"OUT_DB":         "mydb",
		"OUT_TABLE":      "stats",
		"OUT_PARTITIONS": "'datestamp=2026030207'",
		"OUT_DATE":       "2026030207",
		"INPUTS":         part("2026030207") + "," + part("2026030206"),
	} {
		if got, _ := c.Get(k); got != want {
			t.Errorf("workflow property %s = %q, want %q", k, got, want)
		}
	}

	// The workflow writes its partition and ends; a rerun with cleanup
	// drops it before the action runs again.
	ms.AddPartition("mydb", "stats", "2026030207")
	h.finish(a.ExternalID)
	h.settle()
	if a = h.action(id, 1); a.Status != store.CoordActionSucceeded {
		t.Fatalf("after the workflow: %s", a.Status)
	}
	if _, err := h.e.CoordRerun(ctx, id, "action", "1", false, false, false); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if ms.HasPartition("mydb", "stats", "2026030207") {
		t.Error("the rerun's cleanup did not drop the output partition")
	}
	if ms.Calls("drop_partition") != 1 {
		t.Errorf("%d drop_partition calls, want 1", ms.Calls("drop_partition"))
	}
	if !ms.HasPartition("mydb", "clicks", "2026030207", "us") {
		t.Error("the cleanup dropped an input partition")
	}
}
