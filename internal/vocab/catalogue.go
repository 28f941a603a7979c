package vocab

import "net/http"

// Entry is one code of the catalogue: what the code means in Oozie, the
// message template Oozie formats it with ("" where Oozie has none: action
// executor codes, gozie's own), the HTTP status the REST API answers with
// when an engine refuses a request with it, and the usual retry class of
// an executor failure carrying it.
type Entry struct {
	Code string
	// Template is Oozie's message template; {0}, {1}... stand for the
	// arguments, as in Oozie's MessageFormat.
	Template string
	// HTTP is the status of a refusal with this code (rest-api.md 9.1):
	// 401 for authorization failures, 503 for safe mode, 400 otherwise.
	// Handlers that know better (a store outage, a missing page) choose
	// their own status.
	HTTP int
	// Class is the retry class executors usually give the code; a single
	// failure may be classed otherwise (JA009 is transient for an I/O
	// hiccup but an error for a malformed path). KindUnclassified for codes
	// executors do not produce.
	Class Kind
	// About says in a few words what the code reports, for codes without
	// an Oozie template.
	About string
}

// entries is the catalogue, keyed by code. It lists the codes gozie
// produces; a code missing here is still valid, it just has no template.
var entries = map[string]Entry{
	// System and REST request validation.
	"E0002": {Template: "System is in safe mode", HTTP: http.StatusServiceUnavailable},
	"E0300": {Template: "Invalid content-type [{0}]"},
	"E0301": {Template: "Invalid resource [{0}]"},
	"E0302": {Template: "Invalid parameter [{0}]"},
	"E0303": {Template: "Invalid parameter value, [{0}] = [{1}]"},
	"E0304": {Template: "Invalid parameter type, parameter [{0}] expected type [{1}]"},
	"E0305": {Template: "Missing parameter [{0}]"},
	"E0306": {Template: "Invalid parameter"},
	"E0307": {Template: "Runtime error [{0}]"},
	"E0308": {Template: "Could not parse date range parameter [{0}]"},

	// Submission.
	"E0401": {Template: "Missing configuration property [{0}]"},
	"E0402": {Template: "Invalid callback ID [{0}]"},
	"E0403": {Template: "Invalid callback data, {0}"},
	"E0404": {Template: "Only one of the properties are allowed [{0}]"},
	"E0405": {Template: "Submission request doesn't have any application or lib path"},
	"E0420": {Template: "Invalid jobs filter [{0}], {1}"},
	"E0421": {Template: "Invalid job filter [{0}], {1}"},

	// Authorization and applications.
	"E0500": {Template: "Not authorized, {0}"},
	"E0503": {Template: "User [{0}] does not have admin privileges", HTTP: http.StatusUnauthorized},
	"E0504": {Template: "App directory [{0}] does not exist"},
	"E0505": {Template: "App definition [{0}] does not exist"},
	"E0508": {Template: "User [{0}] not authorized for WF job [{1}]", HTTP: http.StatusUnauthorized},
	"E0509": {Template: "User [{0}] not authorized for Coord job [{1}]", HTTP: http.StatusUnauthorized},

	// Store and lookups.
	"E0603": {Template: "SQL error in operation, {0}"},
	"E0604": {Template: "Job does not exist [{0}]"},
	"E0605": {Template: "Action does not exist [{0}]"},
	"E0606": {Template: "Could not get lock [{0}], timed out [{1}]ms"},

	// Workflow definitions and commands.
	"E0701": {Template: "XML schema error, {0}", Class: KindError},
	"E0702": {Template: "IO error, {0}"},
	"E0705": {Template: "Nnode already defined, node [{0}]"},
	"E0706": {Template: "Node cannot transition to itself node [{0}]"},
	"E0707": {Template: "Loop detected at parsing, node [{0}]"},
	"E0708": {Template: "Invalid transition, node [{0}] transition [{1}]"},
	"E0710": {Template: "Could not read the workflow definition, {0}"},
	"E0711": {Template: "Invalid application URI [{0}], {1}"},
	"E0717": {Template: "Workflow not suspended"},
	"E0719": {Template: "Job already started"},
	"E0723": {Template: "Unsupported action type, node [{0}] type [{1}]"},
	"E0724": {Template: "Invalid node name, {0}"},
	"E0725": {Template: "Workflow instance can not be killed, {0}"},
	"E0727": {Template: "Workflow Job can not be suspended as its not in running state, {0}, Status: {1}"},
	"E0729": {Template: "Kill node message [{0}]"},
	"E0730": {Template: "Fork/Join not in pair"},
	"E0733": {Template: "Fork [{0}] without a join"},
	"E0736": {Template: "Workflow definition length [{0}] exceeded maximum allowed length [{1}]"},
	"E0737": {Template: "Invalid transition from node [{0}] to node [{1}] -- nodes of type 'end' are not allowed within Fork/Join"},
	"E0738": {Template: "The following {0} parameters are required but were not defined and no default values are available: {1}"},
	"E0739": {Template: "Parameter name cannot be empty"},
	"E0742": {Template: "No Fork for Join [{0}] to pair with"},
	"E0743": {Template: "Multiple \"ok to\" transitions to the same node, [{0}], are not allowed"},
	"E0744": {Template: "A fork, [{0}], is not allowed to have multiple transitions to the same node, [{1}]"},
	"E0756": {About: "the message of a kill node cannot be resolved"},
	"E0757": {About: "the paths of one fork end in different joins"},

	// Reruns and properties.
	"E0804": {Template: "Disallowed default property [{0}]"},
	"E0805": {Template: "Workflow job not completed, status [{0}]"},
	"E0807": {Template: "Some skip actions were not executed [{0}]"},
	"E0808": {Template: "Disallowed user property [{0}]"},

	// Hadoop access.
	"E0902": {Template: "Exception occured: [{0}]", Class: KindFailed},
	"E0904": {Template: "Scheme [{0}] not supported in uri [{1}]", Class: KindError},
	"E0906": {Template: "URI parsing error, {0}", Class: KindError},

	// Coordinators.
	"E1003": {Template: "Invalid coordinator application attributes, {0}"},
	"E1004": {Template: "Expression language evaluation error, {0}"},
	"E1010": {Template: "Invalid data in coordinator xml. [{0}]"},
	"E1015": {Template: "Invalid coordinator job change value {0}, {1}"},
	"E1016": {Template: "Cannot change a killed coordinator job"},
	"E1018": {Template: "Coord Job Rerun Error: {0}"},
	"E1020": {Template: "Could not kill coord job, this job either finished successfully or does not exist , [{0}]"},
	"E1021": {Template: "Coord Action Input Check Error: {0}"},
	"E1022": {Template: "Cannot delete running/completed coordinator action: [{0}]"},
	"E1023": {Template: "Coord Job update Error: [{0}]"},
	"E1024": {Template: "Cannot run ignore command: [{0}]"},
	"E1027": {Template: "SLA change command failed. {0}"},
	"E1028": {Template: "Coord input logic error. {0}"},

	// Bundle definitions, submissions and commands (Oozie's E13xx).
	"E1301": {Template: "Could not read the bundle job definition, [{0}]"},
	"E1302": {Template: "Invalid bundle application URI [{0}], {1}"},
	"E1303": {Template: "Invalid bundle application attributes [{0}], {1}"},
	"E1304": {Template: "Duplicate bundle application coordinator name [{0}]"},
	"E1305": {Template: "Empty bundle application coordinator name."},
	"E1306": {Template: "Could not read the bundle job configuration, [{0}]"},
	"E1307": {Template: "Could not read the bundle coord job configuration, [{0}]"},
	"E1308": {Template: "Bundle Action Status  [{0}] is not matching with coordinator previous status [{1}]."},
	"E1309": {Template: "Bundle Action for bundle ID  [{0}] and Coordinator [{1}] could not be update by BundleStatusUpdateXCommand"},
	"E1310": {Template: "Bundle Job submission Error: [{0}]"},
	"E1311": {Template: "Bundle Action for bundle ID  [{0}] not found"},
	"E1312": {Template: "Bundle Job can not be suspended as job finished or failed or killed, id : {0}, status : {1}"},
	"E1313": {Template: "Bundle Job can not be changed as job finished, {0}, Status: {1}"},
	"E1314": {Template: "Bundle Job can not be changed as job does not exist, {0}"},
	"E1315": {Template: "Bundle job can not be paused, {0}"},
	"E1316": {Template: "Bundle job can not be unpaused, {0}"},
	"E1317": {Template: "Invalid bundle job change value {0}, {1}"},
	"E1318": {Template: "No coord jobs for the bundle=[{0}], fail the bundle"},
	"E1319": {Template: "Invalid bundle coord job namespace, [{0}]"},
	"E1320": {Template: "Bundle Job change error, [{0}]"},
	"E1321": {Template: "Error evaluating coord name, [{0}]"},
	"E1322": {Template: "Bundle status transit error: [{0}]"},

	// Proxy users and notifications.
	"E1400": {Template: "doAs (proxyuser) failure", HTTP: http.StatusUnauthorized},
	"E1603": {Template: "Invalid user request"},

	// Codes of the workflow engine without an ErrorCode template.
	"EL_ERROR": {About: "an EL expression of a node could not be evaluated"},
	"SUBWF001": {About: "sub-workflow nesting deeper than allowed"},
	"CRASH001": {About: "the action's process ended without reporting (gozie)"},
	"GZ001":    {About: "gozie's own refusal of a definition Oozie would misread"},

	// Java action executor (JavaActionExecutor).
	"JA002": {About: "the action cannot run as the job's user", Class: KindNonTransient},
	"JA008": {About: "file not found / tool missing", Class: KindError},
	"JA009": {About: "I/O failure", Class: KindTransient},
	"JA017": {About: "the launcher is gone", Class: KindError},
	"JA018": {About: "the launcher failed", Class: KindError},
	"JA019": {About: "the launched program failed", Class: KindError},
	"JA020": {About: "a credential type that cannot be obtained (not configured)", Class: KindError},
	"JA021": {About: "an action names a credential its workflow does not define", Class: KindError},

	// fs action (FsActionExecutor).
	"FS001": {About: "path without scheme", Class: KindError},
	"FS004": {About: "mkdir failed", Class: KindError},
	"FS005": {About: "delete failed", Class: KindError},
	"FS006": {About: "move: source does not exist", Class: KindError},
	"FS007": {About: "move: target on another file system", Class: KindError},
	"FS008": {About: "move failed", Class: KindError},
	"FS009": {About: "glob matched nothing", Class: KindError},
	"FS010": {About: "invalid permissions", Class: KindError},
	"FS011": {About: "relative path", Class: KindError},
	"FS012": {About: "move: several sources to a file", Class: KindError},
	"FS013": {About: "glob over the maximum matches", Class: KindError},
	"FS014": {About: "permission denied", Class: KindError},

	// email action (EmailActionExecutor).
	"EM001": {About: "no recipient", Class: KindError},
	"EM002": {About: "bad from address", Class: KindError},
	"EM004": {About: "bad address", Class: KindError},
	"EM005": {About: "message cannot be built", Class: KindError},
	"EM006": {About: "mail transport failure", Class: KindError},
	"EM007": {About: "sending failed", Class: KindError},
	"EM008": {About: "attachment failure", Class: KindError},

	// git action.
	"GIT010": {About: "invalid git action configuration", Class: KindError},

	// ssh action (SshActionExecutor).
	"SETUP_FAILED":              {About: "remote setup failed", Class: KindError},
	"EXECUTION_FAILED":          {About: "remote command failed", Class: KindError},
	"UNKNOWN_ERROR":             {About: "ssh failed for an unknown reason", Class: KindError},
	"COULD_NOT_CONNECT":         {About: "ssh connection failed", Class: KindTransient},
	"COULD_NOT_RESOLVE_HOST":    {About: "host name not resolved", Class: KindTransient},
	"FNF":                       {About: "remote file not found", Class: KindError},
	"AUTH_FAILED":               {About: "ssh authentication failed", Class: KindNonTransient},
	"NO_EXEC_PERM":              {About: "remote script not executable", Class: KindError},
	"ERR_USER_MISMATCH":         {About: "ssh user differs from the job's user", Class: KindError},
	"ERR_OUTPUT_EXCEED_MAX_LEN": {About: "captured output too long", Class: KindError},
	"FAILED_TO_KILL":            {About: "remote process could not be killed", Class: KindError},
}

// Lookup returns the catalogue entry of code.
func Lookup(code string) (Entry, bool) {
	e, ok := entries[code]
	if !ok {
		return Entry{}, false
	}
	e.Code = code
	if e.HTTP == 0 {
		e.HTTP = http.StatusBadRequest
	}
	return e, true
}

// HTTPStatus returns the status a refusal with code is sent with: the
// catalogue's, or 400 (Bad Request) for a code it does not list.
func HTTPStatus(code string) int {
	if e, ok := Lookup(code); ok {
		return e.HTTP
	}
	return http.StatusBadRequest
}

// Codes returns every catalogued code, in no particular order.
func Codes() []string {
	out := make([]string, 0, len(entries))
	for c := range entries {
		out = append(out, c)
	}
	return out
}
