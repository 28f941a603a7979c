//go:build !(linux && (amd64 || arm64 || ppc64 || ppc64le || s390x || riscv64 || loong64 || mips64 || mips64le))

package osuser

func (u *User) do(func() error) error { return ErrUnsupported }
