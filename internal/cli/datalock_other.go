//go:build !unix

package cli

// lockDataDir is a no-op where flock(2) does not exist.
func lockDataDir(dir string) (func(), error) { return func() {}, nil }
