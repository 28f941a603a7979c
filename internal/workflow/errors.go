package workflow

import (
	"errors"
	"fmt"
)

// Oozie error codes produced by this package. Users search for these codes in
// Oozie documentation and forums, so gozie reports the very same ones.
const (
	CodeSchema             = "E0701" // XML not well formed or not matching the schema
	CodeDuplicateNode      = "E0705" // two nodes share a name
	CodeSelfTransition     = "E0706" // a node transitions to itself
	CodeLoop               = "E0707" // a cycle in the graph
	CodeInvalidTransition  = "E0708" // a transition to a node that does not exist
	CodeUnsupportedAction  = "E0723" // action type not accepted by the server
	CodeInvalidNodeName    = "E0724" // node name breaks the naming rules
	CodeForkJoinNotInPair  = "E0730" // number of forks differs from number of joins
	CodeDefinitionTooLong  = "E0736" // workflow.xml larger than the configured limit
	CodeMissingParameters  = "E0738" // required <parameters> not given by the job
	CodeEmptyParameterName = "E0739" // a <parameters> property without name
	CodeEndInsideForkJoin  = "E0737" // a path inside a fork reaches the end node
	CodeJoinWithoutFork    = "E0742" // a join reached outside of any fork
	CodeMultipleOkToNode   = "E0743" // two "ok" paths converge outside a decision
	CodeForkDuplicatePath  = "E0744" // a fork lists the same node twice
	CodeForkMultipleJoins  = "E0757" // the paths of one fork end in different joins
	CodeForkWithoutJoin    = "E0733" // every path of a fork dies before any join
)

// Error is a validation or parse failure carrying the Oozie error code.
//
// Error() renders "CODE: Msg", exactly as Oozie formats its messages, so that
// callers can compare messages with Oozie's. Line and Col locate the offending
// element in workflow.xml when known (1-based; 0 when unknown). For E0701 the
// location is also part of Msg because schema messages are useless without it;
// graph errors keep Oozie's exact text and expose the location only through the
// fields.
type Error struct {
	Code string
	Msg  string
	Line int
	Col  int
}

// Error implements the error interface.
func (e *Error) Error() string { return e.Code + ": " + e.Msg }

// OozieCode returns the error's code (vocab.CodeOf).
func (e *Error) OozieCode() string { return e.Code }

// newError builds an Error with a formatted message and no location.
func newError(code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// at attaches a location and returns the same error for chaining.
func (e *Error) at(line, col int) *Error {
	e.Line, e.Col = line, col
	return e
}

// schemaError builds an E0701 error. The location, when known, is appended to
// the message in parentheses so that it survives being printed as a string.
func schemaError(line, col int, format string, args ...any) *Error {
	msg := "XML schema error, " + fmt.Sprintf(format, args...)
	if line > 0 {
		msg += fmt.Sprintf(" (line %d, column %d)", line, col)
	}
	return &Error{Code: CodeSchema, Msg: msg, Line: line, Col: col}
}

// ErrorCode returns the Oozie code of err when it is (or wraps) an *Error, and
// "" otherwise.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
