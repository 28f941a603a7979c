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

// absoluteAppPaths rewrites a relative local application path in props
// into an absolute file:// URI. Oozie applications name HDFS URIs; gozie
// also runs applications from a local checkout, and a path relative to the
// directory the command runs in would mean another directory to a server
// started elsewhere, or nothing to ${oozie.wf.application.path}-based
// properties such as appDir. URIs and EL references are left alone.
func absoluteAppPaths(props *conf.Config) error {
	for _, key := range appPathKeys {
		p, ok := props.Raw(key)
		p = strings.TrimSpace(p)
		if !ok || p == "" || strings.Contains(p, "://") || strings.Contains(p, "${") {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		props.Set(key, "file://"+filepath.ToSlash(abs))
	}
	return nil
}

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
