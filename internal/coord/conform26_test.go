package coord

import (
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/conf"
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

// Issue 26 point 8 refused hcat:// datasets (E1021); issue 29 supports
// them: an HCatalog data event is accepted when its uri-template is a
// partition URI, whatever the case of the scheme, wherever the scheme and
// the dataset come from (a job property, an include); a template that is
// not (no partition part, no table) is refused with E0906. A dataset no
// event uses is not looked at.
func TestHCatalogDatasetChecked(t *testing.T) {
	hcat := func(name, uri string) string {
		return `<dataset name="` + name + `" frequency="${coord:days(1)}" initial-instance="2009-01-01T00:00Z" timezone="UTC"><uri-template>` + uri + `</uri-template></dataset>`
	}
	hdfs := hcat("plain", "hdfs://nn/a/${YEAR}${MONTH}${DAY}")
	in := `<input-events><data-in name="in" dataset="t"><instance>${coord:current(0)}</instance></data-in></input-events>`
	rows := []struct {
		name, datasets, events string
		files                  map[string]string
		wantCode               string
	}{
		{"data-in", hcat("t", "hcat://metastore:9083/db/t/dt=${YEAR}${MONTH}${DAY}"), in, nil, ""},
		{"data-out, scheme from a property, upper case", hcat("t", "${hcatNode}/db/t/dt=${YEAR}${MONTH}${DAY}"),
			`<output-events><data-out name="out" dataset="t"><instance>${coord:current(0)}</instance></data-out></output-events>`, nil, ""},
		{"included", `<include>ds.xml</include>`, in,
			map[string]string{"/app/ds.xml": `<datasets>` + hcat("t", "hcat://m/db/t/dt=${DAY}") + `</datasets>`}, ""},
		{"no partition", hcat("t", "hcat://m/db/t"), in, nil, CodeURIParse},
		{"no authority", hcat("t", "hcat:///db/t/dt=${DAY}"), in, nil, CodeURIParse},
		{"bad pair", hcat("t", "hcat://m/db/t/dt"), in, nil, CodeURIParse},
		{"unused", hcat("t", "hcat://m/db") + hdfs,
			`<input-events><data-in name="in" dataset="plain"><instance>${coord:current(0)}</instance></data-in></input-events>`, nil, ""},
	}
	for _, r := range rows {
		xml := app("0.4", `name="h" frequency="${coord:days(1)}" start="2009-01-01T00:00Z" end="2009-01-03T00:00Z" timezone="UTC"`,
			`<datasets>`+r.datasets+`</datasets>`+r.events+`<action><workflow><app-path>hdfs://nn/wf</app-path></workflow></action>`)
		_, _, err := submit(t, xml, map[string]string{"hcatNode": "HCAT://metastore:9083"}, r.files)
		if ErrorCode(err) != r.wantCode {
			t.Errorf("%s: err = %v, want code %q", r.name, err, r.wantCode)
		}
	}
}

// outputFutureApp is a daily coordinator on weekly datasets, written after
// Oozie's coord-multiple-input-instance4.xml and
// coord-multiple-input-start-instance2.xml (TestCoordSubmitXCommand submits
// both successfully): in and out are the bodies of the data-in and
// data-out events.
func outputFutureApp(in, out string) string {
	weekly := func(name string) string {
		return `<dataset name="` + name + `" frequency="${coord:days(7)}" initial-instance="2009-02-01T01:00Z" timezone="UTC"><uri-template>hdfs://nn/d/${YEAR}/${DAY}</uri-template></dataset>`
	}
	return app("0.2", `name="NAME" frequency="${coord:days(1)}" start="2009-02-01T01:00Z" end="2009-02-03T23:59Z" timezone="UTC"`,
		`<controls><concurrency>2</concurrency><execution>LIFO</execution></controls>
<datasets>`+weekly("a")+weekly("local_a")+`</datasets>
<input-events><data-in name="A" dataset="a">`+in+`</data-in></input-events>
<output-events><data-out name="LOCAL_A" dataset="local_a">`+out+`</data-out></output-events>
<action><workflow><app-path>hdfs://nn/wf</app-path><configuration>
 <property><name>inputA</name><value>${coord:dataIn('A')}</value></property>
 <property><name>inputB</name><value>${coord:dataOut('LOCAL_A')}</value></property>
</configuration></workflow></action>`)
}

// Issue 26 point 6: a data-out whose instance is coord:future/futureRange
// (or coord:latest) is accepted at submission, as Oozie's
// TestCoordSubmitXCommand has it. Materialization keeps the output
// instance unresolved (no URI, coord:dataOut empty), as Oozie's
// CoordCommandUtils does. Oozie's input check
// (CoordActionInputCheckXCommand.checkUnresolvedInstances) refuses such an
// output (E1006, reported as E1021) only for an action with latest/future
// inputs, once its resolved inputs are there; an action without them
// never reaches that check and runs.
func TestOutputLatestFuture(t *testing.T) {
	const (
		current = `<instance>${coord:current(0)}</instance>`
		future1 = `<instance>${coord:future(0, 1)}</instance>`
	)
	all := func(string) (bool, error) { return true, nil }
	none := func(string) (bool, error) { return false, nil }
	rows := []struct {
		name, in, out string
		exists        func(string) (bool, error)
		wantCode      string
		wantReady     bool
		wantOut       string // coord:dataOut('LOCAL_A') of a READY action
	}{
		// coord-multiple-input-instance4.xml: future in both.
		{"instance4, inputs there", future1, `<instance>${coord:future(0,2)}</instance>`, all, "E1021", false, ""},
		{"instance4, inputs absent", future1, `<instance>${coord:future(0,2)}</instance>`, none, "E1021", false, ""},
		// coord-multiple-input-start-instance2.xml: a futureRange input,
		// a current output.
		{"start-instance2", `<start-instance>${coord:future(0, 1)}</start-instance><end-instance>${coord:future(0, 1)}</end-instance>`,
			current, all, "", true, "hdfs://nn/d/2009/01"},
		// No latest/future input: the output is never checked.
		{"current in, future out", current, `<instance>${coord:future(0,2)}</instance>`, all, "", true, ""},
		{"current in, latest out", current, `<instance>${coord:latest(0)}</instance>`, all, "", true, ""},
		{"current in, future out, input absent", current, `<instance>${coord:future(0,2)}</instance>`, none, "", false, ""},
		// A latest input whose resolved input is absent: waits.
		{"current and latest in, current absent", current + `<instance>${coord:latest(0)}</instance>`, `<instance>${coord:future(0,2)}</instance>`, none, "", false, ""},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			a, job, err := submit(t, outputFutureApp(r.in, r.out), nil, nil)
			if err != nil {
				t.Fatalf("submission refused: %v", err)
			}
			plan, err := a.Materialize(PlanState{}, PlanOptions{Now: a.Start}, job)
			if err != nil || len(plan.Actions) == 0 {
				t.Fatalf("materialization: %v %v", plan, err)
			}
			p := plan.Actions[0]
			if strings.Contains(r.out, "future") || strings.Contains(r.out, "latest") {
				if p.OutputUnresolved["LOCAL_A"] == "" || len(p.OutputURIs["LOCAL_A"]) != 0 ||
					!strings.Contains(p.ActionXML, "<unresolved-instances>") {
					t.Errorf("output not kept unresolved: %v %v\n%s", p.OutputUnresolved, p.OutputURIs, p.ActionXML)
				}
			}
			res, err := a.CheckInputs(p, job, r.exists, a.Start.Add(time.Minute))
			if ErrorCode(err) != r.wantCode {
				t.Fatalf("input check: %v, want code %q", err, r.wantCode)
			}
			if r.wantCode != "" {
				if !strings.Contains(err.Error(), "Input Check") || !strings.Contains(err.Error(), "not permitted in output-event") {
					t.Errorf("message %q", err)
				}
				return
			}
			if res.Ready != r.wantReady {
				t.Fatalf("ready = %v, want %v (missing %v)", res.Ready, r.wantReady, res.Missing)
			}
			if !r.wantReady {
				return
			}
			rc, err := a.RunConf(res.Plan, job)
			if err != nil {
				t.Fatal(err)
			}
			if got := get(rc, "inputB"); got != r.wantOut {
				t.Errorf("coord:dataOut = %q, want %q", got, r.wantOut)
			}
			if got := get(rc, "inputA"); got == "" || strings.Contains(got, "${") {
				t.Errorf("coord:dataIn = %q, want the resolved input", got)
			}
		})
	}
}

// Issue 26 point 7: CheckDefinition, the check without the job's
// properties, leaves what needs an undefined variable unchecked (a
// warning) and fails on everything else as Submit does.
func TestCheckDefinition(t *testing.T) {
	daily := func(name, uri string) string {
		return `<dataset name="` + name + `" frequency="${coord:days(1)}" initial-instance="${init}" timezone="${tz}"><uri-template>` + uri + `</uri-template></dataset>`
	}
	in := func(ds, inst string) string {
		return `<input-events><data-in name="in" dataset="` + ds + `"><instance>` + inst + `</instance></data-in></input-events>`
	}
	attrs := `name="c" frequency="${freq}" start="${start}" end="${end}" timezone="${tz}"`
	rows := []struct {
		name     string
		attrs    string
		body     string
		noFiles  bool
		wantCode string
		want     []string // warnings that must be there
	}{
		{"everything parameterized", attrs, `<controls><timeout>${t}</timeout><concurrency>${c}</concurrency><execution>${x}</execution></controls>` +
			`<datasets>` + daily("a", "${root}/a/${YEAR}") + `</datasets>` + in("a", "${coord:current(n)}"), false, "",
			[]string{"start [${start}] not checked: variable [start] not defined", "frequency [${freq}] not checked",
				"dataset [a] initial-instance [${init}] not checked", "instance [${coord:current(n)}] not checked: variable [n] not defined",
				"timeout [${t}] not checked", "concurrency [${c}] not checked", "execution [${x}] not checked"}},
		{"include path unknown", attrs, `<datasets><include>${dsFile}</include></datasets>` + in("b", "${coord:current(0)}"), false, "",
			[]string{"include [${dsFile}] not checked", "input-events [in] dataset [b] not checked: not defined here, maybe in an include not read"}},
		{"include not read here", attrs, `<datasets><include>ds.xml</include></datasets>` + in("b", "${coord:current(0)}"), true, "",
			[]string{"include [hdfs://nn:8020/app/ds.xml] not read here"}},
		{"include missing", attrs, `<datasets><include>ds.xml</include></datasets>`, false, "E0505", nil},
		{"dataset not defined", attrs, `<datasets>` + daily("a", "/a") + `</datasets>` + in("b", "${coord:current(0)}"), false, "E1021", nil},
		{"two instances in one", attrs, `<datasets>` + daily("a", "/a") + `</datasets>` + in("a", "${coord:current(0)},${coord:current(-1)}"), false, "E1021", nil},
		{"EL syntax", attrs, `<datasets>` + daily("a", "/a") + `</datasets>` + in("a", "${coord:current(0}"), false, "E1004", nil},
		{"start after end", `name="c" frequency="${freq}" start="2009-01-02T00:00Z" end="2009-01-01T00:00Z" timezone="UTC"`, "", false, "E1003", nil},
		{"bad literal time zone", `name="c" frequency="60" start="${start}" end="${end}" timezone="Mars/Base"`, "", false, "E1003", nil},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			files := memFiles(map[string]string{"/app/coordinator.xml": app("0.4", r.attrs, r.body)})
			if r.noFiles {
				files = func(p string) ([]byte, error) {
					if strings.HasSuffix(p, "coordinator.xml") {
						return []byte(app("0.4", r.attrs, r.body)), nil
					}
					return nil, ErrNoFiles
				}
			}
			props := conf.FromMap(map[string]string{PropUser: "joe", PropAppPath: "hdfs://nn:8020/app"})
			warnings, err := CheckDefinition(props, SubmitOptions{ReadFile: files, Now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
			if ErrorCode(err) != r.wantCode {
				t.Fatalf("err = %v, want code %q (warnings %q)", err, r.wantCode, warnings)
			}
			all := strings.Join(warnings, "\n")
			for _, w := range r.want {
				if !strings.Contains(all, w) {
					t.Errorf("warnings lack %q:\n%s", w, all)
				}
			}
		})
	}
}
