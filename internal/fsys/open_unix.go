//go:build unix

package fsys

import (
	"os"
	"syscall"
)

// openNoBlock opens name for reading with O_NONBLOCK, so that opening a FIFO
// with no writer returns at once instead of waiting for one; the caller
// then refuses it. Regular files ignore the flag.
func openNoBlock(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
