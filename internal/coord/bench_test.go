package coord

import (
	"testing"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/schedule"
)

func benchInstances() Instances {
	la, _ := schedule.LoadZone("America/Los_Angeles")
	return Instances{
		DS: &Dataset{Frequency: 60, Unit: schedule.Minute, InitialInstance: time.Date(2009, 1, 1, 8, 0, 0, 0, time.UTC), Location: la,
			URITemplate: "hdfs://bar:8020/app/logs/${YEAR}/${MONTH}/${DAY}/${HOUR}"},
		Action: &Action{NominalTime: time.Date(2013, 3, 10, 8, 0, 0, 0, time.UTC), ActualTime: time.Date(2013, 3, 10, 8, 0, 0, 0, time.UTC), Location: la},
	}
}

// BenchmarkCurrentRange24 is coord:currentRange(-23, 0) on an hourly dataset
// four years after its initial instance, called directly.
func BenchmarkCurrentRange24(b *testing.B) {
	in := benchInstances()
	for i := 0; i < b.N; i++ {
		if ts, err := in.CurrentRange(-23, 0); err != nil || len(ts) != 24 {
			b.Fatal(len(ts), err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(24*b.N), "ns/instance")
}

// BenchmarkCurrent24 is 24 separate coord:current(n) calls (n = -23..0), each
// locating the current instance afresh, as 24 <instance> elements would.
func BenchmarkCurrent24(b *testing.B) {
	in := benchInstances()
	for i := 0; i < b.N; i++ {
		for n := -23; n <= 0; n++ {
			if _, _, err := in.Current(n); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(24*b.N), "ns/instance")
}

// BenchmarkResolveRange24 resolves a 24-instance <data-in> through EL, with
// URI templates: what materialization does per input event.
func BenchmarkResolveRange24(b *testing.B) {
	in := benchInstances()
	for i := 0; i < b.N; i++ {
		ctx := &ELContext{Dataset: in.DS, Action: in.Action, Vars: el.MapVars{}}
		if res, err := ResolveRange(ctx, "${coord:current(-23)}", "${coord:current(0)}"); err != nil || len(res.URIs) != 24 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(24*b.N), "ns/instance")
}

// yearApp is one year of 5-minute actions (105,120) whose input is the last
// 12 instances of a 5-minute dataset.
func yearApp() string {
	return `<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="year" frequency="${coord:minutes(5)}" start="2009-01-01T00:00Z" end="2010-01-01T00:00Z" timezone="UTC">
<datasets><dataset name="logs" frequency="${coord:minutes(5)}" initial-instance="2008-01-01T00:00Z" timezone="UTC"><uri-template>hdfs://nn/logs/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}</uri-template></dataset></datasets>
<input-events><data-in name="in" dataset="logs"><start-instance>${coord:current(-11)}</start-instance><end-instance>${coord:current(0)}</end-instance></data-in></input-events>
<action><workflow><app-path>hdfs://nn/wf</app-path><configuration><property><name>input</name><value>${coord:dataIn('in')}</value></property></configuration></workflow></action>
</coordinator-app>`
}

// BenchmarkDryRunYear dry-runs a year of 5-minute actions with 12-instance
// inputs: submission, materialization, dependency checks (all present),
// action XML and the run configuration of every action.
func BenchmarkDryRunYear(b *testing.B) {
	props := conf.FromMap(map[string]string{PropUser: "u", PropAppPath: "/app"})
	opts := SubmitOptions{ReadFile: memFiles(map[string]string{"/app/coordinator.xml": yearApp()}), Now: time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)}
	all := func(string) (bool, error) { return true, nil }
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res, err := DryRun(props, opts, all, 0)
		if err != nil || len(res.Actions) != 105120 || len(res.Actions[0].Plan.Dependencies) != 12 {
			b.Fatal(err)
		}
	}
}

// BenchmarkDryRunEachYear is the same dry run the way gozie dryrun does it:
// actions streamed one at a time, without action XML.
func BenchmarkDryRunEachYear(b *testing.B) {
	props := conf.FromMap(map[string]string{PropUser: "u", PropAppPath: "/app"})
	opts := SubmitOptions{ReadFile: memFiles(map[string]string{"/app/coordinator.xml": yearApp()}), Now: time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)}
	all := func(string) (bool, error) { return true, nil }
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		n := 0
		_, _, err := DryRunEach(props, opts, all, 0, false, func(da DryRunAction) error {
			if len(da.Plan.Dependencies) != 12 || da.Status != StatusReady {
				b.Fatalf("action %d: %d dependencies, %s", da.Plan.Number, len(da.Plan.Dependencies), da.Status)
			}
			n++
			return nil
		})
		if err != nil || n != 105120 {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkMaterializeYear materializes the same year through Materialize
// in one catch-up run (the engine's path), without input checks.
func BenchmarkMaterializeYear(b *testing.B) {
	props := conf.FromMap(map[string]string{PropUser: "u", PropAppPath: "/app"})
	a, job, err := Submit(props, SubmitOptions{ReadFile: memFiles(map[string]string{"/app/coordinator.xml": yearApp()})})
	if err != nil {
		b.Fatal(err)
	}
	a.Throttle = 200000
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		p, err := a.Materialize(PlanState{}, PlanOptions{Now: a.Start, Window: 366 * 24 * time.Hour}, job)
		if err != nil || len(p.Actions) != 105120 {
			b.Fatal(err)
		}
	}
}
