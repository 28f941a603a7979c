package engine

import (
	"context"
	"encoding/xml"
	"testing"

	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/workflow"
)

// TestSubmitResolvesAppName: a workflow name written with EL is accepted by
// every schema version, 0.1-0.3 included (their XSDs in Oozie declare the
// name a string), and resolved with the job properties at submission
// (issue 13, point 13).
func TestSubmitResolvesAppName(t *testing.T) {
	tests := []struct {
		version, name, want string
	}{
		{"0.1", "${wfName}", "daily-load"},
		{"0.2", "${wfName}-${env}", "daily-load-prod"},
		{"0.3", "load ${env}", "load prod"},
		{"1.0", "${wfName}", "daily-load"},
		{"0.3", "${undefined}", "${undefined}"}, // kept as written
		{"0.2", "#{wfName}", "daily-load"},      // deferred syntax, as Jasper EL
	}
	h := newHarness(t)
	for i, tt := range tests {
		t.Run(tt.version+"/"+tt.name, func(t *testing.T) {
			x := `<workflow-app xmlns="uri:oozie:workflow:` + tt.version + `" name="` + tt.name + `">` +
				`<start to="a"/>` + testAction("a", "end", "k") +
				`<kill name="k"><message>x</message></kill><end name="end"/></workflow-app>`
			dir := h.writeApp("appname"+string(rune('a'+i)), x, nil)
			id, err := h.e.Submit(context.Background(), props(dir, "wfName", "daily-load", "env", "prod"))
			if err != nil {
				t.Fatalf("Submit: %v", err)
			}
			j, _ := h.job(id)
			if j.AppName != tt.want {
				t.Errorf("app name = %q, want %q", j.AppName, tt.want)
			}
		})
	}
}

// TestResolveElementDeferred: EL written as #{...} in action bodies and
// attributes is evaluated like ${...} when the node runs (issue 13,
// point 16).
func TestResolveElementDeferred(t *testing.T) {
	ev := &el.Evaluator{Funcs: el.Basic(), Vars: el.MapVars{"in": "/data", "n": int64(2)}}
	tests := []struct{ text, attr, wantText, wantAttr string }{
		{"#{in}/x", "#{n + 1}", "/data/x", "3"},
		{"${in}/x", "plain", "/data/x", "plain"},
		{`\#{in}`, "#", "#{in}", "#"},
	}
	for _, tt := range tests {
		e := &workflow.Element{Name: xml.Name{Local: "arg"}, Text: tt.text, Attrs: []xml.Attr{{Name: xml.Name{Local: "v"}, Value: tt.attr}}}
		out, _, err := resolveAction(ev, e, DefaultMaxActionBytes)
		if err != nil {
			t.Fatalf("%q: %v", tt.text, err)
		}
		if out.Text != tt.wantText || out.Attr("v") != tt.wantAttr {
			t.Errorf("%q/%q resolved to %q/%q, want %q/%q", tt.text, tt.attr, out.Text, out.Attr("v"), tt.wantText, tt.wantAttr)
		}
	}
}
