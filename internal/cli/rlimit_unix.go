//go:build unix

package cli

import "syscall"

// openFileLimit returns the soft limit on open files (ulimit -n), 0 when
// unknown or unlimited (RLIM_INFINITY is above the 2^30 cut).
func openFileLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 0
	}
	return int(rl.Cur)
}
