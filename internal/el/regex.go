package el

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
)

// Java regular expressions on top of Go's RE2.
//
// The patterns are compiled by Go's regexp package, which accepts the
// common subset of Java syntax (classes, quantifiers, groups, named groups
// (?<name>...) and (?P<name>...), \Q...\E, flags such as (?i)). Known gaps,
// reported as errors or behaving differently:
//
//   - no backreferences (\1, \k<name>), lookahead/lookbehind ((?=, (?!,
//     (?<=, (?<!), atomic groups ((?>) or possessive quantifiers (a*+):
//     RE2 rejects them, so the function fails with a syntax error;
//   - Java-only classes (\p{javaLowerCase}, \p{Alpha} POSIX names, \h, \R,
//     \X, \Z) are rejected; use [[:alpha:]] or \p{L} instead;
//   - after a non-empty match Java still tries an empty match at the same
//     position, Go does not: "abc" replaceAll("b*", "X") is "XaXXcX" in
//     Java and "XaXcX" here;
//   - matching is by UTF-8 code points, not UTF-16 units, which only
//     matters for patterns that split surrogate pairs.
//
// Replacement strings use Java's syntax, translated by the evaluator: $n
// and ${name} refer to groups (Java reads as many digits as form a valid
// group number), \$ and \\ are literal, a trailing "\" or a "$" without a
// group is an error.

// regexCache keeps compiled patterns, which repeat across jobs. Patterns come
// from user definitions, so the cache stops growing at maxCachedRegexps
// instead of letting a long-running server accumulate them without bound.
var (
	regexCache      sync.Map // pattern -> *regexp.Regexp
	regexCacheCount atomic.Int64
)

const maxCachedRegexps = 1024

func compileJava(pattern string) (*regexp.Regexp, error) {
	if v, ok := regexCache.Load(pattern); ok {
		return v.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression [%s]: %v", pattern, err)
	}
	if regexCacheCount.Load() < maxCachedRegexps {
		if _, loaded := regexCache.LoadOrStore(pattern, re); !loaded {
			regexCacheCount.Add(1)
		}
	}
	return re, nil
}

// replPart is a piece of a parsed Java replacement string: literal text, or
// a group reference (group >= 0).
type replPart struct {
	lit   string
	group int
}

// parseReplacement parses a Java replacement against re's groups.
func parseReplacement(re *regexp.Regexp, repl string) ([]replPart, error) {
	var parts []replPart
	var lit strings.Builder
	groups := re.NumSubexp()
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		switch c {
		case '\\':
			i++
			if i >= len(repl) {
				return nil, errors.New("character to be escaped is missing")
			}
			lit.WriteByte(repl[i])
		case '$':
			i++
			if i >= len(repl) {
				return nil, errors.New("illegal group reference: group index is missing")
			}
			g := -1
			if repl[i] == '{' {
				end := strings.IndexByte(repl[i:], '}')
				if end < 0 {
					return nil, errors.New("named capturing group is missing trailing '}'")
				}
				name := repl[i+1 : i+end]
				g = re.SubexpIndex(name)
				if name == "" || g < 0 {
					return nil, fmt.Errorf("no group with name {%s}", name)
				}
				i += end
			} else {
				if repl[i] < '0' || repl[i] > '9' {
					return nil, errors.New("illegal group reference")
				}
				g = int(repl[i] - '0')
				if g > groups {
					return nil, fmt.Errorf("no group %d", g)
				}
				// Java keeps taking digits while the number stays a valid group.
				for i+1 < len(repl) && repl[i+1] >= '0' && repl[i+1] <= '9' {
					n := g*10 + int(repl[i+1]-'0')
					if n > groups {
						break
					}
					g = n
					i++
				}
			}
			if lit.Len() > 0 {
				parts = append(parts, replPart{lit: lit.String(), group: -1})
				lit.Reset()
			}
			parts = append(parts, replPart{group: g})
		default:
			lit.WriteByte(c)
		}
	}
	if lit.Len() > 0 {
		parts = append(parts, replPart{lit: lit.String(), group: -1})
	}
	return parts, nil
}

// ReplaceAll is Java's String.replaceAll(regex, replacement) within the
// limits of RE2 described above.
func ReplaceAll(src, regex, replacement string) (string, error) {
	re, err := compileJava(regex)
	if err != nil {
		return "", err
	}
	parts, err := parseReplacement(re, replacement)
	if err != nil {
		return "", fmt.Errorf("invalid replacement [%s]: %v", replacement, err)
	}
	// The input is bounded too: the match list below is proportional to
	// it, several words per match.
	if err := checkLen("replaceAll", len(src)); err != nil {
		return "", err
	}
	matches := re.FindAllStringSubmatchIndex(src, -1)
	if matches == nil {
		return src, nil
	}
	var b strings.Builder
	write := func(s string) error {
		if err := checkLen("replaceAll", b.Len()+len(s)); err != nil {
			return err
		}
		b.WriteString(s)
		return nil
	}
	last := 0
	for _, m := range matches {
		if err := write(src[last:m[0]]); err != nil {
			return "", err
		}
		for _, p := range parts {
			piece := p.lit
			if p.group >= 0 {
				piece = ""
				if s, e := m[2*p.group], m[2*p.group+1]; s >= 0 {
					piece = src[s:e]
				}
			}
			if err := write(piece); err != nil {
				return "", err
			}
		}
		last = m[1]
	}
	if err := write(src[last:]); err != nil {
		return "", err
	}
	return b.String(), nil
}

// Split is Java's String.split(regex) with limit 0: no leading empty piece
// for a zero-width match at the start, trailing empty pieces removed, and
// the whole input as the only piece when nothing matches.
func Split(src, regex string) ([]string, error) {
	re, err := compileJava(regex)
	if err != nil {
		return nil, err
	}
	var out []string
	last := 0
	for _, m := range re.FindAllStringIndex(src, -1) {
		if m[0] == 0 && m[1] == 0 {
			continue
		}
		out = append(out, src[last:m[0]])
		last = m[1]
	}
	if out == nil {
		return []string{src}, nil
	}
	out = append(out, src[last:])
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out, nil
}
