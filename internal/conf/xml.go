package conf

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/gozie/gozie/internal/xmltree"
)

// MaxXMLDepth bounds how deeply elements may nest in a configuration
// document: xmltree's bound, the one of every gozie XML reader. Real ones
// nest three deep (configuration, property, value); the bound makes a body
// of a million nested elements fail at the 65th instead of costing seconds
// and a stack per level.
const MaxXMLDepth = xmltree.MaxDepth

// ParseXML reads a Hadoop configuration document:
//
//	<configuration>
//	  <property>
//	    <name>n</name> <value>v</value> <final>true</final> <description>d</description>
//	  </property>
//	</configuration>
//
// The document is read under xmltree's decoder policy (UTF-8, US-ASCII and
// ISO-8859-1; no DTD beyond a bare <!DOCTYPE configuration>). The XML
// declaration, processing instructions, comments and whitespace are allowed
// around the elements. Child elements of <property> other than the four
// above are ignored, as are non-property children of <configuration>; a
// nested <configuration> contributes its properties, as in Hadoop. name,
// value and final may also be given as attributes of <property>. A missing
// <value> means the empty string. Within one document a later definition
// replaces an earlier one unless the earlier one is final.
//
// It fails, with the line where the problem was found, on malformed XML, a
// root element other than <configuration>, a property without a name, or
// elements nested more than MaxXMLDepth deep.
// Element names are matched without regard to namespace, so the
// <configuration> blocks of namespaced workflow documents read the same way.
func ParseXML(r io.Reader, source string) (*Config, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, lineError(source, 0, "invalid XML: "+err.Error(), err)
	}
	root, err := xmltree.Parse(data)
	if err != nil {
		return nil, treeError(source, err)
	}
	if root.Name.Local != "configuration" {
		return nil, lineError(source, root.Line, fmt.Sprintf("root element is <%s>, want <configuration>", root.Name.Local), nil)
	}
	c := New()
	if err := readConfiguration(root, c, source); err != nil {
		return nil, err
	}
	return c, nil
}

// readAll reads r whole, in one allocation when r knows its length (the
// strings.Reader of a stored job configuration does).
func readAll(r io.Reader) ([]byte, error) {
	if l, ok := r.(interface{ Len() int }); ok {
		buf := bytes.NewBuffer(make([]byte, 0, l.Len()+1))
		_, err := buf.ReadFrom(r)
		return buf.Bytes(), err
	}
	return io.ReadAll(r)
}

// ReadElement reads the properties of a <configuration> element whose start
// tag the caller has just taken from d, consuming everything up to and
// including its end tag. It lets parsers that stream a document of their
// own reuse this package for the <configuration> blocks embedded in it;
// line numbers in errors are those of d's input.
func ReadElement(d *xml.Decoder, start xml.StartElement, source string) (*Config, error) {
	e, err := xmltree.ReadElement(d, start)
	if err != nil {
		return nil, treeError(source, err)
	}
	c := New()
	if err := readConfiguration(e, c, source); err != nil {
		return nil, err
	}
	return c, nil
}

// readConfiguration reads the content of a <configuration> element into c.
func readConfiguration(e *xmltree.Element, c *Config, source string) error {
	for _, k := range e.Children {
		switch k.Name.Local {
		case "property":
			p, err := readProperty(k, source)
			if err != nil {
				return err
			}
			c.load(p)
		case "configuration":
			if err := readConfiguration(k, c, source); err != nil {
				return err
			}
		}
	}
	return nil
}

// readProperty reads a <property> element.
func readProperty(e *xmltree.Element, source string) (Property, error) {
	p := Property{Source: source, Line: e.Line}
	hasName := false
	for _, a := range e.Attrs {
		switch a.Name.Local {
		case "name":
			p.Name, hasName = a.Value, true
		case "value":
			p.Value = a.Value
		case "final":
			p.Final = isTrue(a.Value)
		}
	}
	for _, k := range e.Children {
		text := allText(k)
		switch k.Name.Local {
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
	if !hasName {
		return p, lineError(source, e.Line, "property without <name>", nil)
	}
	p.Name = strings.Trim(p.Name, " \t\r\n")
	if p.Name == "" {
		return p, lineError(source, e.Line, "property with empty <name>", nil)
	}
	return p, nil
}

func isTrue(s string) bool { return strings.Trim(s, " \t\r\n") == "true" }

// allText returns the character data of e including that of any nested
// elements, in document order, as Hadoop's streaming reader collects it.
func allText(e *xmltree.Element) string { return e.DocumentText() }

// treeError words an xmltree failure the way configuration users know:
// the structural refusals by what they are, the rest as invalid XML.
func treeError(source string, err error) error {
	var te *xmltree.DocError
	if !errors.As(err, &te) {
		return lineError(source, 0, "invalid XML: "+err.Error(), err)
	}
	switch te.Kind {
	case xmltree.Empty:
		return lineError(source, te.Line, "no <configuration> element", nil)
	case xmltree.TextOutside:
		return lineError(source, te.Line, "text outside <configuration>", nil)
	case xmltree.ExtraRoot:
		return lineError(source, te.Line, fmt.Sprintf("unexpected <%s> after </configuration>", te.Name), nil)
	case xmltree.TooDeep:
		return lineError(source, te.Line, fmt.Sprintf("elements nested more than %d deep", te.Limit), te)
	}
	return lineError(source, te.Line, "invalid XML: "+te.Msg, te)
}

// lineError is the one constructor of this file's ParseErrors.
func lineError(source string, line int, msg string, err error) error {
	return &ParseError{Source: source, Line: line, Msg: msg, Err: err}
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
