// Package kerberos holds what gozie needs of Kerberos besides logging in
// to stores (fsys/hdfs does that): the SPNEGO acceptor of the server
// (accept.go: verify a client's AP-REQ against a keytab, refuse replays,
// answer mutual authentication with an AP-REP), the SPNEGO initiator of
// the client (initiate.go: a Negotiate header from the user's ticket
// cache) and the mapping of principals to short user names with Hadoop's
// auth_to_local rules (name.go).
package kerberos

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Name is a Kerberos principal split as Hadoop's KerberosName splits it:
// service[/host][@REALM], at most two components.
type Name struct {
	Service, Host, Realm string
	hasHost, hasRealm    bool
}

// namePattern is Hadoop's principal parser: one or two components and an
// optional realm, none containing '/' or '@'.
var namePattern = regexp.MustCompile(`^([^/@]+)(/([^/@]+))?(@([^/@]+))?$`)

// ParseName splits a principal. A name that does not parse but has no '@'
// is taken whole as a service name, as Hadoop does; one with '@' is
// malformed.
func ParseName(s string) (Name, error) {
	m := namePattern.FindStringSubmatch(s)
	if m == nil {
		if strings.Contains(s, "@") {
			return Name{}, fmt.Errorf("malformed Kerberos name: %s", s)
		}
		return Name{Service: s}, nil
	}
	return Name{Service: m[1], Host: m[3], Realm: m[5], hasHost: m[2] != "", hasRealm: m[4] != ""}, nil
}

// String puts the name back together.
func (n Name) String() string {
	s := n.Service
	if n.hasHost {
		s += "/" + n.Host
	}
	if n.hasRealm {
		s += "@" + n.Realm
	}
	return s
}

// Rules are auth_to_local rules (hadoop.security.auth_to_local,
// oozie.authentication.kerberos.name.rules) in Hadoop's syntax, evaluated
// with Hadoop's default "hadoop" mechanism: a rule whose result still has
// '/' or '@' is an error, and a name no rule maps is refused.
type Rules struct {
	rules        []rule
	defaultRealm string
}

// rule is one RULE:[n:format](match)s/from/to/g/L, or DEFAULT.
type rule struct {
	isDefault  bool
	components int
	format     string
	match      *regexp.Regexp // nil: any
	from       *regexp.Regexp // nil: no substitution
	to         string         // Go replacement template
	global     bool
	lower      bool
	text       string
}

// ruleSyntax is Hadoop's rule grammar, matched at the start of what is
// left of the rules text.
var ruleSyntax = regexp.MustCompile(`^\s*((DEFAULT)|(RULE:\[(\d*):([^\]]*)](\(([^)]*)\))?(s/([^/]*)/([^/]*)/(g)?)?))/?(L)?`)

// ParseRules reads rules text (rules separated by white space or
// newlines; blank means DEFAULT). defaultRealm is the realm the DEFAULT
// rule strips (krb5.conf's default_realm).
func ParseRules(text, defaultRealm string) (*Rules, error) {
	rs := &Rules{defaultRealm: defaultRealm}
	rest := strings.TrimSpace(text)
	if rest == "" {
		rest = "DEFAULT"
	}
	for rest != "" {
		m := ruleSyntax.FindStringSubmatchIndex(rest)
		if m == nil {
			return nil, fmt.Errorf("invalid auth_to_local rule: %s", rest)
		}
		g := func(i int) (string, bool) {
			if m[2*i] < 0 {
				return "", false
			}
			return rest[m[2*i]:m[2*i+1]], true
		}
		r := rule{text: strings.TrimSpace(rest[:m[1]])}
		if _, ok := g(2); ok {
			r.isDefault = true
		} else if err := r.parse(g); err != nil {
			return nil, fmt.Errorf("auth_to_local rule %s: %v", r.text, err)
		}
		rs.rules = append(rs.rules, r)
		rest = strings.TrimSpace(rest[m[1]:])
	}
	return rs, nil
}

// parse fills a RULE from the groups of ruleSyntax.
func (r *rule) parse(g func(int) (string, bool)) error {
	n, _ := g(4)
	c, err := strconv.Atoi(n)
	if err != nil || c < 1 || c > 2 {
		return fmt.Errorf("the number of components %q is not 1 or 2", n)
	}
	r.components = c
	r.format, _ = g(5)
	if expr, ok := g(7); ok {
		if r.match, err = regexp.Compile(`^(?:` + expr + `)$`); err != nil {
			return fmt.Errorf("match expression: %v", err)
		}
	}
	if from, ok := g(9); ok {
		if r.from, err = regexp.Compile(from); err != nil {
			return fmt.Errorf("substitution pattern: %v", err)
		}
		to, _ := g(10)
		r.to = goTemplate(to)
	}
	_, r.global = g(11)
	_, r.lower = g(12)
	return nil
}

// goTemplate turns a Java replacement string ($1 for a group, \x for a
// literal x) into a Go regexp template.
func goTemplate(java string) string {
	var b strings.Builder
	for i := 0; i < len(java); i++ {
		switch c := java[i]; {
		case c == '\\' && i+1 < len(java):
			i++
			if java[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(java[i])
			}
		case c == '$':
			j := i + 1
			for j < len(java) && java[j] >= '0' && java[j] <= '9' {
				j++
			}
			b.WriteString("${" + java[i+1:j] + "}")
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ShortName maps a principal to its short (user) name: a name without
// realm and host is already short; otherwise the first rule that applies
// decides.
func (rs *Rules) ShortName(principal string) (string, error) {
	n, err := ParseName(principal)
	if err != nil {
		return "", err
	}
	if !n.hasHost && !n.hasRealm {
		return n.Service, nil
	}
	params := []string{n.Realm, n.Service}
	if n.hasHost {
		params = append(params, n.Host)
	}
	for _, r := range rs.rules {
		out, ok, err := r.apply(params, rs.defaultRealm)
		if err != nil {
			return "", err
		}
		if ok {
			return out, nil
		}
	}
	return "", fmt.Errorf("no auth_to_local rule applies to %s", n)
}

// apply tries one rule on params (realm, then the components).
func (r rule) apply(params []string, defaultRealm string) (string, bool, error) {
	var out string
	ok := false
	switch {
	case r.isDefault:
		if params[0] == defaultRealm {
			out, ok = params[1], true
		}
	case len(params)-1 == r.components:
		base, err := expand(r.format, params)
		if err != nil {
			return "", false, err
		}
		if r.match == nil || r.match.MatchString(base) {
			out, ok = base, true
			if r.from != nil {
				out = substitute(base, r.from, r.to, r.global)
			}
		}
	}
	if ok && strings.ContainsAny(out, "/@") {
		return "", false, fmt.Errorf("non-simple name %s after auth_to_local rule %s", out, r.text)
	}
	if ok && r.lower {
		out = strings.ToLower(out)
	}
	return out, ok, nil
}

// expand replaces $0 (the realm), $1, $2 (the components) in format.
func expand(format string, params []string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '$' {
			b.WriteByte(format[i])
			continue
		}
		j := i + 1
		for j < len(format) && format[j] >= '0' && format[j] <= '9' {
			j++
		}
		num, err := strconv.Atoi(format[i+1 : j])
		if err != nil {
			return "", fmt.Errorf("bad format in username mapping in %s", format)
		}
		if num >= len(params) {
			return "", fmt.Errorf("index %d from %s is outside of the valid range 0 to %d", num, format, len(params)-1)
		}
		b.WriteString(params[num])
		i = j - 1
	}
	return b.String(), nil
}

// substitute is sed's s/from/to/ on base: the first match, or all with g.
func substitute(base string, from *regexp.Regexp, to string, global bool) string {
	if global {
		return from.ReplaceAllString(base, to)
	}
	loc := from.FindStringSubmatchIndex(base)
	if loc == nil {
		return base
	}
	var dst []byte
	dst = from.ExpandString(dst, to, base, loc)
	return base[:loc[0]] + string(dst) + base[loc[1]:]
}
