package conf

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// MaxXMLDepth bounds how deeply elements may nest in a configuration
// document. Real ones nest three deep (configuration, property, value); the
// bound makes a body of a million nested elements fail at the 65th instead
// of costing seconds and a stack per level.
const MaxXMLDepth = 64

// ParseXML reads a Hadoop configuration document:
//
//	<configuration>
//	  <property>
//	    <name>n</name> <value>v</value> <final>true</final> <description>d</description>
//	  </property>
//	</configuration>
//
// The XML declaration, processing instructions, comments, a DOCTYPE and
// whitespace are allowed around the elements. Child elements of <property>
// other than the four above are ignored, as are non-property children of
// <configuration>; a nested <configuration> contributes its properties, as
// in Hadoop. name, value and final may also be given as attributes of
// <property>. A missing <value> means the empty string. Within one document
// a later definition replaces an earlier one unless the earlier one is final.
//
// It fails, with the line where the problem was found, on malformed XML, a
// root element other than <configuration>, a property without a name, or
// elements nested more than MaxXMLDepth deep.
// Element names are matched without regard to namespace, so the
// <configuration> blocks of namespaced workflow documents read the same way.
func ParseXML(r io.Reader, source string) (*Config, error) {
	d := newDecoder(r)
	c := New()
	seenRoot := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			if !seenRoot {
				return nil, posError(d, source, "no <configuration> element")
			}
			return c, nil
		}
		if err != nil {
			return nil, xmlError(d, source, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if seenRoot {
				return nil, posError(d, source, fmt.Sprintf("unexpected <%s> after </configuration>", t.Name.Local))
			}
			if t.Name.Local != "configuration" {
				return nil, posError(d, source, fmt.Sprintf("root element is <%s>, want <configuration>", t.Name.Local))
			}
			seenRoot = true
			if err := readConfiguration(d, c, source, 1); err != nil {
				return nil, err
			}
		case xml.CharData:
			// Text outside the root makes the document malformed; the
			// decoder itself does not check this. A BOM arrives as text.
			if strings.TrimLeft(string(t), " \t\r\n\uFEFF") != "" {
				return nil, posError(d, source, "text outside <configuration>")
			}
		}
	}
}

// ReadElement reads the properties of a <configuration> element whose start
// tag the caller has just taken from d, consuming everything up to and
// including its end tag. It lets the workflow and coordinator parsers reuse
// this package for the <configuration> blocks embedded in their documents;
// line numbers in errors are those of d's input.
func ReadElement(d *xml.Decoder, start xml.StartElement, source string) (*Config, error) {
	c := New()
	if err := readConfiguration(d, c, source, 1); err != nil {
		return nil, err
	}
	return c, nil
}

func newDecoder(r io.Reader) *xml.Decoder {
	d := xml.NewDecoder(r)
	d.CharsetReader = charsetReader
	return d
}

// depthError reports an element nested deeper than MaxXMLDepth.
func depthError(d *xml.Decoder, source string) error {
	return posError(d, source, fmt.Sprintf("elements nested more than %d deep", MaxXMLDepth))
}

// readConfiguration reads the content of a <configuration> element, itself
// at nesting depth depth, into c.
func readConfiguration(d *xml.Decoder, c *Config, source string, depth int) error {
	for {
		tok, err := d.Token()
		if err != nil {
			return xmlError(d, source, err)
		}
		switch t := tok.(type) {
		case xml.EndElement:
			return nil
		case xml.StartElement:
			if depth+1 > MaxXMLDepth {
				return depthError(d, source)
			}
			switch t.Name.Local {
			case "property":
				p, err := readProperty(d, t, source, depth+1)
				if err != nil {
					return err
				}
				c.load(p)
			case "configuration":
				if err := readConfiguration(d, c, source, depth+1); err != nil {
					return err
				}
			default:
				if _, err := readText(d, depth+1); err != nil {
					return xmlError(d, source, err)
				}
			}
		}
	}
}

// readProperty reads a <property> element, at nesting depth depth, whose
// start tag has been consumed.
func readProperty(d *xml.Decoder, start xml.StartElement, source string, depth int) (Property, error) {
	line, _ := d.InputPos()
	p := Property{Source: source, Line: line}
	hasName := false
	for _, a := range start.Attr {
		switch a.Name.Local {
		case "name":
			p.Name, hasName = a.Value, true
		case "value":
			p.Value = a.Value
		case "final":
			p.Final = isTrue(a.Value)
		}
	}
	for {
		tok, err := d.Token()
		if err != nil {
			return p, xmlError(d, source, err)
		}
		switch t := tok.(type) {
		case xml.EndElement:
			if !hasName {
				return p, &ParseError{Source: source, Line: line, Msg: "property without <name>"}
			}
			p.Name = strings.Trim(p.Name, " \t\r\n")
			if p.Name == "" {
				return p, &ParseError{Source: source, Line: line, Msg: "property with empty <name>"}
			}
			return p, nil
		case xml.StartElement:
			if depth+1 > MaxXMLDepth {
				return p, depthError(d, source)
			}
			text, err := readText(d, depth+1)
			if err != nil {
				return p, xmlError(d, source, err)
			}
			switch t.Name.Local {
			case "name":
				p.Name, hasName = text, true
			case "value":
				p.Value = text
			case "final":
				p.Final = isTrue(text)
			case "description":
				p.Description = text
			}
		}
	}
}

func isTrue(s string) bool { return strings.Trim(s, " \t\r\n") == "true" }

// readText returns the character data of the element, at nesting depth
// level, whose start tag has been consumed, including that of any nested
// elements, and consumes its end tag. It also skips unknown elements, in
// place of xml.Decoder.Skip, which has no depth bound.
func readText(d *xml.Decoder, level int) (string, error) {
	var b strings.Builder
	depth := 0
	for {
		tok, err := d.Token()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			b.Write(t)
		case xml.StartElement:
			if depth++; level+depth > MaxXMLDepth {
				line, _ := d.InputPos()
				return "", &ParseError{Line: line, Msg: fmt.Sprintf("elements nested more than %d deep", MaxXMLDepth)}
			}
		case xml.EndElement:
			if depth == 0 {
				return b.String(), nil
			}
			depth--
		}
	}
}

// xmlError converts a decoder error into a ParseError at the right line.
func xmlError(d *xml.Decoder, source string, err error) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		if pe.Source == "" {
			pe.Source = source
		}
		return err
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return &ParseError{Source: source, Line: se.Line, Msg: "invalid XML: " + se.Msg, Err: err}
	}
	line, _ := d.InputPos()
	return &ParseError{Source: source, Line: line, Msg: "invalid XML: " + err.Error(), Err: err}
}

func posError(d *xml.Decoder, source, msg string) error {
	line, _ := d.InputPos()
	return &ParseError{Source: source, Line: line, Msg: msg}
}

// charsetReader lets documents declare the encodings Hadoop files are found
// with besides UTF-8; anything else is refused by the decoder with a message
// naming the encoding.
func charsetReader(charset string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(charset) {
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1":
		return &latin1Reader{r: bufio.NewReader(input)}, nil
	case "us-ascii", "ascii":
		// ASCII is a subset of UTF-8; bytes above 0x7F are then rejected
		// or read as UTF-8, which is as good a guess as any.
		return input, nil
	}
	return nil, fmt.Errorf("unsupported encoding %q", charset)
}

// latin1Reader converts ISO-8859-1 bytes to UTF-8.
type latin1Reader struct {
	r       *bufio.Reader
	pending []byte
}

func (l *latin1Reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(l.pending) > 0 {
			k := copy(p[n:], l.pending)
			l.pending = l.pending[k:]
			n += k
			continue
		}
		b, err := l.r.ReadByte()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		if b < utf8.RuneSelf {
			p[n] = b
			n++
			continue
		}
		l.pending = utf8.AppendRune(l.pending[:0], rune(b))
	}
	return n, nil
}

// WriteXML writes c as a Hadoop configuration document, properties in
// insertion order, two-space indented, so that the same Config always gives
// the same bytes. <final> and <description> are written only when set.
// Characters XML 1.0 cannot carry (most control characters) and invalid UTF-8
// are written as U+FFFD. A property with an empty name cannot be read back and
// is refused.
func (c *Config) WriteXML(w io.Writer) error {
	for _, p := range c.props {
		if strings.Trim(p.Name, " \t\r\n") == "" {
			return fmt.Errorf("conf: cannot write property with empty name to XML")
		}
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<configuration>\n")
	for _, p := range c.props {
		bw.WriteString("  <property>\n")
		writeField(bw, "name", p.Name)
		writeField(bw, "value", p.Value)
		if p.Final {
			writeField(bw, "final", "true")
		}
		if p.Description != "" {
			writeField(bw, "description", p.Description)
		}
		bw.WriteString("  </property>\n")
	}
	bw.WriteString("</configuration>\n")
	return bw.Flush()
}

func writeField(w *bufio.Writer, tag, text string) {
	w.WriteString("    <" + tag + ">")
	writeText(w, text)
	w.WriteString("</" + tag + ">\n")
}

// writeText escapes only what element content requires, so that values such
// as ${wf:conf('x')} and multi-line scripts stay readable. '>' is escaped
// to rule out "]]>", and CR because a reader would turn it into LF.
func writeText(w *bufio.Writer, s string) {
	last := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch {
		case r == '&':
			esc = "&amp;"
		case r == '<':
			esc = "&lt;"
		case r == '>':
			esc = "&gt;"
		case r == '\r':
			esc = "&#xD;"
		case r == '\t' || r == '\n':
		case r < 0x20 || r == 0xFFFE || r == 0xFFFF || (r == utf8.RuneError && size == 1):
			// Not representable in XML 1.0 at all (or not UTF-8).
			esc = "\uFFFD"
		}
		if esc != "" {
			w.WriteString(s[last:i])
			w.WriteString(esc)
			last = i + size
		}
		i += size
	}
	w.WriteString(s[last:])
}
