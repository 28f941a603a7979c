package el

import (
	"strconv"
	"strings"
)

// Node is a node of a parsed template. Pos is the byte offset of the node in
// the template's text, so errors and tools can point at it.
type Node interface {
	Pos() int
	// String prints the node back as EL source (normalized spacing, full
	// parentheses for operators), which keeps test expectations readable.
	String() string
}

// Expr is an expression node: everything inside ${...}.
type Expr interface {
	Node
	exprNode()
}

// Text is literal template text with \${ escapes already removed.
type Text struct {
	Offset int
	Text   string
}

// Segment is one ${...} segment of a template.
type Segment struct {
	Offset int // offset of the "$" (or "#")
	End    int // offset just after the closing "}"
	X      Expr
	// Deferred marks a #{...} segment; it evaluates like ${...}.
	Deferred bool
}

// Literal is a constant: nil, string, int64, float64 or bool.
type Literal struct {
	Offset int
	Value  any
}

// Ident is a variable reference, resolved through the Evaluator's Resolver
// and then the Registry's constants.
type Ident struct {
	Offset int
	Name   string
}

// Op is a unary or binary operator.
type Op int

// Operators, in the spelling of their symbolic form.
const (
	OpAdd   Op = iota + 1 // +
	OpSub                 // - (binary)
	OpMul                 // *
	OpDiv                 // / and div
	OpMod                 // % and mod
	OpEq                  // == and eq
	OpNe                  // != and ne
	OpLt                  // < and lt
	OpGt                  // > and gt
	OpLe                  // <= and le
	OpGe                  // >= and ge
	OpAnd                 // && and and
	OpOr                  // || and or
	OpNeg                 // - (unary)
	OpNot                 // ! and not
	OpEmpty               // empty
)

var opNames = [...]string{
	OpAdd: "+", OpSub: "-", OpMul: "*", OpDiv: "/", OpMod: "%", OpEq: "==",
	OpNe: "!=", OpLt: "<", OpGt: ">", OpLe: "<=", OpGe: ">=", OpAnd: "&&",
	OpOr: "||", OpNeg: "-", OpNot: "!", OpEmpty: "empty",
}

// String returns the symbolic spelling of the operator.
func (o Op) String() string {
	if o > 0 && int(o) < len(opNames) {
		return opNames[o]
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

// Unary is a prefix operator applied to X.
type Unary struct {
	Offset int
	Op     Op
	X      Expr
}

// Binary is X Op Y.
type Binary struct {
	Offset int // offset of the operator
	Op     Op
	X, Y   Expr
}

// Conditional is Cond ? Then : Else.
type Conditional struct {
	Offset           int
	Cond, Then, Else Expr
}

// Index is X[Key]; X.name is parsed as X['name'].
type Index struct {
	Offset int // offset of the "." or "["
	X, Key Expr
}

// CallExpr is a function call; Prefix is "" for un-namespaced functions.
type CallExpr struct {
	Offset int
	Prefix string
	Name   string
	Args   []Expr
	key    string // Prefix:Name, precomputed for the registry lookup
}

// Pos implements Node.
func (n *Text) Pos() int { return n.Offset }

// Pos implements Node.
func (n *Segment) Pos() int { return n.Offset }

// Pos implements Node.
func (n *Literal) Pos() int { return n.Offset }

// Pos implements Node.
func (n *Ident) Pos() int { return n.Offset }

// Pos implements Node.
func (n *Unary) Pos() int { return n.Offset }

// Pos implements Node.
func (n *Binary) Pos() int { return n.Offset }

// Pos implements Node.
func (n *Conditional) Pos() int { return n.Offset }

// Pos implements Node.
func (n *Index) Pos() int { return n.Offset }

// Pos implements Node.
func (n *CallExpr) Pos() int { return n.Offset }

func (*Literal) exprNode()     {}
func (*Ident) exprNode()       {}
func (*Unary) exprNode()       {}
func (*Binary) exprNode()      {}
func (*Conditional) exprNode() {}
func (*Index) exprNode()       {}
func (*CallExpr) exprNode()    {}

// String re-escapes the text so that it parses back to the same node.
func (n *Text) String() string {
	return strings.NewReplacer("${", `\${`, "#{", `\#{`).Replace(n.Text)
}

// String implements Node.
func (n *Segment) String() string {
	if n.Deferred {
		return "#{" + n.X.String() + "}"
	}
	return "${" + n.X.String() + "}"
}

// String implements Node.
func (n *Literal) String() string {
	switch v := n.Value.(type) {
	case nil:
		return "null"
	case string:
		return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
	default:
		return ToString(v)
	}
}

// String implements Node.
func (n *Ident) String() string { return n.Name }

// String implements Node.
func (n *Unary) String() string {
	if n.Op == OpEmpty {
		return "(empty " + n.X.String() + ")"
	}
	return "(" + n.Op.String() + n.X.String() + ")"
}

// String implements Node.
func (n *Binary) String() string {
	return "(" + n.X.String() + " " + n.Op.String() + " " + n.Y.String() + ")"
}

// String implements Node.
func (n *Conditional) String() string {
	return "(" + n.Cond.String() + " ? " + n.Then.String() + " : " + n.Else.String() + ")"
}

// String implements Node.
func (n *Index) String() string { return n.X.String() + "[" + n.Key.String() + "]" }

// String implements Node.
func (n *CallExpr) String() string {
	var b strings.Builder
	if n.Prefix != "" {
		b.WriteString(n.Prefix)
		b.WriteByte(':')
	}
	b.WriteString(n.Name)
	b.WriteByte('(')
	for i, a := range n.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.String())
	}
	b.WriteByte(')')
	return b.String()
}

// Inspect walks the expression tree depth-first, calling f for each node;
// f returns false to skip a node's children. It lets callers find, say,
// every function a template calls without evaluating it.
func Inspect(n Node, f func(Node) bool) {
	if n == nil || !f(n) {
		return
	}
	switch n := n.(type) {
	case *Segment:
		Inspect(n.X, f)
	case *Unary:
		Inspect(n.X, f)
	case *Binary:
		Inspect(n.X, f)
		Inspect(n.Y, f)
	case *Conditional:
		Inspect(n.Cond, f)
		Inspect(n.Then, f)
		Inspect(n.Else, f)
	case *Index:
		Inspect(n.X, f)
		Inspect(n.Key, f)
	case *CallExpr:
		for _, a := range n.Args {
			Inspect(a, f)
		}
	}
}
