package el

import (
	"errors"
	"fmt"
)

// CodeEval is the Oozie error code of EL failures, syntax errors included
// (see the package documentation for why E1003 is not used here).
const CodeEval = "E1004"

// Error is a failure to parse or evaluate an EL text.
type Error struct {
	Code   string // Oozie error code, CodeEval
	Expr   string // the whole text that was parsed or evaluated
	Column int    // 1-based byte column within Expr where the problem is; 0 if unknown
	Msg    string // the detail, e.g. "variable [c] cannot be resolved"
	Syntax bool   // true for parse errors, false for evaluation errors
	Err    error  // underlying cause (a function's error), if any
}

// Error formats the error the way Oozie prints coded errors: code first,
// then the code's template, then where it happened.
func (e *Error) Error() string {
	where := ""
	if e.Column > 0 {
		where = fmt.Sprintf(" at column %d", e.Column)
	}
	return fmt.Sprintf("%s: Expression language evaluation error, %s%s in [%s]", e.Code, e.Msg, where, e.Expr)
}

// Unwrap returns the underlying cause so errors.Is/As can see a function's
// own error through the EL wrapper.
func (e *Error) Unwrap() error { return e.Err }

// syntaxError is raised inside the parser and turned into an *Error with the
// full text attached.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

// evalError is raised inside the evaluator; the node offset locates it.
type evalError struct {
	off int
	msg string
	err error
}

func (e *evalError) Error() string { return e.msg }

func newEvalError(off int, format string, args ...any) *evalError {
	return &evalError{off: off, msg: fmt.Sprintf(format, args...)}
}

// wrap turns an internal error into the public *Error for text.
func wrap(text string, err error) error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	switch e := err.(type) {
	case *syntaxError:
		return &Error{Code: CodeEval, Expr: text, Column: e.off + 1, Msg: e.msg, Syntax: true}
	case *evalError:
		return &Error{Code: CodeEval, Expr: text, Column: e.off + 1, Msg: e.msg, Err: e.err}
	}
	return &Error{Code: CodeEval, Expr: text, Msg: err.Error(), Err: err}
}

// MaxStringLen bounds the strings EL builds: concat, replaceAll, appendAll
// and the to*Str functions' results, and text with several ${} segments.
// Without it a workflow could build gigabytes from a few kilobytes of
// definition (replaceAll with an empty pattern, a thousand segments of one big
// variable). Strings EL only passes along (a variable's value, wf:conf) are
// not limited here; the configuration limits bound those.
const MaxStringLen = 1 << 20

// TooLongError reports an EL string result over MaxStringLen.
type TooLongError struct {
	What string // the function or "text"
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("result of %s is longer than the limit of %d bytes", e.What, MaxStringLen)
}

// checkLen refuses a result of n bytes built by what.
func checkLen(what string, n int) error {
	if n > MaxStringLen || n < 0 {
		return &TooLongError{What: what}
	}
	return nil
}
