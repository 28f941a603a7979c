package coord

import (
	"fmt"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/el"
)

// LogicState is what the last input check of an action with input logic
// found (spec: coord 6.10), kept with the action's plan.
type LogicState struct {
	// Tree is the input logic as the check evaluated it, one line per
	// node, children indented by two spaces: which branch is satisfied,
	// which blocks, which was not looked at, and the wait clocks.
	Tree []string `json:",omitempty"`
	// WakeAt is the earliest time a wait the check is held by elapses:
	// the action is checked again then. Zero when no wait holds it.
	WakeAt time.Time `json:",omitzero"`
	// Data is, once the logic is satisfied, coord:dataIn of each named
	// node: the instances that satisfied it, comma-separated, as Oozie's
	// start-phase evaluation gives them.
	Data map[string]string `json:",omitempty"`
}

// lstatus is the outcome of one node (Oozie's
// CoordInputLogicEvaluatorResult, without PHASE_TWO_EVALUATION: gozie
// resolves coord:latest/future instances before the logic runs).
type lstatus uint8

const (
	lNone    lstatus = iota // no status: false
	lFalse                  // not satisfied
	lTrue                   // satisfied
	lWaiting                // a wait has not elapsed yet
)

func (s lstatus) String() string {
	switch s {
	case lTrue:
		return "satisfied"
	case lWaiting:
		return "waiting"
	default:
		return "blocked"
	}
}

type lresult struct {
	st   lstatus
	data []string // instance URIs, no done flag
}

// ok is Oozie's isTrue: a waiting result counts as true for the
// operators (an or stops at it), not for the action.
func (r lresult) ok() bool { return r.st == lTrue || r.st == lWaiting }

// logicEval evaluates an input logic for one action.
type logicEval struct {
	a      *App
	p      *ActionPlan
	final  bool // the start phase: known availability only, waits elapsed
	exists func(string) (bool, error)
	avail  map[string]bool
	from   time.Time // the later of nominal and creation time
	now    time.Time
	err    error
	wake   time.Time
	events map[string]*DataEvent
	notes  map[*LogicNode]string
	// stopped are the nodes whose look stopped at a missing instance
	// (no min): the instances after it were not asked for.
	stopped map[*LogicNode]bool
	// vars are the job's variables (URI templates of latest/future
	// instances); partial holds, by input event, the instances a data-in
	// with min accepted of a range still unresolved.
	vars    el.Resolver
	partial map[string][]string
}

func (a *App) newLogicEval(p *ActionPlan, exists func(string) (bool, error), now time.Time) *logicEval {
	from := p.NominalTime
	if p.CreatedTime.After(from) {
		from = p.CreatedTime
	}
	e := &logicEval{a: a, p: p, exists: exists, avail: map[string]bool{}, from: from, now: now,
		events: map[string]*DataEvent{}, notes: map[*LogicNode]string{}, stopped: map[*LogicNode]bool{},
		partial: map[string][]string{}}
	for _, ev := range a.Inputs {
		e.events[ev.Name] = ev
	}
	return e
}

// instances returns the URIs of an input event and their dependencies.
func (e *logicEval) instances(name string) (uris, deps []string) {
	ev := e.events[name]
	if ev == nil || ev.DS == nil {
		return nil, nil
	}
	uris = e.p.InputURIs[name]
	return uris, appendDoneFlags(nil, uris, ev.DS.DoneFlag)
}

// available answers whether dep is there: known from this check, else
// (before the start phase) asked.
func (e *logicEval) available(dep string) bool {
	if ok, seen := e.avail[dep]; seen || e.final {
		return ok
	}
	ok, err := e.exists(dep)
	if err != nil && e.err == nil {
		e.err = err
	}
	e.avail[dep] = ok && err == nil
	return e.avail[dep]
}

// elapsed is Oozie's isInputWaitElapsed: whole minutes since the later of
// nominal and creation time reach wait (-1: no wait).
func (e *logicEval) elapsed(wait int) bool {
	if wait < 0 || e.final {
		return true
	}
	return int64(wait) <= e.now.Sub(e.from).Milliseconds()/60000
}

// waitAt is when wait minutes have elapsed.
func (e *logicEval) waitAt(wait int) time.Time {
	return e.from.Add(time.Duration(wait) * time.Minute)
}

// result is Oozie's getEvalResult: a node whose instances are not all
// there waits while its wait runs; then it is satisfied by all, or by
// at least min (min 0: always).
func (e *logicEval) result(found bool, args logicArgs, list []string) lresult {
	if !found && args.wait > 0 && !e.elapsed(args.wait) {
		if at := e.waitAt(args.wait); e.wake.IsZero() || at.Before(e.wake) {
			e.wake = at
		}
		return lresult{st: lWaiting}
	}
	r := lresult{st: lNone}
	if found || (args.min > 0 && len(list) >= args.min) {
		r = lresult{st: lTrue, data: list}
	}
	if args.min == 0 {
		r.st = lTrue
		if e.final {
			r.data = list
		}
	}
	return r
}

func (e *logicEval) eval(n *LogicNode, args logicArgs) lresult {
	var r lresult
	switch n.Op {
	case LogicDataIn:
		r = e.input(n, args)
	case LogicCombine:
		r = e.combine(n, args)
	case LogicOr:
		r = lresult{st: lNone}
		for _, k := range n.Children {
			if r = e.eval(k, childArgs(args, k)); r.ok() {
				break
			}
		}
	case LogicAnd:
		r = e.and(n, args)
	}
	if _, seen := e.notes[n]; !seen {
		e.notes[n] = e.note(n, args, r)
	}
	return r
}

// and is satisfied when every child is; it stops at the first that is
// not. Its instances are the children's, the last child's first (Oozie
// appends the left operand's to the right's). A child still waiting
// makes the and wait — where Oozie's interpreter lets a later satisfied
// child answer for it, which would start the action without the data
// the wait is for.
func (e *logicEval) and(n *LogicNode, args logicArgs) lresult {
	r := lresult{st: lNone}
	waiting := false
	var data []string
	for _, k := range n.Children {
		if r = e.eval(k, childArgs(args, k)); !r.ok() {
			return r
		}
		waiting = waiting || r.st == lWaiting
		data = append(append([]string(nil), r.data...), data...)
	}
	if waiting {
		return lresult{st: lWaiting}
	}
	r.data = data
	return r
}

// input evaluates a data-in: without min it stops at the first missing
// instance, with min it looks at them all.
func (e *logicEval) input(n *LogicNode, args logicArgs) lresult {
	if text, still := e.p.UnresolvedByEvent[n.Input]; still {
		return e.unresolvedInput(n, args, text)
	}
	uris, deps := e.instances(n.Input)
	if len(uris) == 0 {
		if args.min == 0 {
			return lresult{st: lTrue}
		}
		return lresult{st: lFalse}
	}
	found := true
	var list []string
	for i, d := range deps {
		if e.available(d) {
			list = append(list, uris[i])
			continue
		}
		found = false
		if args.min < 0 {
			e.stopped[n] = i < len(deps)-1
			break
		}
	}
	return e.result(found, args, list)
}

// combine takes each instance of the first data-in, or, when it is
// missing, the same instance of the others that have it.
func (e *logicEval) combine(n *LogicNode, args logicArgs) lresult {
	sets := logicInputs(n)
	if len(sets) == 0 {
		return lresult{st: lFalse} // submission refuses it (E1028)
	}
	first, firstDeps := e.instances(sets[0])
	if len(first) == 0 {
		// Oozie: a combine whose first set has no instance waits.
		if e.final {
			return lresult{st: lFalse}
		}
		return lresult{st: lWaiting}
	}
	var list []string
	for i, d := range firstDeps {
		found := false
		if e.available(d) {
			list = append(list, first[i])
			found = true
		} else {
			for _, s := range sets[1:] {
				uris, deps := e.instances(s)
				if i < len(deps) && e.available(deps[i]) {
					list = append(list, uris[i])
					found = true
				}
			}
		}
		if args.min < 0 && !found && !e.final {
			e.stopped[n] = i < len(firstDeps)-1
			break
		}
	}
	return e.result(len(list) == len(first), args, list)
}

// note renders one node's line of the report.
func (e *logicEval) note(n *LogicNode, args logicArgs, r lresult) string {
	var b strings.Builder
	b.WriteString(n.Op)
	if n.Op == LogicDataIn {
		b.WriteString(" " + n.Input)
	}
	if n.Name != "" {
		fmt.Fprintf(&b, " name=%s", n.Name)
	}
	if args.min >= 0 {
		fmt.Fprintf(&b, " min=%d", args.min)
	}
	b.WriteString(": " + r.st.String())
	var sets []string
	switch n.Op {
	case LogicDataIn:
		sets = []string{n.Input}
	case LogicCombine:
		sets = logicInputs(n)
	}
	if len(sets) > 0 {
		total, have := 0, 0
		for i, s := range sets {
			_, deps := e.instances(s)
			if i == 0 {
				total = len(deps)
			}
			for _, d := range deps {
				if e.avail[d] {
					have++
				}
			}
		}
		if _, still := e.p.UnresolvedByEvent[n.Input]; still && n.Op == LogicDataIn {
			b.WriteString(", latest/future instances unresolved")
		} else {
			fmt.Fprintf(&b, ", %d of %d instances available", have, total)
			if e.stopped[n] {
				b.WriteString(" (looked up to the first missing)")
			}
		}
	}
	if args.wait > 0 {
		at := e.a.Processing.Format(e.waitAt(args.wait))
		if e.elapsed(args.wait) {
			fmt.Fprintf(&b, ", wait %d min elapsed at %s", args.wait, at)
		} else {
			fmt.Fprintf(&b, ", wait %d min, applies at %s", args.wait, at)
		}
	}
	return b.String()
}

// tree renders the evaluated logic; nodes the evaluation did not reach
// are "not checked".
func (e *logicEval) tree(l *InputLogic) []string {
	var out []string
	var walk func(n *LogicNode, depth int)
	walk = func(n *LogicNode, depth int) {
		line, ok := e.notes[n]
		if !ok {
			line = n.Op
			if n.Op == LogicDataIn {
				line += " " + n.Input
			}
			if n.Name != "" {
				line += " name=" + n.Name
			}
			line += ": not checked"
		}
		out = append(out, strings.Repeat("  ", depth)+line)
		for _, k := range n.Children {
			walk(k, depth+1)
		}
	}
	for _, n := range l.Nodes {
		walk(n, 0)
	}
	return out
}

// checkLogic decides the readiness of an action with input logic: the
// root node satisfied (a waiting root is not). The missing dependencies
// are every dependency not known available, in plan order; once ready,
// coord:dataIn of each named node is computed from what was found.
func (a *App) checkLogic(p *ActionPlan, vars el.Resolver, exists func(string) (bool, error), now time.Time) (*CheckResult, error) {
	root := a.InputLogic.Root()
	e := a.newLogicEval(p, exists, now)
	e.vars = vars
	r := e.eval(root, rootArgs(root))
	if e.err != nil {
		return nil, e.err
	}
	state := &LogicState{Tree: e.tree(a.InputLogic), WakeAt: e.wake}
	res := &CheckResult{Plan: p, Ready: r.st == lTrue}
	if res.Ready {
		a.applyPartial(p, e.partial, e.avail)
	}
	// Missing: those the logic asked for and did not find, then those it
	// did not ask for (NotChecked), each in plan order, so that the first
	// (-missingdeps' "Blocked on") is one the logic waits for.
	var notAsked []string
	for _, d := range p.Dependencies {
		switch ok, asked := e.avail[d]; {
		case !asked:
			notAsked = append(notAsked, d)
		case !ok:
			res.Missing = append(res.Missing, d)
		}
	}
	res.Missing = append(res.Missing, notAsked...)
	res.NotChecked = len(notAsked)
	if res.Ready {
		// What the satisfied logic did not need is not missing.
		res.Missing, res.NotChecked = nil, 0
		state.WakeAt = time.Time{}
		state.Data = a.logicData(p, e.avail)
	} else {
		res.Missing = append(res.Missing, p.Unresolved...)
		res.Unresolved = p.Unresolved
		res.TimedOut = a.timedOut(p.NominalTime, p.CreatedTime, now)
	}
	p.Logic = state
	return res, nil
}

// logicData is coord:dataIn of every named node of the logic, given the
// dependencies known available (Oozie's start-phase evaluation, where a
// node that is not satisfied echoes the call).
func (a *App) logicData(p *ActionPlan, avail map[string]bool) map[string]string {
	out := map[string]string{}
	for _, name := range a.InputLogic.Names() {
		if _, done := out[name]; done {
			continue
		}
		n := a.InputLogic.Find(name)
		e := a.newLogicEval(p, nil, time.Time{})
		e.final = true
		for d, ok := range avail {
			e.avail[d] = ok
		}
		if r := e.eval(n, rootArgs(n)); r.ok() {
			out[name] = strings.Join(r.data, ",")
		}
	}
	return out
}

// ValidateLogic applies to one materialized action the checks Oozie's
// dry run makes of the input logic (CoordInputLogicEvaluatorPhaseValidate):
// every data-in of a combine with as many instances as the first.
func (a *App) ValidateLogic(p *ActionPlan) error {
	if a.InputLogic == nil {
		return nil
	}
	count := func(name string) int {
		if _, ok := p.UnresolvedByEvent[name]; ok {
			return 1
		}
		return len(p.InputURIs[name])
	}
	var walk func(n *LogicNode) error
	walk = func(n *LogicNode) error {
		if n.Op == LogicCombine {
			sets := logicInputs(n)
			for _, s := range sets[1:] {
				if count(s) != count(sets[0]) {
					return errorf(CodeInputLogic, "Coord input logic error. Combine should have same range. DataSets : [%s]", strings.Join(sets, ", "))
				}
			}
		}
		for _, k := range n.Children {
			if err := walk(k); err != nil {
				return err
			}
		}
		return nil
	}
	for _, n := range a.InputLogic.Nodes {
		if err := walk(n); err != nil {
			return err
		}
	}
	return nil
}
