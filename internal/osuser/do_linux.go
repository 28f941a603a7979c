//go:build linux && (amd64 || arm64 || ppc64 || ppc64le || s390x || riscv64 || loong64 || mips64 || mips64le)

package osuser

import (
	"fmt"
	"runtime"
	"syscall"
	"unsafe"
)

// do runs fn on an operating-system thread of its own whose file-system
// user and group ids and supplementary groups are u's. Linux keeps these
// per thread (setfsuid(2), and setgroups(2) when called as a raw system
// call rather than through Go's syscall.Setgroups, which changes every
// thread); a thread whose fsuid is not 0 also loses the capabilities that
// let root bypass file permissions (capabilities(7)). The thread is
// locked to the goroutine and never unlocked, so the Go runtime ends it
// with the goroutine and no other goroutine ever runs with the changed
// identity; threads the runtime creates meanwhile are cloned from its
// template thread, not from this one.
func (u *User) do(fn func() error) error {
	type outcome struct {
		err   error
		panic any
	}
	done := make(chan outcome, 1)
	go func() {
		runtime.LockOSThread()
		var out outcome
		defer func() {
			if p := recover(); p != nil {
				out.panic = p
			}
			done <- out
		}()
		if out.err = u.become(); out.err != nil {
			return
		}
		out.err = fn()
	}()
	out := <-done
	if out.panic != nil {
		panic(out.panic)
	}
	return out.err
}

// become gives the calling thread u's file-system identity and checks
// that the kernel took it: setfsuid and setfsgid report no errors, and
// without the privilege they leave the ids as they were.
func (u *User) become() error {
	var groups unsafe.Pointer
	if len(u.Groups) > 0 {
		groups = unsafe.Pointer(&u.Groups[0])
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETGROUPS, uintptr(len(u.Groups)), uintptr(groups), 0); e != 0 {
		return fmt.Errorf("acting as user [%s]: setting groups: %w (the server must run as root)", u.Name, e)
	}
	syscall.RawSyscall(syscall.SYS_SETFSGID, uintptr(u.GID), 0, 0)
	syscall.RawSyscall(syscall.SYS_SETFSUID, uintptr(u.UID), 0, 0)
	// An invalid id (-1) changes nothing and returns the current one.
	gid, _, _ := syscall.RawSyscall(syscall.SYS_SETFSGID, ^uintptr(0), 0, 0)
	uid, _, _ := syscall.RawSyscall(syscall.SYS_SETFSUID, ^uintptr(0), 0, 0)
	if uint32(uid) != u.UID || uint32(gid) != u.GID {
		return fmt.Errorf("acting as user [%s]: the kernel kept file-system ids %d:%d instead of %d:%d (the server must run as root)",
			u.Name, uint32(uid), uint32(gid), u.UID, u.GID)
	}
	return nil
}
