package action

import (
	"os"
	"path/filepath"
	"strconv"
)

// WorkDir is the work directory of one attempt of an action:
// DATA/actions/<action id>.<attempt>, e.g.
// actions/0000001-261126205235434-oozie-root-W@s1.0. One directory per
// attempt, not one per action with one per attempt inside: on ext4 each
// new directory is an inode to allocate, a measurable part of a short
// step (docs/benchmarks.md). Node names hold no dot, and the attempt is
// the part after the last one, so names never collide.
//
// Attempts started by earlier versions live in DATA/actions/<id>/<attempt>;
// that directory is returned when it exists, so that a step begun before
// an upgrade is found again, never started a second time.
func WorkDir(dataDir, actionID string, attempt int) string {
	n := strconv.Itoa(attempt)
	dir := filepath.Join(dataDir, "actions", actionID+"."+n)
	if _, err := os.Lstat(dir); err != nil {
		legacy := filepath.Join(dataDir, "actions", actionID, n)
		if fi, err := os.Lstat(legacy); err == nil && fi.IsDir() {
			return legacy
		}
	}
	return dir
}
