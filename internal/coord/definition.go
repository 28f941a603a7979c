package coord

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/hcaturi"
	"github.com/gozie/gozie/internal/schedule"
)

// epoch is the earliest initial instance Oozie accepts.
var epoch = time.Unix(0, 0).UTC()

// resolveDatasets merges included and inline datasets by the rules of spec
// 10.1.1: a name defined twice in one file, or in two included files, fails
// the submission; an inline definition overrides an included one.
func (a *App) resolveDatasets(r *rawApp, rv resolver, read func(string) ([]byte, error), appDir string) error {
	included := map[string]string{} // name -> file that defined it
	var order []rawDataset
	for _, inc := range r.includes {
		if read == nil {
			return errorf(CodeUnsupportedApp, "dataset include [%s] cannot be read here", inc)
		}
		p, err := rv.eval(PhaseSubmitNoFuncs, "include", inc)
		if skip(err) {
			rv.open.includes = true
			continue
		}
		if err != nil {
			return err
		}
		p = strings.TrimSpace(p)
		if !path.IsAbs(p) && !strings.Contains(p, "://") {
			p = conf.JoinAppPath(appDir, p)
		}
		data, err := read(p)
		if rv.open != nil && errors.Is(err, ErrNoFiles) {
			rv.open.includes = true
			rv.open.note("include [%s] not read here: its datasets were not checked", p)
			continue
		}
		if err != nil {
			if refused, ok := err.(*Error); ok {
				return refused
			}
			return errorf(CodeReadApp, "File does not exist, %s", p)
		}
		_, dss, err := parseDatasetsFile(data)
		if err != nil {
			if e, ok := err.(*Error); ok {
				e.Msg = p + ": " + e.Msg
			}
			return err
		}
		for _, ds := range dss {
			if prev, dup := included[ds.name]; dup {
				return errorf(CodeUnsupportedApp, "Coordinator app definition has duplicate dataset name [%s] in included files %s and %s", ds.name, prev, p)
			}
			included[ds.name] = p
			order = append(order, ds)
		}
	}
	inline := map[string]bool{}
	for _, ds := range r.datasets {
		if inline[ds.name] {
			return errorf(CodeUnsupportedApp, "Coordinator app definition has duplicate dataset name [%s]", ds.name)
		}
		inline[ds.name] = true
	}
	for _, ds := range append(order, r.datasets...) {
		if included[ds.name] != "" && inline[ds.name] && !isInline(r, ds) {
			continue // the inline definition wins
		}
		d, err := resolveDataset(ds, rv)
		if err != nil {
			return err
		}
		a.Datasets[d.Name] = d
		a.datasetOrder = append(a.datasetOrder, d.Name)
	}
	return nil
}

// isInline reports whether ds is one of r's inline datasets (the very value,
// not just the name).
func isInline(r *rawApp, ds rawDataset) bool {
	for _, in := range r.datasets {
		if in == ds {
			return true
		}
	}
	return false
}

func resolveDataset(ds rawDataset, rv resolver) (*Dataset, error) {
	what := "dataset [" + ds.name + "] "
	// A field left unchecked (skip: a check without the job's
	// properties) keeps its zero value, and what needs it is not checked.
	f, err := rv.frequency(what+"frequency", ds.freq)
	if err != nil && !skip(err) {
		return nil, err
	}
	if f.Unit == schedule.CronUnit {
		return nil, errorf(CodeInvalidAttrs, "Invalid coordinator application attributes, %sfrequency [%s]: datasets do not take cron frequencies", what, ds.freq)
	}
	init, err := rv.timeIn(PhaseSubmitInitialInstance, what+"initial-instance", ds.initial)
	if err != nil && !skip(err) {
		return nil, err
	}
	if err == nil && init.Before(epoch) {
		return nil, errorf(CodeUnsupportedApp, "initial-instance should be later than 1970-01-01T00:00Z, %sinitial-instance is %s", what, schedule.FormatTime(init))
	}
	loc := time.UTC
	tz, err := rv.eval(PhaseSubmitNoFuncs, what+"timezone", ds.tz)
	if err != nil && !skip(err) {
		return nil, err
	}
	if err == nil {
		if loc, err = schedule.LoadZone(strings.TrimSpace(tz)); err != nil {
			return nil, errorf(CodeInvalidAttrs, "Invalid coordinator application attributes, %stimezone [%s]: %v", what, tz, err)
		}
	}
	uri, err := rv.eval(PhaseSubmitNoFuncs, what+"uri-template", ds.uri)
	if err != nil && !skip(err) {
		return nil, err
	}
	d := &Dataset{
		Name: ds.name, Frequency: f.N, Unit: f.Unit, End: f.End,
		InitialInstance: init, Location: loc, URITemplate: uri,
	}
	d.tzID = strings.TrimSpace(tz)
	if ds.doneFlag != nil {
		flag, err := rv.eval(PhaseSubmitNoFuncs, what+"done-flag", *ds.doneFlag)
		if err != nil && !skip(err) {
			return nil, err
		}
		d.DoneFlag = &flag
	}
	return d, nil
}

// resolveEvents binds data-in/data-out events to their datasets and checks
// their instance texts (EL variables defined; no comma outside function
// arguments, which would list several instances in one element).
func (a *App) resolveEvents(r *rawApp, rv resolver) error {
	seen := map[string]bool{}
	for _, group := range []struct {
		evs  []*DataEvent
		kind string
	}{{r.inputs, "input-events"}, {r.outputs, "output-events"}} {
		for _, ev := range group.evs {
			// Oozie resolves the dataset attribute with the job
			// configuration before looking the dataset up.
			name, err := rv.eval(PhaseSubmitNoFuncs, group.kind+" ["+ev.Name+"] dataset", ev.Dataset)
			if err != nil && !skip(err) {
				return err
			}
			unknown := skip(err)
			if !unknown {
				ev.Dataset = strings.TrimSpace(name)
			}
			ds, ok := a.Datasets[ev.Dataset]
			switch {
			case !ok && rv.open != nil && (unknown || rv.open.includes):
				// The dataset may be in what could not be read.
				if !unknown {
					rv.open.note("%s [%s] dataset [%s] not checked: not defined here, maybe in an include not read", group.kind, ev.Name, ev.Dataset)
				}
			case !ok:
				return errorf(CodeUnsupportedApp, "Dataset [%s] referenced by %s [%s] is not defined", ev.Dataset, group.kind, ev.Name)
			}
			if seen[group.kind+"/"+ev.Name] {
				return errorf(CodeUnsupportedApp, "Coordinator app definition has duplicate %s name [%s]", group.kind, ev.Name)
			}
			seen[group.kind+"/"+ev.Name] = true
			ev.DS = ds
			check := func(elem, text string) error {
				if text == "" {
					return errorf(CodeUnsupportedApp, "Coordinator app definition has an empty %s in %s [%s]", elem, group.kind, ev.Name)
				}
				if hasTopLevelComma(text) {
					return errorf(CodeUnsupportedApp, "Coordinator app definition should not have multiple %ss in %s [%s]: %s", elem, group.kind, ev.Name, text)
				}
				if _, err := rv.eval(PhaseSubmitInstances, elem, text); !skip(err) {
					return err
				}
				return nil
			}
			for _, in := range ev.Instances {
				if err := check("instance", in); err != nil {
					return err
				}
			}
			if ev.IsRange() {
				if err := check("start-instance", ev.StartInstance); err != nil {
					return err
				}
				if err := check("end-instance", ev.EndInstance); err != nil {
					return err
				}
			}
		}
	}
	a.Inputs, a.Outputs = r.inputs, r.outputs
	return nil
}

// hasTopLevelComma reports a comma outside parentheses.
func hasTopLevelComma(s string) bool {
	depth := 0
	for _, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth <= 0 {
				return true
			}
		}
	}
	return false
}

// checkSubmission applies the job-level checks of a submission: start
// before end, a frequency no faster than the allowed minimum, a cron that
// fires inside the window, HCatalog uri-templates that parse.
func (a *App) checkSubmission(minFreq int) error {
	if err := a.checkHCatalog(); err != nil {
		return err
	}
	// A check without the job's properties may leave a time or the
	// frequency unchecked (zero): so is what needs it.
	window := !a.Start.IsZero() && !a.End.IsZero()
	if window && !a.Start.Before(a.End) {
		return errorf(CodeInvalidAttrs, "Invalid coordinator application attributes, Coordinator Start Time must be earlier than End Time. start [%s], end [%s]",
			a.Processing.Format(a.Start), a.Processing.Format(a.End))
	}
	if minFreq == 0 {
		minFreq = DefaultMinFrequencyMinutes
	}
	if a.Freq.Unit == schedule.CronUnit {
		if !window {
			return nil
		}
		if _, ok := a.Freq.Cron.Next(a.Start.Add(-time.Minute), a.Processing.Location()); !ok {
			return errorf(CodeInvalidAttrs, "Invalid coordinator application attributes, Invalid coordinator cron frequency: %s", a.Frequency)
		}
		if err := schedule.CheckCronWindow(a.Freq.Cron, a.Start, a.End, a.Processing); err != nil {
			return errorf(CodeInvalidAttrs, "%s", strings.TrimPrefix(err.Error(), "E1003: "))
		}
		return nil
	}
	if minFreq > 0 && a.Freq.Unit == schedule.Minute && a.Freq.N < minFreq {
		return errorf(CodeInvalidAttrs, "Invalid coordinator application attributes, Coordinator job with frequency [%d] minutes is faster than allowed maximum of %d minutes (oozie.service.coord.check.maximum.frequency is set to true)", a.Freq.N, minFreq)
	}
	return nil
}

// checkHCatalog checks the uri-template of every data event on an
// HCatalog table (an hcat:// dataset): with its ${YEAR}..${MINUTE} filled
// in it must be a partition URI (hcaturi.Parse), or the input check would
// wait for a partition no metastore can be asked for. E0906, as Oozie's
// URI handler validates the URIs it is given.
func (a *App) checkHCatalog() error {
	sample := strings.NewReplacer("${YEAR}", "2009", "${MONTH}", "01", "${DAY}", "01", "${HOUR}", "00", "${MINUTE}", "00")
	for _, group := range []struct {
		evs  []*DataEvent
		kind string
	}{{a.Inputs, "data-in"}, {a.Outputs, "data-out"}} {
		for _, ev := range group.evs {
			if ev.DS == nil {
				continue
			}
			u := strings.TrimSpace(ev.DS.URITemplate)
			if !hcaturi.IsHCat(u) {
				continue
			}
			if _, err := hcaturi.Parse(sample.Replace(u)); err != nil {
				return errorf(CodeURIParse, "URI parsing error, %s [%s] dataset [%s] uri-template [%s]: %v", group.kind, ev.Name, ev.DS.Name, u, err)
			}
		}
	}
	return nil
}

// definitionXML writes the app back as a coordinator-app document with the
// job-level attributes and datasets resolved and includes inlined, so that
// Load needs neither the app directory nor its include files.
func (a *App) definitionXML() string {
	var b strings.Builder
	fmt.Fprintf(&b, "<coordinator-app xmlns=%q", a.Namespace)
	if a.SLA != nil {
		fmt.Fprintf(&b, " xmlns:sla=%q", a.SLA.Namespace)
	}
	fmt.Fprintf(&b, " name=%s frequency=%s start=%q end=%q timezone=%s>\n",
		attrQuote(a.Name), attrQuote(a.Freq.String()), a.Processing.Format(a.Start), a.Processing.Format(a.End), attrQuote(a.TimeZone))
	if len(a.Parameters) > 0 {
		b.WriteString("  <parameters>\n")
		for _, p := range a.Parameters {
			b.WriteString("    <property><name>" + xmlText(p.Name) + "</name>")
			if p.HasDefault {
				b.WriteString("<value>" + xmlText(p.Value) + "</value>")
			}
			b.WriteString("</property>\n")
		}
		b.WriteString("  </parameters>\n")
	}
	fmt.Fprintf(&b, "  <controls>\n    <timeout>%d</timeout>\n    <concurrency>%d</concurrency>\n    <execution>%s</execution>\n    <throttle>%d</throttle>\n  </controls>\n",
		a.Timeout, a.Concurrency, a.Execution, a.Throttle)
	if len(a.datasetOrder) > 0 {
		b.WriteString("  <datasets>\n")
		for _, name := range a.datasetOrder {
			b.WriteString(a.Datasets[name].xml("    ", a.Processing, false))
		}
		b.WriteString("  </datasets>\n")
	}
	writeEvents(&b, "input-events", "data-in", a.Inputs)
	a.InputLogic.xml(&b)
	writeEvents(&b, "output-events", "data-out", a.Outputs)
	b.WriteString("  <action>\n")
	b.WriteString(a.workflowXML("    ", a.AppPath, a.Configuration))
	if a.SLA != nil {
		b.WriteString(a.SLA.xml("    ", a.SLA.Fields))
	}
	b.WriteString("  </action>\n</coordinator-app>\n")
	return b.String()
}

func writeEvents(b *strings.Builder, group, kind string, evs []*DataEvent) {
	if len(evs) == 0 {
		return
	}
	b.WriteString("  <" + group + ">\n")
	for _, ev := range evs {
		fmt.Fprintf(b, "    <%s name=%s dataset=%s", kind, attrQuote(ev.Name), attrQuote(ev.Dataset))
		if ev.NoCleanup {
			b.WriteString(` nocleanup="true"`)
		}
		b.WriteString(">\n")
		for _, in := range ev.Instances {
			b.WriteString("      <instance>" + xmlText(in) + "</instance>\n")
		}
		if ev.IsRange() {
			b.WriteString("      <start-instance>" + xmlText(ev.StartInstance) + "</start-instance>\n")
			b.WriteString("      <end-instance>" + xmlText(ev.EndInstance) + "</end-instance>\n")
		}
		b.WriteString("    </" + kind + ">\n")
	}
	b.WriteString("  </" + group + ">\n")
}

// xml writes a <dataset>; withUnit adds Oozie's freq_timeunit and
// end_of_duration attributes of materialized actions.
func (d *Dataset) xml(indent string, pz schedule.ProcessingZone, withUnit bool) string {
	var b strings.Builder
	f := schedule.Frequency{N: d.Frequency, Unit: d.Unit, End: d.End}
	freq := f.String()
	if withUnit {
		freq = fmt.Sprint(d.Frequency)
	}
	fmt.Fprintf(&b, "%s<dataset name=%s frequency=%s initial-instance=%q timezone=%s", indent,
		attrQuote(d.Name), attrQuote(freq), pz.Format(d.InitialInstance), attrQuote(d.zoneID()))
	if withUnit {
		fmt.Fprintf(&b, " freq_timeunit=%q end_of_duration=%q", d.Unit.String(), d.End.String())
	}
	b.WriteString(">\n")
	b.WriteString(indent + "  <uri-template>" + xmlText(d.URITemplate) + "</uri-template>\n")
	if d.DoneFlag != nil {
		b.WriteString(indent + "  <done-flag>" + xmlText(*d.DoneFlag) + "</done-flag>\n")
	}
	b.WriteString(indent + "</dataset>\n")
	return b.String()
}

// zoneID is the dataset's time zone as written.
func (d *Dataset) zoneID() string {
	if d.tzID != "" {
		return d.tzID
	}
	return d.Location.String()
}

func (a *App) workflowXML(indent, appPath string, props []Property) string {
	var b strings.Builder
	b.WriteString(indent + "<workflow>\n")
	b.WriteString(indent + "  <app-path>" + xmlText(appPath) + "</app-path>\n")
	if len(props) > 0 {
		b.WriteString(indent + "  <configuration>\n")
		for _, p := range props {
			b.WriteString(indent + "    <property>\n")
			b.WriteString(indent + "      <name>" + xmlText(p.Name) + "</name>\n")
			b.WriteString(indent + "      <value>" + xmlText(p.Value) + "</value>\n")
			b.WriteString(indent + "    </property>\n")
		}
		b.WriteString(indent + "  </configuration>\n")
	}
	b.WriteString(indent + "</workflow>\n")
	return b.String()
}

func (s *SLA) xml(indent string, fields []Property) string {
	var b strings.Builder
	b.WriteString(indent + "<sla:info>\n")
	for _, f := range fields {
		b.WriteString(indent + "  <sla:" + f.Name + ">" + xmlText(f.Value) + "</sla:" + f.Name + ">\n")
	}
	b.WriteString(indent + "</sla:info>\n")
	return b.String()
}

var textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
var attrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", "\"", "&quot;", "\n", "&#xA;", "\t", "&#x9;", "\r", "&#xD;")

func xmlText(s string) string   { return textEscaper.Replace(s) }
func attrQuote(s string) string { return "\"" + attrEscaper.Replace(s) + "\"" }
