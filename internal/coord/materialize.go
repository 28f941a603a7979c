package coord

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/hcaturi"
	"github.com/gozie/gozie/internal/schedule"
	"github.com/gozie/gozie/internal/vocab"
)

// Defaults of PlanOptions.
const (
	DefaultWindow    = time.Hour
	DefaultBatchSize = 10000
	DefaultLookahead = 5 * time.Minute
)

// Materialize plans the next actions of the job from st: from the next
// materialization time by the frequency up to the window end, the job's end
// or pause time, within the throttle (throttle minus WAITING actions).
// A window already in the past catches up: it extends to throttle
// frequencies after its start (cron: to the job end), and for LAST_ONLY and
// NONE to now, bounded by the batch size instead of the throttle. A run
// whose next materialization time is more than the lookahead after now
// plans nothing. It never reads the clock: opts.Now is the current time.
func (a *App) Materialize(st PlanState, opts PlanOptions, props *conf.Config) (*Plan, error) {
	window, batch, look := opts.Window, opts.BatchSize, opts.Lookahead
	if window <= 0 {
		window = DefaultWindow
	}
	if batch == 0 {
		batch = DefaultBatchSize
	}
	if look <= 0 {
		look = DefaultLookahead
	}
	plan := &Plan{LastActionNumber: st.LastActionNumber, NextMaterializedTime: st.NextMaterializedTime}
	start := st.NextMaterializedTime
	if start.IsZero() {
		start = a.Start
	}
	if !start.Before(a.End) {
		plan.Done = true
		return plan, nil
	}
	if start.After(opts.Now.Add(look)) {
		return plan, nil
	}
	end := start.Add(window)
	if !end.After(opts.Now) {
		end = a.catchUpEnd(start, end, opts.Now)
	}
	if end.After(a.End) {
		end = a.End
	}
	lastOnly := a.Execution == LastOnly || a.Execution == None
	ignoreThrottle := lastOnly && end.Before(opts.Now)
	limit := a.Throttle - st.WaitingActions
	if ignoreThrottle {
		limit = batch
		if batch < 0 {
			limit = -1
		}
	} else if limit < 1 {
		return plan, nil
	}
	var created string
	if props != nil {
		var err error
		if created, err = confXML(props); err != nil {
			return nil, err
		}
	}
	var err error
	next, last := a.walk(start, st.LastActionNumber, end, st.PauseTime, limit, func(n int, nominal time.Time) bool {
		var p *ActionPlan
		if p, err = a.planAction(n, nominal, opts.Now, props, created, true); err != nil {
			return false
		}
		plan.Actions = append(plan.Actions, p)
		return true
	})
	if err != nil {
		return nil, err
	}
	plan.LastActionNumber, plan.NextMaterializedTime = last, next
	plan.Done = !next.Before(a.End)
	return plan, nil
}

// catchUpEnd is the end of a materialization window that lies in the past.
func (a *App) catchUpEnd(start, windowEnd, now time.Time) time.Time {
	if a.Execution == LastOnly || a.Execution == None {
		return now
	}
	if a.Freq.Unit == schedule.CronUnit {
		return a.End
	}
	prev := start
	var t time.Time
	for i := 1; i <= a.Throttle; i++ {
		t = schedule.Step(start, a.Freq.Unit, i*a.Freq.N, a.Location)
		if !t.Before(a.End) {
			return t // capped at the job end by the caller whatever comes next
		}
		if !t.Before(now) {
			if prev.After(windowEnd) {
				return prev
			}
			return windowEnd
		}
		prev = t
	}
	if t.IsZero() {
		return windowEnd
	}
	return t
}

// walk calls emit with the number and nominal time of each action from
// start (the next materialization time) before end and pause, at most limit
// of them (negative: no limit), and returns the next materialization time
// and the last action number. Unit frequencies compute each nominal time
// from the job start in one add (no drift after month-end clamping); cron
// frequencies take the next fire time, DST-corrected when fires are a day
// or more apart.
func (a *App) walk(start time.Time, lastNumber int, end, pause time.Time, limit int, emit func(int, time.Time) bool) (time.Time, int) {
	paused := func(t time.Time) bool { return !pause.IsZero() && !t.Before(pause) }
	if a.Freq.Unit == schedule.CronUnit {
		cur := start.Add(-time.Minute)
		pz := a.Processing.Location()
		for {
			fire, ok := a.Freq.Cron.Next(cur, pz)
			if !ok {
				return a.End, lastNumber
			}
			if !fire.Before(end) || limit == 0 || paused(fire) {
				return fire, lastNumber
			}
			nominal := fire
			if fire.Sub(cur) >= 24*time.Hour {
				nominal = schedule.CronDSTCorrection(a.Start, fire, a.Location)
			}
			lastNumber++
			limit--
			if !emit(lastNumber, nominal) {
				return fire, lastNumber
			}
			cur = fire
		}
	}
	s := schedule.Schedule{Start: a.Start, End: a.End, Freq: a.Freq, Loc: a.Location}
	for {
		t := s.Nominal(lastNumber)
		if !t.Before(end) || limit == 0 || paused(t) {
			return t, lastNumber
		}
		lastNumber++
		limit--
		if !emit(lastNumber, t) {
			return t, lastNumber
		}
	}
}

// planAction materializes action n: its data-in/data-out instances resolved
// for the nominal time, dependencies with done flags, and its action XML.
// createdConf is the job configuration XML every action shares; withXML
// builds ActionXML.
func (a *App) planAction(n int, nominal, created time.Time, props *conf.Config, createdConf string, withXML bool) (*ActionPlan, error) {
	p := &ActionPlan{
		Number: n, NominalTime: nominal, CreatedTime: created, CreatedConf: createdConf,
		InputURIs: make(map[string][]string, len(a.Inputs)), OutputURIs: make(map[string][]string, len(a.Outputs)),
	}
	act := &Action{NominalTime: nominal, ActualTime: created, Location: a.Location, Name: a.Name}
	vars := confVars{props}
	p.vars = vars
	for _, ev := range a.Inputs {
		uris, unresolved, err := a.resolveEvent(ev, act, vars)
		if err != nil {
			return nil, err
		}
		if len(uris) > 0 || unresolved == "" {
			p.InputURIs[ev.Name] = uris
		}
		p.Dependencies = appendDoneFlags(p.Dependencies, uris, ev.DS.DoneFlag)
		if unresolved != "" {
			if p.UnresolvedByEvent == nil {
				p.UnresolvedByEvent = map[string]string{}
			}
			p.UnresolvedByEvent[ev.Name] = unresolved
			p.Unresolved = append(p.Unresolved, unresolved)
		}
	}
	for _, ev := range a.Outputs {
		uris, unresolved, err := a.resolveEvent(ev, act, vars)
		if err != nil {
			return nil, err
		}
		if unresolved != "" {
			// Oozie keeps the instance unresolved; its input check fails.
			if p.OutputUnresolved == nil {
				p.OutputUnresolved = map[string]string{}
			}
			p.OutputUnresolved[ev.Name] = unresolved
		}
		p.OutputURIs[ev.Name] = uris
	}
	if withXML {
		p.ActionXML = a.actionXML(p)
	}
	return p, nil
}

// appendDoneFlags appends the done-flag URIs of uris to deps, all sharing
// one backing string.
func appendDoneFlags(deps, uris []string, flag *string) []string {
	// The URIs of one dataset share its template's scheme: HCatalog
	// partitions take no flag (DoneFlagURI).
	if flag != nil && *flag == "" || len(uris) > 0 && hcaturi.IsHCat(uris[0]) {
		for _, u := range uris {
			deps = append(deps, DoneFlagURI(u, flag))
		}
		return deps
	}
	suffix := "/_SUCCESS"
	if flag != nil {
		suffix = "/" + *flag
	}
	n := 0
	for _, u := range uris {
		n += len(u) + len(suffix)
	}
	var b strings.Builder
	b.Grow(n)
	for _, u := range uris {
		b.WriteString(u)
		b.WriteString(suffix)
	}
	all := b.String()
	if deps == nil {
		deps = make([]string, 0, len(uris))
	}
	start := 0
	for _, u := range uris {
		end := start + len(u) + len(suffix)
		deps = append(deps, all[start:end])
		start = end
	}
	return deps
}

// resolveEvent resolves one event's instances for an action; unresolved is
// the latest/future part left for the start phase ('#'-joined when several
// <instance> elements stay unresolved).
func (a *App) resolveEvent(ev *DataEvent, act *Action, vars confVars) ([]string, string, error) {
	ctx := &ELContext{Dataset: ev.DS, Action: act, Processing: a.Processing, Vars: vars}
	pairs := [][2]string{{ev.StartInstance, ev.EndInstance}}
	if !ev.IsRange() {
		pairs = pairs[:0]
		for _, in := range ev.Instances {
			pairs = append(pairs, [2]string{in, in})
		}
	}
	var uris, unresolved []string
	for _, pr := range pairs {
		if t, ok := a.literalInstance(pr[0]); ok && pr[0] == pr[1] {
			// A literal datetime names one instance (spec: coord 6.1.4 example 1).
			uri, err := ResolveURI(ev.DS.URITemplate, t, a.Processing, vars)
			if err != nil {
				return nil, "", codedError(err, CodeEL, "")
			}
			uris = append(uris, uri)
			continue
		}
		var res Resolved
		var err error
		if ev.IsRange() {
			res, err = ResolveRange(ctx, pr[0], pr[1])
		} else {
			res, err = ResolveInstance(ctx, pr[0])
		}
		if err != nil {
			return nil, "", codedError(err, CodeInstanceRange, fmt.Sprintf("%s [%s]: ", map[bool]string{true: "data-out", false: "data-in"}[ev.Output], ev.Name))
		}
		if res.Unresolved != "" {
			unresolved = append(unresolved, res.Unresolved)
			continue
		}
		uris = append(uris, res.URIs...)
	}
	return uris, strings.Join(unresolved, "#"), nil
}

// literalInstance reads an instance written as a datetime.
func (a *App) literalInstance(text string) (time.Time, bool) {
	text = strings.TrimSpace(text)
	if strings.Contains(text, "coord:") || el.HasExpr(text) {
		return time.Time{}, false
	}
	t, err := a.Processing.Parse(text)
	return t, err == nil
}

// codedError turns an error whose text starts with an Oozie code ("E1010:
// ...") into an *Error, else gives it code def; prefix goes before the
// message.
func codedError(err error, def, prefix string) error {
	if e := vocab.AsCoded(err); e != nil {
		return &Error{Code: e.Code, Msg: prefix + e.Msg}
	}
	msg := err.Error()
	if len(msg) > 7 && msg[0] == 'E' && msg[5] == ':' {
		return &Error{Code: msg[:5], Msg: prefix + strings.TrimSpace(msg[6:])}
	}
	return &Error{Code: def, Msg: prefix + msg}
}

// actionXMLParts are the parts of an action XML that are the same for
// every action of a job, built once.
type actionXMLParts struct {
	head      string // up to instance-number="
	controls  string // the <controls> block
	events    []eventXMLParts
	action    string // the <action> block and the closing tag
	dynamic   bool   // the action block has values materialization resolves
	totalSize int
}

type eventXMLParts struct {
	ev          *DataEvent
	open, close string // around <uris>: group/element openings with the dataset; element closing
	groupClose  string // closes the group after its last event, else ""
}

func (a *App) xmlParts() *actionXMLParts {
	a.partsOnce.Do(func() {
		x := &actionXMLParts{}
		var b strings.Builder
		fmt.Fprintf(&b, "<coordinator-app xmlns=%q", a.Namespace)
		if a.SLA != nil {
			fmt.Fprintf(&b, " xmlns:sla=%q", a.SLA.Namespace)
		}
		fmt.Fprintf(&b, " name=%s frequency=%q timezone=%s freq_timeunit=%q end_of_duration=%q instance-number=\"",
			attrQuote(a.Name), a.Frequency, attrQuote(a.TimeZone), freqUnitName(a.Freq), a.Freq.End.String())
		x.head = b.String()
		x.controls = fmt.Sprintf("  <controls>\n    <timeout>%d</timeout>\n    <concurrency>%d</concurrency>\n    <execution>%s</execution>\n    <throttle>%d</throttle>\n  </controls>\n",
			a.Timeout, a.Concurrency, a.Execution, a.Throttle)
		group := func(name, kind string, evs []*DataEvent) {
			for i, ev := range evs {
				var o strings.Builder
				if i == 0 {
					o.WriteString("  <" + name + ">\n")
				}
				fmt.Fprintf(&o, "    <%s name=%s dataset=%s>\n", kind, attrQuote(ev.Name), attrQuote(ev.Dataset))
				o.WriteString(ev.DS.xml("      ", a.Processing, true))
				ep := eventXMLParts{ev: ev, open: o.String(), close: "    </" + kind + ">\n"}
				if i == len(evs)-1 {
					ep.groupClose = "  </" + name + ">\n"
					if kind == "data-in" && a.InputLogic != nil {
						// Oozie's action XML keeps the input logic after
						// the input events.
						var l strings.Builder
						a.InputLogic.xml(&l)
						ep.groupClose += l.String()
					}
				}
				x.events = append(x.events, ep)
			}
		}
		group("input-events", "data-in", a.Inputs)
		group("output-events", "data-out", a.Outputs)
		var t strings.Builder
		t.WriteString("  <action>\n")
		t.WriteString(a.workflowXML("    ", a.AppPath, a.Configuration))
		if a.SLA != nil {
			t.WriteString(a.SLA.xml("    ", a.SLA.Fields))
		}
		t.WriteString("  </action>\n</coordinator-app>")
		x.action = t.String()
		x.dynamic = hasEarlySegments(a.AppPath)
		for _, p := range a.Configuration {
			x.dynamic = x.dynamic || hasEarlySegments(p.Value)
		}
		if a.SLA != nil {
			for _, f := range a.SLA.Fields {
				x.dynamic = x.dynamic || hasEarlySegments(f.Value)
			}
		}
		x.totalSize = len(x.head) + len(x.controls) + len(x.action) + 100
		for _, e := range x.events {
			x.totalSize += len(e.open) + len(e.close) + len(e.groupClose) + 30
		}
		a.parts = x
	})
	return a.parts
}

// actionXML is the materialized action as Oozie stores it: the app with the
// action's number and times as attributes, each event's dataset, its
// resolved <uris> ('#'-separated) and any <unresolved-instances>.
func (a *App) actionXML(p *ActionPlan) string {
	x := a.xmlParts()
	size := x.totalSize
	for _, e := range x.events {
		for _, u := range p.uris(e.ev) {
			size += len(u) + 1
		}
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(x.head)
	b.WriteString(strconv.Itoa(p.Number))
	b.WriteString(`" action-nominal-time="`)
	b.WriteString(a.Processing.Format(p.NominalTime))
	b.WriteString(`" action-actual-time="`)
	b.WriteString(a.Processing.Format(p.CreatedTime))
	b.WriteString("\">\n")
	b.WriteString(x.controls)
	for _, e := range x.events {
		b.WriteString(e.open)
		b.WriteString("      <uris>")
		for i, u := range p.uris(e.ev) {
			if i > 0 {
				b.WriteByte('#')
			}
			b.WriteString(xmlText(u))
		}
		b.WriteString("</uris>\n")
		if u := p.unresolved(e.ev); u != "" {
			b.WriteString("      <unresolved-instances>" + xmlText(u) + "</unresolved-instances>\n")
		}
		b.WriteString(e.close)
		b.WriteString(e.groupClose)
	}
	if block, ok := a.resolvedActionBlock(p); ok {
		b.WriteString(block)
	} else {
		b.WriteString(x.action)
	}
	return b.String()
}

// resolvedActionBlock is the <action> block of an action's XML with what
// materialization can resolve resolved, or false when the definition's
// block stands as it is: nothing to resolve, or a block that would pass
// the action bound (App.MaxActionBytes), which resolving stops at instead
// of building first. The run configuration at start is bounded the same
// way and fails the action.
func (a *App) resolvedActionBlock(p *ActionPlan) (string, bool) {
	if !a.xmlParts().dynamic {
		return "", false
	}
	limit := a.maxAction()
	left := limit
	early := func(ctx *ELContext, text string) (string, bool) {
		v, ok := resolveEarly(ctx, text, left)
		left -= len(v)
		return v, ok && left >= 0
	}
	ctx := &ELContext{Processing: a.Processing, Vars: p.vars,
		Action: &Action{NominalTime: p.NominalTime, ActualTime: p.CreatedTime, Location: a.Location, ID: p.ID, Name: a.Name}}
	appPath, ok := early(ctx, a.AppPath)
	if !ok {
		return "", false
	}
	props := make([]Property, len(a.Configuration))
	for i, pr := range a.Configuration {
		v, ok := early(ctx, pr.Value)
		if !ok {
			return "", false
		}
		props[i] = Property{Name: pr.Name, Value: v}
	}
	var b strings.Builder
	b.WriteString("  <action>\n")
	b.WriteString(a.workflowXML("    ", appPath, props))
	if a.SLA != nil {
		slaCtx := *ctx
		slaCtx.Vars = el.SLAUnits(p.vars)
		fields := make([]Property, len(a.SLA.Fields))
		for i, f := range a.SLA.Fields {
			v, ok := early(&slaCtx, f.Value)
			if !ok {
				return "", false
			}
			fields[i] = Property{Name: f.Name, Value: v}
		}
		b.WriteString(a.SLA.xml("    ", fields))
	}
	b.WriteString("  </action>\n</coordinator-app>")
	// Escaping can make the block longer than its values.
	if b.Len() > limit+len(a.xmlParts().action) {
		return "", false
	}
	return b.String(), true
}

// uris returns the action's URIs of an event.
func (p *ActionPlan) uris(ev *DataEvent) []string {
	if ev.Output {
		return p.OutputURIs[ev.Name]
	}
	return p.InputURIs[ev.Name]
}

// unresolved returns the action's unresolved latest/future text of an event.
func (p *ActionPlan) unresolved(ev *DataEvent) string {
	if ev.Output {
		return p.OutputUnresolved[ev.Name]
	}
	return p.UnresolvedByEvent[ev.Name]
}

// freqUnitName is the freq_timeunit attribute of an action: the base unit
// (CRON for cron frequencies).
func freqUnitName(f schedule.Frequency) string {
	if f.Unit == schedule.CronUnit {
		return "CRON"
	}
	return f.Unit.String()
}
