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

// Oozie error codes the engine produces.
const (
	CodeMissingProperty   = "E0401" // a required job property is missing
	CodeNoAppPath         = "E0405" // no oozie.wf.application.path
	CodeAppDirMissing     = "E0504" // app directory does not exist
	CodeAppDefMissing     = "E0505" // workflow.xml does not exist
	CodeJobNotFound       = "E0604"
	CodeActionNotFound    = "E0605"
	CodeCannotRead        = "E0710" // the definition cannot be read
	CodeInvalidAppURI     = "E0711"
	CodeNotSuspended      = "E0717"
	CodeAlreadyStarted    = "E0719"
	CodeUnsupportedAction = "E0723"
	CodeCannotKill        = "E0725"
	CodeCannotSuspend     = "E0727"
	CodeKillNode          = "E0729" // recorded on a reached kill node
	CodeDisallowedDefault = "E0804" // user.name in config-default.xml
	CodeELError           = "EL_ERROR"
	CodeSubWorkflowDepth  = "SUBWF001"
)
