package schedule

import (
	"testing"
	"time"
)

// BenchmarkCronNext measures one next-fire-time step of a complex
// expression (overflowing ranges, steps, L-n, both day fields).
func BenchmarkCronNext(b *testing.B) {
	c, err := ParseCron("42-47/4 23-19 18-22/3 DEC,5 7")
	if err != nil {
		b.Fatal(err)
	}
	c2, _ := ParseCron("*/15 9-17 L-3 * 2-6")
	t := time.Date(2013, 1, 1, 0, 0, 0, 0, time.UTC)
	t2 := t
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t, _ = c.Next(t, time.UTC)
		t2, _ = c2.Next(t2, time.UTC)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/fire")
}

// BenchmarkYearOf5MinuteNominalTimes iterates the 105120 nominal times of a
// year at ${coord:minutes(5)} in a DST zone.
func BenchmarkYearOf5MinuteNominalTimes(b *testing.B) {
	s := Schedule{Start: time.Date(2013, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2014, 1, 1, 0, 0, 0, 0, time.UTC),
		Freq: Frequency{N: 5, Unit: Minute}, Loc: mustZone("America/Los_Angeles")}
	n := 0
	for i := 0; i < b.N; i++ {
		for range s.Times() {
			n++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/time")
}

// BenchmarkYearOfDailyNominalTimes is the same for a DST-stepped daily
// frequency, where each time is one Calendar-style add from the start.
func BenchmarkYearOfDailyNominalTimes(b *testing.B) {
	s := Schedule{Start: time.Date(2013, 1, 1, 8, 0, 0, 0, time.UTC), End: time.Date(2014, 1, 1, 0, 0, 0, 0, time.UTC),
		Freq: Frequency{N: 1, Unit: Day}, Loc: mustZone("America/Los_Angeles")}
	n := 0
	for i := 0; i < b.N; i++ {
		for range s.Times() {
			n++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/time")
}
