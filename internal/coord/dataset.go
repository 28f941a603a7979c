package coord

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/schedule"
)

// Dataset is a synchronous dataset (spec: coord 5.1) as the instance functions see
// it: its instances are InitialInstance (moved by End) plus k*Frequency Units
// in Location.
type Dataset struct {
	Name            string
	Frequency       int
	Unit            schedule.Unit
	End             schedule.EndOfDuration
	InitialInstance time.Time
	Location        *time.Location
	URITemplate     string
	// DoneFlag names the file whose presence marks an instance complete;
	// nil means the default _SUCCESS, "" the instance directory itself.
	DoneFlag *string

	tzID string // the time zone as written, for persisted definitions
}

// Action is the coordinator action an evaluation is for.
type Action struct {
	NominalTime time.Time
	ActualTime  time.Time      // creation (materialization) time
	Location    *time.Location // the job's time zone
	ID          string
	Name        string
}

// Instances computes the instances of a dataset relative to an action.
type Instances struct {
	DS     *Dataset
	Action *Action
}

// errNoDataset is returned when an instance function runs without a dataset.
var errNoDataset = errors.New("no dataset in the evaluation context")

func (in Instances) check() error {
	if in.DS == nil || in.DS.Location == nil {
		return errNoDataset
	}
	if in.DS.Frequency <= 0 {
		return fmt.Errorf("dataset %q: frequency must be positive", in.DS.Name)
	}
	if in.Action == nil {
		return errors.New("no coordinator action in the evaluation context")
	}
	return nil
}

// EffectiveInitial is the initial instance moved by the end-of-duration flag
// (END_OF_DAY: the next local 00:00, and so on).
func (in Instances) EffectiveInitial() time.Time {
	return schedule.MoveToEnd(in.DS.InitialInstance, in.DS.End, in.DS.Location)
}

// At returns instance number k (0 = the effective initial instance).
func (in Instances) At(k int) time.Time {
	return schedule.Step(in.EffectiveInitial(), in.DS.Unit, k*in.DS.Frequency, in.DS.Location)
}

// Index returns the number k of the latest instance at or before t, and
// false when t precedes the effective initial instance.
func (in Instances) Index(t time.Time) (int, bool) {
	init := in.EffectiveInitial()
	if init.After(t) {
		return 0, false
	}
	ds := in.DS
	step := func(k int) time.Time { return schedule.Step(init, ds.Unit, k*ds.Frequency, ds.Location) }
	// Estimate from the elapsed units, then correct: instances are monotonic
	// in k even with month clamping, so a few steps settle it.
	var k int
	switch ds.Unit {
	case schedule.Minute:
		k = int(t.Sub(init) / (time.Duration(ds.Frequency) * time.Minute))
	case schedule.Hour:
		k = int(t.Sub(init) / (time.Duration(ds.Frequency) * time.Hour))
	case schedule.Day, schedule.Week:
		days := int(t.Sub(init).Hours() / 24)
		if ds.Unit == schedule.Week {
			days /= 7
		}
		k = days / ds.Frequency
	case schedule.Month, schedule.Year:
		a, b := init.In(ds.Location), t.In(ds.Location)
		months := (b.Year()-a.Year())*12 + int(b.Month()-a.Month())
		if ds.Unit == schedule.Year {
			months /= 12
		}
		k = months / ds.Frequency
	}
	k = max(k-1, 0)
	for k > 0 && step(k).After(t) {
		k--
	}
	for !step(k + 1).After(t) {
		k++
	}
	return k, true
}

// format prints an instance time the way every coord function returns it.
func format(t time.Time) string { return schedule.FormatTime(t) }

// Current is coord:current(n): the n-th instance relative to the instance
// current at the action's nominal time; false (Oozie's "") when it precedes
// the initial instance, or the nominal time does.
func (in Instances) Current(n int) (time.Time, bool, error) {
	if err := in.check(); err != nil {
		return time.Time{}, false, err
	}
	k, ok := in.Index(in.Action.NominalTime)
	if !ok || k+n < 0 {
		return time.Time{}, false, nil
	}
	return in.At(k + n), true, nil
}

// rangeFrom lists the instances with numbers first..last, newest first,
// dropping those before the initial instance. The first is computed with one
// add and the rest by stepping, as Oozie's ranges do.
func (in Instances) rangeFrom(first, last int) []time.Time {
	if last < first {
		return nil
	}
	init := in.EffectiveInitial()
	ds := in.DS
	t := schedule.Step(init, ds.Unit, first*ds.Frequency, ds.Location)
	out := make([]time.Time, 0, last-first+1)
	for i := first; i <= last; i++ {
		if !t.Before(init) {
			out = append(out, t)
		}
		t = schedule.Step(t, ds.Unit, ds.Frequency, ds.Location)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// CurrentRange is coord:currentRange(start, end): the instances current(start)
// to current(end), newest first, out-of-bound ones dropped (spec: coord 6.6.14).
func (in Instances) CurrentRange(start, end int) ([]time.Time, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	if start > end {
		return nil, fmt.Errorf("start-instance should be equal or earlier than the end-instance: currentRange(%d, %d)", start, end)
	}
	k, ok := in.Index(in.Action.NominalTime)
	if !ok {
		return nil, nil
	}
	return in.rangeFrom(k+start, k+end), nil
}

// offsetUnits are the units coord:offset accepts.
var offsetUnits = map[string]schedule.Unit{
	"MINUTE": schedule.Minute, "HOUR": schedule.Hour, "DAY": schedule.Day,
	"MONTH": schedule.Month, "YEAR": schedule.Year,
}

// offsetTime moves the current instance by n units; ok is false when the
// nominal time precedes the initial instance.
func (in Instances) offsetTime(n int, unit string) (time.Time, bool, error) {
	if err := in.check(); err != nil {
		return time.Time{}, false, err
	}
	u, found := offsetUnits[unit]
	if !found {
		return time.Time{}, false, fmt.Errorf("Unable to evaluate coord:offset: invalid time unit %q (want MINUTE, HOUR, DAY, MONTH or YEAR)", unit)
	}
	k, ok := in.Index(in.Action.NominalTime)
	if !ok {
		return time.Time{}, false, nil
	}
	return schedule.Step(in.At(k), u, n, in.DS.Location), true, nil
}

// Offset is coord:offset(n, unit) as an instance or end-instance: the
// current instance moved by n units, rewound to the latest instance at or
// before that time; false (Oozie's "") before the initial instance.
func (in Instances) Offset(n int, unit string) (time.Time, bool, error) {
	k, ok, err := in.offsetIndex(n, unit, false)
	if err != nil || !ok {
		return time.Time{}, false, err
	}
	return in.At(k), true, nil
}

// offsetIndex resolves coord:offset to an instance number, rewinding, or
// fast-forwarding when forward is set (start-instances of ranges).
func (in Instances) offsetIndex(n int, unit string, forward bool) (int, bool, error) {
	raw, ok, err := in.offsetTime(n, unit)
	if err != nil || !ok {
		return 0, false, err
	}
	k, ok := in.Index(raw)
	if !ok {
		if forward {
			return 0, true, nil
		}
		return 0, false, nil
	}
	if forward && in.At(k).Before(raw) {
		k++
	}
	return k, true, nil
}

// HoursInDay is coord:hoursInDay(n): the hours of the local day, in the
// dataset's zone, of the nominal time moved n times the dataset's frequency
// in the dataset's unit (as Oozie steps it: for an hourly dataset n counts
// hours, for a daily one days); -1 when the nominal time precedes the
// initial instance.
func (in Instances) HoursInDay(n int) (int, error) {
	if err := in.check(); err != nil {
		return 0, err
	}
	if in.EffectiveInitial().After(in.Action.NominalTime) {
		return -1, nil
	}
	loc := in.DS.Location
	return schedule.HoursInDay(in.stepNominal(n), loc), nil
}

// DaysInMonth is coord:daysInMonth(n): the days of the month, in the
// dataset's zone, of the nominal time moved n times the dataset's frequency
// in the dataset's unit; -1 before the initial instance.
func (in Instances) DaysInMonth(n int) (int, error) {
	if err := in.check(); err != nil {
		return 0, err
	}
	if in.EffectiveInitial().After(in.Action.NominalTime) {
		return -1, nil
	}
	loc := in.DS.Location
	return schedule.DaysInMonth(in.stepNominal(n), loc), nil
}

// stepNominal moves the nominal time n dataset frequencies in the dataset's
// unit and zone, the day or month hoursInDay and daysInMonth look at.
func (in Instances) stepNominal(n int) time.Time {
	return schedule.Step(in.Action.NominalTime, in.DS.Unit, n*in.DS.Frequency, in.DS.Location)
}

// TZOffset is coord:tzOffset(): the dataset zone's offset minus the job
// zone's offset at the nominal time, in minutes.
func (in Instances) TZOffset() (int, error) {
	if err := in.check(); err != nil {
		return 0, err
	}
	if in.Action.Location == nil {
		return 0, errors.New("no job time zone in the evaluation context")
	}
	_, ds := in.Action.NominalTime.In(in.DS.Location).Zone()
	_, job := in.Action.NominalTime.In(in.Action.Location).Zone()
	return (ds - job) / 60, nil
}

// EndOf is the start-instance function coord:endOfDays/endOfWeeks/
// endOfMonths(n): the nominal time moved n units and then to the start of
// the next day, week or month, in the dataset's zone.
func (in Instances) EndOf(e schedule.EndOfDuration, n int) (time.Time, error) {
	if err := in.check(); err != nil {
		return time.Time{}, err
	}
	u := map[schedule.EndOfDuration]schedule.Unit{schedule.EndOfDay: schedule.Day, schedule.EndOfWeek: schedule.Week, schedule.EndOfMonth: schedule.Month}[e]
	loc := in.DS.Location
	return schedule.MoveToEnd(schedule.Step(in.Action.NominalTime, u, n, loc), e, loc), nil
}

// AnchoredRange resolves a range whose start is a fixed instance time
// (coord:absolute, coord:endOf*) and whose end is current(end): the start
// must be an instance and not after the end. It returns the instances
// newest first.
func (in Instances) AnchoredRange(start time.Time, end int) ([]time.Time, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	ks, ok := in.Index(start)
	if !ok {
		return nil, fmt.Errorf("E1010: intial-instance should be equal or earlier than the start-instance. intial-instance is %s and start-instance is %s",
			format(in.EffectiveInitial()), format(start))
	}
	if !in.At(ks).Equal(start) {
		return nil, fmt.Errorf("E1010: initial-instance is not in phase with start-instance. initial-instance is %s and start-instance is %s",
			format(in.EffectiveInitial()), format(start))
	}
	kn, ok := in.Index(in.Action.NominalTime)
	if !ok {
		return nil, fmt.Errorf("E1010: intial-instance should be equal or earlier than the nominal time. intial-instance is %s and nominal time is %s",
			format(in.EffectiveInitial()), format(in.Action.NominalTime))
	}
	if ks > kn+end {
		return nil, fmt.Errorf("E1010: start-instance should be equal or earlier than the end-instance")
	}
	return in.rangeFrom(ks, kn+end), nil
}

// joinTimes joins instance times, printed in the processing zone, with '#',
// Oozie's instance separator.
func joinTimes(ts []time.Time, pz schedule.ProcessingZone) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = pz.Format(t)
	}
	return strings.Join(parts, "#")
}
