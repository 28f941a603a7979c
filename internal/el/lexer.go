package el

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind classifies the tokens inside a ${...} segment.
type tokKind int

const (
	tEOF      tokKind = iota // end of the whole text
	tIdent                   // identifier
	tInt                     // integer literal
	tFloat                   // floating-point literal
	tString                  // quoted string literal (value unescaped)
	tTrue                    // true
	tFalse                   // false
	tNull                    // null
	tLParen                  // (
	tRParen                  // )
	tLBrack                  // [
	tRBrack                  // ]
	tRBrace                  // } closes the segment
	tDot                     // .
	tComma                   // ,
	tColon                   // :
	tQuest                   // ?
	tPlus                    // +
	tMinus                   // -
	tStar                    // *
	tSlash                   // / or div
	tPercent                 // % or mod
	tEq                      // == or eq
	tNe                      // != or ne
	tLt                      // < or lt
	tGt                      // > or gt
	tLe                      // <= or le
	tGe                      // >= or ge
	tAnd                     // && or and
	tOr                      // || or or
	tNot                     // ! or not
	tEmpty                   // empty
	tReserved                // instanceof, reserved by EL but meaningless here
)

var tokNames = [...]string{
	tEOF: "end of text", tIdent: "identifier", tInt: "integer", tFloat: "number",
	tString: "string", tTrue: "true", tFalse: "false", tNull: "null",
	tLParen: "(", tRParen: ")", tLBrack: "[", tRBrack: "]", tRBrace: "}",
	tDot: ".", tComma: ",", tColon: ":", tQuest: "?", tPlus: "+", tMinus: "-",
	tStar: "*", tSlash: "/", tPercent: "%", tEq: "==", tNe: "!=", tLt: "<",
	tGt: ">", tLe: "<=", tGe: ">=", tAnd: "&&", tOr: "||", tNot: "!",
	tEmpty: "empty", tReserved: "instanceof",
}

func (k tokKind) String() string {
	if int(k) < len(tokNames) {
		return tokNames[k]
	}
	return "token(" + strconv.Itoa(int(k)) + ")"
}

// keywords maps EL's reserved words to their token kinds; the word forms of
// operators exist so that expressions can live inside XML attributes
// without escaping < and &.
var keywords = map[string]tokKind{
	"true": tTrue, "false": tFalse, "null": tNull,
	"and": tAnd, "or": tOr, "not": tNot, "empty": tEmpty,
	"eq": tEq, "ne": tNe, "lt": tLt, "gt": tGt, "le": tLe, "ge": tGe,
	"div": tSlash, "mod": tPercent, "instanceof": tReserved,
}

var twoCharOps = map[string]tokKind{"==": tEq, "!=": tNe, "<=": tLe, ">=": tGe, "&&": tAnd, "||": tOr}

// token is one lexeme with its byte offset in the whole text.
type token struct {
	kind tokKind
	off  int
	text string // source text; for tString the unescaped value
	ival int64
	fval float64
}

// lexer scans the tokens of one ${...} segment. It starts right after the
// "${" and is driven by the parser, which stops at the closing "}".
type lexer struct {
	src string
	pos int
}

func (l *lexer) errorf(off int, msg string) *syntaxError {
	return &syntaxError{off: off, msg: msg}
}

// next returns the next token or a syntax error.
func (l *lexer) next() (token, error) {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			l.pos++
			continue
		}
		break
	}
	start := l.pos
	if l.pos >= len(l.src) {
		return token{kind: tEOF, off: start}, nil
	}
	c := l.src[l.pos]
	switch {
	case c >= '0' && c <= '9', c == '.' && l.pos+1 < len(l.src) && isDigit(l.src[l.pos+1]):
		return l.number()
	case c == '\'' || c == '"':
		return l.str()
	case isIdentStart(c):
		return l.ident(), nil
	case c >= utf8.RuneSelf:
		r, _ := utf8.DecodeRuneInString(l.src[l.pos:])
		if unicode.IsLetter(r) {
			return l.ident(), nil
		}
		return token{}, l.errorf(start, "unexpected character "+strconv.QuoteRune(r))
	}
	two := ""
	if l.pos+1 < len(l.src) {
		two = l.src[l.pos : l.pos+2]
	}
	switch two {
	case "==", "!=", "<=", ">=", "&&", "||":
		l.pos += 2
		return token{kind: twoCharOps[two], off: start, text: two}, nil
	}
	var kind tokKind
	switch c {
	case '(':
		kind = tLParen
	case ')':
		kind = tRParen
	case '[':
		kind = tLBrack
	case ']':
		kind = tRBrack
	case '}':
		kind = tRBrace
	case '.':
		kind = tDot
	case ',':
		kind = tComma
	case ':':
		kind = tColon
	case '?':
		kind = tQuest
	case '+':
		kind = tPlus
	case '-':
		kind = tMinus
	case '*':
		kind = tStar
	case '/':
		kind = tSlash
	case '%':
		kind = tPercent
	case '<':
		kind = tLt
	case '>':
		kind = tGt
	case '!':
		kind = tNot
	default:
		return token{}, l.errorf(start, "unexpected character "+strconv.QuoteRune(rune(c)))
	}
	l.pos++
	return token{kind: kind, off: start, text: l.src[start:l.pos]}, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isIdentStart accepts the ASCII subset of Java identifier starts; the
// caller handles non-ASCII letters.
func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func (l *lexer) ident() token {
	start := l.pos
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if isIdentStart(c) || isDigit(c) {
			l.pos++
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(l.src[l.pos:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				l.pos += n
				continue
			}
		}
		break
	}
	text := l.src[start:l.pos]
	if k, ok := keywords[text]; ok {
		return token{kind: k, off: start, text: text}
	}
	return token{kind: tIdent, off: start, text: text}
}

// number scans an EL integer or floating-point literal. A literal followed
// by a letter ("1x") is rejected rather than split in two.
func (l *lexer) number() (token, error) {
	start := l.pos
	isFloat := false
	for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
		l.pos++
	}
	if l.pos < len(l.src) && l.src[l.pos] == '.' {
		isFloat = true
		l.pos++
		for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
			l.pos++
		}
	}
	if l.pos < len(l.src) && (l.src[l.pos] == 'e' || l.src[l.pos] == 'E') {
		p := l.pos + 1
		if p < len(l.src) && (l.src[p] == '+' || l.src[p] == '-') {
			p++
		}
		if p < len(l.src) && isDigit(l.src[p]) {
			isFloat = true
			for p < len(l.src) && isDigit(l.src[p]) {
				p++
			}
			l.pos = p
		}
	}
	text := l.src[start:l.pos]
	if l.pos < len(l.src) && (isIdentStart(l.src[l.pos]) || l.src[l.pos] >= utf8.RuneSelf) {
		return token{}, l.errorf(start, "malformed number "+strconv.Quote(text+string(l.src[l.pos])))
	}
	if isFloat {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return token{}, l.errorf(start, "floating-point literal out of range: "+text)
		}
		return token{kind: tFloat, off: start, text: text, fval: f}, nil
	}
	i, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return token{}, l.errorf(start, "integer literal out of range: "+text)
	}
	return token{kind: tInt, off: start, text: text, ival: i}, nil
}

// str scans a quoted string. EL allows only three escapes, \\ \' and \",
// in either kind of quotes; any other backslash is a syntax error.
func (l *lexer) str() (token, error) {
	start := l.pos
	quote := l.src[l.pos]
	l.pos++
	var b strings.Builder
	chunk := l.pos
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch c {
		case quote:
			b.WriteString(l.src[chunk:l.pos])
			l.pos++
			return token{kind: tString, off: start, text: b.String()}, nil
		case '\\':
			b.WriteString(l.src[chunk:l.pos])
			if l.pos+1 >= len(l.src) {
				return token{}, l.errorf(start, "unterminated string literal")
			}
			e := l.src[l.pos+1]
			if e != '\\' && e != '\'' && e != '"' {
				return token{}, l.errorf(l.pos, `invalid escape sequence in string literal (only \\, \' and \" are allowed)`)
			}
			b.WriteByte(e)
			l.pos += 2
			chunk = l.pos
		default:
			l.pos++
		}
	}
	return token{}, l.errorf(start, "unterminated string literal")
}
