package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/store"
)

func TestLinearWorkflowSucceeds(t *testing.T) {
	h := newHarness(t)
	app := h.writeApp("linear", wf(`<start to="a"/>`+testAction("a", "b", "fail")+testAction("b", "end", "fail")+
		`<kill name="fail"><message>failed</message></kill><end name="end"/>`), nil)
	id := h.run(props(app))
	j := h.wait(id)
	if j.Status != store.JobSucceeded {
		t.Fatalf("status %s: %s", j.Status, h.describe(id))
	}
	if !strings.HasSuffix(id, "-oozie-test-W") || len(strings.Split(id, "-")[0]) != 7 {
		t.Errorf("job id %q is not in Oozie's format", id)
	}
	_, acts, _ := h.e.Job(context.Background(), id)
	want := []struct{ name, typ, status, transition string }{
		{":start:", TypeStart, store.ActionOK, "a"},
		{"a", "test", store.ActionOK, "b"},
		{"b", "test", store.ActionOK, "end"},
		{"end", TypeEnd, store.ActionOK, ""},
	}
	if len(acts) != len(want) {
		t.Fatalf("records: %s", h.describe(id))
	}
	for i, w := range want {
		a := acts[i]
		if a.Name != w.name || a.Type != w.typ || a.Status != w.status || a.Transition != w.transition {
			t.Errorf("record %d = %s %s %s ->%q, want %+v", i, a.Name, a.Type, a.Status, a.Transition, w)
		}
		if a.ID != id+"@"+w.name {
			t.Errorf("record id %q", a.ID)
		}
	}
	if j.StartTime.IsZero() || j.EndTime.IsZero() {
		t.Errorf("times not set: %+v", j)
	}
}

func TestDecision(t *testing.T) {
	cases := []struct {
		name string
		x    string
		want string // node taken
	}{
		{"first true wins", "5", "big"},
		{"second case", "2", "medium"},
		{"default", "0", "small"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			app := h.writeApp("decision", wf(`<start to="d"/>
				<decision name="d"><switch>
					<case to="big">${x gt 3}</case>
					<case to="medium">${x gt 1}</case>
					<case to="never">${x gt 1}</case>
					<default to="small"/>
				</switch></decision>`+
				testAction("big", "end", "end")+testAction("medium", "end", "end")+
				testAction("never", "end", "end")+testAction("small", "end", "end")+`<end name="end"/>`), nil)
			id := h.run(props(app, "x", c.x))
			if j := h.wait(id); j.Status != store.JobSucceeded {
				t.Fatalf("status %s", j.Status)
			}
			_, m := h.job(id)
			if d := m["d"]; d == nil || d.Type != TypeDecision || d.Status != store.ActionOK || d.Transition != c.want {
				t.Fatalf("decision record %+v", d)
			}
			for _, n := range []string{"big", "medium", "never", "small"} {
				if ran := m[n] != nil; ran != (n == c.want) {
					t.Errorf("node %s ran=%v", n, ran)
				}
			}
		})
	}
}

func forkJoinApp() string {
	return wf(`<start to="f"/>
		<fork name="f"><path start="p1"/><path start="p2"/><path start="p3"/></fork>` +
		testAction("p1", "j", "fail") + testAction("p2", "p2b", "fail") + testAction("p2b", "j", "fail") +
		testAction("p3", "j", "fail") +
		`<join name="j" to="after"/>` + testAction("after", "end", "fail") +
		`<kill name="fail"><message>path [${wf:lastErrorNode()}] failed</message></kill><end name="end"/>`)
}

func TestForkJoinWaitsForEveryPath(t *testing.T) {
	h := newHarness(t)
	h.exec.set("p1", &behaviour{async: true})
	h.exec.set("p3", &behaviour{async: true})
	id := h.run(props(h.writeApp("fj", forkJoinApp(), nil)))
	// All paths start concurrently.
	h.eventually("p1, p2b and p3 running", func() bool {
		return h.actionStatus(id, "p1") == store.ActionRunning && h.actionStatus(id, "p3") == store.ActionRunning &&
			h.actionStatus(id, "p2b") == store.ActionOK
	})
	h.exec.finish(t, "p1", action.Result{})
	h.eventually("p1 OK", func() bool { return h.actionStatus(id, "p1") == store.ActionOK })
	if s := h.actionStatus(id, "j"); s != "" {
		t.Fatalf("join completed (%s) before every path arrived", s)
	}
	if h.exec.count(h.exec.starts, "after") != 0 {
		t.Fatal("node after the join started early")
	}
	h.exec.finish(t, "p3", action.Result{})
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("status %s: %s", j.Status, h.describe(id))
	}
	_, m := h.job(id)
	if m["f"].Type != TypeFork || m["j"].Type != TypeJoin || m["j"].Transition != "after" || m["after"].Status != store.ActionOK {
		t.Fatalf("records: %s", h.describe(id))
	}
}

func TestKillNodeKillsRunningActions(t *testing.T) {
	h := newHarness(t)
	h.exec.set("p1", &behaviour{async: true})
	h.exec.set("p3", &behaviour{async: true})
	id := h.run(props(h.writeApp("fj", forkJoinApp(), nil)))
	h.eventually("p1 and p3 running", func() bool {
		return h.actionStatus(id, "p1") == store.ActionRunning && h.actionStatus(id, "p3") == store.ActionRunning
	})
	h.exec.finish(t, "p3", action.Result{Status: action.Error, ErrorCode: "X1", ErrorMessage: "boom"})
	j := h.wait(id)
	if j.Status != store.JobKilled {
		t.Fatalf("status %s: %s", j.Status, h.describe(id))
	}
	_, m := h.job(id)
	k := m["fail"]
	if k.Type != TypeKill || k.Status != store.ActionOK || k.ErrorCode != "E0729" || k.ErrorMessage != "path [p3] failed" {
		t.Fatalf("kill record %+v", k)
	}
	if m["p3"].Status != store.ActionError || m["p3"].ErrorCode != "X1" || m["p3"].Transition != "fail" {
		t.Fatalf("p3 record %+v", m["p3"])
	}
	if m["p1"].Status != store.ActionKilled {
		t.Fatalf("running p1 not killed: %s", m["p1"].Status)
	}
	h.eventually("executor Kill of p1", func() bool { return h.exec.count(h.exec.kills, "p1") == 1 })
}

func TestEndKillsRunningActions(t *testing.T) {
	h := newHarness(t)
	h.exec.set("slow", &behaviour{async: true})
	h.exec.set("quick", &behaviour{async: true})
	app := h.writeApp("end", wf(`<start to="f"/><fork name="f"><path start="slow"/><path start="quick"/></fork>`+
		testAction("slow", "j", "j")+testAction("quick", "end", "end")+`<join name="j" to="end"/><end name="end"/>`), nil)
	id := h.run(props(app, "oozie.wf.validate.ForkJoin", "false"))
	h.eventually("both running", func() bool {
		return h.actionStatus(id, "slow") == store.ActionRunning && h.actionStatus(id, "quick") == store.ActionRunning
	})
	h.exec.finish(t, "quick", action.Result{})
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("status %s: %s", j.Status, h.describe(id))
	}
	if s := h.actionStatus(id, "slow"); s != store.ActionKilled {
		t.Fatalf("slow = %s, want KILLED", s)
	}
	h.eventually("executor Kill of slow", func() bool { return h.exec.count(h.exec.kills, "slow") == 1 })
}

// TestWorkflowFunctionsSeeRecords: wf:* functions read the job's records
// (4.2.3): action data, transitions, external ids, the last error node.
func TestWorkflowFunctionsSeeRecords(t *testing.T) {
	h := newHarness(t)
	h.exec.set("a", &behaviour{results: []action.Result{{Done: true, Status: action.OK, Data: map[string]string{"n": "7"}}}})
	h.exec.set("b", &behaviour{results: []action.Result{{Done: true, Status: action.Error, ErrorCode: "B1", ErrorMessage: "b broke"}}})
	app := h.writeApp("wf", wf(`<start to="a"/>`+testAction("a", "b", "fail")+testAction("b", "c", "c")+
		`<action name="c"><test xmlns="uri:gozie:test:1.0">
			<v>${wf:actionData('a')['n']}|${wf:transition('a')}|${wf:actionExternalId('a')}|${wf:lastErrorNode()}|${wf:errorCode('b')}|${wf:errorMessage('b')}|${wf:id()}|${wf:user()}|${wf:transition('zzz')}</v>
		</test><ok to="end"/><error to="fail"/></action>
		<kill name="fail"><message>x</message></kill><end name="end"/>`), nil)
	id := h.run(props(app))
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("status %s: %s", j.Status, h.describe(id))
	}
	want := "7|b|ext-a-0|b|B1|b broke|" + id + "|tester|"
	if got := h.exec.contexts["c"].Element.ChildText("v"); got != want {
		t.Fatalf("EL saw %q, want %q", got, want)
	}
}
