package redact

import (
	"encoding/xml"
	"slices"
	"sort"
	"strings"
)

// Value is what a reader sees of property name's value v: the mask for a
// secret name, else v with the secrets it carries masked (Text).
func (m *Masker) Value(name, v string) string {
	if m == nil || v == "" {
		return v
	}
	if m.SecretName(name) {
		return Mask
	}
	return m.Text(v)
}

// textState is what one line of text tells the masker about the next:
// inside the property of a secret name (<name>db.password</name> seen, its
// property not ended), and inside that property's value (a multi-line
// <value> or the lines of a diff that changed it).
type textState struct {
	secretProp bool
	inValue    bool
}

// Text returns s with the secret values it can recognise masked, line by
// line: <value>s of properties whose <name> is secret (also across the
// lines of a diff), name=value and name: value where the name is secret
// (-Ddb.password=x, DB_PASSWORD="a b", "token": "x"; to the end of the
// line when the name starts it, as in a properties file), the word after
// a secret flag (--password x, <arg>--password</arg><arg>x</arg>), the
// passwords of URLs (scheme://user:*****@host), and the secret values the
// masker knows (WithValues) wherever they appear. Values that
// cannot be told from the text around them are not found: a secret
// printed on its own, or after a name and a blank only.
func (m *Masker) Text(s string) string {
	if m == nil || s == "" {
		return s
	}
	var st textState
	var b strings.Builder
	b.Grow(len(s))
	for len(s) > 0 {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line = s[:i+1]
		}
		s = s[len(line):]
		b.WriteString(m.maskLine(line, &st))
	}
	return b.String()
}

// MinSecretValue is the length under which a secret value is not masked
// wherever it appears (WithValues): masking every "1" or "yes" of a page
// would garble it and show where the secret is.
const MinSecretValue = 4

// WithValues returns a copy of m that also masks the given secret values
// wherever they appear in text: the value of a secret property printed by
// a program, passed as a positional argument or quoted in an error.
// Values shorter than MinSecretValue are ignored. A nil m stays nil: a
// reader who may see the secrets sees them everywhere.
func (m *Masker) WithValues(values ...string) *Masker {
	if m == nil {
		return nil
	}
	c := *m
	c.values = slices.Clone(m.values)
	for _, v := range values {
		// Text is masked line by line: a multi-line secret (a PEM key)
		// is masked as its lines.
		for _, part := range strings.Split(v, "\n") {
			part = strings.TrimSpace(part)
			if len(part) >= MinSecretValue && part != Mask && !slices.Contains(c.values, part) {
				c.values = append(c.values, part)
			}
		}
	}
	// Longest first, so that a value containing another is masked whole.
	sort.SliceStable(c.values, func(i, j int) bool { return len(c.values[i]) > len(c.values[j]) })
	return &c
}

// SecretValues returns the secrets of XML documents (a job's
// configuration, its actions' XML): the values of secret-named
// properties and the arguments after secret flags, for WithValues. A
// document that does not parse gives none.
func (m *Masker) SecretValues(docs ...string) []string {
	if m == nil {
		return nil
	}
	var out []string
	for _, doc := range docs {
		if doc == "" {
			continue
		}
		if _, hidden, ok := m.maskXML(doc); ok {
			out = append(out, hidden...)
		}
	}
	return out
}

// maskLine masks one line (with or without its newline) of a text.
func (m *Masker) maskLine(line string, st *textState) string {
	body := strings.TrimRight(line, "\r\n")
	nl := line[len(body):]
	for _, v := range m.values {
		body = strings.ReplaceAll(body, v, Mask)
	}
	body = m.xmlFragments(body, st)
	// assignments masks password=x as Secrets does (password is a
	// secret name), and more: only the URLs are left to it.
	return urlPasswords(m.assignments(body)) + nl
}

// xmlFragments masks the values of secret properties in a line of XML
// text: a configuration quoted in a message, or a diff of one.
func (m *Masker) xmlFragments(s string, st *textState) string {
	if !st.inValue && !strings.Contains(s, "<") {
		return s
	}
	var out strings.Builder
	rest := s
	if st.inValue {
		end := strings.Index(rest, "</value>")
		if end < 0 {
			end = len(rest)
		}
		p := diffIndent(rest[:end])
		out.WriteString(rest[:p])
		if end > p {
			out.WriteString(Mask)
		}
		if end == len(rest) {
			return out.String()
		}
		rest, st.inValue = rest[end:], false
	}
	for {
		i := strings.IndexByte(rest, '<')
		if i < 0 {
			out.WriteString(rest)
			return out.String()
		}
		out.WriteString(rest[:i])
		rest = rest[i:]
		switch {
		case strings.HasPrefix(rest, "<name>"):
			if end := strings.Index(rest, "</name>"); end >= 0 {
				st.secretProp = m.SecretName(strings.TrimSpace(unescapeXML(rest[len("<name>"):end])))
				out.WriteString(rest[:end])
				rest = rest[end:]
			}
		case strings.HasPrefix(rest, "<value>") && st.secretProp:
			out.WriteString("<value>")
			rest = rest[len("<value>"):]
			end := strings.Index(rest, "</value>")
			if end < 0 {
				if rest != "" {
					out.WriteString(Mask)
				}
				st.inValue = true
				return out.String()
			}
			if end > 0 {
				out.WriteString(Mask)
			}
			rest = rest[end:]
			continue
		case strings.HasPrefix(rest, "<property>"), strings.HasPrefix(rest, "</property>"):
			st.secretProp = false
		}
		out.WriteByte('<')
		rest = rest[1:]
	}
}

// diffIndent is the length of a line's diff marker and indentation, kept
// when the rest of the line is masked.
func diffIndent(s string) int {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-' || s[i] == ' ') {
		i++
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// unescapeXML decodes the entities of XML text; text that does not
// decode is returned as it is.
func unescapeXML(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	var v string
	if err := xml.Unmarshal([]byte("<x>"+s+"</x>"), &v); err != nil {
		return s
	}
	return v
}

// isNameByte reports the bytes of a property, variable or flag name.
func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}

// assignments masks, in one line, the values given to secret names
// (name=value, name: value) and the word after a secret flag.
func (m *Masker) assignments(s string) string {
	var out strings.Builder
	copied, i := 0, 0
	lead := true // no word yet but "export" or "set": a name here starts the line
	for i < len(s) {
		if !isNameByte(s[i]) {
			if s[i] != ' ' && s[i] != '\t' && s[i] != '"' && s[i] != '\'' && s[i] != '+' {
				lead = false
			}
			i++
			continue
		}
		j := i
		for j < len(s) && isNameByte(s[j]) {
			j++
		}
		tok, first := s[i:j], lead
		lead = lead && (tok == "export" || tok == "set")
		if !m.SecretName(tok) {
			i = j
			continue
		}
		k := j
		if k < len(s) && (s[k] == '"' || s[k] == '\'') {
			k++ // the closing quote of a quoted name: "password": "x"
		}
		k = skipBlanks(s, k)
		var vs, ve int
		switch {
		case k < len(s) && (s[k] == '=' || s[k] == ':') && !strings.HasPrefix(s[k:], "://"):
			vs, ve = valueSpan(s, skipBlanks(s, k+1), first)
		case tok[0] == '-' && !strings.Contains(tok, "="):
			vs, ve = valueSpan(s, skipBlanksAndTags(s, j), false)
		default:
			i = j
			continue
		}
		if ve > vs {
			out.WriteString(s[copied:vs])
			out.WriteString(Mask)
			copied = ve
		}
		i = max(ve, j)
	}
	if copied == 0 {
		return s
	}
	out.WriteString(s[copied:])
	return out.String()
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// skipBlanksAndTags skips blanks and XML tags: the room between a flag
// and its value in <arg>--password</arg> <arg>x</arg>.
func skipBlanksAndTags(s string, i int) int {
	for {
		i = skipBlanks(s, i)
		if i >= len(s) || s[i] != '<' {
			return i
		}
		end := strings.IndexByte(s[i:], '>')
		if end < 0 {
			return i
		}
		i += end + 1
	}
}

// valueSpan is where a value starting at i ends: inside its quotes when
// quoted, at the end of the line when toEOL (a name that starts the line,
// as in a properties file), else at the first blank or delimiter.
func valueSpan(s string, i int, toEOL bool) (int, int) {
	if i >= len(s) {
		return i, i
	}
	if q := s[i]; q == '"' || q == '\'' {
		end := strings.IndexByte(s[i+1:], q)
		if end < 0 {
			return i + 1, len(s)
		}
		return i + 1, i + 1 + end
	}
	if toEOL {
		return i, len(strings.TrimRight(s, " \t"))
	}
	j := i
	for j < len(s) && !strings.ContainsRune(" \t\"'&;,<>)]}", rune(s[j])) {
		j++
	}
	return i, j
}
