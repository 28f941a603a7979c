package xmltree

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// MaxDepth bounds element nesting. Real documents nest well under it (a
// workflow's configuration value is six deep); the bound makes a body of a
// million nested elements fail early instead of costing a stack per level
// in the recursive passes of every reader.
const MaxDepth = 64

// MaxBytes bounds the size of a document. It is far above any real
// definition or configuration (Oozie's own workflow limit is 100,000 bytes)
// and keeps a hostile body from costing memory in proportion to its size;
// it is above the 31 MB body a million elements deep that the depth bound
// is tested with, so that such a body is refused for its depth.
const MaxBytes = 64 << 20

// bom is the UTF-8 byte-order mark, which some editors write first.
var bom = []byte("\uFEFF")

// Parse reads data into an element tree under the package's decoder policy
// (see the package documentation). The error, when not nil, is a *DocError.
func Parse(data []byte) (*Element, error) {
	if len(data) > MaxBytes {
		return nil, &DocError{Kind: TooLarge, Limit: MaxBytes,
			Msg: fmt.Sprintf("document of %d bytes exceeds the limit of %d bytes", len(data), MaxBytes)}
	}
	data = bytes.TrimPrefix(data, bom)
	data, err := decodeCharset(data)
	if err != nil {
		return nil, err
	}
	p := &parser{dec: newDecoder(data), at: newPosition(data).at}
	return p.run()
}

// NewDecoder returns a strict decoder over data under the package's charset
// policy, for code that only peeks at a document (its root element, say)
// before handing it to a reader: it decodes what Parse decodes. Size, depth
// and DTD bounds are Parse's; the caller of NewDecoder reads tokens itself.
func NewDecoder(data []byte) *xml.Decoder {
	if utf, err := decodeCharset(bytes.TrimPrefix(data, bom)); err == nil {
		data = utf
	}
	return newDecoder(data)
}

// newDecoder returns a strict decoder over data, which is UTF-8 by now
// (decodeCharset transcoded Latin-1): the labels the policy reads need no
// conversion by the decoder, and any other label is refused.
func newDecoder(data []byte) *xml.Decoder {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	d.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		if _, ok := charsetOf(label); ok {
			return in, nil
		}
		return nil, errors.New("unsupported encoding " + label)
	}
	return d
}

// parser holds the state of one Parse.
type parser struct {
	// at locates a byte offset of the input.
	at    func(off int64) (line, col int)
	dec   *xml.Decoder
	root  *Element
	stack []*Element
	// texts[i] collects the character data of stack[i] once it comes in
	// more than one piece. Appending to the element's string instead would
	// copy it on every piece, and a document of many small CDATA sections
	// would take quadratic time.
	texts [][]byte
	// slab holds elements not yet used: allocating them by the dozen
	// instead of one by one halves the allocations of reading a document.
	// It starts small and doubles, so a small document wastes little.
	slab     []Element
	slabSize int
}

// newElement returns a zero Element from the slab.
func (p *parser) newElement() *Element {
	if len(p.slab) == 0 {
		p.slabSize = min(max(2*p.slabSize, 4), 64)
		p.slab = make([]Element, p.slabSize)
	}
	e := &p.slab[0]
	p.slab = p.slab[1:]
	return e
}

// indents is the longest run of indentation indentString shares.
const indents = "\n                                                                "

// indentString returns t as a string, without allocating when t is a line
// break and spaces, the indentation between the elements of a pretty-printed
// document.
func indentString(t []byte) string {
	if len(t) <= len(indents) && string(t) == indents[:len(t)] {
		return indents[:len(t)]
	}
	return string(t)
}

func (p *parser) run() (*Element, error) {
	for {
		off := p.dec.InputOffset()
		tok, err := p.dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, p.syntaxError(err)
		}
		if err := p.token(tok, off); err != nil {
			return nil, err
		}
	}
	if p.root == nil {
		return nil, &DocError{Kind: Empty, Line: 1, Col: 1, Msg: "premature end of file"}
	}
	return p.root, nil
}

// ReadElement reads the element whose start tag the caller has just taken
// from d into a tree, consuming everything up to and including its end tag.
// It serves readers embedded in a decoder of their own; the decoder's
// charset and strictness are the caller's, the depth bound (counted from
// start) and the refusal of markup declarations are the package's.
// Positions are the decoder's (columns in bytes).
func ReadElement(d *xml.Decoder, start xml.StartElement) (*Element, error) {
	p := &parser{dec: d, at: func(int64) (int, int) { return d.InputPos() }}
	line, col := d.InputPos()
	p.root = &Element{Name: start.Name, Attrs: dataAttrs(start.Attr), Line: line, Col: col}
	p.stack, p.texts = []*Element{p.root}, [][]byte{nil}
	for len(p.stack) > 0 {
		off := d.InputOffset()
		tok, err := d.Token()
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, p.syntaxError(err)
		}
		if err := p.token(tok, off); err != nil {
			return nil, err
		}
	}
	return p.root, nil
}

// token adds one token, which started at byte offset off, to the tree.
func (p *parser) token(tok xml.Token, off int64) *DocError {
	switch t := tok.(type) {
	case xml.StartElement:
		line, col := p.at(off)
		if len(p.stack) >= MaxDepth {
			return &DocError{Kind: TooDeep, Line: line, Col: col, Limit: MaxDepth,
				Msg: fmt.Sprintf("element nesting deeper than %d", MaxDepth)}
		}
		if p.root != nil && len(p.stack) == 0 {
			return &DocError{Kind: ExtraRoot, Line: line, Col: col, Name: t.Name.Local,
				Msg: "The markup in the document following the root element must be well-formed."}
		}
		e := p.newElement()
		*e = Element{Name: t.Name, Attrs: dataAttrs(t.Attr), Line: line, Col: col}
		if len(p.stack) > 0 {
			parent := p.stack[len(p.stack)-1]
			parent.Children = append(parent.Children, e)
		} else {
			p.root = e
		}
		p.stack = append(p.stack, e)
		p.texts = append(p.texts, nil)
	case xml.EndElement:
		n := len(p.stack) - 1
		if p.texts[n] != nil {
			p.stack[n].Text = string(p.texts[n])
		}
		p.stack, p.texts = p.stack[:n], p.texts[:n]
	case xml.CharData:
		if n := len(p.stack) - 1; n >= 0 {
			// Most elements have their text in one piece, which becomes
			// the string at once; a second piece starts a buffer.
			e := p.stack[n]
			if k := len(e.Children); k > 0 {
				c := e.Children[k-1]
				if c.Tail == "" {
					c.Tail = indentString(t)
				} else {
					c.Tail += string(t)
				}
			}
			switch {
			case p.texts[n] != nil:
				p.texts[n] = append(p.texts[n], t...)
			case e.Text == "":
				e.Text = indentString(t)
			default:
				p.texts[n] = append(append(make([]byte, 0, 2*(len(e.Text)+len(t))), e.Text...), t...)
			}
			return nil
		}
		if lead := len(t) - len(bytes.TrimLeft(t, " \t\r\n")); lead < len(t) {
			line, col := p.at(off + int64(lead))
			return &DocError{Kind: TextOutside, Line: line, Col: col, Msg: "content is not allowed outside the root element"}
		}
	case xml.Directive:
		if !bareDoctype(t) {
			line, col := p.at(off)
			return &DocError{Kind: DTD, Line: line, Col: col,
				Msg: "DOCTYPE declarations and other markup declarations are not allowed"}
		}
	}
	return nil
}

// dataAttrs returns attrs without the namespace declarations, which are
// syntax, not data.
func dataAttrs(attrs []xml.Attr) []xml.Attr {
	var out []xml.Attr
	for _, a := range attrs {
		if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
			continue
		}
		out = append(out, a)
	}
	return out
}

// bareDoctype reports whether a directive is <!DOCTYPE name>, which declares
// nothing: no internal subset, no external identifier.
func bareDoctype(d xml.Directive) bool {
	rest, ok := bytes.CutPrefix(d, []byte("DOCTYPE"))
	if !ok {
		return false
	}
	fields := strings.Fields(string(rest))
	return len(fields) == 1 && !strings.ContainsAny(fields[0], "[]\"'")
}

// syntaxError converts a decoder error into a *DocError at the line the
// decoder reports (and the column it stopped at when on that line).
func (p *parser) syntaxError(err error) *DocError {
	line, col := p.dec.InputPos()
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		if se.Line != line {
			col = 1
		}
		if strings.HasPrefix(se.Msg, "unsupported encoding") || strings.Contains(se.Msg, "CharsetReader") {
			return &DocError{Kind: Encoding, Line: se.Line, Col: col, Msg: se.Msg, Err: err}
		}
		return &DocError{Kind: Syntax, Line: se.Line, Col: col, Msg: se.Msg, Err: err}
	}
	msg := err.Error()
	if strings.Contains(msg, "unsupported encoding") {
		return &DocError{Kind: Encoding, Line: line, Col: col, Msg: msg, Err: err}
	}
	return &DocError{Kind: Syntax, Line: line, Col: col, Msg: msg, Err: err}
}

// charset is an encoding the policy reads.
type charset int

const (
	utf8Charset charset = iota
	latin1Charset
)

// charsetOf maps an encoding label to a charset the policy reads.
func charsetOf(label string) (charset, bool) {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		// ASCII is a subset of UTF-8; bytes above 0x7F are read as UTF-8,
		// which is as good a guess as any.
		return utf8Charset, true
	case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1":
		return latin1Charset, true
	}
	return 0, false
}

// decodeCharset returns data as UTF-8, transcoding an ISO-8859-1 document
// as its declaration says. Transcoding up front, rather than through the
// decoder's CharsetReader, keeps the decoder's offsets offsets into the
// bytes positions are computed from.
func decodeCharset(data []byte) ([]byte, *DocError) {
	label, ok := declaredEncoding(data)
	if !ok {
		return data, nil
	}
	cs, known := charsetOf(label)
	if !known {
		return nil, &DocError{Kind: Encoding, Line: 1, Col: 1, Msg: fmt.Sprintf("unsupported encoding %q", label)}
	}
	if cs != latin1Charset {
		return data, nil
	}
	out := make([]byte, 0, len(data)+len(data)/8)
	for _, b := range data {
		out = utf8.AppendRune(out, rune(b))
	}
	return out, nil
}

// declaredEncoding returns the encoding named by the XML declaration that
// opens data, if any.
func declaredEncoding(data []byte) (string, bool) {
	if !bytes.HasPrefix(data, []byte("<?xml")) {
		return "", false
	}
	end := bytes.Index(data, []byte("?>"))
	if end < 0 {
		return "", false
	}
	decl := string(data[len("<?xml"):end])
	i := strings.Index(decl, "encoding")
	if i < 0 {
		return "", false
	}
	rest := strings.TrimLeft(decl[i+len("encoding"):], " \t\r\n")
	rest, ok := strings.CutPrefix(rest, "=")
	if !ok {
		return "", false
	}
	rest = strings.TrimLeft(rest, " \t\r\n")
	if rest == "" || (rest[0] != '"' && rest[0] != '\'') {
		return "", false
	}
	q := rest[0]
	j := strings.IndexByte(rest[1:], q)
	if j < 0 {
		return "", false
	}
	return rest[1 : 1+j], true
}

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
	p := &position{data: data, lineStarts: make([]int, 1, bytes.Count(data, []byte{'\n'})+1)}
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
