package conf

import (
	"path"
	"strings"
)

// JoinAppPath joins name to an application directory: a plain path or a
// URI whose scheme://authority must survive (path.Join would fold "//").
// The submissions of coordinators and bundles find their definition and
// defaults file with it.
func JoinAppPath(dir, name string) string {
	if !strings.Contains(dir, "://") {
		return path.Join(dir, name)
	}
	return strings.TrimSuffix(dir, "/") + "/" + name
}

// AppPathDir returns the directory holding p, a plain path or a URI (its
// scheme://authority kept).
func AppPathDir(p string) string {
	i := strings.Index(p, "://")
	if i < 0 {
		return path.Dir(p)
	}
	rest := p[i+3:]
	j := strings.IndexByte(rest, '/')
	if j < 0 {
		return p
	}
	return p[:i+3+j] + path.Dir(rest[j:])
}
