package schedule

import (
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// Layout is the Oozie datetime format in UTC, yyyy-MM-dd'T'HH:mm'Z'.
const Layout = "2006-01-02T15:04Z"

// offsetLayout is the format used when the processing zone is a GMT offset.
const offsetLayout = "2006-01-02T15:04-0700"

var processingZoneRE = regexp.MustCompile(`^(UTC|GMT[+-]\d{4})$`)

// ProcessingZone is the fixed, DST-free zone Oozie resolves job datetimes
// in (oozie.processing.timezone): UTC, or a GMT offset such as GMT+0530.
// The zero value is UTC.
type ProcessingZone struct {
	loc *time.Location // nil means UTC
}

// UTC is the default processing zone.
var UTC = ProcessingZone{}

// ParseProcessingZone accepts exactly "UTC" or "GMT(+|-)hhmm", the values
// Oozie accepts for oozie.processing.timezone.
func ParseProcessingZone(s string) (ProcessingZone, error) {
	if !processingZoneRE.MatchString(s) {
		return ProcessingZone{}, fmt.Errorf("invalid processing time zone %q: must be UTC or GMT(+/-)####, e.g. GMT+0530", s)
	}
	if s == "UTC" {
		return UTC, nil
	}
	h, _ := strconv.Atoi(s[4:6])
	m, _ := strconv.Atoi(s[6:8])
	if h > 23 || m > 59 {
		return ProcessingZone{}, fmt.Errorf("invalid processing time zone %q: offset out of range", s)
	}
	secs := h*3600 + m*60
	if s[3] == '-' {
		secs = -secs
	}
	return ProcessingZone{loc: time.FixedZone(s, secs)}, nil
}

// IsUTC reports whether z is UTC.
func (z ProcessingZone) IsUTC() bool { return z.loc == nil }

// Location returns the zone as a *time.Location.
func (z ProcessingZone) Location() *time.Location {
	if z.loc == nil {
		return time.UTC
	}
	return z.loc
}

// String returns "UTC" or "GMT+hhmm".
func (z ProcessingZone) String() string {
	if z.loc == nil {
		return "UTC"
	}
	return z.loc.String()
}

// Format prints t as an Oozie datetime in z: "2009-08-10T13:10Z" in UTC,
// "2009-08-10T18:40+0530" in a GMT-offset zone. Seconds are dropped, as the
// model has minute precision.
func (z ProcessingZone) Format(t time.Time) string {
	if z.loc == nil {
		return t.UTC().Format(Layout)
	}
	return t.In(z.loc).Format(offsetLayout)
}

// Parse reads an Oozie datetime written in z: with the "Z" qualifier when
// z is UTC, with a (+|-)hhmm GMT offset otherwise. "24:00" is the next day's
// 00:00 (spec: coord 4.1.1).
//
// Java's lenient SimpleDateFormat would also roll over 2009-02-30 or 25:00;
// gozie rejects them instead, since such values are typos, and its errors
// say which field is wrong.
func (z ProcessingZone) Parse(s string) (time.Time, error) {
	t, suffix, err := parseLocal(s)
	if err != nil {
		return time.Time{}, err
	}
	// Keep every accepted instant printable in any zone as yyyy-MM-dd.
	if t.Before(minTime) || !t.Before(maxTime) {
		return time.Time{}, fmt.Errorf("invalid datetime %q: year out of range (0001-9999)", s)
	}
	if z.loc == nil {
		if suffix != "Z" {
			return time.Time{}, fmt.Errorf("invalid datetime %q: expected yyyy-MM-ddTHH:mmZ (UTC, e.g. 2009-08-10T13:10Z)", s)
		}
		return t, nil
	}
	off, ok := parseOffset(suffix)
	if !ok {
		return time.Time{}, fmt.Errorf("invalid datetime %q: expected yyyy-MM-ddTHH:mm followed by a GMT offset such as %s", s, z.loc.String()[3:])
	}
	return t.Add(-time.Duration(off) * time.Second), nil
}

// The range of accepted datetimes, a day inside years 1-9999 so that any
// offset still prints a four-digit year.
var (
	minTime = time.Date(1, 1, 2, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
)

// ParseTime parses a UTC Oozie datetime (yyyy-MM-ddTHH:mmZ), the form every
// coordinator EL function takes and returns.
func ParseTime(s string) (time.Time, error) { return UTC.Parse(s) }

// FormatTime prints t as a UTC Oozie datetime.
func FormatTime(t time.Time) string { return t.UTC().Format(Layout) }

// parseLocal reads "yyyy-MM-ddTHH:mm" as a UTC wall time and returns the
// rest. Like Oozie's SimpleDateFormat, whose numeric fields take one digit
// as well as two, the month, day, hour and minute may be written with a
// single digit (2009-1-1T7:05Z).
func parseLocal(s string) (time.Time, string, error) {
	bad := func(why string) (time.Time, string, error) {
		return time.Time{}, "", fmt.Errorf("invalid datetime %q: %s", s, why)
	}
	const shape = "expected yyyy-MM-ddTHH:mm followed by Z or a GMT offset"
	i := 0
	// field reads between lo and hi digits followed by sep (0: none).
	field := func(lo, hi int, sep byte) int {
		v, n := 0, 0
		for i < len(s) && n < hi && s[i] >= '0' && s[i] <= '9' {
			v = v*10 + int(s[i]-'0')
			i++
			n++
		}
		if n < lo {
			return -1
		}
		if sep != 0 {
			if i >= len(s) || s[i] != sep {
				return -1
			}
			i++
		}
		return v
	}
	y := field(4, 4, '-')
	mo := field(1, 2, '-')
	d := field(1, 2, 'T')
	h := field(1, 2, ':')
	mi := field(1, 2, 0)
	switch {
	case y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0:
		return bad(shape)
	case mo < 1 || mo > 12:
		return bad("month must be 01-12")
	case d < 1 || d > daysIn(y, time.Month(mo)):
		return bad(fmt.Sprintf("day must be 01-%02d", daysIn(y, time.Month(mo))))
	case h > 24 || (h == 24 && mi != 0):
		return bad("hour must be 00-23 (or 24:00 for the end of the day)")
	case mi > 59:
		return bad("minute must be 00-59")
	}
	return time.Date(y, time.Month(mo), d, h, mi, 0, 0, time.UTC), s[i:], nil
}

// parseOffset reads (+|-)hhmm into seconds east of UTC.
func parseOffset(s string) (int, bool) {
	if len(s) != 5 || (s[0] != '+' && s[0] != '-') {
		return 0, false
	}
	h, err1 := strconv.Atoi(s[1:3])
	m, err2 := strconv.Atoi(s[3:5])
	if err1 != nil || err2 != nil || h > 23 || m > 59 || s[1] == '+' || s[1] == '-' {
		return 0, false
	}
	off := h*3600 + m*60
	if s[0] == '-' {
		off = -off
	}
	return off, true
}

// daysIn returns the number of days of a month.
func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
