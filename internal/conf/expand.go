package conf

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Resolver supplies values for ${name} references that a Config does not
// define itself, such as user.name or env.HOME. It reports false for names it
// does not know, which leaves the reference literal.
type Resolver func(name string) (value string, ok bool)

// MapResolver returns a Resolver that looks names up in m.
func MapResolver(m map[string]string) Resolver {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

// SetResolver installs r as the fallback for references the Config cannot
// resolve itself; nil removes it. Clone copies the resolver, Merge does not,
// because it belongs to the Config being read rather than to its contents.
func (c *Config) SetResolver(r Resolver) { c.resolver = r }

const (
	// maxDepth bounds how many references may be followed one inside
	// another; Hadoop uses the same figure as its substitution limit.
	maxDepth = 20
	// maxSubstitutions bounds the total work of one expansion, so that
	// values referring to each other several times (a=${b}${b},
	// b=${c}${c}, ...) cannot grow exponentially.
	maxSubstitutions = 1000
)

// ExpandLimits bound the size of what ${var} expansion builds. The
// substitution count alone does not: 1000 references to a 1 MB value make
// a gigabyte.
type ExpandLimits struct {
	// Value is the largest expanded value, in bytes. Values without
	// references are never expanded and never checked.
	Value int
	// Total is the largest sum of the expanded values of one
	// configuration (CheckExpansion), in bytes.
	Total int
}

// DefaultExpandLimits are the limits Get, Expand and ExpandedMap apply, and
// what CheckExpansion uses for zero fields. A program may set it once at
// start, before expanding anything (gozie server does, from its keys). Real values that use references
// are paths, names, lists and the odd inline script: kilobytes. 1 MiB per
// value is far above that; 32 MiB in total is twice the largest
// configuration the server accepts in a request plus a config-default.xml.
var DefaultExpandLimits = ExpandLimits{Value: 1 << 20, Total: 32 << 20}

func (l ExpandLimits) withDefaults() ExpandLimits {
	if l.Value <= 0 {
		l.Value = DefaultExpandLimits.Value
	}
	if l.Total <= 0 {
		l.Total = DefaultExpandLimits.Total
	}
	return l
}

// ExpandError reports a configuration whose expansion is over a limit. It
// carries Oozie's EL evaluation error code, E1004, the closest Oozie has to
// a variable that cannot be evaluated.
type ExpandError struct {
	Name  string // the property being expanded when the limit was reached
	Limit int    // bytes
	Total bool   // the limit is that of the whole configuration
}

// CodeExpand is the Oozie error code of an *ExpandError.
const CodeExpand = "E1004"

func (e *ExpandError) Error() string {
	if e.Total {
		return fmt.Sprintf("%s: Expression language evaluation error, the expanded configuration is larger than %d bytes (limit reached at property [%s])", CodeExpand, e.Limit, e.Name)
	}
	return fmt.Sprintf("%s: Expression language evaluation error, property [%s] expands to more than %d bytes", CodeExpand, e.Name, e.Limit)
}

// OozieCode returns CodeExpand, for callers mapping errors to codes.
func (e *ExpandError) OozieCode() string { return CodeExpand }

// CheckExpansion expands every value of c and reports the first one whose
// expansion would be longer than l.Value bytes, or the property at which
// the expanded values together pass l.Total bytes; zero fields of l mean
// DefaultExpandLimits. Submissions call it so that a job whose
// configuration cannot be expanded is refused before it is stored, rather
// than failing (or exhausting memory) each time it is loaded.
func (c *Config) CheckExpansion(l ExpandLimits) error {
	l = l.withDefaults()
	total := 0
	for _, p := range c.props {
		n := len(p.Value)
		if hasRef(p.Value) {
			e := expander{c: c, limit: l.Value}
			v := e.run(p.Name, p.Value)
			if e.over {
				return &ExpandError{Name: p.Name, Limit: l.Value}
			}
			n = len(v)
		}
		if total += n; total > l.Total {
			return &ExpandError{Name: p.Name, Limit: l.Total, Total: true}
		}
	}
	return nil
}

// Expand returns s with every Hadoop variable reference ${name} replaced by
// the expanded value of name, looked up in c and then in c's Resolver.
//
// A reference is only a variable if name is non-empty and free of whitespace,
// '$', '{', '(', ')', quotes and commas, so EL expressions such as
// ${wf:conf('x')}, ${coord:current(0)} or ${a == b} pass through untouched.
// A reference stays literal when nothing defines it, when it refers back to a
// value being expanded (a=${a}), when it is nested more than 20 deep, or once
// one expansion has made 1000 substitutions. When the result would be longer
// than DefaultExpandLimits.Value, s is returned unexpanded (CheckExpansion
// reports such values as errors). Expand never fails.
func (c *Config) Expand(s string) string {
	if !hasRef(s) {
		return s
	}
	e := expander{c: c}
	return e.run("", s)
}

func hasRef(s string) bool { return strings.Contains(s, "${") }

// expander carries the state of one top-level expansion: the names currently
// being expanded (to stop cycles) and the substitutions made so far. All
// levels write into one builder, so nested references cost no extra strings.
type expander struct {
	c      *Config
	b      strings.Builder
	stack  []string  // names whose values are being expanded
	depth  int       // substitutions currently in progress, one inside another
	subst  int       // substitutions made so far
	limit  int       // largest result in bytes; 0 means DefaultExpandLimits.Value
	over   bool      // the result reached limit: expansion stopped
	inline [4]string // backing store for stack in the common shallow case
}

// run expands s, whose references are those of the value of name (empty for
// free text). A result over the limit gives s itself, unexpanded, and sets
// e.over: memory stays bounded by the limit whatever the references do.
func (e *expander) run(name, s string) string {
	if e.limit <= 0 {
		e.limit = DefaultExpandLimits.Value
	}
	e.stack = e.inline[:0]
	if name != "" {
		e.stack = append(e.stack, name)
	}
	e.b.Grow(min(len(s)+len(s)/2, e.limit))
	e.expand(s)
	if e.over {
		return s
	}
	return e.b.String()
}

// write appends s to the result unless that would pass the limit, in which
// case it marks the expansion as over and every caller unwinds.
func (e *expander) write(s string) {
	if e.over {
		return
	}
	if e.b.Len()+len(s) > e.limit {
		e.over = true
		return
	}
	e.b.WriteString(s)
}

func (e *expander) expand(s string) {
	for !e.over {
		i := strings.Index(s, "${")
		if i < 0 {
			e.write(s)
			return
		}
		e.write(s[:i])
		end := strings.IndexByte(s[i+2:], '}')
		if end < 0 {
			e.write(s[i:])
			return
		}
		if e.substitute(s[i+2 : i+2+end]) {
			s = s[i+2+end+1:]
			continue
		}
		// Not a substitutable variable: keep the '$' and rescan after it, so
		// a plain ${x} nested inside an EL expression is still found, as
		// Hadoop finds the innermost reference.
		e.write("$")
		s = s[i+1:]
	}
}

// substitute writes the expanded value for the reference ${name}, or reports
// false if the reference must stay literal.
func (e *expander) substitute(name string) bool {
	if !isVarName(name) || slices.Contains(e.stack, name) ||
		e.depth >= maxDepth || e.subst >= maxSubstitutions {
		return false
	}
	v, ok := e.c.Raw(name)
	if !ok && e.c.resolver != nil {
		v, ok = e.c.resolver(name)
	}
	if !ok {
		return false
	}
	e.subst++
	if !hasRef(v) {
		e.write(v)
		return true
	}
	e.stack = append(e.stack, name)
	e.depth++
	e.expand(v)
	e.depth--
	e.stack = e.stack[:len(e.stack)-1]
	return true
}

// isVarName reports whether name can be a Hadoop variable rather than part of
// an EL expression. Property names in practice are dotted identifiers; the
// characters excluded here are the ones EL function calls, string literals
// and operators with spaces need.
func isVarName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		switch r {
		case '$', '{', '(', ')', '\'', '"', ',':
			return false
		}
		if unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// AsResolver returns a Resolver that looks names up in c, raw; the values it
// supplies are expanded by the Config using it. It lets one layer (say the
// job configuration) back the references of another without merging them.
func (c *Config) AsResolver() Resolver { return c.Raw }
