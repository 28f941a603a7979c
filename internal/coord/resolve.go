package coord

import (
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

// markerVars makes MINUTE..YEAR usable unquoted in coord:offset, as job
// properties often write them.
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
// the arguments may be EL (coord:current(-(coord:hoursInDay(0) - 1))).
func parseInstance(ctx *ELContext, text string) (instanceRef, error) {
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
	parts := strings.Split(v, "\x00")
	if len(parts) < 2 || parts[0] != "" {
		return instanceRef{}, fmt.Errorf("instance %q: expected one coord:current, coord:offset, coord:absolute, coord:endOfDays/Weeks/Months, coord:latest or coord:future call", text)
	}
	ref := instanceRef{fn: parts[1]}
	switch ref.fn {
	case "offset":
		ref.n, _ = strconv.Atoi(parts[2])
		ref.unit = parts[3]
	case "future":
		ref.n, _ = strconv.Atoi(parts[2])
		ref.limit, _ = strconv.Atoi(parts[3])
	case "endOfDays", "endOfWeeks", "endOfMonths":
		ref.n, _ = strconv.Atoi(parts[2])
		e := map[string]schedule.EndOfDuration{"endOfDays": schedule.EndOfDay, "endOfWeeks": schedule.EndOfWeek, "endOfMonths": schedule.EndOfMonth}[ref.fn]
		if ref.at, err = ctx.instances().EndOf(e, ref.n); err != nil {
			return instanceRef{}, err
		}
	default:
		ref.n, _ = strconv.Atoi(parts[2])
	}
	return ref, nil
}

// buildMarkerRegistry defines the instance functions as markers
// ("\x00current\x00-1") so that parseInstance learns which function an
// instance calls after EL has evaluated its arguments; hoursInDay,
// daysInMonth and tzOffset are real, since arguments use them.
func buildMarkerRegistry() {
	r := Registry(PhaseActionCreate).Clone()
	mark := func(name string, params []el.Type) {
		r.Define("coord", name, params, func(c *el.Call) (any, error) {
			parts := []string{"", name}
			for _, a := range c.Args {
				parts = append(parts, el.ToString(a))
			}
			return strings.Join(parts, "\x00"), nil
		})
	}
	mark("current", l1)
	mark("offset", []el.Type{el.Long, el.String})
	mark("latest", l1)
	mark("future", l2)
	mark("endOfDays", l1)
	mark("endOfWeeks", l1)
	mark("endOfMonths", l1)
	markerReg = r
}

// ResolveRange resolves a <data-in> or <data-out> of the action in ctx whose
// instances are given by start and end texts (for a single <instance>, pass
// the same text twice). Ranges follow spec 6.6: current and offset ranges
// (offset starts fast-forward, ends rewind), absolute and endOf* starts with
// a current end, latest/future ranges left for action start.
func ResolveRange(ctx *ELContext, startText, endText string) (Resolved, error) {
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
	case start.fn == "latest" && end.fn == "latest":
		return Resolved{Unresolved: fmt.Sprintf("${coord:latestRange(%d,%d)}", start.n, end.n)}, nil
	case start.fn == "future" && end.fn == "future":
		return Resolved{Unresolved: fmt.Sprintf("${coord:futureRange(%d,%d,'%d')}", start.n, end.n, end.limit)}, nil
	case start.fn == "absolute" || strings.HasPrefix(start.fn, "endOf"):
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
