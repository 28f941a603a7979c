//go:build !unix

package fsys

import "os"

// openNoBlock opens name for reading; systems without FIFOs in the Unix
// sense need no special flag.
func openNoBlock(name string) (*os.File, error) { return os.Open(name) }
