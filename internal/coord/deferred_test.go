package coord

import (
	"testing"
	"time"
)

// TestDeferredSyntax: #{...} in a coordinator is evaluated like ${...}, in
// every phase: submission (attributes, controls), materialization
// (instances) and start (the workflow configuration) (issue 13, point 16).
func TestDeferredSyntax(t *testing.T) {
	xml := app("0.4", `name="#{appName}" frequency="#{coord:hours(6)}" start="#{start}" end="2009-01-02T00:00Z" timezone="UTC"`,
		`<controls><timeout>#{coord:hours(2)}</timeout></controls>
<datasets>`+ds("a", "/a/${YEAR}${MONTH}${DAY}${HOUR}")+`</datasets>
<input-events><data-in name="in" dataset="a"><instance>#{coord:current(0)}</instance></data-in></input-events>
<action><workflow><app-path>/wf</app-path><configuration>
<property><name>in</name><value>#{coord:dataIn('in')}</value></property>
<property><name>t</name><value>#{coord:formatTime(coord:nominalTime(), 'yyyyMMddHH')}</value></property>
<property><name>lit</name><value>\#{kept}</value></property>
</configuration></workflow></action>`)
	a, job, err := submit(t, xml, map[string]string{"appName": "deferred", "start": "2009-01-01T00:00Z"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "deferred" || a.Frequency != "360" || a.Timeout != 120 || !a.Start.Equal(mustTime(t, "2009-01-01T00:00Z")) {
		t.Fatalf("name %q frequency %s timeout %d start %v", a.Name, a.Frequency, a.Timeout, a.Start)
	}
	p, err := a.Materialize(PlanState{}, PlanOptions{Now: a.Start, Window: 7 * time.Hour}, job)
	if err != nil || len(p.Actions) != 2 {
		t.Fatalf("%v %v", p, err)
	}
	act := p.Actions[1]
	if got := act.InputURIs["in"]; len(got) != 1 || got[0] != "/a/2009010100" {
		t.Errorf("instance %v, want the daily instance /a/2009010100", got)
	}
	rc, err := a.RunConf(act, job)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"in": "/a/2009010100", "t": "2009010106", "lit": "#{kept}"} {
		if v, _ := rc.Get(name); v != want {
			t.Errorf("%s = %q, want %q", name, v, want)
		}
	}
}
