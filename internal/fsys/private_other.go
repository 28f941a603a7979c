//go:build !unix

package fsys

import "context"

// ReadPrivateFile reads a local file that holds a secret. Without Unix
// permissions there is nothing to check beyond ReadFileLimit's bounds.
func ReadPrivateFile(ctx context.Context, p string, max int64) ([]byte, error) {
	return ReadFileLimit(ctx, p, max)
}
