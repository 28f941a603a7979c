package schedule

import "time"

// This file reproduces the two ways java.util.GregorianCalendar turns a local
// wall-clock time into an instant, because Oozie's results depend on which
// one a computation goes through:
//
//   - Setting fields (set(HOUR_OF_DAY, 0), the month arithmetic of add(MONTH),
//     parsing) "assumes standard time": a wall time in a spring-forward gap
//     or in a fall-back overlap is read with the smaller of the two offsets
//     around the switch (LA: 02:30 on 2009-03-08 -> 10:30Z, 01:30 on
//     2009-11-01 -> 09:30Z, the second occurrence). See resolveWall.
//   - add(DAY_OF_MONTH / WEEK_OF_YEAR) keeps the time of day and first tries
//     the offset the calendar had before the add; only if the result lands
//     at a different offset does it retry with the new one, keeping the
//     retry unless that changes the date. A gap is thus resolved with the
//     post-switch offset (LA 02:00 -> 09:00Z) and an overlap keeps the
//     occurrence matching the starting offset. See AddDays.

// wallSeconds returns the local wall time y-m-d h:mi as seconds since the
// epoch read as if it were UTC. Out-of-range fields roll over, as they do in
// a lenient Calendar.
func wallSeconds(y int, m time.Month, d, h, mi int) int64 {
	return time.Date(y, m, d, h, mi, 0, 0, time.UTC).Unix()
}

// offsetAt returns loc's offset from UTC in seconds at the instant u.
func offsetAt(u int64, loc *time.Location) int64 {
	_, off := time.Unix(u, 0).In(loc).Zone()
	return int64(off)
}

// resolveWall converts a local wall time (as wallSeconds) to an instant the
// way Calendar.computeTime does for explicitly set fields: an unambiguous
// time maps to its instant; in a gap or an overlap the smaller of the two
// offsets around the switch wins ("assume standard time").
func resolveWall(w int64, loc *time.Location) time.Time {
	if loc == time.UTC {
		return time.Unix(w, 0).UTC()
	}
	// Zone switches are days apart, so the offsets a day before and after
	// are the only candidates.
	p1 := offsetAt(w-86400, loc)
	p2 := offsetAt(w+86400, loc)
	if p1 == p2 {
		o := offsetAt(w-p1, loc)
		if o == p1 {
			return time.Unix(w-p1, 0).In(loc)
		}
		// Two switches within two days (rare rule changes): fall back to a
		// direct probe.
		return time.Unix(w-o, 0).In(loc)
	}
	ok1 := offsetAt(w-p1, loc) == p1
	ok2 := offsetAt(w-p2, loc) == p2
	switch {
	case ok1 && !ok2:
		return time.Unix(w-p1, 0).In(loc)
	case ok2 && !ok1:
		return time.Unix(w-p2, 0).In(loc)
	}
	o := min(p1, p2)
	return time.Unix(w-o, 0).In(loc)
}

// DateTime returns the instant of a local wall time in loc, with the
// "assume standard time" rule of resolveWall for gaps and overlaps.
func DateTime(y int, m time.Month, d, h, mi int, loc *time.Location) time.Time {
	return resolveWall(wallSeconds(y, m, d, h, mi), loc)
}

// AddDays adds n calendar days in loc keeping the local time of day, with
// the rules of GregorianCalendar.add(DAY_OF_MONTH, n) described at the top
// of this file.
func AddDays(t time.Time, n int, loc *time.Location) time.Time {
	if n == 0 {
		return t
	}
	if loc == time.UTC {
		return t.AddDate(0, 0, n)
	}
	lt := t.In(loc)
	_, off := lt.Zone()
	o1 := int64(off)
	y, m, d := lt.Date()
	sec := int64(lt.Hour()*3600 + lt.Minute()*60 + lt.Second())
	target := time.Date(y, m, d+n, 0, 0, 0, 0, time.UTC)
	w := target.Unix() + sec
	u := w - o1
	o2 := offsetAt(u, loc)
	if o2 != o1 {
		u2 := w - o2
		ty, tm, td := time.Unix(u2, 0).In(loc).Date()
		if ty == target.Year() && tm == target.Month() && td == target.Day() {
			u = u2
		}
	}
	return time.Unix(u, int64(t.Nanosecond())).In(loc)
}

// AddMonths adds n months in loc the way GregorianCalendar.add(MONTH, n)
// does: the day of month is clamped to the length of the target month
// (Jan 31 + 1 month = Feb 28) and the wall time is resolved with the
// set-fields rule.
func AddMonths(t time.Time, n int, loc *time.Location) time.Time {
	if n == 0 {
		return t
	}
	lt := t.In(loc)
	y, m, d := lt.Date()
	mm := int(m) - 1 + n
	y += floorDiv(mm, 12)
	mm = mm - floorDiv(mm, 12)*12
	month := time.Month(mm + 1)
	d = min(d, daysIn(y, month))
	return resolveWall(wallSeconds(y, month, d, lt.Hour(), lt.Minute()), loc).Add(time.Duration(lt.Second()) * time.Second)
}

// floorDiv divides rounding towards negative infinity.
func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// dayStart returns the instant of 00:00 local on t's local date, resolved
// with the set-fields rule (used after Calendar.set(HOUR_OF_DAY, 0)).
func dayStart(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return DateTime(y, m, d, 0, 0, loc)
}

// HoursInDay returns the number of hours of t's local day in loc as Oozie's
// DateUtils.hoursInDay computes it: 00:30 local plus 24 hours lands at 01:30
// on a 23-hour day and at 23:30 on a 25-hour day. Half-hour switches (Lord
// Howe) therefore count as 24, as in Oozie.
func HoursInDay(t time.Time, loc *time.Location) int {
	y, m, d := t.In(loc).Date()
	h := DateTime(y, m, d, 0, 30, loc).Add(24 * time.Hour).In(loc).Hour()
	switch h {
	case 1:
		return 23
	case 23:
		return 25
	}
	return 24
}

// DaysInMonth returns the number of days of t's local month in loc.
func DaysInMonth(t time.Time, loc *time.Location) int {
	y, m, _ := t.In(loc).Date()
	return daysIn(y, m)
}
