package launch

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"github.com/gozie/gozie/internal/action"

	"github.com/gozie/gozie/internal/osuser"
)

// CodeRunAsUser is the error of an action that must run as its job's user
// (Options.RunAsUser) when that user cannot be used: unknown to the
// operating system, or root. Oozie has no code of its own for this (YARN's
// container executor refuses such users); gozie uses JA002, in the JA
// family of launcher errors, and the error is non-transient: the job is
// suspended (START_MANUAL) until someone fixes the user or kills the job.
const CodeRunAsUser = "JA002"

// RunAs is the identity of the job's user when the server runs processes
// and file-system work as that user: the program gets it as its
// credential, and the server's own work for the job (prepare, fs, staging
// files, reading what the job names) runs through osuser.Do with it.
type RunAs = osuser.User

// runAsOf resolves a job's user to the uid, gid and supplementary groups
// the work will run with; osuser.Lookup refuses root and unknown users,
// which are JA002 here.
func runAsOf(name string) (*RunAs, error) {
	u, err := osuser.Lookup(name)
	switch {
	case err == nil:
		return u, nil
	case errors.Is(err, osuser.ErrNoUser):
		return nil, action.Errorf(action.NonTransient, CodeRunAsUser, "cannot run the action as the job's user: the job has no user")
	case errors.Is(err, osuser.ErrUnknown), errors.Is(err, osuser.ErrRoot):
		return nil, action.Errorf(action.NonTransient, CodeRunAsUser, "cannot run the action as user [%s]: %v", name, err)
	}
	return nil, action.Errorf(action.NonTransient, CodeRunAsUser, "cannot run the action as user [%s]: %v", name, err)
}

// RunAsIf is runAsOf when opts asks for it, else nil: the server's own
// identity.
func RunAsIf(opts Options, name string) (*RunAs, error) {
	if !opts.RunAsUser {
		return nil, nil
	}
	return runAsOf(name)
}

// AsUser runs fn with r's file-system permission checks (osuser.Do); a
// nil r runs fn as the server.
func AsUser(r *RunAs, fn func() error) error { return osuser.Do(r, fn) }

// giveDir makes the work directory itself the user's before anything is
// staged in it, so that what the job's own work creates there (as the
// user, through asUser) and what its program writes are the user's. The
// launcher's files were reserved in it before, by the server: they stay
// the server's, and the launcher opens them without following links.
func giveDir(dir string, r *RunAs) error {
	return os.Lchown(dir, int(r.UID), int(r.GID))
}

// credential is the process credential of the program.
func credential(r *RunAs) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: r.UID, Gid: r.GID, Groups: r.Groups}}
}

// runAsEnv replaces the identity variables of env with r's.
func runAsEnv(r *RunAs, env []string) []string {
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		switch {
		case hasName(kv, "USER"), hasName(kv, "LOGNAME"), hasName(kv, "HOME"):
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "USER="+r.Name, "LOGNAME="+r.Name)
	if r.Home != "" {
		out = append(out, "HOME="+r.Home)
	}
	return out
}

func hasName(kv, name string) bool {
	return len(kv) > len(name) && kv[:len(name)] == name && kv[len(name)] == '='
}

// ownedBySelf reports whether the file at p is owned by this process's
// effective user. With RunAsUser the work directory belongs to the job's
// user, who could plant a pid file naming another process group for the
// server to signal; such a file is ignored.
func ownedBySelf(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Geteuid()
}
