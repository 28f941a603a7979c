package coord

import (
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/el"
)

// Property names of the workflow configuration an action submits.
const (
	PropWfAppPath = "oozie.wf.application.path"
)

// CheckInputs checks the inputs of a materialized action at now: it first
// resolves pending coord:latest/future instances with exists (latest
// searches back from the action's creation time, future forward from its
// nominal time), then checks the dependencies in order. As in Oozie the
// check stops at the first missing URI: it and everything after it are
// reported missing. The action is READY when nothing is missing and nothing
// is unresolved; otherwise it is TIMEDOUT once it has waited more than the
// timeout (whole minutes since the later of nominal and creation time; -1
// never; 0 at the first check that finds it not ready). A nil exists finds
// nothing.
//
// With <input-logic> (spec: coord 6.10) readiness is the logic's instead
// (checkLogic): its nodes are evaluated in their order, each data-in
// stopping at its first missing instance unless it has a min, and every
// dependency not found is missing; the plan's Logic records the
// evaluated tree, the time the next wait ends and, once satisfied,
// coord:dataIn of the named nodes.
//
// An output instance named with coord:latest or coord:future is never
// resolved (Oozie keeps it unresolved; coord:dataOut of it is empty). As
// in Oozie's input check, it fails the check (E1021, see
// checkOutputsResolvable) only for an action that has latest/future
// inputs, once its other inputs are all there; otherwise it is not looked
// at and the action may run.
func (a *App) CheckInputs(p *ActionPlan, props *conf.Config, exists func(uri string) (bool, error), now time.Time) (*CheckResult, error) {
	if exists == nil {
		exists = func(string) (bool, error) { return false, nil }
	}
	if err := a.checkOutputsResolvable(p, exists); err != nil {
		return nil, err
	}
	np := *p
	var existErr error
	existsBool := func(uri string) bool {
		ok, err := exists(uri)
		if err != nil && existErr == nil {
			existErr = err
		}
		return ok
	}
	if len(p.UnresolvedByEvent) > 0 {
		// Resolution changes the inputs: work on copies, the caller's plan
		// stays as it was.
		np.InputURIs = maps.Clone(p.InputURIs)
		if np.InputURIs == nil {
			np.InputURIs = map[string][]string{}
		}
		np.UnresolvedByEvent = maps.Clone(p.UnresolvedByEvent)
		np.Unresolved = nil
		vars := confVars{props}
		act := &Action{NominalTime: p.NominalTime, ActualTime: p.CreatedTime, Location: a.Location, ID: p.ID, Name: a.Name}
		for _, ev := range a.Inputs {
			text := p.UnresolvedByEvent[ev.Name]
			if text == "" {
				continue
			}
			var still []string
			for _, part := range splitUnresolved(text) {
				ctx := &ELContext{Dataset: ev.DS, Action: act, Processing: a.Processing, Vars: vars, Exists: existsBool}
				out, err := Eval(PhaseActionStart, ctx, part)
				if existErr != nil {
					return nil, existErr
				}
				if err != nil {
					return nil, codedError(err, CodeInstanceRange, "data-in ["+ev.Name+"]: ")
				}
				if ctx.Unresolved {
					still = append(still, part)
					continue
				}
				for _, ts := range strings.Split(out, "#") {
					t, err := a.Processing.Parse(strings.TrimSpace(ts))
					if err != nil {
						return nil, codedError(err, CodeInstanceRange, "data-in ["+ev.Name+"]: ")
					}
					uri, err := ResolveURI(ev.DS.URITemplate, t, a.Processing, vars)
					if err != nil {
						return nil, codedError(err, CodeEL, "data-in ["+ev.Name+"]: ")
					}
					np.InputURIs[ev.Name] = append(np.InputURIs[ev.Name], uri)
				}
			}
			if len(still) > 0 {
				np.UnresolvedByEvent[ev.Name] = strings.Join(still, "#")
				np.Unresolved = append(np.Unresolved, np.UnresolvedByEvent[ev.Name])
			} else {
				delete(np.UnresolvedByEvent, ev.Name)
			}
		}
		np.Dependencies = nil
		for _, ev := range a.Inputs {
			for _, u := range np.InputURIs[ev.Name] {
				np.Dependencies = append(np.Dependencies, DoneFlagURI(u, ev.DS.DoneFlag))
			}
		}
		if np.ActionXML != "" {
			np.vars = confVars{props}
			np.ActionXML = a.actionXML(&np)
		}
	}
	if a.InputLogic.Root() != nil {
		return a.checkLogic(&np, confVars{props}, exists, now)
	}
	res := &CheckResult{Plan: &np}
	for i, dep := range np.Dependencies {
		ok, err := exists(dep)
		if err != nil {
			return nil, err
		}
		if !ok {
			res.Missing = append(res.Missing, np.Dependencies[i:]...)
			res.NotChecked = len(np.Dependencies) - i - 1
			break
		}
	}
	res.Missing = append(res.Missing, np.Unresolved...)
	res.Unresolved = np.Unresolved
	res.Ready = len(res.Missing) == 0
	if !res.Ready {
		res.TimedOut = a.timedOut(np.NominalTime, np.CreatedTime, now)
	}
	return res, nil
}

// checkOutputsResolvable is the output check of Oozie's input check
// (CoordActionInputCheckXCommand.checkUnresolvedInstances): it runs only
// for an action with unresolved latest/future inputs whose resolved
// dependencies all exist, and then fails (E1006 there, which the command
// reports as E1021) when a data-out names a coord:latest or coord:future
// instance, whether or not the inputs resolve. An action without
// latest/future inputs never reaches it, so its unresolvable output is
// not an error.
func (a *App) checkOutputsResolvable(p *ActionPlan, exists func(string) (bool, error)) error {
	if len(p.OutputUnresolved) == 0 || len(p.UnresolvedByEvent) == 0 {
		return nil
	}
	var name string
	for _, ev := range a.Outputs {
		if p.OutputUnresolved[ev.Name] != "" {
			name = ev.Name
			break
		}
	}
	if name == "" {
		return nil
	}
	for _, dep := range p.Dependencies {
		ok, err := exists(dep)
		if err != nil || !ok {
			// Missing (or not known): the check waits as for any input.
			return nil
		}
	}
	return errorf(CodeUnsupportedApp, "Coord Action Input Check Error: E1006: Invalid coordinator application [coord:latest()/future()], not permitted in output-event: data-out [%s] instance %s", name, p.OutputUnresolved[name])
}

// TimedOut reports whether an action of plan p still waiting at now has
// waited past the timeout (the rule CheckInputs applies): the engine
// times out an action whose input check keeps failing too, as Oozie's
// input check does.
func (a *App) TimedOut(p *ActionPlan, now time.Time) bool {
	return a.timedOut(p.NominalTime, p.CreatedTime, now)
}

// splitUnresolved splits '#'-joined unresolved instance texts; '#' never
// occurs inside one.
func splitUnresolved(s string) []string {
	var out []string
	for _, part := range strings.Split(s, "#") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// timedOut applies the action timeout to an action still waiting at now.
func (a *App) timedOut(nominal, created, now time.Time) bool {
	switch {
	case a.Timeout < 0:
		return false
	case a.Timeout == 0:
		return true
	}
	from := nominal
	if created.After(from) {
		from = created
	}
	waited := now.Sub(from).Milliseconds() / 60000
	return waited > int64(a.Timeout)
}

// runVars layers the action's data events over the job variables for the
// start phase: .datain.<name> and .dataout.<name> hold comma-separated
// URIs, .datain.<name>.unresolved marks pending latest/future inputs.
type runVars struct {
	data map[string]string
	job  el.Resolver
}

func (v runVars) Lookup(name string) (any, bool) {
	if s, ok := v.data[name]; ok {
		return s, true
	}
	return v.job.Lookup(name)
}

// RunConfXML is RunConf written as Hadoop configuration XML, which the
// action stores; escaping can make it longer than its values, so the
// bound applies to the XML too.
func (a *App) RunConfXML(p *ActionPlan, props *conf.Config) (string, error) {
	rc, err := a.RunConf(p, props)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := rc.WriteXML(&b); err != nil {
		return "", err
	}
	return b.String(), a.checkRunConfXML(p, b.Len())
}

// name names the action in messages: its id, else its number.
func (p *ActionPlan) name() string {
	if p.ID != "" {
		return p.ID
	}
	return strconv.Itoa(p.Number)
}

// checkRunConfXML refuses a run configuration whose XML is n bytes when
// that passes the bound.
func (a *App) checkRunConfXML(p *ActionPlan, n int) error {
	if limit := a.maxAction(); n > limit {
		return actionTooLarge("the workflow configuration of action ["+p.name()+"]", limit, "its XML")
	}
	return nil
}

// RunConf is the workflow job configuration an action submits: the
// coordinator job's properties (Oozie's createdConf), then
// oozie.wf.application.path (the app-path resolved) and the action's
// <configuration> with every coord: function of the start phase resolved
// (coord:dataIn/dataOut as comma-separated URIs, nominalTime, actualTime,
// formatTime, dateOffset, user, conf, ...) over them, and the job's
// user.name, group.name and oozie.job.acl.
func (a *App) RunConf(p *ActionPlan, props *conf.Config) (*conf.Config, error) {
	data := map[string]string{}
	for _, ev := range a.Inputs {
		data[".datain."+ev.Name] = strings.Join(p.InputURIs[ev.Name], ",")
		if p.UnresolvedByEvent[ev.Name] != "" {
			data[".datain."+ev.Name+".unresolved"] = "true"
		}
	}
	for _, ev := range a.Outputs {
		data[".dataout."+ev.Name] = strings.Join(p.OutputURIs[ev.Name], ",")
	}
	// coord:dataIn of an input logic name (one no input event has) is
	// what satisfied that node; before the logic is satisfied Oozie
	// echoes the call.
	for _, name := range a.InputLogic.Names() {
		if _, isEvent := data[".datain."+name]; isEvent {
			continue
		}
		if p.Logic != nil && p.Logic.Data != nil {
			if v, ok := p.Logic.Data[name]; ok {
				data[".datain."+name] = v
				continue
			}
		}
		data[".datain."+name+".unresolved"] = "true"
	}
	vars := runVars{data: data, job: confVars{props}}
	act := &Action{NominalTime: p.NominalTime, ActualTime: p.CreatedTime, Location: a.Location, ID: p.ID, Name: a.Name}
	eval := func(what, text string) (string, error) {
		if !el.HasExpr(text) {
			return text, nil
		}
		ctx := &ELContext{Action: act, Processing: a.Processing, Vars: vars}
		s, err := Eval(PhaseActionStart, ctx, text)
		if err != nil {
			return "", errorf(CodeEL, "Expression language evaluation error, %s [%s]: %v", what, text, err)
		}
		return s, nil
	}
	// Oozie starts the run configuration from the action's created
	// configuration, the coordinator job's properties, then lays the
	// action's <configuration> over it (CoordActionStartXCommand's
	// mergeConfig): a workflow sees the coordinator's job.properties.
	out := conf.New()
	size, limit := 0, a.maxAction()
	if props != nil {
		for _, pr := range props.Properties() {
			v, _ := props.Get(pr.Name)
			if size += len(pr.Name) + len(v); size > limit {
				return nil, actionTooLarge("the workflow configuration of action ["+p.name()+"]", limit, pr.Name)
			}
			out.Set(pr.Name, v)
		}
	}
	appPath, err := eval("app-path", a.AppPath)
	if err != nil {
		return nil, err
	}
	out.Set(PropWfAppPath, appPath)
	// Counted as it is built: a configuration past the bound stops at the
	// property that passes it.
	size += len(appPath)
	for _, pr := range a.Configuration {
		v, err := eval("property "+pr.Name, pr.Value)
		if err != nil {
			return nil, err
		}
		if size += len(pr.Name) + len(v); size > limit {
			return nil, actionTooLarge("the workflow configuration of action ["+p.name()+"]", limit, pr.Name)
		}
		out.Set(pr.Name, v)
	}
	for _, name := range []string{PropUser, PropGroup, PropACL} {
		if props == nil {
			break
		}
		if v, ok := props.Get(name); ok {
			out.Set(name, v)
		}
	}
	return out, nil
}
