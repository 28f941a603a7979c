package workflow

import (
	"github.com/gozie/gozie/internal/vocab"
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

// Error is a validation or parse failure carrying the Oozie error code:
// gozie's one coded error type, vocab.Error.
//
// Error() renders "CODE: Msg", exactly as Oozie formats its messages, so that
// callers can compare messages with Oozie's. Line and Column locate the
// offending element in workflow.xml when known (1-based; 0 when unknown). For
// E0701 the location is also part of Msg because schema messages are useless
// without it; graph errors keep Oozie's exact text and expose the location
// only through the fields.
type Error = vocab.Error

// newError builds an Error with a formatted message and no location.
func newError(code, format string, args ...any) *Error {
	return vocab.Errorf(code, format, args...)
}

// schemaError builds an E0701 error (vocab.SchemaError).
func schemaError(line, col int, format string, args ...any) *Error {
	return vocab.SchemaError(line, col, format, args...)
}

// ErrorCode returns the Oozie code of err, or "" (vocab.CodeOf).
func ErrorCode(err error) string { return vocab.CodeOf(err) }
