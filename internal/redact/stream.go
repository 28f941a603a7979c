package redact

import (
	"bufio"
	"io"
	"strings"
)

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
