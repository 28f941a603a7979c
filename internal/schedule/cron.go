package schedule

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Cron is a parsed Oozie cron frequency: five fields (minute, hour,
// day-of-month, month, day-of-week) with Quartz's syntax and semantics, as
// Oozie evaluates them (spec: coord 4.4.4):
//
//   - Oozie prepends a seconds field "0" and hands the text to Quartz. When
//     neither day field is "?", the one that is exactly "*" becomes "?"; when
//     both are restricted, Oozie evaluates the two single-field variants and
//     takes the earlier fire time, so a date matching either field fires.
//   - Day-of-week is 1-7 = SUN-SAT (0 is invalid); names are three letters in
//     any case; ranges may overflow (22-2, NOV-FEB, FRI-MON); "a/n" runs from
//     a to the field's maximum; "*/0" means every value.
//   - Day-of-month accepts L, L-n, LW and nW (the nearest weekday to n that
//     stays within the month; months shorter than n never match), and
//     day-of-week accepts L (= SAT), nL (last n-day of the month) and n#k.
//
// The fields are held as bit sets, and a month's matching days are computed
// once per month visited, so finding the next fire time costs a handful of
// bit operations per month, day and hour skipped.
//
// Deliberate differences from Quartz: Quartz gives up at the current year
// plus 100 (it reads the clock); gozie searches CronHorizonYears from the
// time it is given. "v/0" and "a-b/0" keep only v or a, which is what
// Quartz 2.3.2's set building does with a zero increment, but no vector
// confirms it.
type Cron struct {
	text    string
	minutes uint64 // bit m: minute m
	hours   uint32 // bit h: hour h
	months  uint16 // bit m: month m (1-12)
	dom     daySpec
	dow     daySpec
	// domOnly/dowOnly say which day field decides after Oozie's rewriting;
	// neither means a date matching either fires.
	domOnly, dowOnly bool
}

// daySpec is a parsed day-of-month or day-of-week field.
type daySpec struct {
	set     uint32 // plain values: days 1-31, or weekdays 1-7
	last    bool   // dom L / L-n, dow nL
	offset  int    // dom: n of L-n; dow: weekday of nL or n#k
	weekday bool   // dom: W (with last: LW)
	nth     int    // dow: k of n#k
	any     bool   // "*" or "?"
}

// CronHorizonYears bounds the search for the next fire time. Every cron
// pattern repeats within the 400-year Gregorian cycle, so an expression with
// no fire time in that window never fires.
const CronHorizonYears = 400

// ParseCron parses a five-field Oozie cron expression. Errors name the field
// and the rule broken. An expression that can never fire (0 10 30 2 *) is an
// error, as Oozie rejects it at submission.
func ParseCron(text string) (*Cron, error) {
	c, err := parseCronFields(text)
	if err != nil {
		return nil, err
	}
	if _, ok := c.Next(time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.UTC); !ok {
		return nil, fmt.Errorf("invalid cron frequency %q: it never fires", text)
	}
	return c, nil
}

// IsCronSyntax reports whether a frequency text is meant as a cron
// expression: Oozie treats any frequency that is not an integer and splits
// into exactly five fields on single spaces as cron.
func IsCronSyntax(text string) bool {
	return len(strings.Split(strings.TrimSpace(text), " ")) == 5
}

func parseCronFields(text string) (*Cron, error) {
	fields := strings.Split(strings.TrimSpace(text), " ")
	if len(fields) != 5 {
		return nil, fmt.Errorf("invalid cron frequency %q: must have 5 fields separated by single spaces (minute hour day-of-month month day-of-week)", text)
	}
	c := &Cron{text: text}
	fail := func(field string, err error) (*Cron, error) {
		return nil, fmt.Errorf("invalid cron frequency %q: %s field %q: %v", text, field, fieldsOf(fields, field), err)
	}
	v, err := parseField(fields[0], 0, 59, nil)
	if err != nil {
		return fail("minute", err)
	}
	c.minutes = v
	v, err = parseField(fields[1], 0, 23, nil)
	if err != nil {
		return fail("hour", err)
	}
	c.hours = uint32(v)
	v, err = parseField(fields[3], 1, 12, monthNames)
	if err != nil {
		return fail("month", err)
	}
	c.months = uint16(v)
	domText, dowText := fields[2], fields[4]
	if domText == "?" && dowText == "?" {
		return nil, fmt.Errorf("invalid cron frequency %q: '?' can be given for day-of-month or day-of-week, not both", text)
	}
	if c.dom, err = parseDOM(domText); err != nil {
		return fail("day-of-month", err)
	}
	if c.dow, err = parseDOW(dowText); err != nil {
		return fail("day-of-week", err)
	}
	// Oozie's rewriting (CoordCommandUtils.getNextValidActionTimeForCronFrequency).
	switch {
	case domText == "?":
		c.dowOnly = true
	case dowText == "?":
		c.domOnly = true
	case domText == "*":
		c.dowOnly = true
	case dowText == "*":
		c.domOnly = true
	}
	return c, nil
}

func fieldsOf(fields []string, name string) string {
	i := map[string]int{"minute": 0, "hour": 1, "day-of-month": 2, "month": 3, "day-of-week": 4}[name]
	return fields[i]
}

var (
	monthNames = []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}
	dayNames   = []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}
)

// parseValue reads a number or (when names is set) a three-letter name.
func parseValue(s string, lo, hi int, names []string) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("missing value")
	}
	if names != nil && len(s) == 3 && s[0] > '9' {
		u := strings.ToUpper(s)
		for i, n := range names {
			if n == u {
				return lo + i, nil
			}
		}
		return 0, fmt.Errorf("unknown name %q", s)
	}
	n, err := strconv.Atoi(s)
	if err != nil || s[0] == '+' || s[0] == '-' {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("values must be between %d and %d", lo, hi)
	}
	return n, nil
}

// parseField parses a comma list of *, v, a-b, with optional /step, into a
// bit set over lo..hi, with Quartz's overflow rule for a > b.
func parseField(s string, lo, hi int, names []string) (uint64, error) {
	var set uint64
	for _, part := range strings.Split(s, ",") {
		b, err := parsePart(part, lo, hi, names)
		if err != nil {
			return 0, err
		}
		set |= b
	}
	return set, nil
}

func parsePart(part string, lo, hi int, names []string) (uint64, error) {
	if part == "" {
		return 0, fmt.Errorf("empty list element")
	}
	rangeText, stepText, hasStep := strings.Cut(part, "/")
	step := 1
	if hasStep {
		n, err := strconv.Atoi(stepText)
		if err != nil || stepText == "" || stepText[0] == '+' || stepText[0] == '-' {
			return 0, fmt.Errorf("increment %q is not a number", stepText)
		}
		// Quartz's limits: the increment may exceed the range but not the
		// field's span.
		if n > hi {
			return 0, fmt.Errorf("increment %d is larger than %d", n, hi)
		}
		step = n
	}
	var start, end int
	all := false
	switch {
	case rangeText == "*":
		start, end, all = lo, hi, true
	default:
		a, b, isRange := strings.Cut(rangeText, "-")
		var err error
		if start, err = parseValue(a, lo, hi, names); err != nil {
			return 0, err
		}
		switch {
		case isRange:
			if end, err = parseValue(b, lo, hi, names); err != nil {
				return 0, err
			}
		case hasStep:
			end = hi
		default:
			end = start
		}
	}
	if step == 0 {
		// Quartz: "*/0" is every value; "v/0" keeps only v.
		if !all {
			return 1 << uint(start), nil
		}
		step = 1
	}
	span := hi - lo + 1
	stop := end
	if end < start {
		stop = end + span
	}
	var set uint64
	for i := start; i <= stop; i += step {
		v := i
		if v > hi {
			v -= span
		}
		set |= 1 << uint(v)
	}
	return set, nil
}

func parseDOM(s string) (daySpec, error) {
	switch {
	case s == "*" || s == "?":
		return daySpec{any: true, set: 0xFFFFFFFE}, nil
	case s == "L":
		return daySpec{last: true}, nil
	case s == "LW":
		return daySpec{last: true, weekday: true}, nil
	case strings.HasPrefix(s, "L-"):
		n, err := strconv.Atoi(s[2:])
		if err != nil || s[2:] == "" || s[2] == '+' || s[2] == '-' {
			return daySpec{}, fmt.Errorf("offset from the last day must be a number")
		}
		if n > 30 {
			return daySpec{}, fmt.Errorf("offset from the last day must be <= 30")
		}
		return daySpec{last: true, offset: n}, nil
	case strings.HasSuffix(s, "W"):
		n, err := parseValue(s[:len(s)-1], 1, 31, nil)
		if err != nil {
			return daySpec{}, fmt.Errorf("'W' must follow a single day of month: %v", err)
		}
		return daySpec{weekday: true, offset: n}, nil
	case strings.ContainsAny(s, "LW#?"):
		return daySpec{}, fmt.Errorf("'L' and 'W' cannot be combined with lists or ranges")
	}
	set, err := parseField(s, 1, 31, nil)
	return daySpec{set: uint32(set)}, err
}

func parseDOW(s string) (daySpec, error) {
	switch {
	case s == "*" || s == "?":
		return daySpec{any: true, set: 0xFE}, nil
	case s == "L":
		return daySpec{set: 1 << 7}, nil // "L" alone is SAT
	case strings.HasSuffix(withoutNames(s), "L") && !strings.ContainsAny(s, ",-/#"):
		d, err := parseValue(s[:len(s)-1], 1, 7, dayNames)
		if err != nil {
			return daySpec{}, err
		}
		return daySpec{last: true, offset: d}, nil
	case strings.Contains(s, "#"):
		a, b, _ := strings.Cut(s, "#")
		if strings.ContainsAny(a, ",-/") {
			return daySpec{}, fmt.Errorf("'#' cannot be combined with lists or ranges")
		}
		d, err := parseValue(a, 1, 7, dayNames)
		if err != nil {
			return daySpec{}, err
		}
		k, err := strconv.Atoi(b)
		if err != nil || k < 1 || k > 5 {
			return daySpec{}, fmt.Errorf("a number between 1 and 5 must follow '#'")
		}
		return daySpec{offset: d, nth: k}, nil
	case strings.ContainsAny(withoutNames(s), "LW?"):
		return daySpec{}, fmt.Errorf("'L' cannot be combined with lists or ranges")
	}
	set, err := parseField(s, 1, 7, dayNames)
	return daySpec{set: uint32(set)}, err
}

// String returns the expression as given.
func (c *Cron) String() string { return c.text }

// domMask returns the days (bit d) of month m of year y the day-of-month
// field matches; n is the month's length and first the weekday (0 = SUN) of
// its first day.
func (s *daySpec) domMask(n int, first int) uint32 {
	full := uint32(1)<<uint(n+1) - 2
	switch {
	case s.last && s.weekday: // LW
		d := n
		switch (first + d - 1) % 7 {
		case 6:
			d--
		case 0:
			d -= 2
		}
		return 1 << uint(d)
	case s.last:
		d := n - s.offset
		if d < 1 {
			return 0
		}
		return 1 << uint(d)
	case s.weekday:
		d := s.offset
		if d > n {
			return 0
		}
		switch (first + d - 1) % 7 {
		case 6: // Saturday: the Friday before, or Monday the 3rd for the 1st
			if d == 1 {
				d = 3
			} else {
				d--
			}
		case 0: // Sunday: the Monday after, or the Friday before on the last day
			if d == n {
				d -= 2
			} else {
				d++
			}
		}
		return 1 << uint(d)
	}
	return s.set & full
}

// dowMask is domMask for the day-of-week field.
func (s *daySpec) dowMask(n int, first int) uint32 {
	switch {
	case s.last: // nL: the last such weekday
		wdLast := (first + n - 1) % 7
		back := (wdLast - (s.offset - 1) + 7) % 7
		return 1 << uint(n-back)
	case s.nth > 0: // n#k
		d := 1 + (s.offset-1-first+7)%7 + 7*(s.nth-1)
		if d > n {
			return 0
		}
		return 1 << uint(d)
	}
	// Spread the weekday set over the month: day d has weekday (first+d-1)%7.
	var m uint32
	for wd := 0; wd < 7; wd++ {
		if s.set&(1<<uint(wd+1)) == 0 {
			continue
		}
		for d := 1 + (wd-first+7)%7; d <= n; d += 7 {
			m |= 1 << uint(d)
		}
	}
	return m
}

func (c *Cron) dayMask(y int, m time.Month) uint32 {
	n := daysIn(y, m)
	first := int(time.Date(y, m, 1, 0, 0, 0, 0, time.UTC).Weekday())
	switch {
	case c.domOnly:
		return c.dom.domMask(n, first)
	case c.dowOnly:
		return c.dow.dowMask(n, first)
	}
	return c.dom.domMask(n, first) | c.dow.dowMask(n, first)
}

// Next returns the first fire time strictly after t, evaluated in loc (the
// Oozie processing zone: UTC or a fixed GMT offset), and false when there is
// none within CronHorizonYears.
func (c *Cron) Next(t time.Time, loc *time.Location) (time.Time, bool) {
	lt := t.In(loc).Truncate(time.Minute).Add(time.Minute)
	y, m, d := lt.Date()
	h, mi := lt.Hour(), lt.Minute()
	limit := y + CronHorizonYears
	for y <= limit {
		if c.months&(1<<uint(m)) == 0 {
			next := nextBit(uint64(c.months), int(m)+1)
			if next < 0 {
				y++
				next = nextBit(uint64(c.months), 1)
			}
			m, d, h, mi = time.Month(next), 1, 0, 0
			continue
		}
		days := c.dayMask(y, m) &^ (uint32(1)<<uint(d) - 1)
		if days == 0 {
			m, d, h, mi = m+1, 1, 0, 0
			if m > time.December {
				y, m = y+1, time.January
			}
			continue
		}
		if nd := bits.TrailingZeros32(days); nd != d {
			d, h, mi = nd, 0, 0
		}
		nh := nextBit(uint64(c.hours), h)
		if nh < 0 {
			d, h, mi = d+1, 0, 0
			if d > daysIn(y, m) {
				m, d = m+1, 1
				if m > time.December {
					y, m = y+1, time.January
				}
			}
			continue
		}
		if nh != h {
			h, mi = nh, 0
		}
		nm := nextBit(c.minutes, mi)
		if nm < 0 {
			h, mi = h+1, 0
			if h > 23 {
				d, h = d+1, 0
				if d > daysIn(y, m) {
					m, d = m+1, 1
					if m > time.December {
						y, m = y+1, time.January
					}
				}
			}
			continue
		}
		return time.Date(y, m, d, h, nm, 0, 0, loc), true
	}
	return time.Time{}, false
}

// nextBit returns the lowest set bit of set at position >= from, or -1.
func nextBit(set uint64, from int) int {
	if from >= 64 {
		return -1
	}
	rest := set >> uint(from) << uint(from)
	if rest == 0 {
		return -1
	}
	return bits.TrailingZeros64(rest)
}

// withoutNames removes day names, whose letters (WED, SAT) would otherwise
// pass for the special characters L and W.
func withoutNames(s string) string {
	u := strings.ToUpper(s)
	for _, n := range dayNames {
		u = strings.ReplaceAll(u, n, "1")
	}
	return u
}
