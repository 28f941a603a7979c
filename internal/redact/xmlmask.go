package redact

import (
	"encoding/xml"
	"io"
	"sort"
	"strings"
)

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
