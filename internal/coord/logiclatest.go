package coord

import (
	"regexp"
	"strconv"
	"time"
)

// unresolvedRE reads the unresolved range texts materialization leaves
// for coord:latest/future instances (resolveInstances writes them).
var unresolvedRE = regexp.MustCompile(`^\$\{coord:(latestRange|futureRange)\((-?\d+),(-?\d+)(?:,'(\d+)')?\)\}$`)

// partialInstances finds, for one unresolved range text of an input
// event, the instances of the range that exist now: what Oozie's latest
// and future evaluation leaves as its resolved path when the whole range
// is not there yet, and what a data-in with min accepts when there are at
// least min of them (CoordInputLogicEvaluatorPhaseTwo). Newest first.
func (e *logicEval) partialInstances(ev *DataEvent, text string) ([]time.Time, bool) {
	m := unresolvedRE.FindStringSubmatch(text)
	if m == nil || e.vars == nil {
		return nil, false
	}
	start, _ := strconv.Atoi(m[2])
	end, _ := strconv.Atoi(m[3])
	act := &Action{NominalTime: e.p.NominalTime, ActualTime: e.p.CreatedTime, Location: e.a.Location, ID: e.p.ID, Name: e.a.Name}
	ctx := &ELContext{Dataset: ev.DS, Action: act, Processing: e.a.Processing, Vars: e.vars, Exists: func(uri string) bool {
		return e.available(uri)
	}}
	var ts []time.Time
	var err error
	if m[1] == "latestRange" {
		err = ctx.latestFrom(func(avail int, t time.Time) bool {
			if avail <= end && avail >= start {
				ts = append(ts, t)
			}
			return avail > start
		})
	} else {
		limit, _ := strconv.Atoi(m[4])
		err = ctx.futureFrom(limit, func(avail int, t time.Time) bool {
			if avail >= start && avail <= end {
				ts = append([]time.Time{t}, ts...)
			}
			return avail < end
		})
	}
	if err != nil {
		if e.err == nil {
			e.err = err
		}
		return nil, false
	}
	return ts, true
}

// unresolvedInput evaluates a data-in whose event still has unresolved
// coord:latest/future instances (Oozie's phase two): it waits while its
// wait runs; then, with a min, it is satisfied by at least min instances
// of each of its ranges found, which become the event's instances once
// the whole logic is satisfied.
func (e *logicEval) unresolvedInput(n *LogicNode, args logicArgs, text string) lresult {
	if args.wait > 0 && !e.elapsed(args.wait) {
		if at := e.waitAt(args.wait); e.wake.IsZero() || at.Before(e.wake) {
			e.wake = at
		}
		return lresult{st: lWaiting}
	}
	ev := e.events[n.Input]
	if args.min <= 0 || e.final || ev == nil || ev.DS == nil {
		return lresult{st: lFalse}
	}
	var uris []string
	for _, part := range splitUnresolved(text) {
		ts, ok := e.partialInstances(ev, part)
		if !ok || len(ts) < args.min {
			return lresult{st: lFalse}
		}
		for _, t := range ts {
			u, err := ResolveURI(ev.DS.URITemplate, t, e.a.Processing, e.vars)
			if err != nil {
				if e.err == nil {
					e.err = codedError(err, CodeEL, "data-in ["+ev.Name+"]: ")
				}
				return lresult{st: lFalse}
			}
			uris = append(uris, u)
		}
	}
	e.partial[n.Input] = uris
	return lresult{st: lTrue, data: uris}
}

// applyPartial makes the instances a data-in with min accepted of an
// unresolved event the event's instances (they exist: the search found
// them), in a plan whose logic is satisfied.
func (a *App) applyPartial(p *ActionPlan, partial map[string][]string, avail map[string]bool) {
	if len(partial) == 0 {
		return
	}
	for name, uris := range partial {
		ev := a.eventByName(name)
		if ev == nil {
			continue
		}
		p.InputURIs[name] = append(p.InputURIs[name], uris...)
		for _, d := range appendDoneFlags(nil, uris, ev.DS.DoneFlag) {
			avail[d] = true
		}
		delete(p.UnresolvedByEvent, name)
	}
	p.Unresolved, p.Dependencies = nil, nil
	for _, ev := range a.Inputs {
		p.Dependencies = appendDoneFlags(p.Dependencies, p.InputURIs[ev.Name], ev.DS.DoneFlag)
		if u := p.UnresolvedByEvent[ev.Name]; u != "" {
			p.Unresolved = append(p.Unresolved, u)
		}
	}
	if p.ActionXML != "" {
		p.ActionXML = a.actionXML(p)
	}
}

func (a *App) eventByName(name string) *DataEvent {
	for _, ev := range a.Inputs {
		if ev.Name == name {
			return ev
		}
	}
	return nil
}
