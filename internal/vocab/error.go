package vocab

import (
	"errors"
	"fmt"
	"strconv"
)

// Kind is the retry class of an executor failure, which decides the
// action's next state (spec: wf 9.2, spec: wf 18). The zero Kind means
// "unclassified": an error that is not an executor's verdict (a parse
// error, an engine refusal) must never be mistaken for one.
type Kind int

const (
	// KindUnclassified is the Kind of every error that is not an executor's
	// classified failure.
	KindUnclassified Kind = iota
	// KindTransient errors may pass if the operation is retried later: the
	// engine retries (START_RETRY / END_RETRY) up to the configured count.
	KindTransient
	// KindNonTransient errors need a person: START_MANUAL / END_MANUAL.
	KindNonTransient
	// KindError makes the action end with its error transition.
	KindError
	// KindFailed fails the whole workflow job.
	KindFailed
)

// String names the kind as the specification does.
func (k Kind) String() string {
	switch k {
	case KindTransient:
		return "transient"
	case KindNonTransient:
		return "non-transient"
	case KindError:
		return "error"
	case KindFailed:
		return "failed"
	}
	return "unclassified"
}

// MarshalJSON writes the number the kind had before KindUnclassified
// existed (transient 0, non-transient 1, error 2, failed 3), so that the
// outcome files a launched child leaves in its work directory read the
// same across versions; KindUnclassified is -1.
func (k Kind) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, int64(k)-1, 10), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (k *Kind) UnmarshalJSON(b []byte) error {
	n, err := strconv.Atoi(string(b))
	if err != nil {
		return fmt.Errorf("retry kind %s: %w", b, err)
	}
	if n < -1 || n > int(KindFailed)-1 {
		return fmt.Errorf("retry kind %d out of range", n)
	}
	*k = Kind(n + 1)
	return nil
}

// Form selects how an Error renders; the renderings differ because users
// and tests already depend on each one's exact text.
type Form int

const (
	// FormPlain renders a coded error as "CODE: Msg", Oozie's format, and
	// an uncoded one (a configuration file's syntax error) as
	// "source:line: Msg", the form editors jump to.
	FormPlain Form = iota
	// FormEL renders an EL failure: "CODE: Expression language evaluation
	// error, Msg[ at column N] in [Expr]".
	FormEL
)

// Error is a failure with an Oozie error code, a position in the document
// it concerns when known, and, for executor failures, its retry class.
//
// Every coded error of gozie is this one type (workflow, coordinator and
// engine refusals, EL failures, executor failures, configuration parse
// errors), so that one CodeOf reads the code of any of them.
type Error struct {
	Code string // Oozie error code; "" for an uncoded positioned error
	Msg  string // the detail: what follows "CODE: " or "source:line: "

	// Source is the file or other origin of the document, when known.
	Source string
	// Line and Column locate the problem (1-based; 0 when unknown). For
	// FormEL, Column is the byte column within Expr.
	Line, Column int

	// Kind is the retry class of an executor failure; KindUnclassified otherwise.
	Kind Kind
	// Form selects the rendering.
	Form Form
	// Expr is the EL text that failed (FormEL).
	Expr string
	// Syntax tells an EL parse error from an evaluation error (FormEL).
	Syntax bool

	// Err is the underlying cause, if any.
	Err error
}

// Error renders e in its Form.
func (e *Error) Error() string {
	if e.Form == FormEL {
		where := ""
		if e.Column > 0 {
			where = " at column " + strconv.Itoa(e.Column)
		}
		return e.Code + ": Expression language evaluation error, " + e.Msg + where + " in [" + e.Expr + "]"
	}
	if e.Code == "" {
		s := e.Source
		if s == "" {
			s = "<input>"
		}
		if e.Line > 0 {
			s += ":" + strconv.Itoa(e.Line)
		}
		return s + ": " + e.Msg
	}
	return e.Code + ": " + e.Msg
}

// Unwrap returns the underlying cause so errors.Is/As see through e.
func (e *Error) Unwrap() error { return e.Err }

// At sets the position of e and returns e, for chaining after Errorf.
func (e *Error) At(line, column int) *Error {
	e.Line, e.Column = line, column
	return e
}

// Errorf returns an Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// CodeOf returns the Oozie error code carried by err: that of the first
// coded *Error in its chain, or of the first error offering OozieCode()
// (errors that are not *Error but still carry a code), or "".
func CodeOf(err error) string {
	if e := Find(err, func(e *Error) bool { return e.Code != "" }); e != nil {
		return e.Code
	}
	var coded interface{ OozieCode() string }
	if errors.As(err, &coded) {
		return coded.OozieCode()
	}
	return ""
}

// Find returns the first *Error in err's chain (depth first, as errors.As
// walks it) for which match reports true, or nil. Callers that used to
// tell error families apart by type (an EL error, an executor verdict)
// tell them apart by a field instead.
func Find(err error, match func(*Error) bool) *Error {
	for err != nil {
		if e, ok := err.(*Error); ok && match(e) {
			return e
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				if e := Find(inner, match); e != nil {
					return e
				}
			}
			return nil
		default:
			return nil
		}
	}
	return nil
}

// AsCoded returns the first refusal in err's chain: a coded *Error in the
// plain "CODE: Msg" form (not an EL error, nor an uncoded positioned one),
// which is what a workflow, coordinator or engine error used to be by type.
func AsCoded(err error) *Error {
	return Find(err, func(e *Error) bool { return e.Code != "" && e.Form == FormPlain })
}

// Classified returns the first executor verdict (an *Error with a Kind) in
// err's chain, or nil.
func Classified(err error) *Error {
	return Find(err, func(e *Error) bool { return e.Kind != KindUnclassified })
}

// SchemaError builds the E0701 error of an XML document that is not well
// formed or does not match its schema, as the workflow and coordinator
// readers report it: "XML schema error, <detail> (line L, column C)". The
// location, when known (line > 0), is part of the message as well as of
// the fields, because schema messages are useless printed without it.
func SchemaError(line, col int, format string, args ...any) *Error {
	msg := "XML schema error, " + fmt.Sprintf(format, args...)
	if line > 0 {
		msg += fmt.Sprintf(" (line %d, column %d)", line, col)
	}
	return &Error{Code: "E0701", Msg: msg, Line: line, Column: col}
}
