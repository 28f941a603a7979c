package action

import (
	"os/exec"
	"path/filepath"
	"sort"
)

// SiteKey is one server configuration key (gozie-site.xml) read by an
// executor of this package, with its default and what it does. The server
// lists them with its own keys (server.ConfigKeys), so that each is
// documented, defaulted and overridable by the environment like any other.
type SiteKey struct {
	Name    string
	Default string
	Doc     string
}

// siteKeys are the keys declared by the executors, each in its own file.
var siteKeys []SiteKey

// siteKey declares a key; it is called from package-level var
// declarations, so that a key lives next to the code that reads it.
func siteKey(name, def, doc string) string {
	siteKeys = append(siteKeys, SiteKey{Name: name, Default: def, Doc: doc})
	return name
}

// SiteKeys returns the keys the executors read, sorted by name.
func SiteKeys() []SiteKey {
	out := append([]SiteKey(nil), siteKeys...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// CodeToolMissing is the error of an action whose external tool (java,
// hadoop, pig, ...) is not installed where the server looks: Oozie's code
// for a file that is not found (JA008), an error of the action rather than
// a transient failure, since retrying does not install the tool.
const CodeToolMissing = "JA008"

// findTool locates the executable name of an external tool: home/bin/name
// when the server key homeKey names a home directory, else name on PATH.
// A missing tool is CodeToolMissing naming the tool and the key.
func (o Options) findTool(name, homeKey string) (string, error) {
	if home := o.site(homeKey); home != "" {
		p := filepath.Join(home, "bin", name)
		if _, err := exec.LookPath(p); err != nil {
			return "", Errorf(ErrorKindError, CodeToolMissing, "%s not found: %s is set to [%s] but %s is not an executable file", name, homeKey, home, p)
		}
		return p, nil
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", Errorf(ErrorKindError, CodeToolMissing, "%s not found on the server's PATH; install it or set %s to its home directory (the one holding bin/%s)", name, homeKey, name)
	}
	return p, nil
}

// hadoopHome is where the Hadoop installation is, for the action types
// that need a cluster (Java map-reduce, pipes, distcp beyond file://).
var hadoopHome = siteKey("gozie.hadoop.home", "", "Hadoop installation (the directory holding bin/hadoop and bin/mapred) used by map-reduce jobs that are not local streaming, pipes and distcp beyond file://; empty: hadoop on PATH")
