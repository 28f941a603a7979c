//go:build !unix

package cli

// openFileLimit reports no limit where there is no ulimit -n.
func openFileLimit() int { return 0 }
