package coordengine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/store"
)

// logicCoord is an hourly coordinator with input logic (spec: coord 6.10):
// the instance of feed A, awaited ${wait} minutes, else that of feed B.
// Its workflow makes <the chosen instance>/processed.
const logicCoord = `<coordinator-app name="logic" frequency="${coord:hours(1)}" start="${start}" end="${end}"
    timezone="UTC" xmlns="uri:oozie:coordinator:0.5">
  <controls><timeout>-1</timeout></controls>
  <datasets>
    <dataset name="a" frequency="${coord:hours(1)}" initial-instance="2026-01-01T00:00Z" timezone="UTC">
      <uri-template>file://${dataRoot}/a/${YEAR}${MONTH}${DAY}${HOUR}</uri-template>
    </dataset>
    <dataset name="b" frequency="${coord:hours(1)}" initial-instance="2026-01-01T00:00Z" timezone="UTC">
      <uri-template>file://${dataRoot}/b/${YEAR}${MONTH}${DAY}${HOUR}</uri-template>
    </dataset>
  </datasets>
  <input-events>
    <data-in name="A" dataset="a"><instance>${coord:current(0)}</instance></data-in>
    <data-in name="B" dataset="b"><instance>${coord:current(0)}</instance></data-in>
  </input-events>
  <input-logic>
    <or name="AorB">
      <data-in dataset="A" wait="${wait}"/>
      <data-in dataset="B"/>
    </or>
  </input-logic>
  <action><workflow><app-path>${wfApp}</app-path><configuration>
    <property><name>outDir</name><value>${coord:dataIn('AorB')}/processed</value></property>
  </configuration></workflow></action>
</coordinator-app>`

var logicStart = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func (h *coordHarness) logicProps() *conf.Config {
	h.t.Helper()
	writeFiles(h.t, filepath.Join(h.dir, "apps"), map[string]string{
		"logic/coordinator.xml": logicCoord,
		"wf/workflow.xml":       fsWorkflow,
	})
	c := conf.New()
	for _, p := range [][2]string{
		{engine.PropCoordAppPath, "file://" + filepath.Join(h.dir, "apps", "logic")},
		{"wfApp", "file://" + filepath.Join(h.dir, "apps", "wf")},
		{"dataRoot", filepath.Join(h.dir, "data")}, {"wait", "10"},
		{"start", "2026-03-02T10:00Z"}, {"end", "2026-03-02T11:00Z"}, {engine.PropUser, "tester"},
	} {
		c.Set(p[0], p[1])
	}
	return c
}

func (h *coordHarness) feed(name string) string {
	return filepath.Join(h.dir, "data", name, logicStart.Format("2006010215"))
}

// TestInputLogicEngine runs an action whose input logic prefers feed A,
// awaited ten minutes, over feed B, on the fake clock, with an input
// check interval of an hour: the wait's end, not the interval, brings
// the next check.
func TestInputLogicEngine(t *testing.T) {
	ctx := context.Background()
	t.Run("B after A's wait", func(t *testing.T) {
		h := newCoordHarness(t, logicStart, Options{InputCheckInterval: time.Hour})
		writeFiles(t, h.feed("b"), map[string]string{"_SUCCESS": ""})
		id, err := h.e.Run(ctx, h.logicProps())
		if err != nil {
			t.Fatal(err)
		}
		h.settle()
		a := h.action(id, 1)
		if a.Status != store.CoordActionWaiting {
			t.Fatalf("status %s at the nominal time, want WAITING (A awaited)", a.Status)
		}
		md, err := h.e.CoordMissingDependencies(ctx, id+"@1", "", "")
		if err != nil || len(md) != 1 {
			t.Fatal(md, err)
		}
		want := []string{
			"or name=AorB: waiting",
			"  data-in A: waiting, 0 of 1 instances available, wait 10 min, applies at 2026-03-02T10:10Z",
			"  data-in B: not checked",
		}
		if strings.Join(md[0].InputLogic, "\n") != strings.Join(want, "\n") {
			t.Errorf("missing dependencies' logic:\n%s", strings.Join(md[0].InputLogic, "\n"))
		}
		h.advance(9*time.Minute, time.Minute, nil)
		if a := h.action(id, 1); a.Status != store.CoordActionWaiting {
			t.Fatalf("status %s at 10:09, want WAITING", a.Status)
		}
		h.advance(time.Minute, time.Minute, nil)
		h.advance(time.Minute, time.Minute, nil)
		if a := h.action(id, 1); a.Status != store.CoordActionSucceeded {
			t.Fatalf("status %s after the wait, want SUCCEEDED", a.Status)
		}
		if ok, _ := statDir(filepath.Join(h.feed("b"), "processed")); !ok {
			t.Error("the workflow did not get feed B's instance")
		}
		if _, err := os.Stat(filepath.Join(h.feed("a"), "processed")); err == nil {
			t.Error("the workflow got feed A's instance")
		}
		// A rerun checks again: feed A has landed since, and is chosen.
		writeFiles(t, h.feed("a"), map[string]string{"_SUCCESS": ""})
		if _, err := h.e.CoordRerun(ctx, id, "action", "1", false, true, false); err != nil {
			t.Fatal(err)
		}
		h.settle()
		h.advance(time.Minute, time.Minute, nil)
		if a := h.action(id, 1); a.Status != store.CoordActionSucceeded {
			t.Fatalf("rerun: status %s, want SUCCEEDED", a.Status)
		}
		if ok, _ := statDir(filepath.Join(h.feed("a"), "processed")); !ok {
			t.Error("the rerun did not get feed A's instance")
		}
	})
	t.Run("A within its wait", func(t *testing.T) {
		h := newCoordHarness(t, logicStart, Options{InputCheckInterval: time.Minute})
		writeFiles(t, h.feed("b"), map[string]string{"_SUCCESS": ""})
		id, err := h.e.Run(ctx, h.logicProps())
		if err != nil {
			t.Fatal(err)
		}
		h.settle()
		h.advance(4*time.Minute, time.Minute, nil)
		writeFiles(t, h.feed("a"), map[string]string{"_SUCCESS": ""})
		h.advance(2*time.Minute, time.Minute, nil)
		if a := h.action(id, 1); a.Status != store.CoordActionSucceeded {
			t.Fatalf("status %s, want SUCCEEDED once A landed", a.Status)
		}
		if ok, _ := statDir(filepath.Join(h.feed("a"), "processed")); !ok {
			t.Error("the workflow did not get feed A's instance")
		}
	})
}

// TestInputLogicKnownAvailable: with input logic, every dependency not
// stored missing was found before.
func TestInputLogicKnownAvailable(t *testing.T) {
	deps := []string{"a", "b", "c"}
	got := logicKnownAvailable(deps, "a#c")
	if len(got) != 1 || !got["b"] {
		t.Errorf("known %v, want b", got)
	}
	if got := logicKnownAvailable(deps, "a#b#c"); len(got) != 0 {
		t.Errorf("known %v, want none", got)
	}
}

// TestInputLogicOozieExample runs the coordinator of Oozie's
// coord-input-logic example (examples/oozie/apps/coord-input-logic) on
// the fake clock, its two feeds landing in stages: the first hour runs on
// the primary feed (rawLogs); the second hour's primary feed lacks its
// last instance, so the action waits until the secondary feed (rawLogs-2)
// lands, and runs on that. The example's workflow is replaced by one
// that makes ${outputData}.
func TestInputLogicOozieExample(t *testing.T) {
	ctx := context.Background()
	h := newCoordHarness(t, time.Date(2010, 1, 1, 3, 0, 0, 0, time.UTC), Options{InputCheckInterval: time.Minute})
	root := filepath.Join(h.dir, "user", "tester", "examples")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "examples", "oozie"))); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, filepath.Join(root, "apps", "coord-input-logic"), map[string]string{"workflow.xml": `<workflow-app name="record" xmlns="uri:oozie:workflow:0.5">
  <start to="mk"/>
  <action name="mk"><fs><mkdir path="${outputData}"/></fs><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>failed</message></kill>
  <end name="end"/>
</workflow-app>`})
	flag := func(feed, m string) string {
		return filepath.Join(root, "input-data", feed, "2010/01/01", m, "_SUCCESS")
	}
	if err := os.Remove(flag("rawLogs", "02/00")); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"01/20", "01/40", "02/00"} {
		if err := os.Remove(flag("rawLogs-2", m)); err != nil {
			t.Fatal(err)
		}
	}
	props := conf.New()
	for k, v := range map[string]string{
		"nameNode": "file://" + h.dir, "resourceManager": "localhost:8032", "queueName": "default", "examplesRoot": "examples",
		engine.PropCoordAppPath: "file://" + filepath.Join(root, "apps", "coord-input-logic", "coordinator.xml"),
		"start":                 "2010-01-01T01:00Z", "end": "2010-01-01T03:00Z", engine.PropUser: "tester",
	} {
		props.Set(k, v)
	}
	id, err := h.e.Run(ctx, props)
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	h.advance(time.Minute, time.Minute, nil)
	out := func(hour string) string { return filepath.Join(root, "output-data", "inputLogic", "2010/01/01", hour) }
	if a := h.action(id, 1); a.Status != store.CoordActionSucceeded {
		t.Fatalf("action 1: %s, want SUCCEEDED on the primary feed", a.Status)
	}
	feed := func(name string, ms ...string) string {
		var uris []string
		for _, m := range ms {
			uris = append(uris, "file://"+filepath.Join(root, "input-data", name, "2010/01/01", m))
		}
		return "<value>" + strings.Join(uris, ",") + "</value>"
	}
	if rc := h.action(id, 1).RunConf; !strings.Contains(rc, feed("rawLogs", "01/00", "00/40", "00/20")) {
		t.Errorf("action 1's inputData is not the primary feed's three instances:\n%s", rc)
	}
	if ok, _ := statDir(out("01")); !ok {
		t.Error("action 1 made no output")
	}
	a := h.action(id, 2)
	if a.Status != store.CoordActionWaiting {
		t.Fatalf("action 2: %s, want WAITING", a.Status)
	}
	md, err := h.e.CoordMissingDependencies(ctx, id+"@2", "", "")
	if err != nil || len(md) != 1 || len(md[0].InputLogic) != 3 || md[0].InputLogic[0] != "or name=input: blocked" {
		t.Fatalf("missing dependencies of action 2: %+v %v", md, err)
	}

	// The secondary feed lands one instance at a time.
	for i, m := range []string{"01/20", "01/40", "02/00"} {
		writeFiles(t, filepath.Dir(flag("rawLogs-2", m)), map[string]string{"_SUCCESS": ""})
		h.advance(time.Minute, time.Minute, nil)
		if st := h.action(id, 2).Status; (i < 2) != (st == store.CoordActionWaiting) {
			t.Fatalf("action 2 after %d of 3 secondary instances: %s", i+1, st)
		}
	}
	if a := h.action(id, 2); a.Status != store.CoordActionSucceeded {
		t.Fatalf("action 2: %s, want SUCCEEDED on the secondary feed", a.Status)
	}
	if rc := h.action(id, 2).RunConf; !strings.Contains(rc, feed("rawLogs-2", "02/00", "01/40", "01/20")) {
		t.Errorf("action 2's inputData is not the secondary feed's three instances:\n%s", rc)
	}
}
