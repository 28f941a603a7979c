package engine

import (
	"github.com/gozie/gozie/internal/vocab"
)

// Error is an engine failure with an Oozie error code: a refused submission
// (E0504 app directory missing, E0723 unsupported action type, E0738 missing
// parameters, ...) or a refused command (E0604 no such job, E0727 cannot
// suspend, ...). It is the one coded error type of gozie, vocab.Error, and
// renders "CODE: message", Oozie's format.
type Error = vocab.Error

func errorf(code, format string, args ...any) *Error {
	return vocab.Errorf(code, format, args...)
}

// ErrorCode returns the Oozie error code carried by err, or "" (vocab.CodeOf).
func ErrorCode(err error) string { return vocab.CodeOf(err) }

// Oozie error codes the engine produces (package vocab's, forwarded for
// the faces).
const (
	CodeMissingProperty   = vocab.CodeMissingProperty
	CodeNoAppPath         = vocab.CodeNoAppPath
	CodeAppDirMissing     = vocab.CodeAppDirMissing
	CodeAppDefMissing     = vocab.CodeAppDefMissing
	CodeJobNotFound       = vocab.CodeJobNotFound
	CodeActionNotFound    = vocab.CodeActionNotFound
	CodeCannotRead        = vocab.CodeCannotRead
	CodeInvalidAppURI     = vocab.CodeInvalidAppURI
	CodeNotSuspended      = vocab.CodeNotSuspended
	CodeAlreadyStarted    = vocab.CodeAlreadyStarted
	CodeUnsupportedAction = vocab.CodeUnsupportedAction
	CodeCannotKill        = vocab.CodeCannotKill
	CodeCannotSuspend     = vocab.CodeCannotSuspend
	CodeKillNode          = vocab.CodeKillNode
	CodeDisallowedDefault = vocab.CodeDisallowedDefault
	CodeELError           = vocab.CodeELError
	CodeSubWorkflowDepth  = vocab.CodeSubWorkflowDepth
	CodeQuarantined       = vocab.CodeQuarantined
)
