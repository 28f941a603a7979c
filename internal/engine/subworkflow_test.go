package engine

import (
	"context"
	"testing"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/store"
)

func subWF(name, appPath, ok, errTo string, extra string) string {
	return `<action name="` + name + `"><sub-workflow><app-path>` + appPath + `</app-path>` + extra +
		`</sub-workflow><ok to="` + ok + `"/><error to="` + errTo + `"/></action>`
}

func (h *harness) children(parent string) []*store.Job {
	h.t.Helper()
	var out []*store.Job
	err := h.store.View(context.Background(), func(tx store.Tx) (err error) {
		out, err = tx.Jobs(context.Background(), store.JobFilter{ParentID: parent})
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

func TestSubWorkflow(t *testing.T) {
	h := newHarness(t)
	parent := h.writeApp("parent", wf(`<start to="sub"/>`+
		subWF("sub", "child", "end", "fail", `<propagate-configuration/><configuration>
			<property><name>greeting</name><value>hi ${who}</value></property></configuration>`)+
		`<kill name="fail"><message>${wf:errorMessage('sub')}</message></kill><end name="end"/>`),
		map[string]string{"child/workflow.xml": wf(`<parameters><property><name>greeting</name></property></parameters>
			<start to="c"/><action name="c"><test xmlns="uri:gozie:test:1.0"><say>${greeting} ${who}</say></test>
			<ok to="end"/><error to="end"/></action><end name="end"/>`)})
	id := h.run(props(parent, "who", "bob"))
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("status %s: %s", j.Status, h.describe(id))
	}
	kids := h.children(id)
	if len(kids) != 1 || kids[0].Status != store.JobSucceeded {
		t.Fatalf("children %+v", kids)
	}
	_, m := h.job(id)
	if a := m["sub"]; a.Type != "sub-workflow" || a.ExternalID != kids[0].ID || a.ExternalStatus != store.JobSucceeded {
		t.Fatalf("sub record %+v", a)
	}
	if got := h.exec.contexts["c"].Element.ChildText("say"); got != "hi bob bob" {
		t.Fatalf("child saw %q (configuration not propagated)", got)
	}
}

func TestSubWorkflowFailureTakesErrorTransition(t *testing.T) {
	h := newHarness(t)
	h.exec.set("c", &behaviour{results: []action.Result{{Done: true, Status: action.Error, ErrorCode: "X", ErrorMessage: "child broke"}}})
	parent := h.writeApp("parent", wf(`<start to="sub"/>`+subWF("sub", "child", "end", "fail", "")+
		`<kill name="fail"><message>sub said: ${wf:errorMessage('sub')}</message></kill><end name="end"/>`),
		map[string]string{"child/workflow.xml": wf(`<start to="c"/>` + testAction("c", "end", "k") +
			`<kill name="k"><message>c failed: ${wf:errorMessage('c')}</message></kill><end name="end"/>`)})
	id := h.run(props(parent))
	if j := h.wait(id); j.Status != store.JobKilled {
		t.Fatalf("status %s", j.Status)
	}
	_, m := h.job(id)
	if k := m["fail"]; k.ErrorMessage != "sub said: c failed: child broke" {
		t.Fatalf("kill message %q", k.ErrorMessage)
	}
}

func TestSubWorkflowDepthLimit(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.MaxSubWorkflowDepth = 3 })
	// The application runs itself: only the depth limit stops it.
	app := h.writeApp("recursive", wf(`<start to="again"/>`+subWF("again", "${wf:appPath()}", "end", "fail", "")+
		`<kill name="fail"><message>${wf:errorCode('again')}: ${wf:errorMessage('again')}</message></kill><end name="end"/>`), nil)
	id := h.run(props(app))
	if j := h.wait(id); j.Status != store.JobKilled {
		t.Fatalf("status %s", j.Status)
	}
	depth, cur := 0, id
	for {
		kids := h.children(cur)
		if len(kids) == 0 {
			break
		}
		depth++
		cur = kids[0].ID
	}
	if depth != 3 {
		t.Fatalf("nesting depth %d, want 3", depth)
	}
	_, m := h.job(cur)
	if a := m["again"]; a.ErrorCode != CodeSubWorkflowDepth {
		t.Fatalf("innermost record %+v", a)
	}
}

func TestSubWorkflowKillAndSuspendPropagate(t *testing.T) {
	h := newHarness(t)
	h.exec.set("c", &behaviour{async: true})
	parent := h.writeApp("parent", wf(`<start to="sub"/>`+subWF("sub", "child", "end", "end", "")+`<end name="end"/>`),
		map[string]string{"child/workflow.xml": wf(`<start to="c"/>` + testAction("c", "end", "end") + `<end name="end"/>`)})
	id := h.run(props(parent))
	var child string
	h.eventually("child action running", func() bool {
		kids := h.children(id)
		if len(kids) == 0 {
			return false
		}
		child = kids[0].ID
		return h.actionStatus(child, "c") == store.ActionRunning && h.actionStatus(id, "sub") == store.ActionRunning
	})
	ctx := context.Background()
	if err := h.e.Suspend(ctx, id); err != nil {
		t.Fatal(err)
	}
	if s := h.status(child); s != store.JobSuspended {
		t.Fatalf("child %s after parent suspend", s)
	}
	if err := h.e.Resume(ctx, id); err != nil {
		t.Fatal(err)
	}
	if s := h.status(child); s != store.JobRunning {
		t.Fatalf("child %s after parent resume", s)
	}
	if err := h.e.Kill(ctx, id); err != nil {
		t.Fatal(err)
	}
	h.eventually("child killed", func() bool { return h.status(child) == store.JobKilled })
	h.eventually("child action killed", func() bool { return h.exec.count(h.exec.kills, "c") == 1 })
	if s := h.status(id); s != store.JobKilled {
		t.Fatalf("parent %s", s)
	}
}
