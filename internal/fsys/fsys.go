// Package fsys is gozie's file-system layer: the operations the fs action,
// the <prepare> blocks and the fs:* EL functions need, addressed by the path
// strings users write in workflow.xml.
//
// A path is either a URI with a scheme or a plain path:
//
//   - file:///abs/path, file:/abs/path and file://localhost/abs/path name
//     local files;
//   - plain paths (absolute or relative) are local too, which is what lets
//     gozie run Oozie applications on a laptop;
//   - every other scheme is served by the backend registered for it
//     (Register; internal/fsys/all imports hdfs, webhdfs, s3a, gs and
//     abfs), after the mount table (gozie.fs.mount.<prefix>=<prefix>) has
//     had its say. An unknown scheme is an *UnsupportedError that names
//     the schemes served and the mount key.
//
// The operations are package functions working on the process's
// namespace (Default, installed by the server with SetDefault) and
// Namespace methods; both take a context that may carry a job's store
// settings (WithConf) and user (WithUser).
// Results that name paths (List, Glob) keep the form of the input, so a
// file:// pattern yields file:// matches that can be handed back to any
// function here. File URIs are not percent-decoded: Hadoop's Path keeps such
// characters literally as well.
package fsys

import (
	"errors"
	"fmt"
	"os/user"
	"strconv"
	"strings"
)

// ErrUnsupported is matched (errors.Is) by every *UnsupportedError.
var ErrUnsupported = errors.New("file system not supported")

// UnsupportedError reports a path whose scheme no backend serves.
type UnsupportedError struct {
	Scheme string
	Path   string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("Scheme [%s] not supported in uri [%s]: this server reaches %s; map other stores onto one of them with %s<uri-prefix>=<uri-prefix>",
		e.Scheme, e.Path, strings.Join(Schemes(), ", "), MountKeyPrefix)
}

// Is makes errors.Is(err, ErrUnsupported) true.
func (e *UnsupportedError) Is(target error) bool { return target == ErrUnsupported }

// Scheme returns the URI scheme of p in lower case, or "" for a plain path.
func Scheme(p string) string {
	i := strings.IndexByte(p, ':')
	if i <= 0 {
		return ""
	}
	for j := 0; j < i; j++ {
		c := p[j]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if letter || j > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			continue
		}
		return ""
	}
	return strings.ToLower(p[:i])
}

// Authority returns the authority of a URI (host:port of hdfs://host:port/x),
// "" when p has none.
func Authority(p string) string {
	s := Scheme(p)
	if s == "" {
		return ""
	}
	rest := p[len(s)+1:]
	if !strings.HasPrefix(rest, "//") {
		return ""
	}
	rest = rest[2:]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[:i]
	}
	return rest
}

// split separates p into the prefix to keep on results ("file://", "file:"
// or "") and the local path.
func split(p string) (prefix, local string, err error) {
	switch Scheme(p) {
	case "":
		if p == "" {
			return "", "", fmt.Errorf("empty path")
		}
		return "", p, nil
	case "file":
		rest := p[len("file:"):]
		if !strings.HasPrefix(rest, "//") {
			return p[:len("file:")], rest, nil
		}
		auth := Authority(p)
		if auth != "" && auth != "localhost" {
			return "", "", fmt.Errorf("file URI [%s] names host [%s]: only local files are reachable", p, auth)
		}
		local = rest[2+len(auth):]
		if local == "" {
			local = "/"
		}
		return p[:len("file://")+len(auth)], local, nil
	default:
		return "", "", &UnsupportedError{Scheme: Scheme(p), Path: p}
	}
}

// Local returns the local file-system path p names when it is a plain
// path or a file: URI, without the mount table; an error for any other
// scheme. Resolve through a Namespace to follow mounts.
func Local(p string) (string, error) {
	_, l, err := split(p)
	return l, err
}

// LookupGroup returns the numeric id of a group name or id.
func LookupGroup(group string) (int, error) {
	if group == "" {
		return 0, errors.New("empty group name")
	}
	if gid, err := strconv.Atoi(group); err == nil && gid >= 0 {
		return gid, nil
	}
	g, err := user.LookupGroup(group)
	if err != nil {
		return 0, fmt.Errorf("unknown group [%s]", group)
	}
	return strconv.Atoi(g.Gid)
}
