package action

import (
	"errors"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// CodeRunAsUser is the error of an action that must run as its job's user
// (Options.RunAsUser) when that user cannot be used: unknown to the
// operating system, or root. Oozie has no code of its own for this (YARN's
// container executor refuses such users); gozie uses JA002, in the JA
// family of launcher errors, and the error is non-transient: the job is
// suspended (START_MANUAL) until someone fixes the user or kills the job.
const CodeRunAsUser = "JA002"

// RunAs is the identity the launcher gives the program when the server runs
// processes as the job's user.
type RunAs struct {
	User   string   `json:"user"`
	UID    uint32   `json:"uid"`
	GID    uint32   `json:"gid"`
	Groups []uint32 `json:"groups,omitempty"`
	Home   string   `json:"home,omitempty"`
}

// lookupUser is user.Lookup, a variable for tests.
var lookupUser = user.Lookup

// runAsOf resolves a job's user to the uid, gid and supplementary groups
// the program will run with. root is refused: running a step as root is
// what the server does without this option, so asking for it per job is
// almost always a mistake (a job submitted by root through a proxy, a
// default user) that would hand out the server's full power.
func runAsOf(name string) (*RunAs, error) {
	if name == "" {
		return nil, Errorf(NonTransient, CodeRunAsUser, "cannot run the action as the job's user: the job has no user")
	}
	u, err := lookupUser(name)
	if err != nil {
		var unknown user.UnknownUserError
		if errors.As(err, &unknown) {
			return nil, Errorf(NonTransient, CodeRunAsUser, "cannot run the action as user [%s]: no such user on this host", name)
		}
		return nil, Errorf(NonTransient, CodeRunAsUser, "cannot run the action as user [%s]: %v", name, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, Errorf(NonTransient, CodeRunAsUser, "cannot run the action as user [%s]: uid %q, gid %q are not numeric", name, u.Uid, u.Gid)
	}
	if uid == 0 {
		return nil, Errorf(NonTransient, CodeRunAsUser, "cannot run the action as user [%s]: actions never run as root when gozie.launch.as.user is set", name)
	}
	r := &RunAs{User: u.Username, UID: uint32(uid), GID: uint32(gid), Home: u.HomeDir}
	gids, err := u.GroupIds()
	if err != nil {
		return nil, Errorf(NonTransient, CodeRunAsUser, "cannot run the action as user [%s]: groups: %v", name, err)
	}
	for _, g := range gids {
		if n, err := strconv.ParseUint(g, 10, 32); err == nil {
			r.Groups = append(r.Groups, uint32(n))
		}
	}
	return r, nil
}

// giveWorkDir makes the work directory and what prepare put in it the
// user's, so that the program can write its outputs there. The launcher's
// own files (its spec, pid and status reserves, stdout, stderr, its log)
// stay the server's: the launcher writes them as root and opens them
// without following links, and the executor trusts a pid or status file
// only when the server owns it.
func giveWorkDir(dir string, r *RunAs) error {
	own := map[string]bool{SpecFile: true, PIDFile: true, StatusFile: true, StdoutFile: true, StderrFile: true,
		launcherLog: true, pidReserveFile: true, statusReserveFile: true}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if filepath.Dir(p) == dir && own[d.Name()] {
			return nil
		}
		return os.Lchown(p, int(r.UID), int(r.GID))
	})
}

// credential is the process credential of the program.
func (r *RunAs) credential() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: r.UID, Gid: r.GID, Groups: r.Groups}}
}

// env replaces the identity variables of env with the user's.
func (r *RunAs) env(env []string) []string {
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		switch {
		case hasName(kv, "USER"), hasName(kv, "LOGNAME"), hasName(kv, "HOME"):
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "USER="+r.User, "LOGNAME="+r.User)
	if r.Home != "" {
		out = append(out, "HOME="+r.Home)
	}
	return out
}

func hasName(kv, name string) bool {
	return len(kv) > len(name) && kv[:len(name)] == name && kv[len(name)] == '='
}

// openOwn opens one of the launcher's own files for writing, refusing
// what the job's user could have put under its name in a directory that
// user owns (RunAsUser): a symbolic link, a hard link (more than one
// name), a file of someone else. trunc empties it only once it is known
// to be ours.
func openOwn(path string, flag int, trunc bool) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); !fi.Mode().IsRegular() || !ownedBySelf(fi) || (ok && st.Nlink != 1) {
			err = &os.PathError{Op: "open", Path: path, Err: errors.New("not a private regular file of the launcher")}
		}
	}
	if err == nil && trunc {
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ownedBySelf reports whether the file at p is owned by this process's
// effective user. With RunAsUser the work directory belongs to the job's
// user, who could plant a pid file naming another process group for the
// server to signal; such a file is ignored.
func ownedBySelf(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Geteuid()
}
