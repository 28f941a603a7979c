package coord

import (
	"bytes"
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/schedule"
)

// Job configuration property names a submission reads.
const (
	PropAppPath    = "oozie.coord.application.path"
	PropUser       = "user.name"
	PropGroup      = "group.name"
	PropACL        = "oozie.job.acl"
	PropProcessing = "oozie.processing.timezone"
)

// confVars exposes a job configuration as EL variables (values expanded).
type confVars struct{ c *conf.Config }

func (v confVars) Lookup(name string) (any, bool) {
	if v.c == nil {
		return nil, false
	}
	s, ok := v.c.Get(name)
	if !ok {
		return nil, false
	}
	return s, true
}

// Submit parses and resolves a coordinator application for the job
// configuration props (oozie.coord.application.path, user.name, ...):
// config-default.xml beside the app and <parameters> defaults fill in what
// the job does not set, submission-phase EL is resolved and the checks of
// spec: coord 11 applied. It returns the app and the job configuration
// after defaults; failures are *Error with Oozie's code.
func Submit(props *conf.Config, opts SubmitOptions) (*App, *conf.Config, error) {
	return submitApp(props, opts, nil)
}

// submitApp is Submit; with open (CheckDefinition) a variable props do not
// define leaves what uses it unchecked instead of failing, and the app it
// returns is for no other use.
func submitApp(props *conf.Config, opts SubmitOptions, open *openVars) (*App, *conf.Config, error) {
	if props == nil {
		props = conf.New()
	}
	if u, _ := props.Get(PropUser); strings.TrimSpace(u) == "" {
		return nil, nil, errorf(CodeNoUser, "Missing configuration property [%s]", PropUser)
	}
	appURI, _ := props.Get(PropAppPath)
	if strings.TrimSpace(appURI) == "" {
		return nil, nil, errorf(CodeNoUser, "Missing configuration property [%s]", PropAppPath)
	}
	if err := checkDisallowed(props, disallowedUserProps); err != nil {
		return nil, nil, err
	}
	if opts.ReadFile == nil {
		return nil, nil, errorf(CodeReadApp, "no file reader to read %s", appURI)
	}
	file := strings.TrimSuffix(strings.TrimSpace(appURI), "/")
	data, err := opts.ReadFile(file)
	if refused, ok := err.(*Error); ok {
		return nil, nil, refused
	}
	if err != nil || len(bytes.TrimSpace(data)) == 0 {
		file = conf.JoinAppPath(file, "coordinator.xml")
		if data, err = opts.ReadFile(file); err != nil {
			if refused, ok := err.(*Error); ok {
				return nil, nil, refused
			}
			if !errors.Is(err, fs.ErrNotExist) {
				// An unknown scheme, a store that did not answer, a
				// refusal: the reader's words say what to do.
				return nil, nil, errorf(CodeReadApp, "Could not read %s: %v", file, err)
			}
			return nil, nil, errorf(CodeReadApp, "File does not exist, %s", file)
		}
	}
	appDir := conf.AppPathDir(file)
	job := props.Clone()
	def, err := opts.ReadFile(conf.JoinAppPath(appDir, "config-default.xml"))
	if refused, ok := err.(*Error); ok {
		return nil, nil, refused
	}
	if err == nil {
		dc, err := conf.ParseXML(bytes.NewReader(def), conf.JoinAppPath(appDir, "config-default.xml"))
		if err != nil {
			return nil, nil, errorf(CodeSchema, "config-default.xml: %v", err)
		}
		if err := checkDisallowed(dc, disallowedDefaultProps); err != nil {
			return nil, nil, err
		}
		job.MergeDefaults(dc)
	}
	r, err := parseRaw(data)
	if err != nil {
		return nil, nil, err
	}
	if err := applyParameters(r.params, job); err != nil {
		if open == nil || ErrorCode(err) != CodeMissingParam {
			return nil, nil, err
		}
		open.note("required parameters not defined, so not checked (give them with -config): %s", missingParams(r.params, job))
	}
	read := func(p string) ([]byte, error) { return opts.ReadFile(p) }
	a, err := resolveApp(r, job, read, appDir, max(opts.MaxActionBytes, 0), open)
	if err != nil {
		return nil, nil, err
	}
	if err := a.checkSubmission(opts.MinFrequencyMinutes); err != nil {
		return nil, nil, err
	}
	if open == nil {
		a.Definition = a.definitionXML()
	}
	return a, job, nil
}

// Load restores an App from its persisted Definition and the job
// configuration it was submitted with (after defaults).
func Load(definition string, props *conf.Config) (*App, error) {
	if props == nil {
		props = conf.New()
	}
	r, err := parseRaw([]byte(definition))
	if err != nil {
		return nil, err
	}
	a, err := resolveApp(r, props, nil, "", -1, nil)
	if err != nil {
		return nil, err
	}
	a.Definition = definition
	return a, nil
}

// disallowedUserProps are the names a coordinator job configuration may not
// set (Oozie's CoordSubmitXCommand list): the URI template and EL
// constants, which a property would shadow.
var disallowedUserProps = []string{
	"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "DAYS", "HOURS", "MINUTES",
	"KB", "MB", "GB", "TB", "PB", "RECORDS", "MAP_IN", "MAP_OUT", "REDUCE_IN",
	"REDUCE_OUT", "GROUPS",
}

// disallowedDefaultProps are the names config-default.xml may not set: the
// user list and user.name.
var disallowedDefaultProps = append(append([]string(nil), disallowedUserProps...), PropUser)

// checkDisallowed refuses a configuration that sets one of names, with
// Oozie's E0808.
func checkDisallowed(c *conf.Config, names []string) error {
	for _, n := range names {
		if c.Has(n) {
			return errorf(CodeDisallowed, "Disallowed user property [%s]", n)
		}
	}
	return nil
}

// missingParams lists, comma-separated, the parameters without a default
// that job does not define.
func missingParams(params []Parameter, job *conf.Config) string {
	var out []string
	for _, p := range params {
		if !p.HasDefault && !job.Has(p.Name) {
			out = append(out, p.Name)
		}
	}
	return strings.Join(out, ", ")
}

// applyParameters sets the <parameters> defaults the job lacks and fails
// with E0738 naming every required parameter without a value.
func applyParameters(params []Parameter, job *conf.Config) error {
	var missing []string
	for _, p := range params {
		if job.Has(p.Name) {
			continue
		}
		if !p.HasDefault {
			missing = append(missing, p.Name)
			continue
		}
		job.Set(p.Name, p.Value)
	}
	if len(missing) > 0 {
		return errorf(CodeMissingParam, "the following parameters are required but were not defined and no default values are available: %s", strings.Join(missing, ", "))
	}
	return nil
}

// resolver evaluates the submission phases against the job variables.
// open is set in a check without the job's properties (CheckDefinition):
// a field using a variable nobody defined is then errUnchecked.
type resolver struct {
	vars el.Resolver
	pz   schedule.ProcessingZone
	open *openVars
}

// eval evaluates text in phase p; EL failures are E1004.
func (rv resolver) eval(p Phase, what, text string) (string, error) {
	if !el.HasExpr(text) {
		return text, nil
	}
	rv.begin()
	s, err := Eval(p, &ELContext{Vars: rv.vars, Processing: rv.pz}, text)
	if err != nil {
		if err = rv.unchecked(err, what, text); skip(err) {
			return "", err
		}
		return "", errorf(CodeEL, "Expression language evaluation error, %s [%s]: %v", what, text, err)
	}
	return s, nil
}

// frequency evaluates a frequency attribute.
func (rv resolver) frequency(what, text string) (schedule.Frequency, error) {
	rv.begin()
	f, err := ParseFrequency(text, rv.vars)
	if err = rv.unchecked(err, what, text); skip(err) {
		return f, err
	}
	if err != nil {
		if el.AsError(err) != nil {
			return f, errorf(CodeEL, "Expression language evaluation error, %s [%s]: %v", what, text, err)
		}
		if schedule.IsCronSyntax(strings.TrimSpace(text)) {
			return f, errorf(CodeInvalidAttrs, "Invalid coordinator application attributes, Invalid coordinator cron frequency: %s (%v)", text, err)
		}
		return f, errorf(CodeInvalidAttrs, "Invalid coordinator application attributes, %s: %v", what, err)
	}
	return f, nil
}

// time evaluates and parses a datetime attribute.
func (rv resolver) time(what, text string) (time.Time, error) {
	return rv.timeIn(PhaseSubmitNoFuncs, what, text)
}

// timeIn evaluates a datetime attribute in phase p and parses it.
func (rv resolver) timeIn(p Phase, what, text string) (time.Time, error) {
	s, err := rv.eval(p, what, text)
	if err != nil {
		return time.Time{}, err // errUnchecked too: the zero time
	}
	t, err := rv.pz.Parse(strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, errorf(CodeInvalidAttrs, "Invalid coordinator application attributes, parameter [%s] = [%s] must be Date in UTC format (yyyy-MM-dd'T'HH:mm'Z')", what, s)
	}
	return t, nil
}

// resolveApp turns a raw definition into an App with submission-phase EL
// resolved; read (nil when loading a persisted definition) reads included
// dataset files relative to appDir. maxAction is App.MaxActionBytes, which
// the action configuration resolved with the job's variables must not
// pass; negative skips that check (a persisted definition is bounded per
// action instead).
func resolveApp(r *rawApp, job *conf.Config, read func(string) ([]byte, error), appDir string, maxAction int, open *openVars) (*App, error) {
	pz := schedule.UTC
	if z, ok := job.Get(PropProcessing); ok && strings.TrimSpace(z) != "" {
		p, err := schedule.ParseProcessingZone(strings.TrimSpace(z))
		if err != nil {
			return nil, errorf(CodeInvalidAttrs, "Invalid coordinator application attributes, %s: %v", PropProcessing, err)
		}
		pz = p
	}
	rv := resolver{vars: confVars{job}, pz: pz, open: open}
	if open != nil {
		rv.vars = openLookup{job: confVars{job}, open: open}
	}
	a := &App{Namespace: r.ns, Processing: pz, Datasets: map[string]*Dataset{}, Parameters: r.params, SLA: r.sla,
		MaxActionBytes: max(maxAction, 0)}
	a.User, _ = job.Get(PropUser)
	a.Group, _ = job.Get(PropGroup)
	var err error
	if a.Name, err = rv.eval(PhaseSubmitNoFuncs, "name", r.name); err != nil && !skip(err) {
		return nil, err
	}
	if a.Start, err = rv.time("start", r.start); err != nil && !skip(err) {
		return nil, err
	}
	if a.End, err = rv.time("end", r.end); err != nil && !skip(err) {
		return nil, err
	}
	a.Location = time.UTC
	if a.TimeZone, err = rv.eval(PhaseSubmitNoFuncs, "timezone", r.tz); err != nil && !skip(err) {
		return nil, err
	} else if err == nil {
		a.TimeZone = strings.TrimSpace(a.TimeZone)
		if a.Location, err = schedule.LoadZone(a.TimeZone); err != nil {
			return nil, errorf(CodeInvalidAttrs, "Invalid coordinator application attributes, timezone [%s]: %v", a.TimeZone, err)
		}
	}
	if a.Freq, err = rv.frequency("frequency", r.freq); err != nil && !skip(err) {
		return nil, err
	}
	a.Frequency, a.TimeUnit = restFrequency(a.Freq)
	if err := a.resolveControls(r, rv); err != nil {
		return nil, err
	}
	if err := a.resolveDatasets(r, rv, read, appDir); err != nil {
		return nil, err
	}
	if err := a.resolveEvents(r, rv); err != nil {
		return nil, err
	}
	a.InputLogic = r.logic
	if err := a.resolveLogic(a.InputLogic, rv); err != nil {
		return nil, err
	}
	// The action keeps its EL for materialization and start; evaluating it
	// in the submit-data phase only checks that the variables exist.
	// Every action resolves the configuration with these variables
	// again and stores the result: one that is too large already is
	// refused now, before a thousand actions each build it.
	a.AppPath = r.appPath
	// The HCatalog functions check their data event names
	// (oozie.dataname.<name>).
	dataRV := rv
	dataRV.vars = a.withDataNames(rv.vars)
	v, err := dataRV.eval(PhaseSubmitData, "app-path", r.appPath)
	if err != nil && !skip(err) {
		return nil, err
	}
	size, limit := len(v), a.maxAction()
	a.Configuration = r.config
	for _, p := range r.config {
		v, err := dataRV.eval(PhaseSubmitData, "property "+p.Name, p.Value)
		if err != nil && !skip(err) {
			return nil, err
		}
		if size += len(p.Name) + len(v); maxAction >= 0 && size > limit {
			return nil, actionTooLarge("the action configuration", limit, p.Name)
		}
	}
	if a.SLA != nil {
		slaRV := resolver{vars: el.SLAUnits(rv.vars), pz: rv.pz, open: rv.open}
		for _, f := range a.SLA.Fields {
			if _, err := slaRV.eval(PhaseSLASubmit, "sla:"+f.Name, f.Value); err != nil && !skip(err) {
				return nil, err
			}
		}
	}
	return a, nil
}

// restFrequency returns the REST "frequency" and "timeUnit" of f.
func restFrequency(f schedule.Frequency) (string, string) {
	switch {
	case f.Unit == schedule.CronUnit && f.Cron != nil:
		return f.Cron.String(), "CRON"
	case f.End != schedule.NoEnd:
		return strconv.Itoa(f.N), f.End.String()
	}
	return strconv.Itoa(f.N), f.Unit.String()
}

func (a *App) resolveControls(r *rawApp, rv resolver) error {
	a.Timeout, a.Concurrency, a.Throttle, a.Execution = DefaultTimeout, DefaultConcurrency, DefaultThrottle, FIFO
	if r.hasTimeout && r.timeout != "" {
		n, err := timeoutMinutes(r.timeout, rv)
		if err != nil && !skip(err) {
			return err
		}
		a.Timeout = n
	}
	intControl := func(name, text string, has bool, dst *int) error {
		if !has || text == "" {
			return nil
		}
		s, err := rv.eval(PhaseSubmitNoFuncs, name, text)
		if skip(err) {
			return nil
		}
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return errorf(CodeInvalidAttrs, "Invalid coordinator application attributes, %s [%s] must be an integer", name, s)
		}
		*dst = n
		return nil
	}
	if err := intControl("concurrency", r.concurrency, r.hasConc, &a.Concurrency); err != nil {
		return err
	}
	if err := intControl("throttle", r.throttle, r.hasThrottle, &a.Throttle); err != nil {
		return err
	}
	if r.hasExec && r.exec != "" {
		s, err := rv.eval(PhaseSubmitNoFuncs, "execution", r.exec)
		if skip(err) {
			return nil
		}
		if err != nil {
			return err
		}
		switch s = strings.TrimSpace(s); s {
		case FIFO, LIFO, LastOnly, None:
			a.Execution = s
		default:
			return errorf(CodeInvalidAttrs, "Invalid coordinator application attributes, execution [%s] must be one of FIFO, LIFO, LAST_ONLY, NONE", s)
		}
	}
	return nil
}

// timeoutMinutes evaluates <timeout>: minutes, or a frequency function
// whose unit converts to minutes (a month counts as 30 days, as in Oozie).
func timeoutMinutes(text string, rv resolver) (int, error) {
	ctx := &ELContext{Vars: rv.vars}
	s := text
	if el.HasExpr(text) {
		var err error
		rv.begin()
		if s, err = Eval(PhaseSubmitFreq, ctx, text); err != nil {
			if err = rv.unchecked(err, "timeout", text); skip(err) {
				return DefaultTimeout, err
			}
			return 0, errorf(CodeEL, "Expression language evaluation error, timeout [%s]: %v", text, err)
		}
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, errorf(CodeInvalidAttrs, "Invalid coordinator application attributes, timeout [%s] must be an integer number of minutes", s)
	}
	switch ctx.TimeUnit {
	case schedule.Hour:
		n *= 60
	case schedule.Day:
		n *= 24 * 60
	case schedule.Week:
		n *= 7 * 24 * 60
	case schedule.Month:
		n *= 30 * 24 * 60
	}
	return n, nil
}
