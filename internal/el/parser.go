package el

import "strings"

// Template is a parsed text: literal Text and ${} Segment nodes in order.
// A Template is safe for concurrent use; treat Nodes as read-only, since
// templates are shared through the evaluator's parse cache.
type Template struct {
	text    string
	Nodes   []Node // *Text and *Segment, in source order
	literal bool   // no segments
	lit     string // the unescaped text when literal
}

// String returns the source text the template was parsed from.
func (t *Template) String() string { return t.text }

// IsLiteral reports whether the text has no ${} segments, so callers can
// skip evaluation (and keep the text verbatim, escapes resolved).
func (t *Template) IsLiteral() bool { return t.literal }

// Literal returns the text of a template without segments (escapes
// resolved); for other templates it returns "".
func (t *Template) Literal() string { return t.lit }

// Parse parses a mixed template: literal text with ${...} segments. In the
// literal text "\${" stands for a literal "${" and "\\" before "${" keeps
// both backslashes (the JSP rules); a "$" not directly followed by "{" is
// plain text. A #{...} segment (EL's deferred syntax) is parsed and
// evaluated like ${...}, as the Jasper EL in Oozie does, with "\#{" for a
// literal "#{"; one text may not mix the two kinds. Errors are *Error
// values with the column of the problem.
func Parse(text string) (*Template, error) {
	t, err := parse(text)
	if err != nil {
		return nil, wrap(text, err)
	}
	return t, nil
}

func parse(text string) (t *Template, err error) {
	t = &Template{text: text}
	var lit strings.Builder
	litStart := 0
	flush := func(end int) {
		if lit.Len() > 0 {
			t.Nodes = append(t.Nodes, &Text{Offset: litStart, Text: lit.String()})
			lit.Reset()
		}
		litStart = end
	}
	// deferred is the kind of the segments seen so far, mixed whether any
	// was seen.
	deferred, mixed := false, false
	i := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == '\\' && i+1 < len(text) && text[i+1] == '\\':
			lit.WriteString(`\\`)
			i += 2
		case c == '\\' && (strings.HasPrefix(text[i+1:], "${") || strings.HasPrefix(text[i+1:], "#{")):
			lit.WriteString(text[i+1 : i+3])
			i += 3
		case (c == '$' || c == '#') && i+1 < len(text) && text[i+1] == '{':
			flush(i)
			seg, end, err := parseSegment(text, i)
			if err != nil {
				return nil, err
			}
			seg.Deferred = c == '#'
			if mixed && seg.Deferred != deferred {
				return nil, &syntaxError{off: i, msg: "a text cannot mix ${...} and #{...} expressions"}
			}
			deferred, mixed = seg.Deferred, true
			t.Nodes = append(t.Nodes, seg)
			i = end
			litStart = end
		default:
			lit.WriteByte(c)
			i++
		}
	}
	flush(len(text))
	t.literal = true
	for _, n := range t.Nodes {
		switch n := n.(type) {
		case *Segment:
			t.literal, t.lit = false, ""
			return t, nil
		case *Text:
			t.lit += n.Text
		}
	}
	return t, nil
}

// parser is a recursive-descent parser over the tokens of one segment.
type parser struct {
	lex   lexer
	buf   []token // lookahead tokens not yet consumed
	start int     // offset of the segment's "${", where "missing }" points
	links int     // operators and accessors chained so far, see maxLinks
}

// maxLinks bounds the operators and accessors of one segment. Chains such
// as 1+1+1... are parsed by loops but build trees as deep as they are long,
// and evaluation recurses over that depth.
const maxLinks = 10000

func (p *parser) link(off int) error {
	p.links++
	if p.links > maxLinks {
		return &syntaxError{off: off, msg: "expression too long"}
	}
	return nil
}

// parseSegment parses the segment whose "${" starts at off and returns it
// with the offset just after its "}".
func parseSegment(text string, off int) (*Segment, int, error) {
	p := &parser{lex: lexer{src: text, pos: off + 2}, start: off}
	x, err := p.expr()
	if err != nil {
		return nil, 0, err
	}
	tok, err := p.next()
	if err != nil {
		return nil, 0, err
	}
	if tok.kind != tRBrace {
		if tok.kind == tEOF {
			return nil, 0, &syntaxError{off: off, msg: `unterminated expression, missing "}"`}
		}
		return nil, 0, p.unexpected(tok)
	}
	end := tok.off + 1
	return &Segment{Offset: off, End: end, X: x}, end, nil
}

func (p *parser) unexpected(tok token) error {
	what := tokText(tok)
	if tok.kind == tEOF {
		return &syntaxError{off: p.start, msg: `unterminated expression, missing "}"`}
	}
	return &syntaxError{off: tok.off, msg: "unexpected " + quoteTok(what)}
}

// tokText is how a token is named in messages.
func tokText(tok token) string {
	switch tok.kind {
	case tIdent, tInt, tFloat:
		return tok.text
	case tString:
		return "'" + tok.text + "'"
	}
	return tok.kind.String()
}

func quoteTok(s string) string { return `"` + s + `"` }

// peek returns the i-th token ahead without consuming it.
func (p *parser) peek(i int) (token, error) {
	for len(p.buf) <= i {
		tok, err := p.lex.next()
		if err != nil {
			return token{}, err
		}
		p.buf = append(p.buf, tok)
		if tok.kind == tEOF {
			for len(p.buf) <= i {
				p.buf = append(p.buf, tok)
			}
		}
	}
	return p.buf[i], nil
}

func (p *parser) next() (token, error) {
	tok, err := p.peek(0)
	if err != nil {
		return token{}, err
	}
	p.buf = p.buf[1:]
	return tok, nil
}

// accept consumes the next token if it is of one of the kinds.
func (p *parser) accept(kinds ...tokKind) (token, bool, error) {
	tok, err := p.peek(0)
	if err != nil {
		return token{}, false, err
	}
	for _, k := range kinds {
		if tok.kind == k {
			p.buf = p.buf[1:]
			return tok, true, nil
		}
	}
	return tok, false, nil
}

func (p *parser) expect(kind tokKind) (token, error) {
	tok, err := p.next()
	if err != nil {
		return token{}, err
	}
	if tok.kind != kind {
		if tok.kind == tEOF {
			return token{}, p.unexpected(tok)
		}
		return token{}, &syntaxError{off: tok.off, msg: "expected " + quoteTok(kind.String()) + ", found " + quoteTok(tokText(tok))}
	}
	return tok, nil
}

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 200

// expr parses a full expression: the conditional level, lowest precedence.
func (p *parser) expr() (Expr, error) { return p.conditional(0) }

func (p *parser) conditional(depth int) (Expr, error) {
	if depth > maxDepth {
		tok, _ := p.peek(0)
		return nil, &syntaxError{off: tok.off, msg: "expression nested too deeply"}
	}
	cond, err := p.binary(0, depth)
	if err != nil {
		return nil, err
	}
	q, ok, err := p.accept(tQuest)
	if err != nil || !ok {
		return cond, err
	}
	then, err := p.conditional(depth + 1)
	if err != nil {
		return nil, err
	}
	if _, err := p.expect(tColon); err != nil {
		return nil, err
	}
	els, err := p.conditional(depth + 1)
	if err != nil {
		return nil, err
	}
	return &Conditional{Offset: q.off, Cond: cond, Then: then, Else: els}, nil
}

// precedence lists the binary operator levels from lowest to highest; all
// are left-associative.
var precedence = [][]tokKind{
	{tOr},
	{tAnd},
	{tEq, tNe},
	{tLt, tGt, tLe, tGe},
	{tPlus, tMinus},
	{tStar, tSlash, tPercent},
}

var binaryOps = map[tokKind]Op{
	tOr: OpOr, tAnd: OpAnd, tEq: OpEq, tNe: OpNe, tLt: OpLt, tGt: OpGt,
	tLe: OpLe, tGe: OpGe, tPlus: OpAdd, tMinus: OpSub, tStar: OpMul,
	tSlash: OpDiv, tPercent: OpMod,
}

func (p *parser) binary(level, depth int) (Expr, error) {
	if level == len(precedence) {
		return p.unary(depth)
	}
	x, err := p.binary(level+1, depth)
	if err != nil {
		return nil, err
	}
	for {
		tok, ok, err := p.accept(precedence[level]...)
		if err != nil {
			return nil, err
		}
		if !ok {
			return x, nil
		}
		if err := p.link(tok.off); err != nil {
			return nil, err
		}
		y, err := p.binary(level+1, depth)
		if err != nil {
			return nil, err
		}
		x = &Binary{Offset: tok.off, Op: binaryOps[tok.kind], X: x, Y: y}
	}
}

var unaryOps = map[tokKind]Op{tMinus: OpNeg, tNot: OpNot, tEmpty: OpEmpty}

func (p *parser) unary(depth int) (Expr, error) {
	if depth > maxDepth {
		tok, _ := p.peek(0)
		return nil, &syntaxError{off: tok.off, msg: "expression nested too deeply"}
	}
	tok, ok, err := p.accept(tMinus, tNot, tEmpty)
	if err != nil {
		return nil, err
	}
	if !ok {
		return p.postfix(depth)
	}
	x, err := p.unary(depth + 1)
	if err != nil {
		return nil, err
	}
	return &Unary{Offset: tok.off, Op: unaryOps[tok.kind], X: x}, nil
}

// postfix parses a primary followed by any number of .name and [key].
func (p *parser) postfix(depth int) (Expr, error) {
	x, err := p.primary(depth)
	if err != nil {
		return nil, err
	}
	for {
		tok, ok, err := p.accept(tDot, tLBrack)
		if err != nil {
			return nil, err
		}
		if !ok {
			return x, nil
		}
		if err := p.link(tok.off); err != nil {
			return nil, err
		}
		if tok.kind == tDot {
			name, err := p.expect(tIdent)
			if err != nil {
				return nil, err
			}
			x = &Index{Offset: tok.off, X: x, Key: &Literal{Offset: name.off, Value: name.text}}
			continue
		}
		key, err := p.conditional(depth + 1)
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(tRBrack); err != nil {
			return nil, err
		}
		x = &Index{Offset: tok.off, X: x, Key: key}
	}
}

func (p *parser) primary(depth int) (Expr, error) {
	tok, err := p.next()
	if err != nil {
		return nil, err
	}
	switch tok.kind {
	case tInt:
		return &Literal{Offset: tok.off, Value: tok.ival}, nil
	case tFloat:
		return &Literal{Offset: tok.off, Value: tok.fval}, nil
	case tString:
		return &Literal{Offset: tok.off, Value: tok.text}, nil
	case tTrue:
		return &Literal{Offset: tok.off, Value: true}, nil
	case tFalse:
		return &Literal{Offset: tok.off, Value: false}, nil
	case tNull:
		return &Literal{Offset: tok.off, Value: nil}, nil
	case tLParen:
		x, err := p.conditional(depth + 1)
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(tRParen); err != nil {
			return nil, err
		}
		return x, nil
	case tIdent:
		return p.identOrCall(tok, depth)
	}
	return nil, p.unexpected(tok)
}

// identOrCall decides between a variable, "name(args)" and
// "prefix:name(args)". Like the EL grammar it needs three tokens of
// lookahead: "a ? b:c(1) : d" calls b:c.
func (p *parser) identOrCall(id token, depth int) (Expr, error) {
	t0, err := p.peek(0)
	if err != nil {
		return nil, err
	}
	prefix, name := "", id.text
	switch t0.kind {
	case tLParen:
	case tColon:
		t1, err := p.peek(1)
		if err != nil {
			return nil, err
		}
		t2, err := p.peek(2)
		if err != nil {
			return nil, err
		}
		if t1.kind != tIdent || t2.kind != tLParen {
			return &Ident{Offset: id.off, Name: id.text}, nil
		}
		prefix, name = id.text, t1.text
		p.buf = p.buf[2:]
	default:
		return &Ident{Offset: id.off, Name: id.text}, nil
	}
	if _, err := p.expect(tLParen); err != nil {
		return nil, err
	}
	call := &CallExpr{Offset: id.off, Prefix: prefix, Name: name, key: funcKey(prefix, name)}
	if _, ok, err := p.accept(tRParen); err != nil || ok {
		return call, err
	}
	for {
		arg, err := p.conditional(depth + 1)
		if err != nil {
			return nil, err
		}
		call.Args = append(call.Args, arg)
		tok, err := p.next()
		if err != nil {
			return nil, err
		}
		if tok.kind == tRParen {
			return call, nil
		}
		if tok.kind != tComma {
			return nil, &syntaxError{off: tok.off, msg: `expected "," or ")" in the arguments of ` + call.key + ", found " + quoteTok(tokText(tok))}
		}
	}
}

func funcKey(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + ":" + name
}

// HasExpr reports whether text may hold an expression: a "${" or a "#{".
// Callers use it to keep texts without any verbatim, skipping evaluation.
func HasExpr(text string) bool {
	return strings.Contains(text, "${") || strings.Contains(text, "#{")
}
