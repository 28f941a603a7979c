package coord

import (
	"strings"
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

// Issue 26 point 8: a data event on an hcat:// dataset (HCatalog table) is
// refused at submission with E1021, instead of an input check waiting for
// ever on <uri>/_SUCCESS; the scheme may come from a job property and the
// dataset from an include. A dataset no event uses is not refused.
func TestHCatalogDatasetRefused(t *testing.T) {
	hcat := func(name, uri string) string {
		return `<dataset name="` + name + `" frequency="${coord:days(1)}" initial-instance="2009-01-01T00:00Z" timezone="UTC"><uri-template>` + uri + `</uri-template></dataset>`
	}
	hdfs := hcat("plain", "hdfs://nn/a/${YEAR}${MONTH}${DAY}")
	rows := []struct {
		name, datasets, events string
		files                  map[string]string
		wantCode               string
	}{
		{"data-in", hcat("t", "hcat://metastore:9083/db/t/dt=${YEAR}${MONTH}${DAY}"),
			`<input-events><data-in name="in" dataset="t"><instance>${coord:current(0)}</instance></data-in></input-events>`, nil, "E1021"},
		{"data-out, scheme from a property, upper case", hcat("t", "${hcatNode}/db/t/dt=${YEAR}${MONTH}${DAY}"),
			`<output-events><data-out name="out" dataset="t"><instance>${coord:current(0)}</instance></data-out></output-events>`, nil, "E1021"},
		{"included", `<include>ds.xml</include>`,
			`<input-events><data-in name="in" dataset="t"><instance>${coord:current(0)}</instance></data-in></input-events>`,
			map[string]string{"/app/ds.xml": `<datasets>` + hcat("t", "hcat://m/db/t/dt=${DAY}") + `</datasets>`}, "E1021"},
		{"unused", hcat("t", "hcat://m/db/t/dt=${DAY}") + hdfs,
			`<input-events><data-in name="in" dataset="plain"><instance>${coord:current(0)}</instance></data-in></input-events>`, nil, ""},
	}
	for _, r := range rows {
		xml := app("0.4", `name="h" frequency="${coord:days(1)}" start="2009-01-01T00:00Z" end="2009-01-03T00:00Z" timezone="UTC"`,
			`<datasets>`+r.datasets+`</datasets>`+r.events+`<action><workflow><app-path>hdfs://nn/wf</app-path></workflow></action>`)
		_, _, err := submit(t, xml, map[string]string{"hcatNode": "HCAT://metastore:9083"}, r.files)
		if ErrorCode(err) != r.wantCode {
			t.Errorf("%s: err = %v, want code %q", r.name, err, r.wantCode)
			continue
		}
		if r.wantCode != "" && !strings.Contains(err.Error(), "HCatalog datasets are not supported yet") {
			t.Errorf("%s: message %q does not say HCatalog is not supported", r.name, err)
		}
	}
}
