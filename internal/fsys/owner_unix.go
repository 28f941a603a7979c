//go:build unix

package fsys

import (
	"io/fs"
	"strconv"
	"syscall"
)

// ownerOf returns the numeric owner and group of a local file: names
// would cost a lookup per file listed, and nothing decides on them.
func ownerOf(fi fs.FileInfo) (string, string) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return strconv.FormatUint(uint64(st.Uid), 10), strconv.FormatUint(uint64(st.Gid), 10)
	}
	return "", ""
}
