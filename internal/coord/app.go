package coord

import (
	"sync"
	"time"

	"github.com/gozie/gozie/internal/schedule"
	"github.com/gozie/gozie/internal/vocab"
)

// Oozie error codes produced by the coordinator model. Users search for
// these codes, so gozie reports the very same ones.
const (
	CodeSchema         = "E0701" // XML not well formed or not matching the schema
	CodeInvalidAttrs   = "E1003" // invalid coordinator application attributes
	CodeEL             = "E1004" // an EL expression could not be evaluated
	CodeMissingParam   = "E0738" // <parameters> without a value in the job
	CodeInstanceRange  = "E1010" // start/end instance mismatch
	CodeUnsupportedApp = "E1021" // coordinator definition Oozie does not support
	CodeNoUser         = "E0401" // user.name missing from the job configuration
	CodeDatasetClash   = "E1020" // duplicate dataset names (spec: coord 10.1.1)
	CodeNoApp          = "E0504" // the application path is missing
	CodeReadApp        = "E0505" // the coordinator definition cannot be read
	CodeDisallowed     = "E0808" // a job property uses a reserved name
	CodeURIParse       = "E0906" // a dataset URI (hcat://) that does not parse
)

// Error is a coordinator parse, submission or materialization failure with
// its Oozie error code: gozie's one coded error type, vocab.Error. Error()
// renders "CODE: Msg", as Oozie does. Line and Column locate E0701 problems
// in the XML when known (1-based; 0 otherwise).
type Error = vocab.Error

// errorf builds an Error without a location.
func errorf(code, format string, args ...any) *Error {
	return vocab.Errorf(code, format, args...)
}

// ErrorCode returns the Oozie code of err, or "" when it carries none
// (vocab.CodeOf).
func ErrorCode(err error) string { return vocab.CodeOf(err) }

// Execution orders of <controls><execution> (spec: coord 6.3).
const (
	FIFO     = "FIFO"
	LIFO     = "LIFO"
	LastOnly = "LAST_ONLY"
	None     = "NONE"
)

// Defaults of the controls (spec: coord 6.3 and Oozie's oozie-default.xml).
const (
	// DefaultTimeout is the minutes an action waits for its inputs when
	// <timeout> is absent (oozie.service.coord.normal.default.timeout).
	DefaultTimeout = 120
	// DefaultConcurrency is the number of actions allowed to run at once.
	DefaultConcurrency = 1
	// DefaultThrottle caps the WAITING actions materialization creates
	// (oozie.service.coord.default.throttle).
	DefaultThrottle = 12
	// DefaultMinFrequencyMinutes is the smallest frequency accepted when
	// the maximum-frequency check is on (oozie.service.coord.check.maximum.frequency).
	DefaultMinFrequencyMinutes = 5
	// DefaultNoneTolerance is how long after its nominal time an action of
	// an execution NONE job may still start (oozie.coord.execution.none.tolerance).
	DefaultNoneTolerance = time.Minute
	// DefaultMaxActionBytes bounds what one action's configuration
	// resolves to (App.MaxActionBytes); the workflow engine bounds its
	// actions with the same default (engine.DefaultMaxActionBytes).
	DefaultMaxActionBytes = 2 << 20
)

// App is a coordinator job definition after submission-time resolution:
// job properties and submission-phase EL are resolved; instance functions,
// coord:dataIn and the like stay for the materialization and start phases.
type App struct {
	Name, Namespace string
	Start, End      time.Time
	TimeZone        string
	Location        *time.Location
	// Frequency is REST "frequency": the number of TimeUnit (e.g. "60") or
	// the cron text.
	Frequency string
	// TimeUnit is REST "timeUnit": MINUTE, HOUR, DAY, WEEK, MONTH, YEAR,
	// CRON, END_OF_DAY, END_OF_WEEK, END_OF_MONTH as Oozie reports it.
	TimeUnit string
	// Freq is the parsed frequency the schedule steps by.
	Freq schedule.Frequency
	// Timeout is in minutes (-1 never; 0 immediately); Concurrency and
	// Throttle are counts.
	Timeout, Concurrency, Throttle int
	// Execution is FIFO, LIFO, LAST_ONLY or NONE.
	Execution string
	Datasets  map[string]*Dataset
	Inputs    []*DataEvent
	Outputs   []*DataEvent
	// InputLogic is the <input-logic> (spec: coord 6.10), nil when the
	// app has none: then every input must be there (an AND of all).
	InputLogic *InputLogic
	// AppPath is the workflow app-path of the action; it may still hold EL
	// of later phases.
	AppPath string
	// Configuration is the action's <configuration> in document order,
	// values with materialization/start-phase EL unresolved.
	Configuration []Property
	// Parameters are the <parameters> of the app (0.4+), name -> default
	// value ("" and HasDefault false when none).
	Parameters []Parameter
	// SLA is the <sla:info> element of the action, or nil.
	SLA *SLA
	// Processing is the processing zone instance times are printed in.
	Processing schedule.ProcessingZone
	// Definition is the resolved coordinator XML to persist: Load(Definition,
	// conf) restores the App.
	Definition string
	// User and Group are the submitting user and group.
	User, Group string
	// MaxActionBytes bounds the action's configuration once its EL is
	// resolved, per action: the materialized action XML keeps it
	// unresolved above the bound, RunConf fails with E1004. 0 means
	// DefaultMaxActionBytes. Submit sets it from its options (and refuses
	// a configuration the job's variables already take past it); a caller
	// of Load sets it.
	MaxActionBytes int

	datasetOrder []string // dataset names in definition order

	partsOnce sync.Once // builds parts, the constant parts of action XML
	parts     *actionXMLParts
}

// maxAction is the bound in force on an action's resolved configuration.
func (a *App) maxAction() int {
	if a.MaxActionBytes > 0 {
		return a.MaxActionBytes
	}
	return DefaultMaxActionBytes
}

// actionTooLarge is the E1004 of an action configuration over its bound.
func actionTooLarge(what string, limit int, prop string) *Error {
	return errorf(CodeEL, "Expression language evaluation error, %s resolves to more than %d bytes (gozie.action.max.bytes; limit reached at [%s])", what, limit, prop)
}

// Property is one <property> of an action configuration.
type Property struct {
	Name, Value string
}

// Parameter is one <parameters><property> of an app.
type Parameter struct {
	Name, Value string
	HasDefault  bool
}

// SLA is an <sla:info> block (schemas sla 0.1 and 0.2). Fields holds the
// child elements by local name in document order; values keep EL of the
// sla phases until materialization.
type SLA struct {
	Namespace string
	Fields    []Property
}

// DataEvent is a <data-in> or <data-out> of the app.
type DataEvent struct {
	Name    string
	Dataset string
	DS      *Dataset
	// Instances are the <instance> texts; a range uses StartInstance and
	// EndInstance instead.
	Instances                  []string
	StartInstance, EndInstance string
	// NoCleanup is the data-out attribute (schema 0.4+).
	NoCleanup bool
	// Output marks a <data-out>.
	Output bool
}

// IsRange reports whether the event uses start-instance/end-instance.
func (d *DataEvent) IsRange() bool { return d.StartInstance != "" || d.EndInstance != "" }
