package workflow

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds element nesting: no workflow needs more, and a bound keeps
// hostile input from exhausting the stack in the recursive passes.
const maxDepth = 256

// position converts byte offsets into 1-based line and column numbers.
type position struct {
	data       []byte
	lineStarts []int
	// The parser asks for offsets in increasing order, so the previous
	// answer is kept to count columns incrementally: a definition written on
	// one long line would otherwise cost quadratic time.
	lastLine, lastOff, lastCol int
}

func newPosition(data []byte) *position {
	p := &position{data: data, lineStarts: []int{0}}
	for i, b := range data {
		if b == '\n' {
			p.lineStarts = append(p.lineStarts, i+1)
		}
	}
	return p
}

// at returns the line and column (in characters) of byte offset off.
func (p *position) at(off int64) (int, int) {
	o := min(max(int(off), 0), len(p.data))
	i := sort.Search(len(p.lineStarts), func(i int) bool { return p.lineStarts[i] > o }) - 1
	if i < 0 {
		i = 0
	}
	start, col := p.lineStarts[i], 1
	if p.lastCol > 0 && p.lastLine == i && p.lastOff <= o {
		start, col = p.lastOff, p.lastCol
	}
	col += utf8.RuneCount(p.data[start:o])
	p.lastLine, p.lastOff, p.lastCol = i, o, col
	return i + 1, col
}

// parseTree turns workflow.xml bytes into a generic element tree. Malformed
// XML is reported as E0701, as Oozie does (its SAX parser raises the schema
// error before anything else looks at the document).
func parseTree(data []byte) (*Element, error) {
	pos := newPosition(data)
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	// Oozie reads workflow.xml as UTF-8; declarations of other encodings that
	// are ASCII-compatible are passed through rather than rejected.
	dec.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		switch strings.ToLower(label) {
		case "utf-8", "utf8", "us-ascii", "ascii", "iso-8859-1", "latin1":
			return in, nil
		}
		return nil, errors.New("unsupported encoding " + label)
	}
	var root *Element
	var stack []*Element
	// texts[i] collects the character data of stack[i]. Appending to the
	// element's string instead would copy it on every piece, and a document
	// of many small CDATA sections would take quadratic time.
	var texts [][]byte
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			line, col := pos.at(dec.InputOffset())
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				line, col = se.Line, 1
				return nil, schemaError(line, col, "%s", se.Msg)
			}
			return nil, schemaError(line, col, "%s", err.Error())
		}
		switch t := tok.(type) {
		case xml.StartElement:
			line, col := pos.at(off)
			if len(stack) >= maxDepth {
				return nil, schemaError(line, col, "element nesting deeper than %d", maxDepth)
			}
			if root != nil && len(stack) == 0 {
				return nil, schemaError(line, col, "more than one root element")
			}
			e := &Element{Name: t.Name, Line: line, Col: col}
			for _, a := range t.Attr {
				// Namespace declarations are syntax, not data.
				if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
					continue
				}
				e.Attrs = append(e.Attrs, a)
			}
			if len(stack) > 0 {
				parent := stack[len(stack)-1]
				parent.Children = append(parent.Children, e)
			} else {
				root = e
			}
			stack = append(stack, e)
			texts = append(texts, nil)
		case xml.EndElement:
			stack[len(stack)-1].Text = string(texts[len(texts)-1])
			stack, texts = stack[:len(stack)-1], texts[:len(texts)-1]
		case xml.CharData:
			if len(stack) > 0 {
				texts[len(texts)-1] = append(texts[len(texts)-1], t...)
			} else if strings.TrimSpace(string(t)) != "" {
				line, col := pos.at(off)
				return nil, schemaError(line, col, "content is not allowed outside the root element")
			}
		}
	}
	if root == nil {
		return nil, schemaError(1, 1, "premature end of file")
	}
	return root, nil
}
