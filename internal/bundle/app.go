package bundle

import (
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/vocab"
)

// Job property names a bundle submission reads or sets.
const (
	PropAppPath      = "oozie.bundle.application.path"
	PropCoordAppPath = "oozie.coord.application.path"
	PropBundleID     = "oozie.bundle.id"
	PropUser         = "user.name"
	PropProcessing   = "oozie.processing.timezone"
)

// Files of a bundle application directory.
const (
	// DefinitionFile is read when oozie.bundle.application.path names a
	// directory.
	DefinitionFile = "bundle.xml"
	// ConfigDefaultFile holds defaults for the job properties, beside the
	// definition (Oozie's BundleSubmitXCommand.CONFIG_DEFAULT).
	ConfigDefaultFile = "bundle-config-default.xml"
)

// Oozie's error codes of bundle definitions and submissions.
const (
	CodeSchema        = "E0701" // not well formed, or not valid against the schema
	CodeConfigDefault = "E0702" // bundle-config-default.xml cannot be read
	CodeMissingParam  = "E0738" // required <parameters> without a value
	CodeEmptyParam    = "E0739" // a <parameters> property with an empty name
	CodeDisallowed    = "E0808" // a job property uses a reserved name
	CodeNoProperty    = "E0401" // user.name or the application path missing
	CodeEL            = "E1004" // EL evaluation error
	CodeRead          = "E1301" // the definition cannot be read (or a bad kick-off-time)
	CodeURI           = "E1302" // invalid bundle application URI
	CodeDuplicate     = "E1304" // two coordinators with one name
	CodeSubmit        = "E1310" // bundle job submission error, wrapping the cause
)

// Error is the coded error of this package (vocab.Error).
type Error = vocab.Error

// ErrorCode returns the Oozie code of err ("" when it carries none).
func ErrorCode(err error) string { return vocab.CodeOf(err) }

// Coordinator is one <coordinator> of a bundle, EL resolved.
type Coordinator struct {
	// Name names the coordinator within the bundle; the coordinator job
	// submitted for it takes this name as its application name.
	Name string
	// AppPath is the <app-path>: the coordinator application.
	AppPath string
	// Critical is the critical attribute ("true" in any case).
	Critical bool
	// Enabled is the enabled attribute (schema 0.2): true when absent or
	// "true" in any case. A disabled coordinator is not submitted.
	Enabled bool
	// Conf is the coordinator's <configuration>, nil if it has none.
	Conf *conf.Config
}

// Parameter is a formal parameter of <parameters> (schema 0.2, spec:
// bundle 4.4).
type Parameter struct {
	Name       string
	Value      string // the default, when HasDefault
	HasDefault bool
}

// App is a submitted bundle application.
type App struct {
	// Name is the bundle-app name, EL resolved.
	Name string
	// Namespace is the schema namespace of the definition.
	Namespace string
	// KickoffTime is <controls><kick-off-time>; zero when none is given,
	// which means the bundle starts at once (spec: bundle 4.3).
	KickoffTime time.Time
	// Coordinators are in document order.
	Coordinators []Coordinator
	// Parameters are the formal parameters as written.
	Parameters []Parameter
	// Definition is the bundle XML as submitted, the text Oozie keeps as
	// the job's original definition and shows for -definition; Load
	// rebuilds the App from it and the job configuration.
	Definition string
	// JobXML is the definition with comments removed and EL resolved:
	// what Oozie stores as the job XML and prints for a dry run.
	JobXML string
}

// StartsAt is when the bundle starts its coordinators for a submission
// at now: its kick-off time, or now when it has none or it has passed.
func (a *App) StartsAt(now time.Time) time.Time {
	if a.KickoffTime.IsZero() || a.KickoffTime.Before(now) {
		return now
	}
	return a.KickoffTime
}

// SubmitOptions are the outside world of a submission.
type SubmitOptions struct {
	// ReadFile reads a file of the application (the definition,
	// bundle-config-default.xml). An error that is a coded *Error is
	// returned as it is; one wrapping fs.ErrNotExist means "no such file".
	ReadFile func(path string) ([]byte, error)
	// Now is the submission time, given by the caller (the package never
	// reads the clock); see App.StartsAt.
	Now time.Time
}

// submitError is Oozie's E1310, which its bundle submission raises for
// every failure after the schema check, the cause's message in brackets.
func submitError(cause *Error) *Error {
	return &Error{Code: CodeSubmit, Msg: "Bundle Job submission Error: [" + cause.Error() + "]", Err: cause}
}

// submitErrorf is submitError of a cause built from code and format.
func submitErrorf(code, format string, args ...any) *Error {
	return submitError(vocab.Errorf(code, format, args...))
}
