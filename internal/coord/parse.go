package coord

import (
	"strings"
)

// Namespaces of the coordinator schemas (spec: coord appendix A) and of SLA.
var coordNamespaces = map[string]bool{
	"uri:oozie:coordinator:0.1": true, "uri:oozie:coordinator:0.2": true,
	"uri:oozie:coordinator:0.3": true, "uri:oozie:coordinator:0.4": true,
	"uri:oozie:coordinator:0.5": true,
}

var slaNamespaces = map[string]bool{"uri:oozie:sla:0.1": true, "uri:oozie:sla:0.2": true}

// rawApp is a coordinator definition as written: attribute and element
// texts before any EL evaluation.
type rawApp struct {
	ns                           string
	name, freq, start, end, tz   string
	timeout, concurrency, exec   string
	throttle                     string
	hasTimeout, hasConc, hasExec bool
	hasThrottle                  bool
	params                       []Parameter
	includes                     []string
	datasets                     []rawDataset
	inputs, outputs              []*DataEvent
	logic                        *InputLogic
	appPath                      string
	config                       []Property
	sla                          *SLA
	line, col                    int
}

// rawDataset is a <dataset> as written.
type rawDataset struct {
	name, freq, initial, tz, uri string
	doneFlag                     *string
	line, col                    int
}

// ParseApp checks a coordinator definition against the schemas (structure,
// required attributes) and returns it as written, EL unresolved, for tools
// that only validate (gozie validate). Errors are E0701 with a position.
func ParseApp(data []byte) (*App, error) {
	r, err := parseRaw(data)
	if err != nil {
		return nil, err
	}
	a := &App{
		Name: r.name, Namespace: r.ns, TimeZone: r.tz, Frequency: r.freq,
		Execution: r.exec, Inputs: r.inputs, Outputs: r.outputs, InputLogic: r.logic,
		AppPath: r.appPath, Configuration: r.config, Parameters: r.params, SLA: r.sla,
	}
	return a, nil
}

// parseRaw reads and structurally validates a coordinator-app document.
func parseRaw(data []byte) (*rawApp, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, err
	}
	if root.Name.Local != "coordinator-app" || !coordNamespaces[root.Name.Space] {
		if root.Name.Local == "coordinator-app" {
			return nil, schemaError(root.Line, root.Col, "cvc-elt.1.a: Cannot find the declaration of element 'coordinator-app' (unknown namespace %q).", root.Name.Space)
		}
		return nil, schemaError(root.Line, root.Col, "cvc-elt.1.a: Cannot find the declaration of element '%s'.", root.Name.Local)
	}
	ns := root.Name.Space
	if err := requireAttrs(root, "name", "frequency", "start", "end", "timezone"); err != nil {
		return nil, err
	}
	if err := allowAttrs(root, "name", "frequency", "start", "end", "timezone"); err != nil {
		return nil, err
	}
	top := []particle{
		{"parameters", 0, 1}, {"controls", 0, 1}, {"datasets", 0, 1},
		{"input-events", 0, 1}, {"input-logic", 0, 1}, {"output-events", 0, 1}, {"action", 1, 1},
	}
	if err := checkSequence(root, ns, top, nil); err != nil {
		return nil, err
	}
	r := &rawApp{ns: ns, line: root.Line, col: root.Col}
	r.name, _ = root.LookupAttr("name")
	r.freq, _ = root.LookupAttr("frequency")
	r.start, _ = root.LookupAttr("start")
	r.end, _ = root.LookupAttr("end")
	r.tz, _ = root.LookupAttr("timezone")
	if p := root.Child("parameters"); p != nil {
		if r.params, err = parseParameters(p, ns); err != nil {
			return nil, err
		}
	}
	if c := root.Child("controls"); c != nil {
		seq := []particle{{"timeout", 0, 1}, {"concurrency", 0, 1}, {"execution", 0, 1}, {"throttle", 0, 1}}
		if err := checkSequence(c, ns, seq, nil); err != nil {
			return nil, err
		}
		r.timeout, r.hasTimeout = c.LookupChildText("timeout")
		r.concurrency, r.hasConc = c.LookupChildText("concurrency")
		r.exec, r.hasExec = c.LookupChildText("execution")
		r.throttle, r.hasThrottle = c.LookupChildText("throttle")
	}
	if d := root.Child("datasets"); d != nil {
		if r.includes, r.datasets, err = parseDatasets(d, ns); err != nil {
			return nil, err
		}
	}
	if l := root.Child("input-logic"); l != nil {
		if r.logic, err = parseLogic(l, ns); err != nil {
			return nil, err
		}
	}
	if ie := root.Child("input-events"); ie != nil {
		if r.inputs, err = parseEvents(ie, ns, "data-in"); err != nil {
			return nil, err
		}
	}
	if oe := root.Child("output-events"); oe != nil {
		if r.outputs, err = parseEvents(oe, ns, "data-out"); err != nil {
			return nil, err
		}
	}
	if err := parseAction(root.Child("action"), ns, r); err != nil {
		return nil, err
	}
	return r, nil
}

func parseParameters(p *node, ns string) ([]Parameter, error) {
	if err := checkSequence(p, ns, []particle{{"property", 1, -1}}, nil); err != nil {
		return nil, err
	}
	var out []Parameter
	for _, pr := range p.Children {
		seq := []particle{{"name", 1, 1}, {"value", 0, 1}, {"description", 0, 1}}
		if err := checkSequence(pr, ns, seq, nil); err != nil {
			return nil, err
		}
		name, _ := pr.LookupChildText("name")
		v, has := pr.LookupChildText("value")
		out = append(out, Parameter{Name: name, Value: v, HasDefault: has})
	}
	return out, nil
}

// parseDatasets reads a <datasets> element (of an app or of an included
// file): includes first, then datasets, as the schema orders them.
func parseDatasets(d *node, ns string) ([]string, []rawDataset, error) {
	seq := []particle{{"include", 0, -1}, {"dataset", 0, -1}, {"async-dataset", 0, -1}}
	if err := checkSequence(d, ns, seq, nil); err != nil {
		return nil, nil, err
	}
	var incs []string
	var dss []rawDataset
	for _, c := range d.Children {
		switch c.Name.Local {
		case "include":
			incs = append(incs, strings.TrimSpace(c.Text))
		case "async-dataset":
			return nil, nil, errorf(CodeUnsupportedApp, "Coordinator app definition uses <async-dataset> (HCatalog push dependencies), which gozie does not support")
		case "dataset":
			if err := requireAttrs(c, "name", "frequency", "initial-instance", "timezone"); err != nil {
				return nil, nil, err
			}
			if err := checkSequence(c, ns, []particle{{"uri-template", 1, 1}, {"done-flag", 0, 1}}, nil); err != nil {
				return nil, nil, err
			}
			ds := rawDataset{line: c.Line, col: c.Col}
			ds.name, _ = c.LookupAttr("name")
			ds.freq, _ = c.LookupAttr("frequency")
			ds.initial, _ = c.LookupAttr("initial-instance")
			ds.tz, _ = c.LookupAttr("timezone")
			ds.uri, _ = c.LookupChildText("uri-template")
			if f, ok := c.LookupChildText("done-flag"); ok {
				ds.doneFlag = &f
			}
			dss = append(dss, ds)
		}
	}
	return incs, dss, nil
}

// parseDatasetsFile reads an included dataset definitions file, whose root
// is <datasets> in a coordinator namespace or in none (the form spec: coord 10.1.1
// shows; Oozie reads include files without a schema).
func parseDatasetsFile(data []byte) ([]string, []rawDataset, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, nil, err
	}
	if root.Name.Local != "datasets" || (root.Name.Space != "" && !coordNamespaces[root.Name.Space]) {
		return nil, nil, schemaError(root.Line, root.Col, "cvc-elt.1.a: Cannot find the declaration of element '%s'.", root.Name.Local)
	}
	return parseDatasets(root, root.Name.Space)
}

func parseEvents(n *node, ns, kind string) ([]*DataEvent, error) {
	if err := checkSequence(n, ns, []particle{{kind, 1, -1}}, nil); err != nil {
		return nil, err
	}
	var out []*DataEvent
	for _, c := range n.Children {
		if err := requireAttrs(c, "name", "dataset"); err != nil {
			return nil, err
		}
		ev := &DataEvent{Output: kind == "data-out"}
		ev.Name, _ = c.LookupAttr("name")
		ev.Dataset, _ = c.LookupAttr("dataset")
		if v, ok := c.LookupAttr("nocleanup"); ok {
			ev.NoCleanup = strings.TrimSpace(v) == "true"
		}
		if kind == "data-out" {
			if err := checkSequence(c, ns, []particle{{"instance", 1, 1}}, nil); err != nil {
				return nil, err
			}
			t, _ := c.LookupChildText("instance")
			ev.Instances = []string{t}
			out = append(out, ev)
			continue
		}
		if len(c.Children) > 0 && c.Children[0].Name.Local == "instance" {
			if err := checkSequence(c, ns, []particle{{"instance", 1, -1}}, nil); err != nil {
				return nil, err
			}
			for _, in := range c.Children {
				ev.Instances = append(ev.Instances, strings.TrimSpace(in.Text))
			}
		} else {
			if err := checkSequence(c, ns, []particle{{"start-instance", 1, 1}, {"end-instance", 1, 1}}, nil); err != nil {
				return nil, err
			}
			ev.StartInstance, _ = c.LookupChildText("start-instance")
			ev.EndInstance, _ = c.LookupChildText("end-instance")
		}
		out = append(out, ev)
	}
	return out, nil
}

func parseAction(a *node, ns string, r *rawApp) error {
	isSLA := func(c *node) bool { return slaNamespaces[c.Name.Space] && c.Name.Local == "info" }
	if err := checkSequence(a, ns, []particle{{"workflow", 1, 1}}, isSLA); err != nil {
		return err
	}
	wf := a.Child("workflow")
	if err := checkSequence(wf, ns, []particle{{"app-path", 1, 1}, {"configuration", 0, 1}}, nil); err != nil {
		return err
	}
	r.appPath, _ = wf.LookupChildText("app-path")
	if c := wf.Child("configuration"); c != nil {
		if err := checkSequence(c, ns, []particle{{"property", 1, -1}}, nil); err != nil {
			return err
		}
		for _, p := range c.Children {
			seq := []particle{{"name", 1, 1}, {"value", 1, 1}, {"description", 0, 1}}
			if err := checkSequence(p, ns, seq, nil); err != nil {
				return err
			}
			name, _ := p.LookupChildText("name")
			v, _ := p.LookupChildText("value")
			r.config = append(r.config, Property{Name: name, Value: v})
		}
	}
	for _, c := range a.Children {
		if isSLA(c) {
			s := &SLA{Namespace: c.Name.Space}
			for _, f := range c.Children {
				s.Fields = append(s.Fields, Property{Name: f.Name.Local, Value: strings.TrimSpace(f.Text)})
			}
			r.sla = s
		}
	}
	return nil
}

// ValidateDatasets checks a dataset definitions file (the target of
// <include>) against the schema and the rule that its dataset names are
// unique (spec: coord 10.1.1).
func ValidateDatasets(data []byte) error {
	_, dss, err := parseDatasetsFile(data)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, ds := range dss {
		if seen[ds.name] {
			return errorf(CodeUnsupportedApp, "Coordinator app definition has duplicate dataset name [%s]", ds.name)
		}
		seen[ds.name] = true
	}
	return nil
}
