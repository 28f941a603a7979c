package coord

import (
	"testing"
)

// Issue 26 point 9: coord:actionId() in a dry run is the id the action
// would have, DryRunJobID@<number>, in the workflow configuration the
// action would submit.
func TestDryRunActionID(t *testing.T) {
	xml := app("0.4", `name="ids" frequency="${coord:hours(1)}" start="2009-01-01T10:00Z" end="2009-01-01T12:00Z" timezone="UTC"`,
		`<action><workflow><app-path>hdfs://nn/wf</app-path><configuration>
 <property><name>id</name><value>${coord:actionId()}</value></property>
</configuration></workflow></action>`)
	res, err := dryRunXML(t, xml, nil, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Actions) != 2 {
		t.Fatalf("%d actions, want 2", len(res.Actions))
	}
	for i, da := range res.Actions {
		want := "0000000-000000000000000-dryrun-C@" + string(rune('1'+i))
		if got := get(runConfOf(t, da), "id"); got != want {
			t.Errorf("action %d: coord:actionId() = %q, want %q", i+1, got, want)
		}
		if da.Plan.ID != want {
			t.Errorf("action %d: plan id %q, want %q", i+1, da.Plan.ID, want)
		}
	}
}
