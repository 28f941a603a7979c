package coord

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/conf"
)

// actionConfApp is a coordinator whose action configuration is the given
// property values, in order.
func actionConfApp(values ...string) string {
	var b strings.Builder
	b.WriteString(`<coordinator-app name="c" frequency="60" start="2009-01-01T00:00Z" end="2009-01-02T00:00Z" timezone="UTC"
    xmlns="uri:oozie:coordinator:0.2"><action><workflow><app-path>/wf</app-path><configuration>`)
	for i, v := range values {
		fmt.Fprintf(&b, `<property><name>p%d</name><value>%s</value></property>`, i, v)
	}
	b.WriteString(`</configuration></workflow></action></coordinator-app>`)
	return b.String()
}

// TestActionBound: an action configuration that the job's variables
// resolve past App.MaxActionBytes is refused at submission (E1004 naming
// the limit and the property); one stored under a larger bound keeps its
// configuration unresolved in the materialized action XML and fails
// RunConf. Values that stay under the bound are resolved as before.
func TestActionBound(t *testing.T) {
	big := strings.Repeat("b", 1000)
	tests := []struct {
		name   string
		values []string
		limit  int  // App.MaxActionBytes at materialization and start
		submit bool // accepted at submission under limit
		start  bool // RunConfXML fits under limit
	}{
		{"under the bound", []string{"${big}", "${big}"}, 4000, true, true},
		{"over the bound at submission", []string{"${big}", "${big}", "${big}", "${big}", "${big}"}, 4000, false, false},
		{"many segments of one value", []string{strings.Repeat("${big}", 100)}, 4000, false, false},
		{"escaping counts in the run configuration", []string{"${amp}"}, 4000, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Only the variables a case uses: the job's properties are
			// part of the run configuration too (Oozie's createdConf).
			props := map[string]string{"big": big}
			if strings.Contains(strings.Join(tc.values, ""), "${amp}") {
				props = map[string]string{"amp": strings.Repeat("&", 1500)}
			}
			all := map[string]string{"/app/coordinator.xml": actionConfApp(tc.values...)}
			c := confOf(props)
			_, _, err := Submit(c, SubmitOptions{ReadFile: memFiles(all), Now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), MaxActionBytes: tc.limit})
			if tc.submit != (err == nil) {
				t.Fatalf("Submit: %v, want accepted=%v", err, tc.submit)
			}
			if err != nil && (ErrorCode(err) != CodeEL || !strings.Contains(err.Error(), fmt.Sprint(tc.limit))) {
				t.Fatalf("Submit: %v, want E1004 naming the limit", err)
			}
			// Stored under a larger bound, the action is bounded by tc.limit.
			a, job, err := Submit(confOf(props), SubmitOptions{ReadFile: memFiles(all), Now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), MaxActionBytes: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			a.MaxActionBytes = tc.limit
			p, err := a.Materialize(PlanState{}, PlanOptions{Now: a.Start, Window: time.Hour}, job)
			if err != nil || len(p.Actions) == 0 {
				t.Fatalf("Materialize: %v", err)
			}
			act := p.Actions[0]
			unresolved := strings.Contains(act.ActionXML, "${big}") || strings.Contains(act.ActionXML, "${amp}")
			x, err := a.RunConfXML(act, job)
			fits := err == nil && len(x) <= tc.limit
			if tc.start {
				if err != nil || unresolved || !fits {
					t.Fatalf("RunConfXML: %d bytes, %v; action XML unresolved: %v", len(x), err, unresolved)
				}
				return
			}
			if err == nil || ErrorCode(err) != CodeEL || !strings.Contains(err.Error(), fmt.Sprint(tc.limit)) {
				t.Fatalf("RunConfXML: %d bytes, %v; want E1004 naming the limit", len(x), err)
			}
			if len(act.ActionXML) > tc.limit+len(a.xmlParts().action)+1000 {
				t.Errorf("action XML of %d bytes", len(act.ActionXML))
			}
		})
	}
}

// confOf is a job configuration of props with a user and an app path.
func confOf(props map[string]string) *conf.Config {
	c := conf.FromMap(props)
	c.Set(PropUser, "joe")
	c.Set(PropAppPath, "hdfs://nn:8020/app")
	return c
}

// TestResolveEarlyBound: resolving a value segment by segment stops once
// the result passes its bound, leaving the text as written.
func TestResolveEarlyBound(t *testing.T) {
	ctx := &ELContext{Vars: confVars{confOf(map[string]string{"big": strings.Repeat("b", 1000)})}}
	text := strings.Repeat("${big}", 10_000)
	if v, ok := resolveEarly(ctx, text, 5000); ok || v != text {
		t.Errorf("resolveEarly over the bound = %d bytes, %v; want the text, false", len(v), ok)
	}
	if v, ok := resolveEarly(ctx, "${big}${big}", 2000); !ok || len(v) != 2000 {
		t.Errorf("resolveEarly at the bound = %d bytes, %v", len(v), ok)
	}
}

// TestRunConfCarriesJobProperties: the workflow a coordinator action
// submits gets the coordinator job's properties, with the action's
// <configuration> over them and the app path set from <app-path>, as
// Oozie's CoordActionStartXCommand merges createdConf and the action's
// configuration: a ${workDir} of the coordinator's job.properties reaches
// the workflow.
func TestRunConfCarriesJobProperties(t *testing.T) {
	all := map[string]string{"/app/coordinator.xml": actionConfApp("${workDir}/x", "fixed")}
	props := map[string]string{"workDir": "/data/w", "p1": "from the job", "queue": "q1"}
	a, job, err := Submit(confOf(props), SubmitOptions{ReadFile: memFiles(all), Now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.Materialize(PlanState{}, PlanOptions{Now: a.Start, Window: time.Hour}, job)
	if err != nil || len(p.Actions) == 0 {
		t.Fatalf("Materialize: %v", err)
	}
	rc, err := a.RunConf(p.Actions[0], job)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"workDir": "/data/w", "queue": "q1", // the job's own
		"p0": "/data/w/x", "p1": "fixed", // the action's, over the job's p1
		PropWfAppPath: "/wf",
	} {
		if got, _ := rc.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}
