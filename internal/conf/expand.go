package conf

import (
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

// Expand returns s with every Hadoop variable reference ${name} replaced by
// the expanded value of name, looked up in c and then in c's Resolver.
//
// A reference is only a variable if name is non-empty and free of whitespace,
// '$', '{', '(', ')', quotes and commas, so EL expressions such as
// ${wf:conf('x')}, ${coord:current(0)} or ${a == b} pass through untouched.
// A reference stays literal when nothing defines it, when it refers back to a
// value being expanded (a=${a}), when it is nested more than 20 deep, or once
// one expansion has made 1000 substitutions; Expand never fails.
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
	inline [4]string // backing store for stack in the common shallow case
}

// run expands s, whose references are those of the value of name (empty for
// free text).
func (e *expander) run(name, s string) string {
	e.stack = e.inline[:0]
	if name != "" {
		e.stack = append(e.stack, name)
	}
	e.b.Grow(len(s) + len(s)/2)
	e.expand(s)
	return e.b.String()
}

func (e *expander) expand(s string) {
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			e.b.WriteString(s)
			return
		}
		e.b.WriteString(s[:i])
		end := strings.IndexByte(s[i+2:], '}')
		if end < 0 {
			e.b.WriteString(s[i:])
			return
		}
		if e.substitute(s[i+2 : i+2+end]) {
			s = s[i+2+end+1:]
			continue
		}
		// Not a substitutable variable: keep the '$' and rescan after it, so
		// a plain ${x} nested inside an EL expression is still found, as
		// Hadoop finds the innermost reference.
		e.b.WriteByte('$')
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
		e.b.WriteString(v)
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
