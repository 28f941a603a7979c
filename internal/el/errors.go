package el

import (
	"fmt"

	"github.com/gozie/gozie/internal/vocab"
)

// CodeEval is the Oozie error code of EL failures, syntax errors included
// (see the package documentation for why E1003 is not used here).
const CodeEval = "E1004"

// Error is a failure to parse or evaluate an EL text: gozie's one coded
// error type, vocab.Error, in its EL form (Form vocab.FormEL): Code is
// CodeEval, Expr the whole text that was parsed or evaluated, Column the
// 1-based byte column within Expr where the problem is (0 if unknown), Msg
// the detail (e.g. "variable [c] cannot be resolved"), Syntax true for parse
// errors and false for evaluation errors, and Err the underlying cause (a
// function's error), if any, which errors.Is/As see through it.
//
// It renders the way Oozie prints coded errors: code first, then the code's
// template, then where it happened.
type Error = vocab.Error

// newError builds an EL error of text.
func newError(text string, column int, msg string, err error) *Error {
	return &Error{Code: CodeEval, Form: vocab.FormEL, Expr: text, Column: column, Msg: msg, Err: err}
}

// AsError returns the first EL error in err's chain, or nil. Other coded
// errors are the same Go type, so errors.As cannot tell them apart.
func AsError(err error) *Error {
	return vocab.Find(err, func(e *Error) bool { return e.Form == vocab.FormEL })
}

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
	if pe := AsError(err); pe != nil {
		return pe
	}
	switch e := err.(type) {
	case *syntaxError:
		pe := newError(text, e.off+1, e.msg, nil)
		pe.Syntax = true
		return pe
	case *evalError:
		return newError(text, e.off+1, e.msg, e.err)
	}
	return newError(text, 0, err.Error(), err)
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
