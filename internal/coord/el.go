package coord

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/schedule"
)

// Phase is one of Oozie's coordinator EL evaluator groups: each defines its
// own coord: functions, or echoes some back unresolved for a later phase.
type Phase int

// Phases, named after Oozie's evaluator groups.
const (
	PhaseSubmitFreq       Phase = iota // coord-job-submit-freq: frequency and timeout
	PhaseSubmitNoFuncs                 // coord-job-submit-nofuncs: YEAR..MINUTE echo themselves
	PhaseSubmitInstances               // coord-job-submit-instances: instance functions echoed
	PhaseSubmitData                    // coord-job-submit-data: action configuration at submission
	PhaseSLASubmit                     // coord-sla-submit
	PhaseActionCreate                  // coord-action-create: instances resolved at materialization
	PhaseActionCreateInst              // coord-action-create-inst: instance numbers
	PhaseSLACreate                     // coord-sla-create
	PhaseActionStart                   // coord-action-start: latest/future, dataIn/dataOut
	PhaseURITemplate                   // uri-template: ${YEAR} ... ${MINUTE} of an instance
	// PhaseSubmitInitialInstance is coord-job-submit-initial-instance: a
	// dataset's initial-instance, nofuncs plus coord:dateOffset and
	// coord:dateTzOffset.
	PhaseSubmitInitialInstance
)

var phaseNames = []string{
	"coord-job-submit-freq", "coord-job-submit-nofuncs", "coord-job-submit-instances",
	"coord-job-submit-data", "coord-sla-submit", "coord-action-create",
	"coord-action-create-inst", "coord-sla-create", "coord-action-start", "uri-template",
	"coord-job-submit-initial-instance",
}

// String returns Oozie's name of the phase.
func (p Phase) String() string {
	if int(p) < len(phaseNames) && p >= 0 {
		return phaseNames[p]
	}
	return fmt.Sprintf("Phase(%d)", int(p))
}

// PhaseByName looks a phase up by its Oozie name.
func PhaseByName(name string) (Phase, bool) {
	for i, n := range phaseNames {
		if n == name {
			return Phase(i), true
		}
	}
	return 0, false
}

// ELContext is the state coord: functions work on, handed to the evaluator
// as its Context. Use one per evaluation: functions record side effects in
// it (Wrap, TimeUnit, EndOfDuration, Unresolved).
type ELContext struct {
	Dataset    *Dataset
	Action     *Action
	Processing schedule.ProcessingZone
	// Vars are the job properties and evaluator variables (user.name,
	// .datain.<name>, ...). They are also the EL variables of the text.
	Vars el.Resolver
	// Exists reports whether a URI exists, for latest/future; nil means
	// nothing exists.
	Exists func(uri string) bool
	// LatestAt, when set, is the time latest() searches back from instead
	// of the action's actual time (Oozie's latest-el.use-current-time).
	LatestAt time.Time

	// Wrap is set by phase-1 echo functions: the result must be wrapped in
	// ${...} (Oozie's evalAndWrap).
	Wrap bool
	// TimeUnit and EndOfDuration are set by the frequency functions.
	TimeUnit      schedule.Unit
	EndOfDuration schedule.EndOfDuration
	// Unresolved is set when latest/future could not be resolved yet.
	Unresolved bool
}

func (c *ELContext) instances() Instances { return Instances{DS: c.Dataset, Action: c.Action} }

func (c *ELContext) lookup(name string) (any, bool) {
	if c.Vars == nil {
		return nil, false
	}
	return c.Vars.Lookup(name)
}

// vars resolves the EL variables of a phase: YEAR..MINUTE echo themselves
// at submission, then the caller's variables.
type vars struct {
	phase Phase
	ctx   *ELContext
}

var timeVars = []string{"YEAR", "MONTH", "DAY", "HOUR", "MINUTE"}

func (v vars) Lookup(name string) (any, bool) {
	if v.phase == PhaseSubmitNoFuncs {
		for _, n := range timeVars {
			if n == name {
				return "${" + n + "}", true
			}
		}
	}
	return v.ctx.lookup(name)
}

// NewEvaluator returns an evaluator for text of phase p working on ctx.
func NewEvaluator(p Phase, ctx *ELContext) *el.Evaluator {
	return &el.Evaluator{
		Funcs:   Registry(p),
		Vars:    vars{phase: p, ctx: ctx},
		Context: ctx,
		Now:     func() time.Time { return time.Unix(0, 0).UTC() },
	}
}

// Eval evaluates text in phase p and returns the string result.
func Eval(p Phase, ctx *ELContext, text string) (string, error) {
	return NewEvaluator(p, ctx).EvalString(text)
}

// EvalAndWrap is Oozie's CoordELFunctions.evalAndWrap: it evaluates text and,
// when an echo function ran, wraps the whole result in ${...} so that a later
// phase evaluates it again.
func EvalAndWrap(p Phase, ctx *ELContext, text string) (string, error) {
	ctx.Wrap = false
	s, err := Eval(p, ctx, text)
	if err != nil {
		return "", err
	}
	if ctx.Wrap {
		return "${" + s + "}", nil
	}
	return s, nil
}

var (
	registryOnce sync.Once
	registries   []*el.Registry
)

// Registry returns the (shared, read-only) function registry of phase p:
// the basic EL functions plus the phase's coord: functions.
func Registry(p Phase) *el.Registry {
	registryOnce.Do(buildRegistries)
	if int(p) < 0 || int(p) >= len(registries) {
		return el.Basic()
	}
	return registries[p]
}

// fn describes one coord: function.
type fn struct {
	name   string
	params []el.Type
	impl   el.Func
}

var (
	s1 = []el.Type{el.String}
	s2 = []el.Type{el.String, el.String}
	s3 = []el.Type{el.String, el.String, el.String}
	l1 = []el.Type{el.Long}
	l2 = []el.Type{el.Long, el.Long}
)

func buildRegistries() {
	common := []fn{
		{"conf", s1, withContext(confFn)}, {"user", nil, withContext(userFn)},
	}
	freq := []fn{
		freqFn("minutes"), freqFn("hours"), freqFn("days"), freqFn("months"),
		freqFn("endOfDays"), freqFn("endOfWeeks"), freqFn("endOfMonths"),
	}
	instanceEchoes := []fn{
		echo("current", s1, nil), echo("currentRange", s2, nil), echo("offset", s2, offsetEchoArgs),
		echo("latest", s1, nil), echo("latestRange", s2, nil),
		echo("future", s2, nil), echo("futureRange", s3, nil),
		echo("absolute", s1, quoteFirst), echo("absoluteRange", s2, quoteFirst),
		echo("endOfDays", s1, nil), echo("endOfWeeks", s1, nil), echo("endOfMonths", s1, nil),
		{"hoursInDay", s1, constFn(int64(24))}, {"daysInMonth", s1, constFn(int64(30))},
		{"tzOffset", nil, constFn(int64(3))},
	}
	timeEchoes := []fn{
		echo("formatTime", s2, quoteFirstSpaced), echo("epochTime", s2, quoteFirstSpaced),
		echo("dateOffset", s3, quoteFirstSpaced), echo("dateTzOffset", s2, quoteFirstSpaced),
	}
	// coord:nominalTime and coord:actualTime may appear in instances, nested
	// in coord:absolute(coord:dateOffset(...)).
	timeOfActionEchoes := []fn{echo("nominalTime", nil, nil), echo("actualTime", nil, nil)}
	dataEchoes := []fn{
		echo("dataIn", s1, quoteAll), echo("dataOut", s1, quoteAll),
		echo("nominalTime", nil, nil), echo("actualTime", nil, nil),
		echo("actionId", nil, nil), echo("name", nil, nil),
	}
	actionTime := []fn{
		{"formatTime", s2, withContext(formatTimeFn)}, {"epochTime", s2, withContext(epochTimeFn)},
		{"dateOffset", []el.Type{el.String, el.Long, el.String}, withContext(dateOffsetFn)},
		{"dateTzOffset", s2, withContext(dateTzOffsetFn)},
	}
	actionInfo := []fn{
		{"nominalTime", nil, nominalTimeFn}, {"actualTime", nil, actualTimeFn},
		{"actionId", nil, actionIDFn}, {"name", nil, nameFn},
	}
	resolvedInstances := []fn{
		{"current", l1, withContext(currentFn)}, {"currentRange", l2, withContext(currentRangeFn)},
		{"offset", []el.Type{el.Long, el.String}, withContext(offsetFn)},
		{"hoursInDay", l1, withContext(hoursInDayFn)}, {"daysInMonth", l1, withContext(daysInMonthFn)},
		{"tzOffset", nil, withContext(tzOffsetFn)},
		{"absolute", s1, withContext(absoluteFn)}, {"absoluteRange", []el.Type{el.String, el.Long}, withContext(absoluteRangeFn)},
		endOfFn("endOfDays", schedule.EndOfDay), endOfFn("endOfWeeks", schedule.EndOfWeek),
		endOfFn("endOfMonths", schedule.EndOfMonth),
		echo("latest", s1, nil), echo("latestRange", s2, nil),
		echo("future", s2, nil), echo("futureRange", s3, nil),
	}
	start := []fn{
		{"latest", l1, withContext(latestFn)}, {"latestRange", l2, withContext(latestRangeFn)},
		{"future", l2, withContext(futureFn)}, {"futureRange", []el.Type{el.Long, el.Long, el.Long}, withContext(futureRangeFn)},
		{"dataIn", s1, dataFn(".datain.", "dataIn")}, {"dataOut", s1, dataFn(".dataout.", "dataOut")},
		{"hoursInDay", l1, withContext(hoursInDayFn)}, {"daysInMonth", l1, withContext(daysInMonthFn)}, {"tzOffset", nil, withContext(tzOffsetFn)},
	}
	cat := func(groups ...[]fn) []fn {
		var out []fn
		for _, g := range groups {
			out = append(out, g...)
		}
		return out
	}
	defs := map[Phase][]fn{
		PhaseSubmitFreq:       cat(common, freq),
		PhaseSubmitNoFuncs:    common,
		PhaseSubmitInstances:  cat(common, instanceEchoes, timeEchoes, timeOfActionEchoes),
		PhaseSubmitData:       cat(common, instanceEchoes, timeEchoes, dataEchoes, hcatEchoes()),
		PhaseSLASubmit:        cat(common, timeEchoes, dataEchoes),
		PhaseActionCreate:     cat(common, resolvedInstances, actionTime, actionInfo),
		PhaseActionCreateInst: cat(common, instanceEchoes, actionTime),
		PhaseSLACreate:        cat(common, actionTime, actionInfo),
		PhaseActionStart:      cat(common, start, actionTime, actionInfo, hcatStart()),
		PhaseURITemplate:      nil,
		PhaseSubmitInitialInstance: cat(common, []fn{
			{"dateOffset", []el.Type{el.String, el.Long, el.String}, withContext(dateOffsetFn)},
			{"dateTzOffset", s2, withContext(dateTzOffsetFn)},
		}),
	}
	registries = make([]*el.Registry, len(phaseNames))
	for p := range registries {
		r := el.Basic()
		for _, f := range defs[Phase(p)] {
			r.Define("coord", f.name, f.params, f.impl)
		}
		registries[p] = r
	}
}

func ctxOf(c *el.Call) (*ELContext, error) {
	ctx, ok := c.Context.(*ELContext)
	if !ok || ctx == nil {
		return nil, errors.New("coord: function called without a coordinator context")
	}
	return ctx, nil
}

// withContext adapts a function of the coordinator context to el.Func,
// failing when the evaluator carries no coordinator context.
func withContext(f func(ctx *ELContext, c *el.Call) (any, error)) el.Func {
	return func(c *el.Call) (any, error) {
		ctx, err := ctxOf(c)
		if err != nil {
			return nil, err
		}
		return f(ctx, c)
	}
}

func constFn(v any) el.Func { return func(*el.Call) (any, error) { return v, nil } }

// echo returns a phase-1 function that prints its call back for a later
// phase and asks for the result to be wrapped in ${...}.
func echo(name string, params []el.Type, argf func([]string) string) fn {
	return fn{name, params, func(c *el.Call) (any, error) {
		ctx, err := ctxOf(c)
		if err != nil {
			return nil, err
		}
		args := make([]string, len(c.Args))
		for i, a := range c.Args {
			args[i] = el.ToString(a)
		}
		text := strings.Join(args, ", ")
		if argf != nil {
			text = argf(args)
		}
		ctx.Wrap = true
		return "coord:" + name + "(" + text + ")", nil
	}}
}

// quoteFirstSpaced prints "'date' , rest", Oozie's echo of formatTime and
// epochTime.
func quoteFirstSpaced(a []string) string {
	return "'" + a[0] + "' , " + strings.Join(a[1:], " , ")
}

func quoteFirst(a []string) string {
	out := []string{"'" + a[0] + "'"}
	return strings.Join(append(out, a[1:]...), ", ")
}

func quoteAll(a []string) string {
	q := make([]string, len(a))
	for i, s := range a {
		q[i] = "'" + s + "'"
	}
	return strings.Join(q, ", ")
}

func offsetEchoArgs(a []string) string { return a[0] + ", '" + a[1] + "'" }

func confFn(ctx *ELContext, c *el.Call) (any, error) {
	v, _ := ctx.lookup(c.Args[0].(string))
	return el.ToString(v), nil
}

func userFn(ctx *ELContext, c *el.Call) (any, error) {
	v, _ := ctx.lookup("user.name")
	return el.ToString(v), nil
}

// freqFn is coord:days(n) and friends: the value is n (hours: n*60) and the
// unit and end-of flag are recorded in the context, as Oozie records them
// in evaluator variables.
func freqFn(name string) fn {
	return fn{name, l1, func(c *el.Call) (any, error) {
		ctx, err := ctxOf(c)
		if err != nil {
			return nil, err
		}
		n := c.Args[0].(int64)
		f, err := schedule.FrequencyOf(name, int(n))
		if err != nil {
			return nil, err
		}
		ctx.TimeUnit, ctx.EndOfDuration = f.Unit, f.End
		return int64(f.N), nil
	}}
}

func currentFn(ctx *ELContext, c *el.Call) (any, error) {
	t, ok, err := ctx.instances().Current(int(c.Args[0].(int64)))
	return ctx.optTime(t, ok), err
}

// optTime prints an instance in the processing zone, or "" when there is
// none (before the initial instance).
func (c *ELContext) optTime(t time.Time, ok bool) string {
	if !ok {
		return ""
	}
	return c.Processing.Format(t)
}

func currentRangeFn(ctx *ELContext, c *el.Call) (any, error) {
	ts, err := ctx.instances().CurrentRange(int(c.Args[0].(int64)), int(c.Args[1].(int64)))
	if err != nil {
		return nil, err
	}
	return joinTimes(ts, ctx.Processing), nil
}

func offsetFn(ctx *ELContext, c *el.Call) (any, error) {
	t, ok, err := ctx.instances().Offset(int(c.Args[0].(int64)), c.Args[1].(string))
	return ctx.optTime(t, ok), err
}

func hoursInDayFn(ctx *ELContext, c *el.Call) (any, error) {
	h, err := ctx.instances().HoursInDay(int(c.Args[0].(int64)))
	return int64(h), err
}

func daysInMonthFn(ctx *ELContext, c *el.Call) (any, error) {
	d, err := ctx.instances().DaysInMonth(int(c.Args[0].(int64)))
	return int64(d), err
}

func tzOffsetFn(ctx *ELContext, c *el.Call) (any, error) {
	o, err := ctx.instances().TZOffset()
	return int64(o), err
}

func absoluteFn(ctx *ELContext, c *el.Call) (any, error) {
	t, err := ctx.Processing.Parse(c.Args[0].(string))
	if err != nil {
		return nil, err
	}
	return ctx.Processing.Format(t), nil
}

func absoluteRangeFn(ctx *ELContext, c *el.Call) (any, error) {
	t, err := ctx.Processing.Parse(c.Args[0].(string))
	if err != nil {
		return nil, err
	}
	ts, err := ctx.instances().AnchoredRange(t, int(c.Args[1].(int64)))
	if err != nil {
		return nil, err
	}
	return joinTimes(ts, ctx.Processing), nil
}

func endOfFn(name string, e schedule.EndOfDuration) fn {
	return fn{name, l1, func(c *el.Call) (any, error) {
		ctx, err := ctxOf(c)
		if err != nil {
			return nil, err
		}
		t, err := ctx.instances().EndOf(e, int(c.Args[0].(int64)))
		if err != nil {
			return nil, err
		}
		return ctx.Processing.Format(t), nil
	}}
}

func nominalTimeFn(c *el.Call) (any, error) {
	ctx, err := ctxOf(c)
	if err != nil || ctx.Action == nil {
		return nil, errors.Join(err, errNoAction(ctx))
	}
	return ctx.Processing.Format(ctx.Action.NominalTime), nil
}

func actualTimeFn(c *el.Call) (any, error) {
	ctx, err := ctxOf(c)
	if err != nil || ctx.Action == nil {
		return nil, errors.Join(err, errNoAction(ctx))
	}
	return ctx.Processing.Format(ctx.Action.ActualTime), nil
}

func actionIDFn(c *el.Call) (any, error) {
	ctx, err := ctxOf(c)
	if err != nil || ctx.Action == nil {
		return nil, errors.Join(err, errNoAction(ctx))
	}
	return ctx.Action.ID, nil
}

func nameFn(c *el.Call) (any, error) {
	ctx, err := ctxOf(c)
	if err != nil || ctx.Action == nil {
		return nil, errors.Join(err, errNoAction(ctx))
	}
	return ctx.Action.Name, nil
}

func errNoAction(ctx *ELContext) error {
	if ctx != nil && ctx.Action == nil {
		return errors.New("no coordinator action in the evaluation context")
	}
	return nil
}

func formatTimeFn(ctx *ELContext, c *el.Call) (any, error) {
	t, err := ctx.Processing.Parse(c.Args[0].(string))
	if err != nil {
		return nil, err
	}
	return FormatJava(t.In(ctx.Processing.Location()), c.Args[1].(string))
}

func epochTimeFn(ctx *ELContext, c *el.Call) (any, error) {
	t, err := ctx.Processing.Parse(c.Args[0].(string))
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(c.Args[1].(string), "true") {
		return strconv.FormatInt(t.UnixMilli(), 10), nil
	}
	return strconv.FormatInt(t.Unix(), 10), nil
}

// dateOffsetFn is coord:dateOffset(date, n, unit): date plus n units,
// computed in the processing zone.
func dateOffsetFn(ctx *ELContext, c *el.Call) (any, error) {
	t, err := ctx.Processing.Parse(c.Args[0].(string))
	if err != nil {
		return nil, err
	}
	u, err := schedule.ParseUnit(c.Args[2].(string))
	if err != nil || u == schedule.CronUnit {
		return nil, fmt.Errorf("coord:dateOffset: invalid time unit %q", c.Args[2])
	}
	return ctx.Processing.Format(schedule.Step(t, u, int(c.Args[1].(int64)), ctx.Processing.Location())), nil
}

// dateTzOffsetFn is coord:dateTzOffset(date, tz): date shifted by the zone's
// offset at that instant.
func dateTzOffsetFn(ctx *ELContext, c *el.Call) (any, error) {
	t, err := ctx.Processing.Parse(c.Args[0].(string))
	if err != nil {
		return nil, err
	}
	loc, err := schedule.LoadZone(c.Args[1].(string))
	if err != nil {
		return nil, err
	}
	_, off := t.In(loc).Zone()
	return ctx.Processing.Format(t.Add(time.Duration(off) * time.Second)), nil
}

func dataFn(prefix, name string) el.Func {
	return func(c *el.Call) (any, error) {
		ctx, err := ctxOf(c)
		if err != nil {
			return nil, err
		}
		key := c.Args[0].(string)
		if u, ok := ctx.lookup(prefix + key + ".unresolved"); ok && u != nil && strings.EqualFold(el.ToString(u), "true") {
			return "${coord:" + name + "('" + key + "')}", nil
		}
		v, _ := ctx.lookup(prefix + key)
		return el.ToString(v), nil
	}
}
