package server

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/rest"
)

// shareLibRoot is the configured root of the system share library
// (gozie.sharelib.dir), "" when none.
func (s *Server) shareLibRoot() string {
	return strings.TrimSpace(s.opts.Config[launch.ShareLibDirKey])
}

// listShareLib answers admin/list_sharelib (rest-api.md 2): the libraries
// of the share library, each subdirectory of its current directory; with
// lib=<regular expression>, the libraries whose whole name it matches,
// with their files. A server without a share library lists none.
func (s *Server) listShareLib(w http.ResponseWriter, r *http.Request) error {
	var match func(string) bool
	if q := r.URL.Query(); q.Has("lib") {
		// Java's Pattern.matches: the whole name must match.
		re, err := regexp.Compile(`^(?:` + q.Get("lib") + `)$`)
		if err != nil {
			return errParamValue("lib", q.Get("lib"))
		}
		match = re.MatchString
	}
	out := rest.ShareLibs{ShareLib: []rest.ShareLib{}}
	root := s.shareLibRoot()
	if root == "" {
		writeJSON(w, out)
		return nil
	}
	_, libs, err := launch.ListShareLib(r.Context(), root, match)
	if err != nil {
		return errorf(http.StatusInternalServerError, "E0307", "Runtime error [%s]", err.Error())
	}
	for _, l := range libs {
		out.ShareLib = append(out.ShareLib, rest.ShareLib{Name: l.Name, Files: l.Files})
	}
	writeJSON(w, out)
	return nil
}

// shareLibUpdate is the answer of admin/update_sharelib for one server.
type shareLibUpdate struct {
	Host   string `json:"host"`
	Status string `json:"status"`
	Old    string `json:"sharelibDirOld"`
	New    string `json:"sharelibDirNew"`
}

// updateShareLib answers admin/update_sharelib: it scans the share
// library again and reports the directory in use before and after, as
// Oozie's ShareLibService does after a new lib_<timestamp> was installed.
// Actions read the share library when they start, so the scan changes
// what the next ones use at once; this reports it and checks that the
// directory can be read. Admins only, when authorization is on. Every
// server of a cluster reads gozie.sharelib.dir itself: the answer is this
// server's.
func (s *Server) updateShareLib(w http.ResponseWriter, r *http.Request, c *call) error {
	if s.auth.opts.Authorization && !s.auth.isAdmin(c.user) {
		return s.auth.errNotAdmin(c.user)
	}
	root := s.shareLibRoot()
	s.mu.Lock()
	old := s.shareLibDir
	s.mu.Unlock()
	u := shareLibUpdate{Host: s.opts.BaseURL, Old: old}
	if root == "" {
		u.Status = "no share library: " + launch.ShareLibDirKey + " is not set in the server configuration"
		writeJSON(w, map[string]shareLibUpdate{"sharelibUpdate": u})
		return nil
	}
	cur, libs, err := launch.ListShareLib(r.Context(), root, nil)
	u.New = cur
	if u.Old == "" {
		u.Old = cur
	}
	if err != nil {
		u.Status = err.Error()
	} else {
		u.Status = "Successful"
		if len(libs) == 0 {
			u.Status = "Successful (the share library holds no library directory)"
		}
		s.mu.Lock()
		s.shareLibDir = cur
		s.mu.Unlock()
	}
	writeJSON(w, map[string]shareLibUpdate{"sharelibUpdate": u})
	return nil
}
