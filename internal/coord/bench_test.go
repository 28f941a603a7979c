package coord

import (
	"testing"
	"time"

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
