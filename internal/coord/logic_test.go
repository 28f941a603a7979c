package coord

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/conf"
)

// The fixtures of Oozie's TestCoordinatorInputLogic: six hourly datasets
// a..f, input events A..F on them, a job starting 2014-10-08T00:00Z whose
// action passes coord:dataIn(partitionName) (partitionName=test).
const (
	logicSingle = "single" // each event: <instance>${coord:current(0)}</instance>
	logicRange  = "range"  // each event: current(-5) .. current(0)
	logicLatest = "latest" // each event: <instance>${coord:latest(0)}</instance>
	// each event: latest(-5) .. latest(0)
	logicLatestRange = "latest range"
)

func logicXML(events, logic string) string {
	var b strings.Builder
	b.WriteString(`<controls><concurrency>1</concurrency><throttle>1</throttle></controls><datasets>`)
	for _, d := range "abcdef" {
		init := "${initial_instance_a}"
		if d == 'b' {
			init = "${initial_instance_b}"
		}
		b.WriteString(`<dataset name="` + string(d) + `" frequency="${coord:hours(1)}" initial-instance="` + init + `" timezone="UTC"><uri-template>hdfs://nn/input-data/` + string(d) + `/${YEAR}/${MONTH}/${DAY}/${HOUR}</uri-template></dataset>`)
	}
	b.WriteString(`</datasets><input-events>`)
	for _, d := range "abcdef" {
		name := strings.ToUpper(string(d))
		b.WriteString(`<data-in name="` + name + `" dataset="` + string(d) + `">`)
		switch events {
		case logicRange:
			b.WriteString(`<start-instance>${coord:current(-5)}</start-instance><end-instance>${coord:current(0)}</end-instance>`)
		case logicLatest:
			b.WriteString(`<instance>${coord:latest(0)}</instance>`)
		case logicLatestRange:
			b.WriteString(`<start-instance>${coord:latest(-5)}</start-instance><end-instance>${coord:latest(0)}</end-instance>`)
		default:
			b.WriteString(`<instance>${coord:current(0)}</instance>`)
		}
		b.WriteString(`</data-in>`)
	}
	b.WriteString(`</input-events><input-logic>` + logic + `</input-logic>`)
	b.WriteString(`<action><workflow><app-path>hdfs://nn/wf</app-path><configuration>
<property><name>inputLogicData</name><value>${coord:dataIn(partitionName)}</value></property>
</configuration></workflow></action>`)
	return app("0.5", `name="c" frequency="${coord:hours(1)}" start="2014-10-08T00:00Z" end="2014-10-09T00:00Z" timezone="UTC"`, b.String())
}

func logicProps(initial string, extra map[string]string) map[string]string {
	props := map[string]string{"partitionName": "test", "initial_instance_a": initial, "initial_instance_b": initial}
	for k, v := range extra {
		props[k] = v
	}
	return props
}

// logicAction submits a logic fixture and materializes its first action,
// created at its nominal time.
func logicAction(t *testing.T, events, logic string, props map[string]string) (*App, *ActionPlan, *conf.Config) {
	t.Helper()
	a, job, err := submit(t, logicXML(events, logic), props, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.Materialize(PlanState{}, PlanOptions{Now: mustTime(t, "2014-10-08T00:00Z"), Window: time.Hour, BatchSize: 1}, job)
	if err != nil || len(p.Actions) != 1 {
		t.Fatalf("%v %v", p, err)
	}
	return a, p.Actions[0], job
}

// dirs turns "a/2014/10/08/00" paths into the done flags that exist.
func dirs(paths ...string) func(string) (bool, error) {
	var uris []string
	for _, p := range paths {
		uris = append(uris, "hdfs://nn/input-data/"+p+"/_SUCCESS")
	}
	return existing(uris...)
}

// dataSet splits a dataIn value into its instance paths (no scheme), sorted.
func dataSet(v string) []string {
	var out []string
	for _, u := range strings.Split(v, ",") {
		if u != "" {
			out = append(out, strings.TrimPrefix(u, "hdfs://nn/input-data/"))
		}
	}
	sort.Strings(out)
	return out
}

func sorted(s ...string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}

// TestInputLogicOozieCases runs the cases of Oozie's
// TestCoordinatorInputLogic: each a logic, the instances that exist, and
// whether the action is ready with which coord:dataIn('test').
func TestInputLogicOozieCases(t *testing.T) {
	const day7, day8 = "2014-10-07T00:00Z", "2014-10-08T00:00Z"
	rows := []struct {
		name, events, initial, logic string
		props                        map[string]string
		files                        []string
		after                        time.Duration // minutes after the nominal time
		ready                        bool
		data                         []string
	}{
		{name: "nested condition", events: logicSingle, initial: day8,
			logic: `<or name="test"><and><or><data-in dataset="A"/><data-in dataset="B"/></or><or><data-in dataset="C"/><data-in dataset="D"/></or></and><and><data-in dataset="A"/><data-in dataset="B"/></and></or>`,
			files: []string{"a/2014/10/08/00", "b/2014/10/08/00"}, ready: true, data: []string{"a/2014/10/08/00", "b/2014/10/08/00"}},
		{name: "nested condition 1", events: logicSingle, initial: day8,
			logic: `<and name="test"><or><and><data-in dataset="A"/><data-in dataset="B"/></and><and><data-in dataset="C"/><data-in dataset="D"/></and></or><and><data-in dataset="E"/><data-in dataset="F"/></and></and>`,
			files: []string{"a/2014/10/08/00", "b/2014/10/08/00", "e/2014/10/08/00", "f/2014/10/08/00"}, ready: true,
			data: []string{"a/2014/10/08/00", "b/2014/10/08/00", "e/2014/10/08/00", "f/2014/10/08/00"}},
		{name: "nested condition 2, name from a variable", events: logicSingle, initial: day8,
			logic: `<or name="${partitionName}"><and><data-in dataset="A"/><data-in dataset="B"/><data-in dataset="C"/><data-in dataset="D"/></and><and><data-in dataset="E"/><data-in dataset="F"/></and></or>`,
			files: []string{"a/2014/10/08/00", "b/2014/10/08/00", "c/2014/10/08/00", "e/2014/10/08/00", "f/2014/10/08/00"}, ready: true,
			data: []string{"e/2014/10/08/00", "f/2014/10/08/00"}},
		{name: "nested condition 3", events: logicSingle, initial: day8,
			logic: `<and name="test"><and><data-in dataset="A"/><data-in dataset="B"/></and><and><data-in dataset="C"/><data-in dataset="D"/></and><and><data-in dataset="E"/><data-in dataset="F"/></and></and>`,
			files: []string{"a/2014/10/08/00", "b/2014/10/08/00", "c/2014/10/08/00", "d/2014/10/08/00", "e/2014/10/08/00", "f/2014/10/08/00"}, ready: true,
			data: []string{"a/2014/10/08/00", "b/2014/10/08/00", "c/2014/10/08/00", "d/2014/10/08/00", "e/2014/10/08/00", "f/2014/10/08/00"}},
		{name: "simple or", events: logicSingle, initial: day8,
			logic: `<or name="test"><data-in dataset="A"/><data-in dataset="B"/></or>`,
			files: []string{"a/2014/10/08/00"}, ready: true, data: []string{"a/2014/10/08/00"}},
		{name: "simple or 1, nothing yet", events: logicSingle, initial: day8,
			logic: `<or name="test"><and><data-in dataset="C"/><data-in dataset="D"/></and><or><data-in dataset="A"/><data-in dataset="B"/></or></or>`},
		{name: "simple or 1", events: logicSingle, initial: day8,
			logic: `<or name="test"><and><data-in dataset="C"/><data-in dataset="D"/></and><or><data-in dataset="A"/><data-in dataset="B"/></or></or>`,
			files: []string{"b/2014/10/08/00"}, ready: true, data: []string{"b/2014/10/08/00"}},
		{name: "and", events: logicSingle, initial: day8,
			logic: `<and name="test"><data-in dataset="A"/><data-in dataset="B"/></and>`,
			files: []string{"a/2014/10/08/00", "b/2014/10/08/00"}, ready: true, data: []string{"a/2014/10/08/00", "b/2014/10/08/00"}},
		{name: "or with min", events: logicRange, initial: day7,
			logic: `<or name="test"><data-in dataset="A" min="3"/><data-in dataset="B" min="3"/></or>`,
			files: []string{"a/2014/10/08/00", "a/2014/10/07/23", "b/2014/10/07/21", "b/2014/10/07/20", "b/2014/10/07/19"}, ready: true,
			data: []string{"b/2014/10/07/21", "b/2014/10/07/20", "b/2014/10/07/19"}},
		{name: "and with min", events: logicRange, initial: day7,
			logic: `<and name="test"><data-in dataset="A" min="2"/><data-in dataset="B" min="3"/><data-in dataset="C" min="0"/></and>`,
			files: []string{"a/2014/10/08/00", "a/2014/10/07/23", "b/2014/10/07/21", "b/2014/10/07/20", "b/2014/10/07/19"}, ready: true,
			data: []string{"a/2014/10/08/00", "a/2014/10/07/23", "b/2014/10/07/21", "b/2014/10/07/20", "b/2014/10/07/19"}},
		// TestCoordInputLogicPush's testNestedConditionWithRange, on files:
		// an and repeats the instances of each operand.
		{name: "nested condition with range", events: logicRange, initial: day7,
			logic: `<and name="test" min="2"><or min="2"><data-in dataset="A"/><data-in dataset="B"/></or><or min="2"><data-in dataset="C"/><data-in dataset="D"/></or><and min="2"><data-in dataset="A"/><data-in dataset="C"/></and></and>`,
			files: []string{"a/2014/10/08/00", "a/2014/10/07/23", "a/2014/10/07/22", "c/2014/10/08/00", "c/2014/10/07/23", "c/2014/10/07/22"}, ready: true,
			data: []string{"a/2014/10/08/00", "a/2014/10/07/23", "a/2014/10/07/22", "c/2014/10/08/00", "c/2014/10/07/23", "c/2014/10/07/22",
				"a/2014/10/08/00", "a/2014/10/07/23", "a/2014/10/07/22", "c/2014/10/08/00", "c/2014/10/07/23", "c/2014/10/07/22"}},
		{name: "combine", events: logicRange, initial: day7,
			logic: `<combine name="test"><data-in dataset="A"/><data-in dataset="B"/></combine>`,
			files: []string{"a/2014/10/08/00", "a/2014/10/07/23", "a/2014/10/07/22", "b/2014/10/07/21", "b/2014/10/07/20", "b/2014/10/07/19"}, ready: true,
			data: []string{"a/2014/10/08/00", "a/2014/10/07/23", "a/2014/10/07/22", "b/2014/10/07/21", "b/2014/10/07/20", "b/2014/10/07/19"}},
		{name: "combine negative", events: logicRange, initial: day7,
			logic: `<combine name="test"><data-in dataset="A"/><data-in dataset="B"/></combine>`,
			files: []string{"a/2014/10/08/00", "a/2014/10/07/23", "b/2014/10/07/21", "b/2014/10/07/20"}},
		{name: "single set with min, with a gap", events: logicRange, initial: day7,
			logic: `<or name="test"><data-in dataset="A" min="3"/></or>`,
			files: []string{"a/2014/10/08/00", "a/2014/10/07/23", "a/2014/10/07/19"}, ready: true,
			data: []string{"a/2014/10/08/00", "a/2014/10/07/23", "a/2014/10/07/19"}},
		{name: "combine with min", events: logicRange, initial: day7,
			logic: `<combine name="test" min="4"><data-in dataset="A"/><data-in dataset="B"/></combine>`,
			files: []string{"a/2014/10/08/00", "a/2014/10/07/23", "a/2014/10/07/22", "b/2014/10/07/21", "b/2014/10/07/20"}, ready: true,
			data: []string{"a/2014/10/08/00", "a/2014/10/07/23", "a/2014/10/07/22", "b/2014/10/07/21", "b/2014/10/07/20"}},
		{name: "min and wait, wait running", events: logicRange, initial: day7,
			logic: `<combine name="test" min="4" wait="1"><data-in dataset="A"/><data-in dataset="B"/></combine>`,
			files: []string{"b/2014/10/08/00", "b/2014/10/07/23", "b/2014/10/07/22", "b/2014/10/07/21", "b/2014/10/07/20"}},
		{name: "min and wait, wait elapsed", events: logicRange, initial: day7, after: time.Minute,
			logic: `<combine name="test" min="4" wait="1"><data-in dataset="A"/><data-in dataset="B"/></combine>`,
			files: []string{"b/2014/10/08/00", "b/2014/10/07/23", "b/2014/10/07/22", "b/2014/10/07/21", "b/2014/10/07/20"}, ready: true,
			data: []string{"b/2014/10/08/00", "b/2014/10/07/23", "b/2014/10/07/22", "b/2014/10/07/21", "b/2014/10/07/20"}},
		{name: "wait without min, elapsed, one missing", events: logicRange, initial: day7, after: time.Minute,
			logic: `<combine name="test" wait="1"><data-in dataset="A"/><data-in dataset="B"/></combine>`,
			files: []string{"b/2014/10/08/00", "b/2014/10/07/23", "b/2014/10/07/22", "b/2014/10/07/21", "b/2014/10/07/20"}},
		{name: "wait without min, all there", events: logicRange, initial: day7, after: time.Minute,
			logic: `<combine name="test" wait="1"><data-in dataset="A"/><data-in dataset="B"/></combine>`,
			files: []string{"b/2014/10/08/00", "b/2014/10/07/23", "b/2014/10/07/22", "b/2014/10/07/21", "b/2014/10/07/20", "b/2014/10/07/19"}, ready: true,
			data: []string{"b/2014/10/08/00", "b/2014/10/07/23", "b/2014/10/07/22", "b/2014/10/07/21", "b/2014/10/07/20", "b/2014/10/07/19"}},
		{name: "wait fail: attributes from variables", events: logicRange, initial: day7,
			props: map[string]string{"min": "4", "wait": "180", "dataA": "A", "dataB": "B"},
			logic: `<or name="test" min="${min}" wait="${wait}"><data-in dataset="${dataA}"/><data-in dataset="${dataB}"/></or>`,
			files: []string{"b/2014/10/08/00", "b/2014/10/07/23", "b/2014/10/07/22", "b/2014/10/07/21", "b/2014/10/07/20"}},
		{name: "wait of an or elapsed: the second branch", events: logicRange, initial: day7, after: 180 * time.Minute,
			props: map[string]string{"min": "4", "wait": "180", "dataA": "A", "dataB": "B"},
			logic: `<or name="test" min="${min}" wait="${wait}"><data-in dataset="${dataA}"/><data-in dataset="${dataB}"/></or>`,
			files: []string{"b/2014/10/08/00", "b/2014/10/07/23", "b/2014/10/07/22", "b/2014/10/07/21", "b/2014/10/07/20"}, ready: true,
			data: []string{"b/2014/10/08/00", "b/2014/10/07/23", "b/2014/10/07/22", "b/2014/10/07/21", "b/2014/10/07/20"}},
		{name: "latest", events: logicLatest, initial: day7,
			logic: `<data-in name="test" dataset="A"/>`,
			files: []string{"a/2014/10/08/00"}, ready: true, data: []string{"a/2014/10/08/00"}},
		{name: "latest, nothing yet", events: logicLatest, initial: day7,
			logic: `<data-in name="test" dataset="A"/>`},
		// testLatestRange: a latest range with min takes what is there.
		{name: "latest range with min", events: logicLatestRange, initial: day7,
			logic: `<data-in name="test" dataset="A" min="2"/>`,
			files: []string{"a/2014/10/08/00", "a/2014/10/07/23"}, ready: true, data: []string{"a/2014/10/08/00", "a/2014/10/07/23"}},
		{name: "latest range with min, too few", events: logicLatestRange, initial: day7,
			logic: `<data-in name="test" dataset="A" min="3"/>`,
			files: []string{"a/2014/10/08/00", "a/2014/10/07/23"}},
		{name: "latest range without min", events: logicLatestRange, initial: day7,
			logic: `<data-in name="test" dataset="A"/>`,
			files: []string{"a/2014/10/08/00", "a/2014/10/07/23"}},
		{name: "latest range with min and a running wait", events: logicLatestRange, initial: day7, after: 4 * time.Minute,
			logic: `<data-in name="test" dataset="A" min="2" wait="5"/>`,
			files: []string{"a/2014/10/08/00", "a/2014/10/07/23"}},
		{name: "latest range with min, wait elapsed", events: logicLatestRange, initial: day7, after: 5 * time.Minute,
			logic: `<data-in name="test" dataset="A" min="2" wait="5"/>`,
			files: []string{"a/2014/10/08/00", "a/2014/10/07/23", "a/2014/10/07/21"}, ready: true,
			data: []string{"a/2014/10/08/00", "a/2014/10/07/23", "a/2014/10/07/21"}},
		// spec: coord 6.10, "AorBorC": A is waited for 60 minutes, then B.
		{name: "or with waits: A still awaited", events: logicSingle, initial: day8, after: 59 * time.Minute,
			logic: `<or name="test"><data-in dataset="A" wait="60"/><data-in dataset="B" wait="90"/><data-in dataset="C"/></or>`,
			files: []string{"b/2014/10/08/00", "c/2014/10/08/00"}},
		{name: "or with waits: B once A's wait elapsed", events: logicSingle, initial: day8, after: 60 * time.Minute,
			logic: `<or name="test"><data-in dataset="A" wait="60"/><data-in dataset="B" wait="90"/><data-in dataset="C"/></or>`,
			files: []string{"b/2014/10/08/00", "c/2014/10/08/00"}, ready: true, data: []string{"b/2014/10/08/00"}},
		{name: "or with waits: C once B's elapsed", events: logicSingle, initial: day8, after: 90 * time.Minute,
			logic: `<or name="test"><data-in dataset="A" wait="60"/><data-in dataset="B" wait="90"/><data-in dataset="C"/></or>`,
			files: []string{"c/2014/10/08/00"}, ready: true, data: []string{"c/2014/10/08/00"}},
		// A waiting child holds an and (Oozie's interpreter would let B
		// answer for it).
		{name: "and waits for a waiting child", events: logicSingle, initial: day8,
			logic: `<and name="test"><data-in dataset="A" wait="10"/><data-in dataset="B"/></and>`,
			files: []string{"b/2014/10/08/00"}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			a, p, job := logicAction(t, row.events, row.logic, logicProps(row.initial, row.props))
			now := p.NominalTime.Add(row.after)
			res, err := a.CheckInputs(p, job, dirs(row.files...), now)
			if err != nil {
				t.Fatal(err)
			}
			if res.Ready != row.ready {
				t.Fatalf("ready = %v, want %v\n%s", res.Ready, row.ready, strings.Join(res.Plan.Logic.Tree, "\n"))
			}
			rc, err := a.RunConf(res.Plan, job)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := rc.Get("inputLogicData")
			if !row.ready {
				if got != "${coord:dataIn('test')}" {
					t.Errorf("dataIn before ready = %q, want the echo", got)
				}
				return
			}
			if g, w := dataSet(got), sorted(row.data...); !slices.Equal(g, w) {
				t.Errorf("dataIn('test') = %v, want %v", g, w)
			}
		})
	}
}

// TestInputLogicAndOrder pins the order of an and's instances: Oozie
// appends the left operand's to the right's.
func TestInputLogicAndOrder(t *testing.T) {
	a, p, job := logicAction(t, logicSingle, `<and name="test"><data-in dataset="A"/><data-in dataset="B"/><data-in dataset="C"/></and>`, logicProps("2014-10-08T00:00Z", nil))
	res, err := a.CheckInputs(p, job, dirs("a/2014/10/08/00", "b/2014/10/08/00", "c/2014/10/08/00"), p.NominalTime)
	if err != nil || !res.Ready {
		t.Fatal(res, err)
	}
	want := "hdfs://nn/input-data/c/2014/10/08/00,hdfs://nn/input-data/b/2014/10/08/00,hdfs://nn/input-data/a/2014/10/08/00"
	if got := res.Plan.Logic.Data["test"]; got != want {
		t.Errorf("dataIn = %s, want %s", got, want)
	}
}

// TestInputLogicReport checks the tree the check reports, the missing
// dependencies (all not known available) and the wake time of a wait.
func TestInputLogicReport(t *testing.T) {
	a, p, job := logicAction(t, logicSingle, `<or name="AorB"><data-in dataset="A" wait="10"/><data-in dataset="B"/></or>`, logicProps("2014-10-08T00:00Z", nil))
	res, err := a.CheckInputs(p, job, dirs("b/2014/10/08/00"), p.NominalTime.Add(3*time.Minute))
	if err != nil || res.Ready {
		t.Fatal(res, err)
	}
	want := []string{
		"or name=AorB: waiting",
		"  data-in A: waiting, 0 of 1 instances available, wait 10 min, applies at 2014-10-08T00:10Z",
		"  data-in B: not checked",
	}
	if !slices.Equal(res.Plan.Logic.Tree, want) {
		t.Errorf("tree:\n%s\nwant:\n%s", strings.Join(res.Plan.Logic.Tree, "\n"), strings.Join(want, "\n"))
	}
	if w := mustTime(t, "2014-10-08T00:10Z"); !res.Plan.Logic.WakeAt.Equal(w) {
		t.Errorf("wake at %v, want %v", res.Plan.Logic.WakeAt, w)
	}
	// Every dependency not known available is missing, in plan order: B
	// was not looked at while A is awaited.
	if !slices.Equal(res.Missing, p.Dependencies) {
		t.Errorf("missing %v", res.Missing)
	}
	// At 00:10 the wait has elapsed: B answers.
	res, err = a.CheckInputs(p, job, dirs("b/2014/10/08/00"), p.NominalTime.Add(10*time.Minute))
	if err != nil || !res.Ready {
		t.Fatal(res, err)
	}
	want = []string{
		"or name=AorB: satisfied",
		"  data-in A: blocked, 0 of 1 instances available, wait 10 min elapsed at 2014-10-08T00:10Z",
		"  data-in B: satisfied, 1 of 1 instances available",
	}
	if !slices.Equal(res.Plan.Logic.Tree, want) {
		t.Errorf("tree:\n%s", strings.Join(res.Plan.Logic.Tree, "\n"))
	}
}

// TestInputLogicArgs pins how min and wait pass down the tree, as Oozie's
// InputLogicParser writes them: min all the way down, wait one level.
func TestInputLogicArgs(t *testing.T) {
	or := &LogicNode{Op: LogicOr, Min: "2", Wait: "10"}
	inner := &LogicNode{Op: LogicAnd}
	leaf := &LogicNode{Op: LogicDataIn}
	own := &LogicNode{Op: LogicDataIn, Min: "1", Wait: "5"}
	top := rootArgs(or)
	if top != (logicArgs{2, 10}) {
		t.Errorf("root %v", top)
	}
	if got := childArgs(top, leaf); got != (logicArgs{2, 10}) {
		t.Errorf("data-in under or: %v", got)
	}
	if got := childArgs(top, own); got != (logicArgs{1, 5}) {
		t.Errorf("data-in with its own: %v", got)
	}
	in := childArgs(top, inner)
	if in != (logicArgs{2, -1}) {
		t.Errorf("and under or: %v", in)
	}
	if got := childArgs(in, leaf); got != (logicArgs{2, -1}) {
		t.Errorf("data-in two levels down: %v", got)
	}
}

// TestInputLogicErrors checks the refusals, with Oozie's codes.
func TestInputLogicErrors(t *testing.T) {
	rows := []struct {
		name, events, logic, code, msg string
		ns                             string
	}{
		{"unknown data-in", logicSingle, `<combine name="test"><data-in dataset="A"/><data-in dataset="b"/></combine>`, "E1028", "Data set not found : b", ""},
		{"combine of one", logicSingle, `<combine name="test"><data-in dataset="A"/></combine>`, "E1028", "Combine should have at least two input sets. DataSets : [A]", ""},
		{"combine of latest", logicLatest, `<combine name="test"><data-in dataset="A"/><data-in dataset="B"/></combine>`, "E1028", "Combine is not supported for latest/future", ""},
		{"wait not a number", logicSingle, `<data-in name="test" dataset="A" wait="1h"/>`, "E1028", "Unsupported time : 1h", ""},
		{"min not a number", logicSingle, `<data-in name="test" dataset="A" min="-1"/>`, "E1028", "min [-1] is not a number", ""},
		{"two top-level elements", logicSingle, `<data-in dataset="A"/><data-in dataset="B"/>`, "E1028", "2 top-level elements", ""},
		{"combine holds only data-in", logicSingle, `<combine><and><data-in dataset="A"/></and></combine>`, "E0701", "Invalid content was found starting with element 'and'", ""},
		{"data-in needs dataset", logicSingle, `<data-in name="x"/>`, "E0701", "dataset", ""},
		{"unknown attribute", logicSingle, `<or when="now"><data-in dataset="A"/></or>`, "E0701", "when", ""},
		{"schema 0.4", logicSingle, `<data-in dataset="A"/>`, "E0701", "uri:oozie:coordinator:0.5", "0.4"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			xml := logicXML(row.events, row.logic)
			if row.ns != "" {
				xml = strings.Replace(xml, "coordinator:0.5", "coordinator:"+row.ns, 1)
			}
			_, _, err := submit(t, xml, logicProps("2014-10-08T00:00Z", nil), nil)
			if err == nil || ErrorCode(err) != row.code || !strings.Contains(err.Error(), row.msg) {
				t.Fatalf("err = %v, want %s with %q", err, row.code, row.msg)
			}
		})
	}
	// Oozie's testValidateRange: a combine of unequal ranges fails its
	// dry run.
	xml := strings.Replace(logicXML(logicRange, `<combine name="test"><data-in dataset="A"/><data-in dataset="B"/></combine>`),
		`<data-in name="B" dataset="b"><start-instance>${coord:current(-5)}`, `<data-in name="B" dataset="b"><start-instance>${coord:current(-4)}`, 1)
	a, job, err := submit(t, xml, logicProps("2014-10-07T00:00Z", nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.Materialize(PlanState{}, PlanOptions{Now: mustTime(t, "2014-10-08T00:00Z"), Window: time.Hour, BatchSize: 1}, job)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.ValidateLogic(p.Actions[0]); ErrorCode(err) != "E1028" || !strings.Contains(err.Error(), "Combine should have same range. DataSets : [A, B]") {
		t.Errorf("validate = %v", err)
	}
}

// TestInputLogicPersisted checks that the stored definition keeps the
// logic, resolved, so that Load restores it.
func TestInputLogicPersisted(t *testing.T) {
	a, job, err := submit(t, logicXML(logicSingle, `<or name="${partitionName}" min="1" wait="5"><data-in dataset="A"/><and name="x"><data-in dataset="B"/></and></or>`), logicProps("2014-10-08T00:00Z", nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(a.Definition, `<or name="test" min="1" wait="5">`) {
		t.Fatalf("definition:\n%s", a.Definition)
	}
	b, err := Load(a.Definition, job)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.InputLogic.Names(); !slices.Equal(got, []string{"test", "x"}) {
		t.Errorf("names %v", got)
	}
	p, err := b.Materialize(PlanState{}, PlanOptions{Now: mustTime(t, "2014-10-08T00:00Z"), Window: time.Hour, BatchSize: 1}, job)
	if err != nil {
		t.Fatal(err)
	}
	if x := p.Actions[0].ActionXML; !strings.Contains(x, "</input-events>\n  <input-logic>") {
		t.Errorf("action XML lacks the logic:\n%s", x)
	}
}

// TestInputLogicCheckDefinition: a check without the job's properties
// (gozie validate without -config) leaves attributes naming undefined
// variables unchecked, with a warning, and still refuses what is wrong.
func TestInputLogicCheckDefinition(t *testing.T) {
	rows := []struct {
		name, logic, code, warning string
	}{
		{"variables", `<or name="${n}" min="${min}" wait="${wait}"><data-in dataset="${dataA}"/><data-in dataset="B"/></or>`, "", "input-logic or min [${min}] not checked"},
		{"unknown data-in", `<or><data-in dataset="X"/><data-in dataset="B"/></or>`, "E1028", ""},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			xml := logicXML(logicSingle, row.logic)
			files := memFiles(map[string]string{"/app/coordinator.xml": xml})
			props := conf.FromMap(map[string]string{PropUser: "joe", PropAppPath: "hdfs://nn:8020/app"})
			warnings, err := CheckDefinition(props, SubmitOptions{ReadFile: files, Now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
			if ErrorCode(err) != row.code {
				t.Fatalf("err = %v, want %q", err, row.code)
			}
			if row.warning != "" && !strings.Contains(strings.Join(warnings, "\n"), row.warning) {
				t.Errorf("warnings lack %q:\n%s", row.warning, strings.Join(warnings, "\n"))
			}
		})
	}
}

// TestInputLogicLatestMinPlan: the instances a data-in with min accepted
// of a latest range become the event's, in the plan and its coord:dataIn.
func TestInputLogicLatestMinPlan(t *testing.T) {
	a, p, job := logicAction(t, logicLatestRange, `<data-in name="test" dataset="A" min="2"/>`, logicProps("2014-10-07T00:00Z", nil))
	res, err := a.CheckInputs(p, job, dirs("a/2014/10/08/00", "a/2014/10/07/23"), p.NominalTime)
	if err != nil || !res.Ready {
		t.Fatal(res, err)
	}
	want := []string{"hdfs://nn/input-data/a/2014/10/08/00", "hdfs://nn/input-data/a/2014/10/07/23"}
	if got := res.Plan.InputURIs["A"]; !slices.Equal(got, want) {
		t.Errorf("A's instances %v, want %v", got, want)
	}
	if _, still := res.Plan.UnresolvedByEvent["A"]; still {
		t.Error("A is still unresolved")
	}
	if _, still := p.UnresolvedByEvent["A"]; !still {
		t.Error("the caller's plan changed")
	}
	if !strings.Contains(res.Plan.ActionXML, "<uris>hdfs://nn/input-data/a/2014/10/08/00#hdfs://nn/input-data/a/2014/10/07/23</uris>") {
		t.Errorf("action XML:\n%s", res.Plan.ActionXML)
	}
}

// TestInputLogicDryRun: the dry run validates the logic of every action
// and shows the evaluated tree, in text and in JSON.
func TestInputLogicDryRun(t *testing.T) {
	xml := logicXML(logicSingle, `<or name="test"><data-in dataset="A" wait="10"/><data-in dataset="B"/></or>`)
	c := conf.FromMap(logicProps("2014-10-08T00:00Z", map[string]string{PropUser: "joe", PropAppPath: "hdfs://nn:8020/app"}))
	res, err := DryRun(c, SubmitOptions{ReadFile: memFiles(map[string]string{"/app/coordinator.xml": xml}), Now: mustTime(t, "2014-10-08T00:03Z")},
		dirs("b/2014/10/08/00"), 1)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	// The wait counts from the later of the nominal time and the
	// creation time, the dry run's now.
	if !strings.Contains(text.String(), "  input logic:\n    or name=test: waiting\n      data-in A: waiting, 0 of 1 instances available, wait 10 min, applies at 2014-10-08T00:13Z\n      data-in B: not checked\n") {
		t.Errorf("text:\n%s", text.String())
	}
	b, err := res.MarshalJSON()
	if err != nil || !strings.Contains(string(b), `"inputLogic":["or name=test: waiting","  data-in A: waiting`) {
		t.Errorf("json %s %v", b, err)
	}
}
