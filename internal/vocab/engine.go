package vocab

import (
	"fmt"
)

// ConfChangeError refuses a change of a job's application or properties
// to a caller who may not make it (a workflow rerun restricted to the
// job's own configuration, and a coordinator update with the same
// restriction). Names lists what would have changed.
type ConfChangeError struct {
	JobID string
	Names []string
}

// Error says which job refused which changes.
func (e *ConfChangeError) Error() string {
	return fmt.Sprintf("the job's application and properties may not change, job [%s], changed %v", e.JobID, e.Names)
}

// Oozie error codes the engines produce.
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
	// CodeQuarantined is the error of work the server died performing
	// twice (the crash journal): it is not performed again.
	CodeQuarantined = "CRASH001"
	// CodeRerunNotEnded refuses a rerun of a job that has not ended.
	CodeRerunNotEnded = "E0805"
)
