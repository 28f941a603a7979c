package launch

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/gozie/gozie/internal/fsys"
)

// ShareLibDirKey is the server key of the system share library's root
// (gozie.sharelib.dir).
const ShareLibDirKey = "gozie.sharelib.dir"

// shareLibStamp is the name Oozie's sharelib tool gives each copy of the
// share library it installs: lib_<yyyyMMddHHmmss>.
var shareLibStamp = regexp.MustCompile(`^lib_[0-9]{14}$`)

// ShareLibRoot returns the directory the share library is read from:
// the newest lib_<yyyyMMddHHmmss> directory in root when root holds any
// (Oozie's share/lib as `oozie-setup.sh sharelib create` and a copy out
// of HDFS leave it; installing a newer one and running `gozie admin
// -sharelibupdate` switches to it, as with Oozie), else root itself. It
// is resolved at each action start, so no server needs restarting for a
// new copy; a root that cannot be listed is returned as it is, for the
// caller to report what is missing.
func ShareLibRoot(ctx context.Context, root string) string {
	list, err := fsys.Default().ListInfo(ctx, root)
	if err != nil {
		return root
	}
	newest := ""
	for _, fi := range list {
		if name := path.Base(strings.TrimSuffix(fi.Path, "/")); fi.Dir && shareLibStamp.MatchString(name) && name > newest {
			newest = name
		}
	}
	if newest == "" {
		return root
	}
	return childURI(root, newest)
}

// ShareLibrary is one library of the share library: a subdirectory of
// its root, with its files when they were asked for.
type ShareLibrary struct {
	Name  string
	Files []string
}

// ListShareLib lists the libraries of the share library under root (its
// current directory, ShareLibRoot), in name order: each subdirectory is a
// library. withFiles, when not nil, selects the libraries whose files are
// listed too (every file below the library's directory) and leaves the
// others out, as Oozie's list_sharelib does for its lib= pattern. It
// returns the directory it listed.
func ListShareLib(ctx context.Context, root string, withFiles func(name string) bool) (string, []ShareLibrary, error) {
	if strings.TrimSpace(root) == "" {
		return "", nil, fmt.Errorf("no share library: %s is not set", ShareLibDirKey)
	}
	cur := ShareLibRoot(ctx, root)
	list, err := fsys.Default().ListInfo(ctx, cur)
	if err != nil {
		return cur, nil, fmt.Errorf("share library %s [%s] cannot be listed: %w", ShareLibDirKey, cur, err)
	}
	var libs []ShareLibrary
	for _, fi := range list {
		name := path.Base(strings.TrimSuffix(fi.Path, "/"))
		if !fi.Dir || strings.HasPrefix(name, ".") || shareLibStamp.MatchString(name) {
			continue
		}
		lib := ShareLibrary{Name: name}
		if withFiles != nil {
			if !withFiles(name) {
				continue
			}
			if lib.Files, err = libFiles(ctx, fi.Path); err != nil {
				return cur, nil, err
			}
		}
		libs = append(libs, lib)
	}
	sort.Slice(libs, func(i, j int) bool { return libs[i].Name < libs[j].Name })
	return cur, libs, nil
}

// maxShareLibFiles bounds the files listed for one library: a root
// pointed at a large tree by mistake must not make an answer of millions
// of lines.
const maxShareLibFiles = 10000

// libFiles lists every file below dir, in path order.
func libFiles(ctx context.Context, dir string) ([]string, error) {
	var out []string
	pending := []string{dir}
	for len(pending) > 0 && len(out) < maxShareLibFiles {
		d := pending[0]
		pending = pending[1:]
		list, err := fsys.Default().ListInfo(ctx, d)
		if err != nil {
			return nil, fmt.Errorf("share library directory [%s] cannot be listed: %w", d, err)
		}
		for _, fi := range list {
			if fi.Dir {
				pending = append(pending, fi.Path)
			} else if len(out) < maxShareLibFiles {
				out = append(out, fi.Path)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}
