package redact

import (
	"bufio"
	"encoding/xml"
	"io"
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

// XML returns an XML document (a Hadoop configuration, an action's XML,
// a workflow or coordinator definition) with secrets masked and the
// document still well-formed: the values of <property> elements whose
// <name> is secret become the mask, as does the argument after a secret
// flag (<arg>--password</arg><arg>x</arg>), and every other text and
// comment is masked as Text masks it. Everything else is kept byte for
// byte. A document that does not parse is masked as text.
func (m *Masker) XML(doc string) string {
	if m == nil || doc == "" {
		return doc
	}
	if out, _, ok := m.maskXML(doc); ok {
		return out
	}
	return m.Text(doc)
}

// xmlText is one text node: its bytes in the document and its decoded
// text.
type xmlText struct {
	start, end int
	text       string
}

// xmlElem is an open element while the masker walks a document.
type xmlElem struct {
	name     string
	texts    []xmlText
	propName string    // a <property>'s <name>
	values   []xmlText // a <property>'s <value> texts
	maskAll  bool      // an argument after a secret flag
	flagNext bool      // the last argument child was a secret flag
}

// xmlEdit replaces doc[start:end].
type xmlEdit struct {
	start, end int
	repl       string
}

func isArg(name string) bool { return name == "arg" || name == "argument" }

func joinTexts(ts []xmlText) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.text)
	}
	return b.String()
}

// maskXML walks doc's tokens, noting the byte span of each text, and
// replaces the spans to mask. It returns the secrets it hid too, and
// reports false when doc is not XML.
func (m *Masker) maskXML(doc string) (string, []string, bool) {
	d := xml.NewDecoder(strings.NewReader(doc))
	var stack []*xmlElem
	var edits []xmlEdit
	var hidden []string
	// hide replaces a secret's texts: the first by the mask, the others
	// (CDATA sections beside text) by nothing.
	hide := func(ts []xmlText) {
		secret := joinTexts(ts)
		if secret == "" {
			return
		}
		hidden = append(hidden, secret)
		for i, t := range ts {
			repl := ""
			if i == 0 {
				repl = Mask
			}
			edits = append(edits, xmlEdit{t.start, t.end, repl})
		}
	}
	scan := func(ts []xmlText) {
		for _, t := range ts {
			if masked := m.Text(t.text); masked != t.text {
				var b strings.Builder
				_ = xml.EscapeText(&b, []byte(masked))
				edits = append(edits, xmlEdit{t.start, t.end, b.String()})
			}
		}
	}
	for {
		start := int(d.InputOffset())
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", nil, false
		}
		end := int(d.InputOffset())
		switch t := tok.(type) {
		case xml.StartElement:
			el := &xmlElem{name: t.Name.Local}
			if n := len(stack); n > 0 {
				parent := stack[n-1]
				if isArg(el.name) {
					el.maskAll = parent.flagNext
				} else {
					parent.flagNext = false
				}
			}
			stack = append(stack, el)
		case xml.CharData:
			if n := len(stack); n > 0 {
				stack[n-1].texts = append(stack[n-1].texts, xmlText{start, end, string(t)})
			}
		case xml.Comment:
			if masked := m.Text(string(t)); masked != string(t) && end-start >= 7 {
				edits = append(edits, xmlEdit{start + 4, end - 3, strings.ReplaceAll(masked, "--", "- -")})
			}
		case xml.EndElement:
			n := len(stack)
			if n == 0 {
				return "", nil, false
			}
			el := stack[n-1]
			stack = stack[:n-1]
			var parent *xmlElem
			if n > 1 {
				parent = stack[n-2]
			}
			inProperty := parent != nil && parent.name == "property"
			switch {
			case el.maskAll:
				hide(el.texts)
			case inProperty && el.name == "name":
				parent.propName += joinTexts(el.texts)
			case inProperty && el.name == "value":
				parent.values = append(parent.values, el.texts...)
			default:
				scan(el.texts)
			}
			if el.name == "property" {
				if m.SecretName(strings.TrimSpace(el.propName)) {
					hide(el.values)
				} else {
					scan(el.values)
				}
			}
			if parent != nil && isArg(el.name) {
				flag := strings.TrimSpace(joinTexts(el.texts))
				parent.flagNext = strings.HasPrefix(flag, "-") && !strings.Contains(flag, "=") && m.SecretName(flag)
			}
		}
	}
	if len(stack) > 0 {
		return "", nil, false // unclosed elements: not a document
	}
	if len(edits) == 0 {
		return doc, hidden, true
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	b.Grow(len(doc))
	at := 0
	for _, e := range edits {
		b.WriteString(doc[at:e.start])
		b.WriteString(e.repl)
		at = e.end
	}
	b.WriteString(doc[at:])
	return b.String(), hidden, true
}

// Properties returns Java properties text (an action's captured output)
// with the values of secret keys masked, continuation lines included, and
// the other lines masked as Text masks them.
func (m *Masker) Properties(s string) string {
	if m == nil || s == "" {
		return s
	}
	var b strings.Builder
	cont, hiding := false, false
	for len(s) > 0 {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line = s[:i+1]
		}
		s = s[len(line):]
		body := strings.TrimRight(line, "\r\n")
		nl := line[len(body):]
		wasCont := cont
		cont = oddBackslashes(body)
		if wasCont {
			if !hiding {
				b.WriteString(m.Text(body) + nl)
			}
			continue
		}
		trimmed := strings.TrimLeft(body, " \t\f")
		if trimmed == "" || trimmed[0] == '#' || trimmed[0] == '!' {
			b.WriteString(line)
			hiding = false
			continue
		}
		key, valueAt := propertyKey(trimmed)
		hiding = m.SecretName(key)
		if !hiding {
			b.WriteString(m.Text(body) + nl)
			continue
		}
		prefix := body[:len(body)-len(trimmed)+valueAt]
		if valueAt < len(trimmed) {
			b.WriteString(prefix + Mask + nl)
		} else {
			b.WriteString(body + nl)
		}
	}
	return b.String()
}

// oddBackslashes reports a properties line that continues on the next.
func oddBackslashes(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// propertyKey reads the key of a properties line (unescaped) and where its
// value starts, past the separator (= : or blanks).
func propertyKey(line string) (string, int) {
	var key strings.Builder
	i := 0
	for i < len(line) {
		c := line[i]
		if c == '\\' && i+1 < len(line) {
			key.WriteByte(line[i+1])
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		key.WriteByte(c)
		i++
	}
	i = skipBlanks(line, i)
	if i < len(line) && (line[i] == '=' || line[i] == ':') {
		i = skipBlanks(line, i+1)
	}
	return key.String(), i
}

// Reader returns r's text masked line by line as Text masks it, for
// output streamed to a reader (an action's stdout and stderr). Lines
// longer than 64 KiB are masked in pieces of that size. A nil masker
// returns r.
func (m *Masker) Reader(r io.Reader) io.Reader {
	if m == nil {
		return r
	}
	return &textReader{m: m, src: bufio.NewReaderSize(r, 64<<10)}
}

type textReader struct {
	m   *Masker
	src *bufio.Reader
	st  textState
	buf []byte
	err error
}

func (t *textReader) Read(p []byte) (int, error) {
	for len(t.buf) == 0 {
		if t.err != nil {
			return 0, t.err
		}
		line, err := t.src.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			err = nil
		}
		if len(line) > 0 {
			t.buf = append(t.buf[:0], t.m.maskLine(string(line), &t.st)...)
		}
		t.err = err
	}
	n := copy(p, t.buf)
	t.buf = t.buf[n:]
	return n, nil
}
