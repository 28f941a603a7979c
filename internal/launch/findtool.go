package launch

import (
	"os/exec"
	"path/filepath"

	"github.com/gozie/gozie/internal/action"
)

// CodeToolMissing is the error of an action whose external tool (java,
// hadoop, pig, ...) is not installed where the server looks: Oozie's code
// for a file that is not found (JA008), an error of the action rather than
// a transient failure, since retrying does not install the tool.
const CodeToolMissing = "JA008"

// FindTool locates the executable name of an external tool: home/bin/name
// when the server key homeKey names a home directory, else name on PATH.
// A missing tool is CodeToolMissing naming the tool and the key. The
// message says "PATH", not "the server's PATH": gozie run looks up tools
// the same way, and there is no server there.
func (o Options) FindTool(name, homeKey string) (string, error) {
	if home := o.Setting(homeKey); home != "" {
		p := filepath.Join(home, "bin", name)
		if _, err := exec.LookPath(p); err != nil {
			return "", action.Errorf(action.ErrorKindError, CodeToolMissing, "%s not found: %s is set to [%s] but %s is not an executable file", name, homeKey, home, p)
		}
		return p, nil
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", action.Errorf(action.ErrorKindError, CodeToolMissing, "%s not found on PATH; install it or set %s to its home directory (the one holding bin/%s)", name, homeKey, name)
	}
	return p, nil
}

// HadoopHome is where the Hadoop installation is, for the action types
// that need a cluster (Java map-reduce, pipes, distcp beyond file://).
var HadoopHome = action.DeclareSiteKey("gozie.hadoop.home", "", "Hadoop installation (the directory holding bin/hadoop and bin/mapred) used by map-reduce jobs that are not local streaming, pipes and distcp beyond file://; empty: hadoop on PATH")
