package engine

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/store"
)

// Options.DefaultNameNode and DefaultJobTracker (Oozie's
// oozie.actions.default.*) complete an action that needs a cluster and
// names none, at submission; without them it is refused with E0701 and a
// message that says what to add.
func TestActionClusterDefaults(t *testing.T) {
	app := wf(`<start to="a"/><action name="a"><shell xmlns="uri:oozie:shell-action:0.3"><exec>true</exec></shell>` +
		`<ok to="end"/><error to="fail"/></action><kill name="fail"><message>failed</message></kill><end name="end"/>`)
	h := newHarness(t)
	_, err := h.e.Run(context.Background(), props(h.writeApp("nodefaults", app, nil)))
	if ErrorCode(err) != "E0701" || !strings.Contains(err.Error(), "add <name-node> to the action or to <global>, or set oozie.actions.default.name-node") {
		t.Fatalf("without defaults: %v", err)
	}

	h = newHarness(t, func(o *Options) { o.DefaultNameNode, o.DefaultJobTracker = "file:///", "local" })
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	launch.RegisterBuiltins(h.e.actions, launch.Options{Launcher: []string{self}})
	id := h.run(props(h.writeApp("defaults", app, nil)))
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("job %s: %s", j.Status, h.describe(id))
	}
	_, m := h.job(id)
	for _, want := range []string{"<job-tracker>local</job-tracker>", "<name-node>file:///</name-node>"} {
		if !strings.Contains(m["a"].Conf, want) {
			t.Errorf("action XML lacks %s: %s", want, m["a"].Conf)
		}
	}
}
