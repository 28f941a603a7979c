package cli

import (
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/gozie/gozie/internal/conf"
)

// appPathKeys are the job properties that name an application; a
// submission carries exactly one of them.
var appPathKeys = []string{
	"oozie.wf.application.path",
	"oozie.coord.application.path",
	"oozie.bundle.application.path",
}

// resolveAppPaths rewrites a relative local application path in props
// into an absolute path, joined to base (the directory of the -config file
// the value came from; "" for the working directory, where -D values are
// typed). Oozie applications name HDFS URIs; gozie also runs applications
// from a local checkout, and a relative path means one directory whatever
// the directory gozie runs in, to a local run and to a server started
// elsewhere alike.
//
// The result is a plain absolute path, not a file:// URI, on purpose: it
// is what the engine makes of a path in `gozie run`, so
// ${oozie.wf.application.path}-based properties (inputDir=${...}/data)
// expand to the same value, usable by a shell step, in `gozie run` and on a
// server. URIs, absolute paths and EL references are left alone.
func resolveAppPaths(props *conf.Config, base string) error {
	for _, key := range appPathKeys {
		p, ok := props.Raw(key)
		p = strings.TrimSpace(p)
		if !ok || p == "" || strings.Contains(p, "://") || strings.Contains(p, "${") || filepath.IsAbs(p) {
			continue
		}
		if base != "" {
			p = filepath.Join(base, p)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		props.Set(key, filepath.ToSlash(abs))
	}
	return nil
}

// absoluteAppPaths resolves the application paths still relative in props
// (those given with -D) against the working directory.
func absoluteAppPaths(props *conf.Config) error { return resolveAppPaths(props, "") }

// currentUser is the user commands act as when none is given: $USER, as
// the oozie command reports it, else the account running gozie.
func currentUser() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "gozie"
}
