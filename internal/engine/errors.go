package engine

import (
	"github.com/gozie/gozie/internal/vocab"
	"github.com/gozie/gozie/internal/workflow"
)

// Error is the coded error of package vocab, under the name the faces
// know it by.
type Error = vocab.Error

func errorf(code, format string, args ...any) *Error { return vocab.Errorf(code, format, args...) }

// ErrorCode returns the Oozie error code carried by err (a coded error of
// package vocab, a workflow definition's or anything with an OozieCode
// method), or "".
func ErrorCode(err error) string {
	if c := vocab.CodeOf(err); c != "" {
		return c
	}
	return workflow.ErrorCode(err)
}

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
