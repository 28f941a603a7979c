package vocab

// Job properties the engines read (spec: wf 4 and 10,
// spec: coord 6).
const (
	PropAppPath      = "oozie.wf.application.path"
	PropCoordAppPath = "oozie.coord.application.path"
	// PropBundleAppPath names a bundle's application (spec: bundle 4.1).
	PropBundleAppPath = "oozie.bundle.application.path"
	PropUser          = "user.name"
	PropGroup         = "group.name"
	PropACL           = "oozie.job.acl"
	PropExternal      = "oozie.wf.external.id"

	// Rerun properties (spec: wf 10).
	PropRerunSkipNodes = "oozie.wf.rerun.skip.nodes"
	PropRerunFailNodes = "oozie.wf.rerun.failnodes"

	// PropSuspendOnNodes names the nodes a workflow job is suspended
	// before (comma list, or "*" for every node): Oozie's debugging
	// breakpoint, read from the job's configuration.
	PropSuspendOnNodes = "oozie.suspend.on.nodes"

	// PropWorkflowNotificationURL is notified on every status change of a
	// workflow job; tokens $jobId, $status, $parentId (spec: wf 5).
	PropWorkflowNotificationURL = "oozie.wf.workflow.notification.url"
	// PropWorkflowNotificationProxy is the proxy of both workflow URLs:
	// host:port, or type@host:port with type http or socks.
	PropWorkflowNotificationProxy = "oozie.wf.workflow.notification.proxy"
	// PropActionNotificationURL is notified when a workflow job enters
	// and leaves an action node, and once per decision node; tokens
	// $jobId, $nodeName, $status.
	PropActionNotificationURL = "oozie.wf.action.notification.url"
)

// Server settings a validation reads from the job properties when there
// is no server configuration (gozie validate).
const (
	// PropOozieDefinitionMax is Oozie's name for the definition length
	// limit; gozie's own key is PropDefinitionMax.
	PropOozieDefinitionMax = "oozie.service.WorkflowAppService.WorkflowDefinitionMaxLength"
	PropDefinitionMax      = "gozie.definition.max.bytes"
	// PropCoordCheckMaxFrequency false turns the coordinator frequency
	// check off (Oozie's oozie.service.coord.check.maximum.frequency).
	PropCoordCheckMaxFrequency = "oozie.service.coord.check.maximum.frequency"
	PropCoordMinFrequency      = "gozie.coord.min.frequency.minutes"
)
