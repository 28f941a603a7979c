package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// privateLauncherDir removes the group and other bits of the launch
// supervisor's directory (<data>/launcher) when an older version or an
// operator left them: it holds the supervisor's socket, which accepts
// requests to run programs, and its log. The supervisor creates it 0700
// but never narrows one that exists. logf is told when it was narrowed.
func privateLauncherDir(dataDir string, logf func(string, ...any)) error {
	p := filepath.Join(dataDir, "launcher")
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if perm := fi.Mode().Perm(); fi.IsDir() && perm&0o077 != 0 {
		if err := os.Chmod(p, perm&^0o077); err != nil {
			return fmt.Errorf("launcher directory: %w", err)
		}
		logf("gozie: made %s (was %#o) private (mode %#o): it holds the launch supervisor's socket and log", p, perm, perm&^0o077)
	}
	return nil
}
