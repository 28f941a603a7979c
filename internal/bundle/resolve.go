package bundle

import (
	"regexp"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/schedule"
	"github.com/gozie/gozie/internal/vocab"
	"github.com/gozie/gozie/internal/xmltree"
)

// comments matches the XML comments Oozie removes before it resolves a
// definition.
var comments = regexp.MustCompile(`(?s)<!--.*?-->`)

// funcs are the functions of bundle EL: the basic ones and bundle:conf,
// which reads any job property, including names that are not identifiers
// (spec: bundle 4.3, Parameterization).
var funcs = func() *el.Registry {
	r := el.Basic()
	r.Define("bundle", "conf", []el.Type{el.String}, bundleConf)
	return r
}()

// bundleConf is bundle:conf(name): the job property's value, null when
// the job does not define it.
func bundleConf(c *el.Call) (any, error) {
	job, _ := c.Context.(*conf.Config)
	if job == nil {
		return nil, nil
	}
	if v, ok := job.Get(el.ToString(c.Args[0])); ok {
		return v, nil
	}
	return nil, nil
}

// confVars exposes a job configuration as EL variables.
type confVars struct{ c *conf.Config }

func (v confVars) Lookup(name string) (any, bool) {
	s, ok := v.c.Get(name)
	if !ok {
		return nil, false
	}
	return s, true
}

// evaluator returns the EL evaluator of a bundle whose variables are vars
// (job, or a check's recording view of it).
func evaluator(job *conf.Config, vars el.Resolver) *el.Evaluator {
	return &el.Evaluator{Funcs: funcs, Vars: vars, Context: job}
}

// evalText evaluates text without the parse cache (a whole document is
// not worth caching) and returns EL failures as they are.
func evalText(ev *el.Evaluator, text string) (string, error) {
	t, err := el.Parse(text)
	if err != nil {
		return "", err
	}
	v, err := ev.EvalTemplate(t)
	if err != nil {
		return "", err
	}
	return el.ToString(v), nil
}

// elFailure turns an EL failure in text (a whole document) into Oozie's
// E1004, narrowed to the ${...} where it happened and given its line.
func elFailure(text string, err error) *Error {
	e := el.AsError(err)
	if e == nil {
		return vocab.Errorf(CodeEL, "Expression language evaluation error, %v", err)
	}
	n := *e
	off := e.Column - 1
	if off < 0 || off >= len(text) {
		return &n
	}
	start := max(strings.LastIndex(text[:off+1], "${"), strings.LastIndex(text[:off+1], "#{"))
	if start < 0 {
		return &n
	}
	end := len(text)
	if i := strings.IndexByte(text[start:], '}'); i >= 0 {
		end = start + i + 1
	}
	n.Expr, n.Column = text[start:end], off-start+1
	n.Line = 1 + strings.Count(text[:start], "\n")
	return &n
}

// processingZone is the zone kick-off times without an offset are read in.
func processingZone(job *conf.Config) (schedule.ProcessingZone, error) {
	z, ok := job.Get(PropProcessing)
	if !ok || strings.TrimSpace(z) == "" {
		return schedule.UTC, nil
	}
	return schedule.ParseProcessingZone(strings.TrimSpace(z))
}

// resolve builds the App of a validated definition (root, parsed from
// def) for the job configuration job (defaults and parameters applied,
// values expanded): the document, comments removed, is evaluated as one
// EL text, then read again for the names, the kick-off time and the
// coordinators.
func resolve(def string, root *xmltree.Element, job *conf.Config) (*App, error) {
	stripped := comments.ReplaceAllString(def, "")
	resolved, err := evalText(evaluator(job, confVars{job}), stripped)
	if err != nil {
		return nil, submitError(elFailure(stripped, err))
	}
	doc, err := xmltree.Parse([]byte(resolved))
	if err != nil {
		// A value that broke the XML (a "<" in a property, say).
		return nil, submitErrorf(CodeRead, "Could not read the bundle job definition, [%v]", err)
	}
	coords, err := coordinators(doc)
	if err != nil {
		return nil, err
	}
	a := &App{Name: doc.Attr("name"), Namespace: root.Name.Space, Coordinators: coords,
		Parameters: parameters(root), Definition: def, JobXML: resolved}
	if k, ok := doc.Child("controls").LookupChildText("kick-off-time"); ok && k != "" {
		if a.KickoffTime, err = kickoff(k, job); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// kickoff parses a resolved kick-off-time; a bad one is Oozie's E1301
// (inside E1310).
func kickoff(text string, job *conf.Config) (time.Time, error) {
	pz, err := processingZone(job)
	if err != nil {
		return time.Time{}, submitErrorf(CodeRead, "Could not read the bundle job definition, [%s: %v]", PropProcessing, err)
	}
	t, err := pz.Parse(strings.TrimSpace(text))
	if err != nil {
		return time.Time{}, submitErrorf(CodeRead, "Could not read the bundle job definition, [Unparseable date: \"%s\"]", text)
	}
	return t, nil
}

// coordinators reads the <coordinator> elements of a resolved document,
// refusing a name used twice (E1304 inside E1310, the name printed as
// Oozie prints the attribute).
func coordinators(doc *xmltree.Element) ([]Coordinator, error) {
	var out []Coordinator
	seen := map[string]bool{}
	for _, c := range doc.ChildrenNamed("coordinator") {
		name := c.Attr("name")
		if seen[name] {
			return nil, submitErrorf(CodeDuplicate, "Duplicate bundle application coordinator name [[Attribute: name=\"%s\"]]", name)
		}
		seen[name] = true
		co := Coordinator{Name: name, AppPath: strings.TrimSpace(c.ChildText("app-path")),
			Critical: strings.EqualFold(c.Attr("critical"), "true"), Enabled: true}
		if v, ok := c.LookupAttr("enabled"); ok {
			co.Enabled = strings.EqualFold(v, "true")
		}
		if cfg := c.Child("configuration"); cfg != nil {
			co.Conf = propertiesOf(cfg)
		}
		out = append(out, co)
	}
	return out, nil
}

// propertiesOf reads a <configuration> as Oozie's XConfiguration does:
// names trimmed, values as written, a property with an empty value
// dropped.
func propertiesOf(cfg *xmltree.Element) *conf.Config {
	c := conf.New()
	for _, p := range cfg.ChildrenNamed("property") {
		name := strings.TrimSpace(p.ChildText("name"))
		value := p.ChildText("value")
		if name == "" || value == "" {
			continue
		}
		c.Set(name, value)
	}
	return c
}
