package conf

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ParseProperties reads a Java .properties file with the rules of
// java.util.Properties.load:
//
//   - a logical line may continue over several natural lines, each ending in
//     an odd number of backslashes; the leading whitespace of a continuation
//     line is dropped;
//   - lines whose first non-blank character is '#' or '!' are comments, and
//     are never continued;
//   - the key ends at the first unescaped '=', ':' or whitespace; whitespace
//     around the separator is skipped, and a whitespace separator may be
//     followed by one '=' or ':';
//   - escapes \t \n \r \f and \uXXXX (surrogate pairs combine) are decoded in
//     keys and values; a backslash before any other character stands for
//     that character; a lone backslash at the end of input is dropped;
//   - lines end with LF, CR or CRLF; a key may have no value.
//
// The JDK reader's corner cases around lines that hold only a backslash are
// reproduced too (see lineReader.next), so a file means the same here as in
// Java. Input is read as UTF-8; see the package documentation for the ISO-8859-1
// fallback. A later definition of a key replaces an earlier one. The only
// syntax error is a malformed \u escape, reported with its line.
func ParseProperties(r io.Reader, source string) (*Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &ParseError{Source: source, Msg: err.Error(), Err: err}
	}
	data = decodeText(data)
	c := New()
	lr := lineReader{data: data, line: 1}
	for {
		l, ok := lr.next()
		if !ok {
			return c, nil
		}
		keyEnd, valStart := splitKeyValue(l.text)
		key, err := unescape(l.text[:keyEnd])
		if err == nil {
			var value string
			value, err = unescape(l.text[valStart:])
			if err == nil {
				c.SetProperty(Property{Name: key, Value: value, Source: source, Line: l.line})
				continue
			}
			err.pos += valStart
		}
		return nil, &ParseError{Source: source, Line: l.lineAt(err.pos), Msg: err.msg}
	}
}

// decodeText returns data as UTF-8: without a leading byte order mark, and
// converted from ISO-8859-1 when it is not valid UTF-8 (a legacy file written
// by java.util.Properties.store(OutputStream)).
func decodeText(data []byte) []byte {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if utf8.Valid(data) {
		return data
	}
	out := make([]byte, 0, len(data)+len(data)/4)
	for _, b := range data {
		out = utf8.AppendRune(out, rune(b))
	}
	return out
}

// logicalLine is one key/value definition with its continuations joined and
// its escapes still in place.
type logicalLine struct {
	text  []byte
	line  int   // natural line the definition starts on
	joins []int // offsets in text where each continuation line begins
}

// lineAt maps an offset in l.text back to the natural line it came from.
func (l *logicalLine) lineAt(pos int) int {
	n := l.line
	for _, j := range l.joins {
		if pos >= j {
			n++
		}
	}
	return n
}

// lineReader splits input into logical lines, skipping blank and comment
// lines.
type lineReader struct {
	data []byte
	pos  int
	line int
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\f' }

// skipBlanks advances past spaces, tabs and form feeds.
func (r *lineReader) skipBlanks() {
	for r.pos < len(r.data) && isBlank(r.data[r.pos]) {
		r.pos++
	}
}

// atEOL reports whether the reader stands on a line terminator.
func (r *lineReader) atEOL() bool {
	return r.pos < len(r.data) && (r.data[r.pos] == '\n' || r.data[r.pos] == '\r')
}

// skipEOL consumes one LF, CR or CRLF and counts the line.
func (r *lineReader) skipEOL() {
	if r.data[r.pos] == '\r' && r.pos+1 < len(r.data) && r.data[r.pos+1] == '\n' {
		r.pos++
	}
	r.pos++
	r.line++
}

// next returns the next logical line. It follows the JDK's reader in three
// corner cases that fall out of how that reader counts characters: a line
// that is only a continuation backslash leaves the logical line empty, so
// the next natural line is examined afresh (and may be a comment); a
// definition ends at a blank line that follows a continuation; and a
// backslash that ends the input, or is followed only by a single-character
// line end, still yields a definition even if nothing precedes it (an empty
// key with an empty value).
func (r *lineReader) next() (logicalLine, bool) {
	var l logicalLine
	appended := false // the current natural line continues l
	for {
		r.skipBlanks()
		if r.pos >= len(r.data) {
			return l, len(l.text) > 0
		}
		if r.atEOL() {
			r.skipEOL()
			if appended && len(l.text) > 0 {
				return l, true
			}
			appended = false
			continue
		}
		if len(l.text) == 0 {
			if c := r.data[r.pos]; c == '#' || c == '!' {
				for r.pos < len(r.data) && !r.atEOL() {
					r.pos++
				}
				if r.pos < len(r.data) {
					r.skipEOL()
				}
				appended = false
				continue
			}
			l.line = r.line
		} else if appended {
			l.joins = append(l.joins, len(l.text))
		}
		start := r.pos
		for r.pos < len(r.data) && !r.atEOL() {
			r.pos++
		}
		seg := r.data[start:r.pos]
		l.text = append(l.text, seg...)
		cont := trailingBackslashes(seg)%2 == 1
		if cont {
			l.text = l.text[:len(l.text)-1]
		}
		// The input ends here, or with this one line-end character.
		last := r.pos+1 >= len(r.data)
		if r.pos < len(r.data) {
			r.skipEOL()
		}
		if !cont || last {
			return l, true
		}
		appended = true
	}
}

func trailingBackslashes(b []byte) int {
	n := 0
	for i := len(b) - 1; i >= 0 && b[i] == '\\'; i-- {
		n++
	}
	return n
}

// splitKeyValue finds where the key of a logical line ends and its value
// starts.
func splitKeyValue(line []byte) (keyEnd, valStart int) {
	keyEnd = len(line)
	valStart = len(line)
	hasSep := false
	escaped := false
	for i, c := range line {
		if !escaped {
			if c == '=' || c == ':' {
				keyEnd, valStart, hasSep = i, i+1, true
				break
			}
			if isBlank(c) {
				keyEnd, valStart = i, i+1
				break
			}
		}
		escaped = c == '\\' && !escaped
	}
	for valStart < len(line) {
		c := line[valStart]
		if !isBlank(c) {
			if hasSep || (c != '=' && c != ':') {
				break
			}
			hasSep = true
		}
		valStart++
	}
	return keyEnd, valStart
}

// escapeError is a malformed escape at byte offset pos of the text being
// decoded.
type escapeError struct {
	pos int
	msg string
}

// unescape decodes the backslash escapes of a key or value.
func unescape(s []byte) (string, *escapeError) {
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s), nil
	}
	var b strings.Builder
	b.Grow(len(s))
	var high rune = -1 // pending high surrogate from a \u escape
	flush := func() {
		if high >= 0 {
			b.WriteRune(utf8.RuneError)
			high = -1
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			flush()
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(s) {
			break // a lone trailing backslash stands for nothing
		}
		c = s[i]
		if c != 'u' {
			flush()
			switch c {
			case 't':
				c = '\t'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 'f':
				c = '\f'
			}
			b.WriteByte(c)
			continue
		}
		u, ok := hex4(s[i+1:])
		if !ok {
			return "", &escapeError{pos: i - 1, msg: `malformed \uxxxx escape`}
		}
		i += 4
		switch {
		case utf16.IsSurrogate(u) && u < 0xDC00:
			flush()
			high = u
		case utf16.IsSurrogate(u):
			if high >= 0 {
				b.WriteRune(utf16.DecodeRune(high, u))
				high = -1
			} else {
				b.WriteRune(utf8.RuneError)
			}
		default:
			flush()
			b.WriteRune(u)
		}
	}
	flush()
	return b.String(), nil
}

func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// WriteProperties writes c as a .properties file, one "key=value" line per
// property in insertion order, escaped as java.util.Properties.store does so
// that Java and ParseProperties read back the same strings: '\\', '=', ':',
// '#', '!' and line-control characters are escaped everywhere, spaces
// everywhere in keys and at the start of values. Other non-ASCII text is
// written as UTF-8 rather than \u escapes, to stay readable; control
// characters and U+FEFF are written as \u escapes. Descriptions, sources and
// finality are not part of the format and are not written.
func (c *Config) WriteProperties(w io.Writer) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	for _, p := range c.props {
		buf = appendEscaped(buf[:0], p.Name, true)
		buf = append(buf, '=')
		buf = appendEscaped(buf, p.Value, false)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func appendEscaped(buf []byte, s string, isKey bool) []byte {
	const hexDigits = "0123456789ABCDEF"
	for i, r := range s {
		switch r {
		case ' ':
			if isKey || i == 0 {
				buf = append(buf, '\\')
			}
			buf = append(buf, ' ')
		case '\t':
			buf = append(buf, '\\', 't')
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\f':
			buf = append(buf, '\\', 'f')
		case '\\', '=', ':', '#', '!':
			buf = append(buf, '\\', byte(r))
		default:
			// Invalid UTF-8 arrives here as RuneError and is written as
			// U+FFFD, the same value a reader would have decoded.
			if r < 0x20 || (r >= 0x7F && r <= 0x9F) || r == 0xFEFF || r == utf8.RuneError {
				buf = append(buf, '\\', 'u',
					hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
			} else {
				buf = utf8.AppendRune(buf, r)
			}
		}
	}
	return buf
}
