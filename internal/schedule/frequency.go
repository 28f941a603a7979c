package schedule

import (
	"fmt"
	"iter"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Unit is the time unit of a frequency, as Oozie stores it.
type Unit int

// Units. coord:hours(n) is stored as n*60 Minute, as in Oozie.
const (
	Minute Unit = iota + 1
	Hour
	Day
	Week
	Month
	Year
	CronUnit // the frequency is a cron expression
)

var unitNames = map[Unit]string{Minute: "MINUTE", Hour: "HOUR", Day: "DAY", Week: "WEEK", Month: "MONTH", Year: "YEAR", CronUnit: "CRON"}

// String returns Oozie's name of the unit ("DAY").
func (u Unit) String() string {
	if s, ok := unitNames[u]; ok {
		return s
	}
	return fmt.Sprintf("Unit(%d)", int(u))
}

// ParseUnit reads an Oozie unit name (MINUTE, HOUR, DAY, WEEK, MONTH, YEAR,
// CRON). The END_OF_* names stored as units by some Oozie versions map to
// their base unit.
func ParseUnit(s string) (Unit, error) {
	for u, n := range unitNames {
		if n == s {
			return u, nil
		}
	}
	switch s {
	case "END_OF_DAY":
		return Day, nil
	case "END_OF_WEEK":
		return Week, nil
	case "END_OF_MONTH":
		return Month, nil
	}
	return 0, fmt.Errorf("invalid time unit %q: want MINUTE, HOUR, DAY, WEEK, MONTH or YEAR", s)
}

// EndOfDuration is the end-of flag of a frequency: the first occurrence is
// moved to the start of the next day, week or month.
type EndOfDuration int

// End-of-duration flags.
const (
	NoEnd EndOfDuration = iota
	EndOfDay
	EndOfWeek
	EndOfMonth
)

// String returns Oozie's name of the flag.
func (e EndOfDuration) String() string {
	switch e {
	case EndOfDay:
		return "END_OF_DAY"
	case EndOfWeek:
		return "END_OF_WEEK"
	case EndOfMonth:
		return "END_OF_MONTH"
	}
	return "NONE"
}

// ParseEndOfDuration reads NONE, END_OF_DAY, END_OF_WEEK or END_OF_MONTH
// ("" is NONE).
func ParseEndOfDuration(s string) (EndOfDuration, error) {
	switch s {
	case "", "NONE":
		return NoEnd, nil
	case "END_OF_DAY":
		return EndOfDay, nil
	case "END_OF_WEEK":
		return EndOfWeek, nil
	case "END_OF_MONTH":
		return EndOfMonth, nil
	}
	return NoEnd, fmt.Errorf("invalid end-of-duration %q", s)
}

// Step adds n units to t in loc with java.util.Calendar.add semantics:
// minutes and hours are absolute durations; days and weeks keep the local
// time of day (a day lasts 23, 24 or 25 hours); months and years keep the
// local day and time, clamping the day to the month's length.
func Step(t time.Time, u Unit, n int, loc *time.Location) time.Time {
	switch u {
	case Minute:
		return t.Add(time.Duration(n) * time.Minute)
	case Hour:
		return t.Add(time.Duration(n) * time.Hour)
	case Day:
		return AddDays(t, n, loc)
	case Week:
		return AddDays(t, 7*n, loc)
	case Month:
		return AddMonths(t, n, loc)
	case Year:
		return AddMonths(t, 12*n, loc)
	}
	return t
}

// MoveToEnd moves t to the start of the next local day, week (weeks start on
// Sunday, Java's en_US default) or month in loc, as Oozie's
// DateUtils.moveToEnd does. A time already at 00:00 still moves a whole
// period. The new wall time is resolved with the set-fields rule.
func MoveToEnd(t time.Time, e EndOfDuration, loc *time.Location) time.Time {
	switch e {
	case EndOfDay:
		y, m, d := AddDays(t, 1, loc).In(loc).Date()
		return DateTime(y, m, d, 0, 0, loc)
	case EndOfWeek:
		lt := AddDays(t, 7, loc).In(loc)
		y, m, d := lt.Date()
		return DateTime(y, m, d-int(lt.Weekday()), 0, 0, loc)
	case EndOfMonth:
		y, m, _ := t.In(loc).Date()
		return DateTime(y, m+1, 1, 0, 0, loc)
	}
	return t
}

// Frequency is a coordinator or dataset frequency: N units, optionally with
// an end-of-duration shift, or a cron expression.
type Frequency struct {
	N    int
	Unit Unit
	End  EndOfDuration
	Cron *Cron // set when Unit is CronUnit
}

// String prints the frequency the way a coordinator would write it.
func (f Frequency) String() string {
	switch {
	case f.Unit == CronUnit && f.Cron != nil:
		return f.Cron.String()
	case f.End == EndOfDay:
		return fmt.Sprintf("${coord:endOfDays(%d)}", f.N)
	case f.End == EndOfWeek:
		return fmt.Sprintf("${coord:endOfWeeks(%d)}", f.N)
	case f.End == EndOfMonth:
		return fmt.Sprintf("${coord:endOfMonths(%d)}", f.N)
	case f.Unit == Day:
		return fmt.Sprintf("${coord:days(%d)}", f.N)
	case f.Unit == Week:
		return fmt.Sprintf("${coord:days(%d)}", 7*f.N)
	case f.Unit == Month:
		return fmt.Sprintf("${coord:months(%d)}", f.N)
	case f.Unit == Year:
		return fmt.Sprintf("${coord:months(%d)}", 12*f.N)
	case f.Unit == Hour:
		return fmt.Sprintf("${coord:hours(%d)}", f.N)
	}
	return strconv.Itoa(f.N)
}

var simpleFreqRE = regexp.MustCompile(`^\$\{\s*coord:(minutes|hours|days|months|endOfDays|endOfWeeks|endOfMonths)\(\s*(-?\d+)\s*\)\s*\}$`)

// ParseFrequency reads the frequency forms that need no EL evaluation: an
// integer number of minutes, a five-field cron expression, or a single
// ${coord:days(n)}-style call with a literal argument. (internal/coord
// evaluates general EL frequencies and builds a Frequency from the result.)
func ParseFrequency(text string) (Frequency, error) {
	text = strings.TrimSpace(text)
	if n, err := strconv.Atoi(text); err == nil {
		if n <= 0 {
			return Frequency{}, fmt.Errorf("invalid frequency %q: must be a positive number of minutes", text)
		}
		return Frequency{N: n, Unit: Minute}, nil
	}
	if m := simpleFreqRE.FindStringSubmatch(text); m != nil {
		n, err := strconv.Atoi(m[2])
		if err != nil || n <= 0 {
			return Frequency{}, fmt.Errorf("invalid frequency %q: the argument must be a positive integer", text)
		}
		return FrequencyOf(m[1], n)
	}
	if IsCronSyntax(text) {
		c, err := ParseCron(text)
		if err != nil {
			return Frequency{}, err
		}
		return Frequency{N: 0, Unit: CronUnit, Cron: c}, nil
	}
	return Frequency{}, fmt.Errorf("invalid frequency %q: want minutes, ${coord:days(n)} and the like, or a 5-field cron expression", text)
}

// FrequencyOf returns the frequency a coord: frequency function yields for
// n, with Oozie's stored unit: minutes and hours become minutes, endOfWeeks
// is weeks.
func FrequencyOf(fn string, n int) (Frequency, error) {
	switch fn {
	case "minutes":
		return Frequency{N: n, Unit: Minute}, nil
	case "hours":
		return Frequency{N: n * 60, Unit: Minute}, nil
	case "days":
		return Frequency{N: n, Unit: Day}, nil
	case "months":
		return Frequency{N: n, Unit: Month}, nil
	case "endOfDays":
		return Frequency{N: n, Unit: Day, End: EndOfDay}, nil
	case "endOfWeeks":
		return Frequency{N: n, Unit: Week, End: EndOfWeek}, nil
	case "endOfMonths":
		return Frequency{N: n, Unit: Month, End: EndOfMonth}, nil
	}
	return Frequency{}, fmt.Errorf("unknown frequency function coord:%s", fn)
}

// Add returns t plus k times the frequency in loc (one Calendar.add of k*N
// units, the way Oozie computes the k-th occurrence from a base time).
func (f Frequency) Add(t time.Time, k int, loc *time.Location) time.Time {
	return Step(t, f.Unit, k*f.N, loc)
}

// FirstOccurrence is start moved by the end-of-duration flag, if any.
func (f Frequency) FirstOccurrence(start time.Time, loc *time.Location) time.Time {
	return MoveToEnd(start, f.End, loc)
}

// PeriodMinutes is the "value" column of the spec tables of 4.4.1-4.4.3: the
// minutes in n whole local days, weeks or months starting with the one that
// holds t (for end-of frequencies, t is the first occurrence).
func PeriodMinutes(u Unit, n int, t time.Time, loc *time.Location) int {
	lt := t.In(loc)
	y, m, d := lt.Date()
	var from, to time.Time
	switch u {
	case Day:
		from, to = DateTime(y, m, d, 0, 0, loc), DateTime(y, m, d+n, 0, 0, loc)
	case Week:
		from, to = DateTime(y, m, d, 0, 0, loc), DateTime(y, m, d+7*n, 0, 0, loc)
	case Month:
		from, to = DateTime(y, m, 1, 0, 0, loc), DateTime(y, m+time.Month(n), 1, 0, 0, loc)
	case Hour:
		return 60 * n
	default:
		return n
	}
	return int(to.Sub(from) / time.Minute)
}

// Schedule is a coordinator job's time line: the action nominal times from
// Start (inclusive) to End (exclusive) at Freq in Loc. Cron frequencies run
// in Processing (the Oozie processing zone, UTC by default).
type Schedule struct {
	Start, End time.Time
	Freq       Frequency
	Loc        *time.Location
	Processing ProcessingZone
}

// Nominal returns the nominal time of the action with 0-based index i for a
// unit frequency, the way materialization computes it: the first occurrence
// (start moved by the end-of flag) plus i*N units in one Calendar.add, so
// month-end clamping and DST shifts never accumulate.
func (s Schedule) Nominal(i int) time.Time {
	return s.Freq.Add(s.Freq.FirstOccurrence(s.Start, s.Loc), i, s.Loc)
}

// Times yields the action nominal times in order with their 0-based index.
// For a cron frequency the fire times are searched from Start minus one
// minute (so Start itself can fire), each next one strictly after the
// previous fire time, in the processing zone; a fire time at least a day
// after the previous one (or after the search start) gets the DST correction
// of CronDSTCorrection, so daily and monthly crons keep the job zone's wall
// clock while hourly ones do not. The end check uses the uncorrected time.
func (s Schedule) Times() iter.Seq2[int, time.Time] {
	return func(yield func(int, time.Time) bool) {
		if s.Freq.Unit == CronUnit {
			if s.Freq.Cron == nil {
				return
			}
			cur := s.Start.Add(-time.Minute)
			for i := 0; ; i++ {
				next, ok := s.Freq.Cron.Next(cur, s.Processing.Location())
				if !ok || !next.Before(s.End) {
					return
				}
				nominal := next
				if next.Sub(cur) >= 24*time.Hour && s.Loc != nil {
					nominal = CronDSTCorrection(s.Start, next, s.Loc)
				}
				if !yield(i, nominal) {
					return
				}
				cur = next
			}
		}
		if s.Freq.N <= 0 {
			return
		}
		first := s.Freq.FirstOccurrence(s.Start, s.Loc)
		if s.Freq.Unit == Minute || s.Freq.Unit == Hour {
			step := time.Minute * time.Duration(s.Freq.N)
			if s.Freq.Unit == Hour {
				step *= 60
			}
			for i, t := 0, first; t.Before(s.End); i, t = i+1, t.Add(step) {
				if !yield(i, t) {
					return
				}
			}
			return
		}
		for i := 0; ; i++ {
			t := s.Freq.Add(first, i, s.Loc)
			if !t.Before(s.End) || !yield(i, t) {
				return
			}
		}
	}
}

// NextNominalTime is Oozie's CoordCommandUtils.computeNextNominalTime: the
// nominal time of the action after the one numbered actionNumber (1-based)
// whose nominal time is nominal, or false when that would be at or after
// End. A cron schedule takes the next fire time after nominal; a unit
// schedule re-adds actionNumber*N units to Start and then applies the
// end-of shift (the reverse order of Nominal, as in Oozie; the two agree
// except in zones whose DST switch happens at midnight).
func (s Schedule) NextNominalTime(actionNumber int, nominal time.Time) (time.Time, bool) {
	var next time.Time
	if s.Freq.Unit == CronUnit {
		if s.Freq.Cron == nil {
			return time.Time{}, false
		}
		var ok bool
		if next, ok = s.Freq.Cron.Next(nominal, s.Processing.Location()); !ok {
			return time.Time{}, false
		}
	} else {
		next = MoveToEnd(s.Freq.Add(s.Start, actionNumber, s.Loc), s.Freq.End, s.Loc)
	}
	if !next.Before(s.End) {
		return time.Time{}, false
	}
	return next, true
}

// DSTOffset is Oozie's DaylightOffsetCalculator.getDSTOffset: the zone's
// daylight saving amount when begin is in daylight time and end is not, its
// negation in the opposite case, else zero.
func DSTOffset(begin, end time.Time, loc *time.Location) time.Duration {
	bDST, eDST := begin.In(loc).IsDST(), end.In(loc).IsDST()
	if bDST == eDST {
		return 0
	}
	savings := dstSavings(begin, end, loc)
	if bDST {
		return savings
	}
	return -savings
}

// dstSavings is the difference between the daylight and standard offsets
// around begin and end (one hour almost everywhere).
func dstSavings(begin, end time.Time, loc *time.Location) time.Duration {
	_, o1 := begin.In(loc).Zone()
	_, o2 := end.In(loc).Zone()
	d := o1 - o2
	if d < 0 {
		d = -d
	}
	return time.Duration(d) * time.Second
}

// CronDSTCorrection is the correction Oozie's materialization applies to a
// cron fire time (DaylightOffsetCalculator.calculate): fire plus
// DSTOffset(jobStart, fire). Materialization applies it only when
// consecutive fire times are at least a day apart (daily and monthly crons
// keep their local wall clock; hourly ones drift across a switch), and to
// the nominal time only, not to the cursor of the next fire time.
func CronDSTCorrection(jobStart, fire time.Time, loc *time.Location) time.Time {
	return fire.Add(DSTOffset(jobStart, fire, loc))
}

// ValidateFrequency applies Oozie's submission check of a frequency text
// (ParamChecker.checkFrequency): a positive integer number of minutes, or a
// cron expression of exactly five single-space-separated fields that Quartz
// accepts and that fires at least once.
func ValidateFrequency(text string) (Frequency, error) {
	if n, err := strconv.Atoi(text); err == nil {
		if n <= 0 {
			return Frequency{}, fmt.Errorf("invalid frequency %q: must be a positive number of minutes", text)
		}
		return Frequency{N: n, Unit: Minute}, nil
	}
	if len(strings.Split(text, " ")) != 5 {
		return Frequency{}, fmt.Errorf("invalid frequency %q: not an integer and not a 5-field cron expression", text)
	}
	c, err := ParseCron(text)
	if err != nil {
		return Frequency{}, err
	}
	return Frequency{Unit: CronUnit, Cron: c}, nil
}

// CheckCronWindow is the submission check of a cron job (E1003): the first
// fire time, searched from start minus one minute so that start itself can
// fire, must come before end.
func CheckCronWindow(c *Cron, start, end time.Time, pz ProcessingZone) error {
	if !start.Before(end) {
		return fmt.Errorf("E1003: Invalid coordinator application attributes, start time %s must be earlier than end time %s", pz.Format(start), pz.Format(end))
	}
	first, ok := c.Next(start.Add(-time.Minute), pz.Location())
	if !ok || !first.Before(end) {
		return fmt.Errorf("E1003: Invalid coordinator application attributes, coordinator job with frequency [%s] materializes no actions between start and end time.", c)
	}
	return nil
}
