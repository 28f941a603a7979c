package schedule

import (
	"testing"
	"time"
)

// FuzzParseTime: the datetime parser never panics, and what it accepts
// formats back to an equivalent datetime.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2009-08-10T13:10Z", "2009-08-10T24:00Z", "2009-02-30T00:00Z", "2012-08-08T12:42-0300x", "", "9999-12-31T23:59Z", "0000-01-01T00:00+2359"} {
		f.Add(s, "UTC")
		f.Add(s, "GMT+0530")
	}
	f.Fuzz(func(t *testing.T, s, zone string) {
		pz, err := ParseProcessingZone(zone)
		if err != nil {
			return
		}
		tm, err := pz.Parse(s)
		if err != nil {
			return
		}
		back, err := pz.Parse(pz.Format(tm))
		if err != nil || !back.Equal(tm) {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, tm, pz.Format(tm), back, err)
		}
	})
}

// FuzzCron: the cron parser never panics, and a parsed expression's next
// fire time is strictly later and itself a fire time.
func FuzzCron(f *testing.F) {
	for _, s := range []string{"0 * 30 JAN 2-6", "1 2 L-3 * *", "1 2 6W 3 ?", "1 2 * 3 3#2", "0 14-6 ? * FRI-MON", "*/0 * * * *",
		"56-15 */9 */15 * SUN,SUN", "13 5/8 LW * ?", "0 0 * * 5L", "0 10 30 2 *", "a * * * *", "* * * *", "0 0 L-30 2 ?"} {
		f.Add(s, int64(1356998400))
	}
	f.Fuzz(func(t *testing.T, s string, unix int64) {
		c, err := ParseCron(s)
		if err != nil {
			return
		}
		after := time.Unix(unix%(1<<34), 0).UTC()
		next, ok := c.Next(after, time.UTC)
		if !ok {
			return
		}
		if !next.After(after) {
			t.Fatalf("%q: next %v not after %v", s, next, after)
		}
		again, ok := c.Next(next.Add(-time.Minute), time.UTC)
		if !ok || !again.Equal(next) {
			t.Fatalf("%q: fire time %v not reproduced (%v)", s, next, again)
		}
	})
}

// FuzzZoneID: zone lookups never panic.
func FuzzZoneID(f *testing.F) {
	for _, s := range []string{"America/Los_Angeles", "GMT-0700", "GMT+5:30", "PST", "../../etc", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if loc, err := LoadZone(s); err == nil && loc == nil {
			t.Fatal("nil location without error")
		}
	})
}
