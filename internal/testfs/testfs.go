// Package testfs gives tests a real full disk: a small tmpfs mounted for
// the test and filled up. Mounting needs root (CAP_SYS_ADMIN); elsewhere
// the tests that need it are skipped with the reason, and the fault
// injection tests of each package cover the same paths.
package testfs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of the given size (such as "512k") on dir, creating
// dir, and unmounts it when the test ends. It skips the test when mounting
// is not permitted.
func Mount(t testing.TB, dir, size string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a tmpfs as a full disk; the fault injection tests cover this path")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0755"); err != nil {
		t.Skipf("cannot mount a tmpfs on %s (%v); the fault injection tests cover this path", dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			// Something still holds it (a process of the test); detach so
			// that the mount goes as soon as it is free.
			_ = syscall.Unmount(dir, syscall.MNT_DETACH)
		}
	})
}

// Fill writes the file path until the file system holding it is full and
// returns a function that frees the space again.
func Fill(t testing.TB, path string) (free func()) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling %s: %v", filepath.Dir(path), err)
			}
			break
		}
	}
	f.Close()
	return func() {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
}
