package launch

import (
	"strings"

	"github.com/gozie/gozie/internal/action"

	"github.com/gozie/gozie/internal/redact"
)

// LaunchEnvKeep names variables passed to steps although stepEnv would
// drop them for their name.
var LaunchEnvKeep = action.DeclareSiteKey("gozie.launch.env.keep", "",
	"comma list of environment variables of the server passed to steps although their names look secret (e.g. AWS_ACCESS_KEY_ID,AWS_SECRET_ACCESS_KEY); GOZIE_* variables are never passed")

// secretEnvWords are the name parts of variables that hold credentials:
// a step never gets the server's value of one (unless listed in
// gozie.launch.env.keep).
var secretEnvWords = []string{"SECRET", "PASSWORD", "PASSWD", "TOKEN", "CREDENTIAL", "KEY", "DSN"}

// StepEnv is the environment a step's program starts from: the server's
// environment without what belongs to the server alone. Every GOZIE_*
// variable is dropped (the server's configuration, its authentication
// secret and tokens among them), as is every variable whose name holds
// SECRET, PASSWORD, PASSWD, TOKEN, CREDENTIAL, KEY or DSN (any case:
// PGPASSWORD, AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, ...) and every variable
// whose value carries a password (a DSN or URL with user:password@, a
// password= setting), unless keep (a comma list of names) names it. Oozie's
// launchers ran in YARN containers that never saw the server's
// environment; a step sees the host's tools (PATH, JAVA_HOME,
// HADOOP_CONF_DIR, ...) and its action's own variables.
func StepEnv(environ []string, keep string) []string {
	kept := map[string]bool{}
	for _, n := range strings.Split(keep, ",") {
		if n = strings.TrimSpace(n); n != "" {
			kept[n] = true
		}
	}
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(strings.ToUpper(name), "GOZIE_") {
			continue
		}
		if !kept[name] && (secretEnvName(name) || redact.Secrets(value) != value) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// secretEnvName reports whether an environment variable's name says it
// holds a credential.
func secretEnvName(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range secretEnvWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
