package workflow

// Options are the server and job settings that influence parsing and
// validation. Start from DefaultOptions: the zero value turns every switch off.
type Options struct {
	// SchemaValidation enables the XSD-equivalent structure checks (E0701).
	// Oozie always validates against its schemas on submission; turning this
	// off mirrors its parser used without a schema (graph checks only).
	SchemaValidation bool
	// ValidateForkJoin is the server switch oozie.validate.ForkJoin. Fork/join
	// rules run only when it is true and the job property
	// oozie.wf.validate.ForkJoin is not "false".
	ValidateForkJoin bool
	// JobConf holds job properties; only oozie.wf.validate.ForkJoin is read.
	JobConf map[string]string
	// DefaultNameNode and DefaultJobTracker are the server defaults
	// oozie.actions.default.name-node and oozie.actions.default.job-tracker,
	// used by actions that need them when neither the action nor <global>
	// sets them.
	DefaultNameNode   string
	DefaultJobTracker string
	// ExtensionActions is the set of accepted action types outside the
	// workflow namespace (keyed by element local name). Nil means
	// DefaultExtensionActions. Built-in types are always accepted.
	ExtensionActions map[string]bool
	// MaxDefinitionLength is the largest accepted workflow.xml in bytes
	// (oozie.service.WorkflowAppService.WorkflowDefinitionMaxLength); 0 means
	// the Oozie default of 100000, a negative value disables the check.
	MaxDefinitionLength int
	// MaxNodeNameLength bounds node names (E0724); 0 means 128.
	MaxNodeNameLength int
}

// Job property and server setting names understood by this package.
const (
	PropValidateForkJoin       = "oozie.wf.validate.ForkJoin"
	ServerPropValidateForkJoin = "oozie.validate.ForkJoin"
	ServerPropDefaultNameNode  = "oozie.actions.default.name-node"
	ServerPropDefaultJobTrack  = "oozie.actions.default.job-tracker"
)

// What gozie run uses for oozie.actions.default.name-node and
// oozie.actions.default.job-tracker when neither its -site file nor the
// job properties set them: a local run has the local file system and no
// cluster.
const (
	LocalDefaultNameNode   = "file:///"
	LocalDefaultJobTracker = "local"
)

// DefaultMaxDefinitionLength is Oozie's default workflow.xml size limit.
const DefaultMaxDefinitionLength = 100000

// DefaultMaxNodeNameLength is the default bound on node names. The spec text
// says 20 characters, but the schemas' IDENTIFIER pattern sets no bound and
// real workflows use longer names, so gozie accepts up to 128.
const DefaultMaxNodeNameLength = 128

// DefaultExtensionActions returns the extension action types gozie ships.
func DefaultExtensionActions() map[string]bool {
	return map[string]bool{
		"shell": true, "email": true, "ssh": true, "hive": true, "hive2": true,
		"sqoop": true, "spark": true, "distcp": true, "git": true,
	}
}

// DefaultOptions returns Oozie's defaults: schema and fork/join validation on,
// the built-in extension action set, no server name-node/job-tracker.
func DefaultOptions() Options {
	return Options{
		SchemaValidation: true,
		ValidateForkJoin: true,
		ExtensionActions: DefaultExtensionActions(),
	}
}

func (o Options) maxDefinitionLength() int {
	if o.MaxDefinitionLength == 0 {
		return DefaultMaxDefinitionLength
	}
	return o.MaxDefinitionLength
}

func (o Options) maxNodeNameLength() int {
	if o.MaxNodeNameLength <= 0 {
		return DefaultMaxNodeNameLength
	}
	return o.MaxNodeNameLength
}

// forkJoinEnabled applies the AND of the server switch and the job property
// (which defaults to true), as section 3.1.5 describes.
func (o Options) forkJoinEnabled() bool {
	if !o.ValidateForkJoin {
		return false
	}
	if v, ok := o.JobConf[PropValidateForkJoin]; ok && equalFoldTrim(v, "false") {
		return false
	}
	return true
}

// actionAccepted reports whether an action type may run on this server.
func (o Options) actionAccepted(a *Action) bool {
	if set, ok := builtinActions[a.Namespace]; ok && set[a.Type] {
		return true
	}
	// Graphs built in code may leave the namespace empty: judge the type alone.
	if a.Namespace == "" && builtinActions["uri:oozie:workflow:1.0"][a.Type] {
		return true
	}
	ext := o.ExtensionActions
	if ext == nil {
		ext = DefaultExtensionActions()
	}
	return ext[a.Type]
}
