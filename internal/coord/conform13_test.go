package coord

import (
	"testing"

	"github.com/gozie/gozie/internal/schedule"
)

// Issue 13 point 1: coord:hoursInDay(n) and coord:daysInMonth(n) step n
// times the dataset's frequency in the dataset's unit, as Oozie does, not n
// days or n months.
func TestHoursInDayDaysInMonthStepByDatasetFrequency(t *testing.T) {
	la, _ := schedule.LoadZone("America/Los_Angeles")
	rows := []struct {
		name    string
		freq    int
		unit    schedule.Unit
		nominal string
		n       int
		hours   int // hoursInDay(n)
		days    int // daysInMonth(n)
	}{
		// An hourly dataset (60 minutes): -1 is the previous hour, still
		// 2009-03-08 local (the 23-hour DST day), not 2009-03-07.
		{"hourly -1", 60, schedule.Minute, "2009-03-08T20:00Z", -1, 23, 31},
		// Daily with frequency 2: n=1 is two days later.
		{"2 days +1", 2, schedule.Day, "2009-03-06T20:00Z", 1, 23, 31},
		// Monthly with frequency 3: n=-1 is three months earlier (2008-12).
		{"3 months -1", 3, schedule.Month, "2009-03-15T20:00Z", -1, 24, 31},
		// Monthly with frequency 1: n=-1 is the month before (2009-02).
		{"1 month -1", 1, schedule.Month, "2009-03-15T20:00Z", -1, 24, 28},
	}
	for _, r := range rows {
		ds := &Dataset{Frequency: r.freq, Unit: r.unit, InitialInstance: parse(t, "2008-01-01T08:00Z"), Location: la}
		act := &Action{NominalTime: parse(t, r.nominal), Location: la}
		in := Instances{DS: ds, Action: act}
		h, err := in.HoursInDay(r.n)
		if err != nil || h != r.hours {
			t.Errorf("%s: hoursInDay(%d) = %d, %v; want %d", r.name, r.n, h, err, r.hours)
		}
		d, err := in.DaysInMonth(r.n)
		if err != nil || d != r.days {
			t.Errorf("%s: daysInMonth(%d) = %d, %v; want %d", r.name, r.n, d, err, r.days)
		}
	}
}
