package bundle

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/vocab"
	"github.com/gozie/gozie/internal/xmltree"
)

// CheckDefinition checks a bundle definition without the job's
// properties (gozie validate without -config, the server's validate): the
// schema, EL syntax, the <parameters>, and the names, kick-off time and
// EL that need no variable, with Submit's codes. What needs a variable is
// left unchecked and said in the warnings, as are required parameters.
func CheckDefinition(xml []byte) (warnings []string, err error) {
	return CheckDefinitionProps(xml, nil)
}

// CheckDefinitionProps is CheckDefinition with the properties known
// (props may be nil): they define variables, and what needs one they do
// not define is still only a warning.
func CheckDefinitionProps(xml []byte, props *conf.Config) (warnings []string, err error) {
	root, err := parseValid(xml)
	if err != nil {
		return nil, err
	}
	c := &checker{job: conf.New()}
	if props != nil {
		c.job = props.Clone()
	}
	if err := applyParameters(root, c.job); err != nil {
		if vocab.Find(err, func(e *vocab.Error) bool { return e.Code == CodeMissingParam }) == nil {
			return nil, err
		}
		c.note("required parameters not defined, so not checked (give them with -config): %s", missingParams(root, c.job))
	}
	c.job = expanded(c.job)
	c.ev = evaluator(c.job, &c.vars)
	c.vars.job = confVars{c.job}
	if err := c.walk(root); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, co := range root.ChildrenNamed("coordinator") {
		name, ok := c.resolved[co]
		if !ok {
			continue
		}
		if seen[name] {
			return nil, submitErrorf(CodeDuplicate, "Duplicate bundle application coordinator name [[Attribute: name=\"%s\"]]", name)
		}
		seen[name] = true
	}
	if k := root.Child("controls").Child("kick-off-time"); k != nil {
		if v, ok := c.resolved[k]; ok && v != "" {
			if _, err := kickoff(v, c.job); err != nil {
				return nil, err
			}
		}
	}
	return c.notes, nil
}

// missingParams lists the required parameters job does not define.
func missingParams(root *xmltree.Element, job *conf.Config) string {
	var out []string
	for _, p := range parameters(root) {
		if !p.HasDefault && !job.Has(p.Name) {
			out = append(out, p.Name)
		}
	}
	return strings.Join(out, ", ")
}

// recorder resolves the job variables and remembers the names it could
// not: an evaluation that looked one up is unchecked, not failed.
type recorder struct {
	job     el.Resolver
	missing []string
}

func (r *recorder) Lookup(name string) (any, bool) {
	v, ok := r.job.Lookup(name)
	if !ok && !slices.Contains(r.missing, name) {
		r.missing = append(r.missing, name)
	}
	return v, ok
}

// checker is the state of a check: the evaluator, the notes, and the
// resolved coordinator names and kick-off time, by element.
type checker struct {
	job      *conf.Config
	vars     recorder
	ev       *el.Evaluator
	notes    []string
	resolved map[*xmltree.Element]string
}

func (c *checker) note(format string, args ...any) {
	if s := fmt.Sprintf(format, args...); !slices.Contains(c.notes, s) {
		c.notes = append(c.notes, s)
	}
}

// walk evaluates every attribute and text of e and its descendants, in
// document order, recording the coordinator names and the kick-off time.
func (c *checker) walk(e *xmltree.Element) error {
	if c.resolved == nil {
		c.resolved = map[*xmltree.Element]string{}
	}
	for _, a := range e.Attrs {
		v, ok, err := c.field(e.Name.Local+" "+a.Name.Local, a.Value)
		if err != nil {
			return err
		}
		if ok && e.Name.Local == "coordinator" && a.Name.Local == "name" && a.Name.Space == "" {
			c.resolved[e] = v
		}
	}
	v, ok, err := c.field(e.Name.Local, e.Text)
	if err != nil {
		return err
	}
	if ok && e.Name.Local == "kick-off-time" {
		c.resolved[e] = v
	}
	for _, k := range e.Children {
		if err := c.walk(k); err != nil {
			return err
		}
	}
	return nil
}

// field evaluates one text: its value and true, or false when it uses a
// variable nobody defined (noted), or the E1310 of an EL failure.
func (c *checker) field(what, text string) (string, bool, error) {
	if !el.HasExpr(text) {
		return text, true, nil
	}
	c.vars.missing = c.vars.missing[:0]
	v, err := evalText(c.ev, text)
	if err == nil {
		return v, true, nil
	}
	if len(c.vars.missing) > 0 && el.AsError(err) != nil && !el.AsError(err).Syntax {
		names := make([]string, len(c.vars.missing))
		for i, n := range c.vars.missing {
			names[i] = "[" + n + "]"
		}
		c.note("%s [%s] not checked: variable %s not defined (give the job properties with -config)",
			what, strings.TrimSpace(text), strings.Join(names, ", "))
		return "", false, nil
	}
	return "", false, submitError(elFailure(text, err))
}
