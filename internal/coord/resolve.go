package coord

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/schedule"
)

// Resolved is a <data-in>/<data-out> range after instance resolution.
type Resolved struct {
	// Instances are the instance times, newest first, out-of-bound
	// instances dropped.
	Instances []time.Time
	// URIs are the resolved URI templates of Instances.
	URIs []string
	// Unresolved holds the ${coord:latestRange(s,e)} or
	// ${coord:futureRange(s,e,'limit')} text when the range waits for
	// latest/future resolution at action start; Instances is then empty.
	Unresolved string
}

// instanceRef is a start- or end-instance after evaluating its arguments.
type instanceRef struct {
	fn    string // current, offset, absolute, endOfDays, endOfWeeks, endOfMonths, latest, future
	n     int
	unit  string
	limit int
	at    time.Time // absolute and endOf*
}

var absoluteRE = regexp.MustCompile(`^\s*(?:\$\{)?\s*coord:absolute\(\s*['"]?([^'")]*?)['"]?\s*\)\s*\}?\s*$`)

// markerVars makes MINUTE..YEAR usable unquoted in coord:offset, as
// instance texts (and job properties holding them, coord:offset(-4,DAY))
// often write them; a submission refuses them as property names (E0808).
type markerVars struct{ job el.Resolver }

func (v markerVars) Lookup(name string) (any, bool) {
	switch name {
	case "MINUTE", "HOUR", "DAY", "MONTH", "YEAR":
		if v.job != nil {
			if val, ok := v.job.Lookup(name); ok {
				return val, true
			}
		}
		return name, true
	}
	if v.job == nil {
		return nil, false
	}
	return v.job.Lookup(name)
}

var (
	markerOnce sync.Once
	markerReg  *el.Registry
)

// parseInstance evaluates an instance text ("${coord:current(-1)}",
// "coord:offset(-4,HOUR)") into the function it names and its arguments;
// the arguments may be EL (coord:current(-(coord:hoursInDay(0) - 1)),
// coord:absolute(coord:dateOffset(coord:nominalTime(), -1, 'DAY'))). As in
// Oozie's materialization, a text whose value is itself instance-function
// text (${startInstance} with startInstance=coord:offset(-4,DAY)) is parsed
// again like literal text, and one whose value is a datetime names that
// instance ("literal").
func parseInstance(ctx *ELContext, text string) (instanceRef, error) {
	ref, err := parseInstanceText(ctx, text, true)
	if err != nil && strings.ContainsAny(err.Error(), markStart+markSep+markEnd) {
		return instanceRef{}, errors.New(demark(err.Error()))
	}
	if err != nil {
		return instanceRef{}, err
	}
	return ref, nil
}

func parseInstanceText(ctx *ELContext, text string, again bool) (instanceRef, error) {
	if ref, ok := parseSimpleInstance(text); ok {
		return ref, nil
	}
	if m := absoluteRE.FindStringSubmatch(text); m != nil {
		t, err := ctx.Processing.Parse(strings.TrimSpace(m[1]))
		if err != nil {
			return instanceRef{}, err
		}
		return instanceRef{fn: "absolute", at: t}, nil
	}
	src := strings.TrimSpace(text)
	if !el.HasExpr(src) {
		src = "${" + src + "}"
	}
	markerOnce.Do(buildMarkerRegistry)
	ev := &el.Evaluator{Funcs: markerReg, Vars: markerVars{job: ctx.Vars}, Context: ctx}
	v, err := ev.EvalString(src)
	if err != nil {
		return instanceRef{}, err
	}
	body, isMarker := strings.CutPrefix(v, markStart)
	if isMarker {
		body, isMarker = strings.CutSuffix(body, markEnd)
	}
	if !isMarker || strings.ContainsAny(body, markStart+markEnd) {
		v = strings.TrimSpace(v)
		if !strings.ContainsAny(v, markStart+markEnd) {
			if again && strings.Contains(v, "coord:") {
				return parseInstanceText(ctx, v, false)
			}
			if t, err := ctx.Processing.Parse(v); err == nil {
				return instanceRef{fn: "literal", at: t}, nil
			}
		}
		return instanceRef{}, fmt.Errorf("instance %q: expected one coord:current, coord:offset, coord:absolute, coord:endOfDays/Weeks/Months, coord:latest or coord:future call, got %q", text, demark(v))
	}
	parts := strings.Split(body, markSep)
	ref := instanceRef{fn: parts[0]}
	args := parts[1:]
	ints := func(k int) ([]int, error) {
		if len(args) != k {
			return nil, fmt.Errorf("instance %q: coord:%s takes %d arguments", text, ref.fn, k)
		}
		out := make([]int, 0, k)
		for _, a := range args[:k] {
			n, err := strconv.Atoi(strings.TrimSpace(a))
			if err != nil {
				return nil, fmt.Errorf("instance %q: coord:%s: %q is not an integer", text, ref.fn, a)
			}
			out = append(out, n)
		}
		return out, nil
	}
	switch ref.fn {
	case "offset":
		if len(args) != 2 {
			return instanceRef{}, fmt.Errorf("instance %q: coord:offset takes 2 arguments", text)
		}
		n, err := strconv.Atoi(strings.TrimSpace(args[0]))
		if err != nil {
			return instanceRef{}, fmt.Errorf("instance %q: coord:offset: %q is not an integer", text, args[0])
		}
		ref.n, ref.unit = n, strings.TrimSpace(args[1])
	case "future":
		ns, err := ints(2)
		if err != nil {
			return instanceRef{}, err
		}
		ref.n, ref.limit = ns[0], ns[1]
	case "absolute":
		if len(args) != 1 {
			return instanceRef{}, fmt.Errorf("instance %q: coord:absolute takes 1 argument", text)
		}
		if ref.at, err = ctx.Processing.Parse(strings.TrimSpace(args[0])); err != nil {
			return instanceRef{}, err
		}
	case "endOfDays", "endOfWeeks", "endOfMonths":
		ns, err := ints(1)
		if err != nil {
			return instanceRef{}, err
		}
		ref.n = ns[0]
		e := map[string]schedule.EndOfDuration{"endOfDays": schedule.EndOfDay, "endOfWeeks": schedule.EndOfWeek, "endOfMonths": schedule.EndOfMonth}[ref.fn]
		if ref.at, err = ctx.instances().EndOf(e, ref.n); err != nil {
			return instanceRef{}, err
		}
	default:
		ns, err := ints(1)
		if err != nil {
			return instanceRef{}, err
		}
		ref.n = ns[0]
	}
	return ref, nil
}

// A marker is markStart, the function name, markSep and an argument per
// argument, then markEnd: "\x02current\x00-1\x01". Arguments never hold
// markStart, so the innermost marker of a nesting is found first.
const (
	markStart = "\x02"
	markSep   = "\x00"
	markEnd   = "\x01"
)

// markerRE matches one innermost marker.
var markerRE = regexp.MustCompile("\x02([A-Za-z]+)((?:\x00[^\x00\x01\x02]*)*)\x01")

// demark rewrites the internal markers of buildMarkerRegistry back into the
// calls they stand for ("\x02current\x00-1\x01" -> "coord:current(-1)"),
// innermost first, and drops any stray marker byte, so that no error
// message shows them.
func demark(s string) string {
	for strings.Contains(s, markStart) {
		t := markerRE.ReplaceAllStringFunc(s, func(m string) string {
			parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(m, markStart), markEnd), markSep)
			return "coord:" + parts[0] + "(" + strings.Join(parts[1:], ", ") + ")"
		})
		if t == s {
			break
		}
		s = t
	}
	return strings.Map(func(r rune) rune {
		if r == 0 || r == 1 || r == 2 {
			return -1
		}
		return r
	}, s)
}

// buildMarkerRegistry defines the instance functions as markers
// ("\x02current\x00-1\x01") so that parseInstance learns which function an
// instance calls after EL has evaluated its arguments; hoursInDay,
// daysInMonth and tzOffset are real, since arguments use them.
func buildMarkerRegistry() {
	r := Registry(PhaseActionCreate).Clone()
	mark := func(name string, params []el.Type) {
		r.Define("coord", name, params, func(c *el.Call) (any, error) {
			parts := []string{name}
			for _, a := range c.Args {
				parts = append(parts, el.ToString(a))
			}
			return markStart + strings.Join(parts, markSep) + markEnd, nil
		})
	}
	mark("current", l1)
	mark("offset", []el.Type{el.Long, el.String})
	mark("latest", l1)
	mark("future", l2)
	mark("endOfDays", l1)
	mark("endOfWeeks", l1)
	mark("endOfMonths", l1)
	mark("absolute", s1)
	markerReg = r
}

// ResolveRange resolves a <data-in> or <data-out> of the action in ctx whose
// instances are given by start and end texts (for a single <instance>, pass
// the same text twice). Ranges follow spec: coord 6.6: current and offset ranges
// (offset starts fast-forward, ends rewind), absolute and endOf* starts with
// a current end, latest/future ranges left for action start.
func ResolveRange(ctx *ELContext, startText, endText string) (Resolved, error) {
	return resolveInstances(ctx, startText, endText, false)
}

// ResolveInstance resolves one <instance> of a <data-in> or <data-out>.
// Unlike a range with equal ends, a coord:offset that falls between two
// instances resolves to the latest instance at or before it (spec: coord 6.6.4,
// Oozie's coord_offset_sync), and coord:absolute, coord:endOf* and a
// datetime name that very instance.
func ResolveInstance(ctx *ELContext, text string) (Resolved, error) {
	return resolveInstances(ctx, text, text, true)
}

func resolveInstances(ctx *ELContext, startText, endText string, single bool) (Resolved, error) {
	in := ctx.instances()
	if err := in.check(); err != nil {
		return Resolved{}, err
	}
	start, err := parseInstance(ctx, startText)
	if err != nil {
		return Resolved{}, err
	}
	end, err := parseInstance(ctx, endText)
	if err != nil {
		return Resolved{}, err
	}
	var ts []time.Time
	switch {
	case single && (start.fn == "absolute" || start.fn == "literal" || strings.HasPrefix(start.fn, "endOf")):
		ts = []time.Time{start.at}
	case single && (start.fn == "current" || start.fn == "offset"):
		k, ok, err := in.rangeIndex(start, false)
		if err != nil {
			return Resolved{}, err
		}
		if ok && k >= 0 {
			ts = []time.Time{in.At(k)}
		}
	case start.fn == "latest" && end.fn == "latest":
		return Resolved{Unresolved: fmt.Sprintf("${coord:latestRange(%d,%d)}", start.n, end.n)}, nil
	case start.fn == "future" && end.fn == "future":
		return Resolved{Unresolved: fmt.Sprintf("${coord:futureRange(%d,%d,'%d')}", start.n, end.n, end.limit)}, nil
	case start.fn == "absolute" || start.fn == "literal" || strings.HasPrefix(start.fn, "endOf"):
		if end.fn != "current" {
			return Resolved{}, fmt.Errorf("E1021: Only start-instance as absolute/endOfMonths/endOfWeeks/endOfDays and end-instance as current is supported.")
		}
		if ts, err = in.AnchoredRange(start.at, end.n); err != nil {
			return Resolved{}, err
		}
	case (start.fn == "current" || start.fn == "offset") && (end.fn == "current" || end.fn == "offset"):
		first, ok1, err := in.rangeIndex(start, true)
		if err != nil {
			return Resolved{}, err
		}
		last, ok2, err := in.rangeIndex(end, false)
		if err != nil {
			return Resolved{}, err
		}
		if ok1 && ok2 {
			if first > last {
				return Resolved{}, fmt.Errorf("E1010: start-instance should be equal or earlier than the end-instance")
			}
			ts = in.rangeFrom(first, last)
		}
	default:
		return Resolved{}, fmt.Errorf("E1010: start-instance and end-instance both should be either latest or current or future or offset, start-instance is %s and end-instance is %s", start.fn, end.fn)
	}
	uris, err := resolveURIs(in.DS.URITemplate, ts, ctx.Processing, ctx.Vars)
	if err != nil {
		return Resolved{}, err
	}
	return Resolved{Instances: ts, URIs: uris}, nil
}

// rangeIndex turns a current/offset reference into an instance number.
func (in Instances) rangeIndex(r instanceRef, start bool) (int, bool, error) {
	if r.fn == "offset" {
		return in.offsetIndex(r.n, r.unit, start)
	}
	k, ok := in.Index(in.Action.NominalTime)
	return k + r.n, ok, nil
}

// parseSimpleInstance reads the common ${coord:current(n)} and
// ${coord:latest(n)} forms with a literal n without running EL, which
// matters when a year of actions is materialized at once.
func parseSimpleInstance(text string) (instanceRef, bool) {
	s := strings.TrimSpace(text)
	if !strings.HasPrefix(s, "${coord:") || !strings.HasSuffix(s, ")}") {
		return instanceRef{}, false
	}
	s = s[len("${coord:") : len(s)-2]
	name, arg, ok := strings.Cut(s, "(")
	if !ok || (name != "current" && name != "latest") {
		return instanceRef{}, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(arg))
	if err != nil {
		return instanceRef{}, false
	}
	return instanceRef{fn: name, n: n}, true
}
